#include "builder_util.h"

#include <cmath>

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/FMF.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "memjit/type_syntax.h"
#include "mutants.h"

namespace memjit::codegen::detail {

llvm::FastMathFlags toLLVM(FastMath flags) {
  llvm::FastMathFlags f;
  f.setAllowReassoc(has(flags, FastMath::Reassoc));
  f.setNoNaNs(has(flags, FastMath::NoNaNs));
  f.setNoInfs(has(flags, FastMath::NoInfs));
  f.setNoSignedZeros(has(flags, FastMath::NoSignedZeros));
  f.setAllowReciprocal(has(flags, FastMath::AllowReciprocal));
  f.setAllowContract(has(flags, FastMath::AllowContract));
  f.setApproxFunc(has(flags, FastMath::ApproxFunc));
  return f;
}

llvm::Value* halfSignOp(llvm::IRBuilderBase& ir, llvm::Value* x, llvm::Value* sign, bool flip) {
  llvm::Type* bitsType = shapedLike(ir.getInt16Ty(), x->getType());
  llvm::Value* bits = ir.CreateBitCast(x, bitsType);
  auto k = [&](std::uint16_t m) { return llvm::ConstantInt::get(bits->getType(), m); };
  llvm::Value* r;
  if (flip)
    r = ir.CreateXor(bits, k(0x8000));
  else if (sign)  // a select: LLVM 19's x86 back end folds the and/or form wrongly when the sign came from bf16 arithmetic
    r = ir.CreateSelect(ir.CreateICmpSLT(ir.CreateBitCast(sign, bitsType), k(0)), ir.CreateOr(bits, k(0x8000)),
                        ir.CreateAnd(bits, k(0x7fff)));
  else
    r = ir.CreateAnd(bits, k(0x7fff));
  return ir.CreateBitCast(r, x->getType());
}

llvm::Value* floatToInteger(llvm::IRBuilderBase& ir, llvm::Value* x, bool isUnsigned, llvm::Type* to) {
  llvm::Type* type = x->getType();
  const unsigned bits = to->getScalarSizeInBits();
  // The bounds as floats: powers of two, exact or (beyond a half's range)
  // infinite, which compares the same way for every finite value.
  auto bound = [&](int exponent, bool negative) {
    llvm::APFloat v(std::ldexp(negative ? -1.0 : 1.0, exponent));
    bool lost = false;
    v.convert(type->getScalarType()->getFltSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return llvm::ConstantFP::get(type, v);
  };
  auto integer = [&](const llvm::APInt& v) { return llvm::ConstantInt::get(to, v); };
  const int top = static_cast<int>(isUnsigned ? bits : bits - 1);
  // Below the lowest value: -1 truncates to 0 for unsigned types; for signed
  // ones values just below -2^(bits-1) truncate to it, what saturating gives.
  // A lowest value beyond the float type's range is -inf, which -inf itself
  // must not pass (f16 -inf to i32 gave 0, the difftest found).
  llvm::Value* low = bound(top, true);
  const bool lowIsInfinite = std::ldexp(1.0, top) > llvm::APFloat::getLargest(type->getScalarType()->getFltSemantics()).convertToDouble();
  llvm::Value* aboveLow = isUnsigned      ? ir.CreateFCmpOGT(x, llvm::ConstantFP::get(type, -1.0))
                          : lowIsInfinite ? ir.CreateFCmpOGT(x, low)
                                          : ir.CreateFCmpOGE(x, low);
  llvm::Value* belowHigh = ir.CreateFCmpOLT(x, bound(top, false));
  llvm::Value* converted = isUnsigned ? ir.CreateFPToUI(x, to) : ir.CreateFPToSI(x, to);
  llvm::Value* max = integer(isUnsigned ? llvm::APInt::getMaxValue(bits) : llvm::APInt::getSignedMaxValue(bits));
  llvm::Value* min = integer(isUnsigned ? llvm::APInt::getMinValue(bits) : llvm::APInt::getSignedMinValue(bits));
  llvm::Value* zero = llvm::Constant::getNullValue(to);
  llvm::Value* outside = ir.CreateSelect(ir.CreateFCmpOLT(x, llvm::ConstantFP::get(type, 0.0)), min,
                                         ir.CreateSelect(ir.CreateFCmpUNO(x, x), zero, max));
  if (MEMJIT_MUTANT("fptoi_wraps")) return converted;
  return ir.CreateSelect(ir.CreateAnd(aboveLow, belowHigh), converted, outside);
}

llvm::Value* truncateFloat(llvm::IRBuilderBase& ir, llvm::Value* x, llvm::Type* to) {
  if (x->getType()->getScalarType()->isFloatTy() && to->getScalarType()->isBFloatTy() &&
      MEMJIT_MUTANT("bf16_round_toward_zero")) {  // the upper half of the f32's bits
    llvm::Value* bits = ir.CreateLShr(ir.CreateBitCast(x, shapedLike(ir.getInt32Ty(), x->getType())), 16);
    return ir.CreateBitCast(ir.CreateTrunc(bits, shapedLike(ir.getInt16Ty(), x->getType())), to);
  }
  if (!(x->getType()->isDoubleTy() && to->isBFloatTy()) &&
      !(x->getType()->isVectorTy() && x->getType()->getScalarType()->isDoubleTy() && to->getScalarType()->isBFloatTy()))
    return ir.CreateFPTrunc(x, to);
  llvm::Type* f32 = shapedLike(ir.getFloatTy(), x->getType());
  llvm::Type* i32 = shapedLike(ir.getInt32Ty(), x->getType());
  // Round to odd: truncate towards zero, then set the last bit if inexact.
  llvm::Value* nearest = ir.CreateFPTrunc(x, f32);
  llvm::Value* bits = ir.CreateBitCast(nearest, i32);
  llvm::Value* absX = ir.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* absBack = ir.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, ir.CreateFPExt(nearest, x->getType()));
  // Rounded away from zero: step the magnitude back by one ulp.
  llvm::Value* away = ir.CreateFCmpOGT(absBack, absX);
  bits = ir.CreateSub(bits, ir.CreateZExt(away, i32));
  llvm::Value* inexact = ir.CreateFCmpONE(absBack, absX);
  bits = ir.CreateOr(bits, ir.CreateZExt(inexact, i32));
  return ir.CreateFPTrunc(ir.CreateBitCast(bits, f32), to);
}

llvm::Value* integerToFloat(llvm::IRBuilderBase& ir, llvm::Value* x, bool isSigned, llvm::Type* to) {
  const unsigned width = x->getType()->getScalarSizeInBits();
  if (!to->getScalarType()->isBFloatTy() || width <= 24)
    return isSigned ? ir.CreateSIToFP(x, to) : ir.CreateUIToFP(x, to);
  // The magnitude as a 64-bit unsigned integer (INT_MIN's too).
  llvm::Type* i64 = shapedLike(ir.getInt64Ty(), x->getType());
  auto k = [&](std::uint64_t v) { return llvm::ConstantInt::get(i64, v); };
  llvm::Value* negative = isSigned ? ir.CreateICmpSLT(x, llvm::Constant::getNullValue(x->getType()))
                                   : llvm::Constant::getNullValue(shapedLike(ir.getInt1Ty(), x->getType()));
  llvm::Value* wide = isSigned ? ir.CreateSExt(x, i64) : ir.CreateZExt(x, i64);
  llvm::Value* magnitude = ir.CreateSelect(negative, ir.CreateNeg(wide), wide);
  // Bits below the 53 most significant ones: drop them, keeping a sticky bit.
  llvm::Value* bits = ir.CreateSub(k(64), ir.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, magnitude, ir.getFalse()));
  llvm::Value* drop = ir.CreateBinaryIntrinsic(llvm::Intrinsic::smax, ir.CreateSub(bits, k(53)), k(0));
  llvm::Value* mask = ir.CreateSub(ir.CreateShl(k(1), drop), k(1));
  llvm::Value* inexact = ir.CreateICmpNE(ir.CreateAnd(magnitude, mask), k(0));
  llvm::Value* kept = ir.CreateAnd(magnitude, ir.CreateNot(mask));
  llvm::Value* odd = ir.CreateSelect(inexact, ir.CreateOr(kept, ir.CreateShl(k(1), drop)), kept);
  llvm::Type* f64 = shapedLike(ir.getDoubleTy(), x->getType());
  llvm::Value* asDouble = ir.CreateUIToFP(odd, f64);  // exact: at most 53 significant bits
  asDouble = ir.CreateSelect(negative, ir.CreateFNeg(asDouble), asDouble);
  return truncateFloat(ir, asDouble, to);
}

void addFastMathAttributes(llvm::Function& f, FastMath flags) {
  if (flags == FastMath::None) return;
  auto set = [&](const char* name, bool on) {
    if (on) f.addFnAttr(name, "true");
  };
  set("no-nans-fp-math", has(flags, FastMath::NoNaNs));
  set("no-infs-fp-math", has(flags, FastMath::NoInfs));
  set("no-signed-zeros-fp-math", has(flags, FastMath::NoSignedZeros));
  set("approx-func-fp-math", has(flags, FastMath::ApproxFunc));
  set("unsafe-fp-math", flags == FastMath::Fast);
}

void fail(FunctionBuilder& self, Error e) {
  auto& I = BuilderOps::impl(self);
  if (I.error) return;
  // The operation the user called, so that an error in a generated chain of
  // thousands names its generator's line.
  std::string where = "in function '" + I.name + "'";
  if (const std::source_location* loc = I.operationLoc)
    where += " at " + std::string(loc->file_name()) + ":" + std::to_string(loc->line());
  I.error = e.withContext(where);
}

std::string describeOperands(std::initializer_list<const Value*> vs) {
  std::string s = "(";
  bool first = true;
  for (const Value* v : vs) {
    if (!first) s += ", ";
    first = false;
    s += v->valid() ? v->typeName() : "<invalid>";
  }
  return s + ")";
}

llvm::Type* shapedLike(llvm::Type* scalar, llvm::Type* like) {
  if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(like)) return llvm::FixedVectorType::get(scalar, v->getNumElements());
  return scalar;
}

bool checkOperands(FunctionBuilder& self, std::string_view op, std::initializer_list<const Value*> vs,
                   bool allowVectors) {
  auto& I = BuilderOps::impl(self);
  if (I.error) return false;
  if (I.returned) {
    fail(self, Error(ErrorCode::InvalidArgument,
                     "operation '" + std::string(op) + "' after the function returned"));
    return false;
  }
  std::size_t k = 0;
  for (const Value* v : vs) {
    if (!v->valid()) {
      fail(self, Error(ErrorCode::InvalidArgument,
                       "operation '" + std::string(op) + "': operand #" + std::to_string(k) + " is not a value"));
      return false;
    }
    if (v->builder() != &self) {
      fail(self, Error(ErrorCode::InvalidArgument,
                       "operation '" + std::string(op) + "': operand #" + std::to_string(k) + " of type " +
                           v->typeName() + " is a value of another function, not of '" + I.name + "'"));
      return false;
    }
    if (v->isVector() && !allowVectors) {
      fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': operand #" +
                                                    std::to_string(k) + " is a vector (" + v->typeName() +
                                                    "); the operation takes no vectors"));
      return false;
    }
    ++k;
  }
  return true;
}

std::optional<ElementType> scalarOperand(FunctionBuilder& self, std::string_view op, const Value& v) {
  if (!checkOperands(self, op, {&v}, true)) return std::nullopt;
  if (!isScalar(v.type())) {
    fail(self, Error(ErrorCode::TypeMismatch,
                     "operation '" + std::string(op) + "': needs a scalar, got " + toString(v.type())));
    return std::nullopt;
  }
  return std::get<ElementType>(v.type());
}

std::optional<ElementType> numericScalar(FunctionBuilder& self, std::string_view op, const Value& v) {
  auto t = scalarOperand(self, op, v);
  if (!t) return t;
  if (!isInteger(*t) && !isFloat(*t) && *t != ElementType::Index) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) +
                                                  "': needs an integer, index or float operand, got " +
                                                  toString(*t)));
    return std::nullopt;
  }
  return t;
}

std::optional<ElementType> sameNumericScalar(FunctionBuilder& self, std::string_view op, const Value& a,
                                             const Value& b) {
  if (!checkOperands(self, op, {&a, &b}, true)) return std::nullopt;
  auto ta = numericScalar(self, op, a);
  if (!ta) return ta;
  auto tb = numericScalar(self, op, b);
  if (!tb) return tb;
  if (*ta != *tb || a.lanes() != b.lanes()) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': operand types differ " +
                                                  describeOperands({&a, &b})));
    return std::nullopt;
  }
  return ta;
}

namespace {

template <typename Accepts>
std::optional<ElementType> sameScalarOf(FunctionBuilder& self, std::string_view op,
                                        std::initializer_list<const Value*> vs, const char* what,
                                        Accepts accepts) {
  if (!checkOperands(self, op, vs, true)) return std::nullopt;
  const Value& first = **vs.begin();
  for (const Value* v : vs) {
    if (!isScalar(v->type()) || !accepts(std::get<ElementType>(v->type())) || !(v->type() == first.type()) ||
        v->lanes() != first.lanes()) {
      fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': needs " + what +
                                                    " operands of one type, got " + describeOperands(vs)));
      return std::nullopt;
    }
  }
  return std::get<ElementType>(first.type());
}

}  // namespace

std::optional<ElementType> sameIntegerScalar(FunctionBuilder& self, std::string_view op,
                                             std::initializer_list<const Value*> vs) {
  return sameScalarOf(self, op, vs, "integer or index",
                      [](ElementType t) { return isInteger(t) || t == ElementType::Index; });
}

std::optional<ElementType> sameFloatScalar(FunctionBuilder& self, std::string_view op,
                                           std::initializer_list<const Value*> vs) {
  return sameScalarOf(self, op, vs, "float", [](ElementType t) { return isFloat(t); });
}

}  // namespace memjit::codegen::detail
