// The kernel builder: integer operations beyond + - * / % (explicitly signed
// or unsigned division, rounding divisions, bit operations, shifts defined
// for every count, bit counts) and bitcasts. Each follows the MLIR arith op
// it is named after; docs/kernel-language.md's op table lists them.
#include <llvm/IR/Intrinsics.h>

#include "builder_checks.h"
#include "builder_impl.h"
#include "builder_util.h"
#include "mutants.h"
#include "memjit/type_syntax.h"

namespace memjit::codegen {

using detail::sameIntegerScalar;

namespace {

enum class Division { SignedDiv, UnsignedDiv, SignedRem, UnsignedRem };

Value divide(FunctionBuilder& self, const char* op, Division kind, const Value& a, const Value& b) {
  auto t = sameIntegerScalar(self, op, {&a, &b});
  if (!t) return {};
  auto& ir = BuilderOps::impl(self).ir;
  detail::checkDivision(self, op, kind == Division::SignedDiv || kind == Division::SignedRem,
                        kind == Division::SignedRem || kind == Division::UnsignedRem, a.llvm(), b.llvm());
  llvm::Value* r = nullptr;
  switch (kind) {
    case Division::SignedDiv: r = ir.CreateSDiv(a.llvm(), b.llvm()); break;
    case Division::UnsignedDiv: r = ir.CreateUDiv(a.llvm(), b.llvm()); break;
    case Division::SignedRem: r = ir.CreateSRem(a.llvm(), b.llvm()); break;
    case Division::UnsignedRem: r = ir.CreateURem(a.llvm(), b.llvm()); break;
  }
  return BuilderOps::make(self, r, *t);
}

llvm::Value* allOnes(llvm::Value* like) { return llvm::Constant::getAllOnesValue(like->getType()); }
llvm::Value* zero(llvm::Value* like) { return llvm::Constant::getNullValue(like->getType()); }
llvm::Value* width(llvm::Value* like) {
  return llvm::ConstantInt::get(like->getType(), like->getType()->getScalarSizeInBits());
}

}  // namespace

Value FunctionBuilder::divsi(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return divide(*this, "divsi", Division::SignedDiv, a, b);
}
Value FunctionBuilder::divui(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return divide(*this, "divui", Division::UnsignedDiv, a, b);
}
Value FunctionBuilder::remsi(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return divide(*this, "remsi", Division::SignedRem, a, b);
}
Value FunctionBuilder::remui(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return divide(*this, "remui", Division::UnsignedRem, a, b);
}

// Expansions that hold for every operand pair divsi itself defines, INT_MIN
// included (MLIR 19's arith-expand ceildivsi does not: it is wrong for an
// INT_MIN dividend and traps on (INT_MAX, -1); tests/conformance checks both):
//   ceildivsi(a, b)  = a / b + (a % b != 0 && (a < 0) == (b < 0))
//   floordivsi(a, b) = a / b - (a % b != 0 && (a < 0) != (b < 0))
// with the remainder test spelled (a / b) * b != a.
static Value roundedSignedDivision(FunctionBuilder& self, const char* op, bool up, const Value& a, const Value& b) {
  auto t = sameIntegerScalar(self, op, {&a, &b});
  if (!t) return {};
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value* x = a.llvm();
  llvm::Value* y = b.llvm();
  detail::checkDivision(self, op, true, false, x, y);
  llvm::Value* quotient = ir.CreateSDiv(x, y);
  llvm::Value* inexact = ir.CreateICmpNE(ir.CreateMul(quotient, y), x);
  llvm::Value* xNegative = ir.CreateICmpSLT(x, zero(x));
  llvm::Value* yNegative = ir.CreateICmpSLT(y, zero(y));
  llvm::Value* signs = up ? ir.CreateICmpEQ(xNegative, yNegative) : ir.CreateICmpNE(xNegative, yNegative);
  if (up && MEMJIT_MUTANT("ceildivsi_both_negative"))  // forgets that two negatives make a positive quotient
    signs = ir.CreateNot(ir.CreateOr(xNegative, yNegative));
  if (!up && MEMJIT_MUTANT("floordivsi_truncates")) signs = ir.getFalse();
  llvm::Value* adjust = ir.CreateZExt(ir.CreateAnd(inexact, signs), x->getType());
  return BuilderOps::make(self, up ? ir.CreateAdd(quotient, adjust) : ir.CreateSub(quotient, adjust), *t);
}

Value FunctionBuilder::ceildivsi(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return roundedSignedDivision(*this, "ceildivsi", true, a, b);
}
Value FunctionBuilder::floordivsi(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return roundedSignedDivision(*this, "floordivsi", false, a, b);
}

Value FunctionBuilder::ceildivui(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = sameIntegerScalar(*this, "ceildivui", {&a, &b});
  if (!t) return {};
  // a == 0 ? 0 : (a - 1) / b + 1, which cannot overflow.
  auto& ir = impl_->ir;
  llvm::Value* x = a.llvm();
  detail::checkDivision(*this, "ceildivui", false, false, x, b.llvm());
  llvm::Value* one = llvm::ConstantInt::get(x->getType(), 1);
  llvm::Value* q = ir.CreateAdd(ir.CreateUDiv(ir.CreateSub(x, one), b.llvm()), one);
  if (MEMJIT_MUTANT("ceildivui_zero_dividend")) return BuilderOps::make(*this, q, *t);
  return BuilderOps::make(*this, ir.CreateSelect(ir.CreateICmpEQ(x, zero(x)), zero(x), q), *t);
}

Value FunctionBuilder::mulhi(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = sameIntegerScalar(*this, "mulhi", {&a, &b});
  if (!t) return {};
  auto& ir = impl_->ir;
  llvm::Type* type = a.llvm()->getType();
  const unsigned w = type->getScalarSizeInBits();
  llvm::Type* wide = detail::shapedLike(ir.getIntNTy(2 * w), type);
  const bool uns = detail::isUnsignedLike(*t) || MEMJIT_MUTANT("mulhi_zext_for_sext");
  auto extend = [&](llvm::Value* v) { return uns ? ir.CreateZExt(v, wide) : ir.CreateSExt(v, wide); };
  llvm::Value* product = ir.CreateMul(extend(a.llvm()), extend(b.llvm()));
  return BuilderOps::make(*this, ir.CreateTrunc(ir.CreateLShr(product, w), type), *t);
}

namespace {

Value bitwise(FunctionBuilder& self, const char* op, llvm::Instruction::BinaryOps opcode, const Value& a,
              const Value& b) {
  auto t = sameIntegerScalar(self, op, {&a, &b});
  if (!t) return {};
  return BuilderOps::make(self, BuilderOps::impl(self).ir.CreateBinOp(opcode, a.llvm(), b.llvm()), *t);
}

// LLVM's shifts are poison for a count >= the width; this selects the
// defined answer, 0, there. The shift in the unselected arm may be poison:
// select does not propagate it.
Value shiftOrZero(FunctionBuilder& self, const char* op, llvm::Instruction::BinaryOps opcode, const Value& a,
                  const Value& n) {
  auto t = sameIntegerScalar(self, op, {&a, &n});
  if (!t) return {};
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value* inRange = ir.CreateICmpULT(n.llvm(), width(a.llvm()));
  llvm::Value* shifted = ir.CreateBinOp(opcode, a.llvm(), n.llvm());
  if (MEMJIT_MUTANT("shift_count_unchecked")) return BuilderOps::make(self, shifted, *t);
  return BuilderOps::make(self, ir.CreateSelect(inRange, shifted, zero(a.llvm())), *t);
}

}  // namespace

Value FunctionBuilder::andi(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return bitwise(*this, "andi", llvm::Instruction::And, a, b);
}
Value FunctionBuilder::ori(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return bitwise(*this, "ori", llvm::Instruction::Or, a, b);
}
Value FunctionBuilder::xori(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return bitwise(*this, "xori", llvm::Instruction::Xor, a, b);
}
Value FunctionBuilder::noti(const Value& a, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = sameIntegerScalar(*this, "noti", {&a});
  return t ? BuilderOps::make(*this, impl_->ir.CreateXor(a.llvm(), allOnes(a.llvm())), *t) : Value();
}

Value FunctionBuilder::shl(const Value& a, const Value& n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return shiftOrZero(*this, "shl", llvm::Instruction::Shl, a, n);
}
Value FunctionBuilder::shrui(const Value& a, const Value& n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return shiftOrZero(*this, "shrui", llvm::Instruction::LShr, a, n);
}
Value FunctionBuilder::shrsi(const Value& a, const Value& n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = sameIntegerScalar(*this, "shrsi", {&a, &n});
  if (!t) return {};
  auto& ir = impl_->ir;
  // Shifting by width - 1 already fills every bit with the sign.
  llvm::Value* last = llvm::ConstantInt::get(a.llvm()->getType(), a.llvm()->getType()->getScalarSizeInBits() - 1);
  if (MEMJIT_MUTANT("shrsi_clamp_to_width")) last = width(a.llvm());
  llvm::Value* count = ir.CreateBinaryIntrinsic(llvm::Intrinsic::umin, n.llvm(), last);
  return BuilderOps::make(*this, ir.CreateAShr(a.llvm(), count), *t);
}
Value FunctionBuilder::shr(const Value& a, const Value& n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = sameIntegerScalar(*this, "shr", {&a, &n});
  if (!t) return {};
  return detail::isUnsignedLike(*t) ? shrui(a, n) : shrsi(a, n);
}

namespace {

// A rotation: a funnel shift of `a` with itself.
Value rotate(FunctionBuilder& self, const char* op, llvm::Intrinsic::ID id, const Value& a, const Value& n) {
  auto t = sameIntegerScalar(self, op, {&a, &n});
  if (!t) return {};
  auto& ir = BuilderOps::impl(self).ir;
  return BuilderOps::make(self, ir.CreateIntrinsic(id, {a.llvm()->getType()}, {a.llvm(), a.llvm(), n.llvm()}), *t);
}

// ctpop, or ctlz/cttz with is_zero_poison = false (a zero input gives the width).
Value countBits(FunctionBuilder& self, const char* op, llvm::Intrinsic::ID id, const Value& a) {
  auto t = sameIntegerScalar(self, op, {&a});
  if (!t) return {};
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value* r = id == llvm::Intrinsic::ctpop ? ir.CreateUnaryIntrinsic(id, a.llvm())
                                                : ir.CreateBinaryIntrinsic(id, a.llvm(), ir.getFalse());
  return BuilderOps::make(self, r, *t);
}

}  // namespace

Value FunctionBuilder::rotl(const Value& a, const Value& n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return rotate(*this, "rotl", llvm::Intrinsic::fshl, a, n);
}
Value FunctionBuilder::rotr(const Value& a, const Value& n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return rotate(*this, "rotr", llvm::Intrinsic::fshr, a, n);
}
Value FunctionBuilder::ctpop(const Value& a, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return countBits(*this, "ctpop", llvm::Intrinsic::ctpop, a);
}
Value FunctionBuilder::ctlz(const Value& a, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return countBits(*this, "ctlz", llvm::Intrinsic::ctlz, a);
}
Value FunctionBuilder::cttz(const Value& a, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return countBits(*this, "cttz", llvm::Intrinsic::cttz, a);
}

Value FunctionBuilder::bitcast(const Value& v, ElementType to, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto from = detail::scalarOperand(*this, "bitcast", v);
  if (!from) return {};
  auto bitcastable = [](ElementType t) { return isInteger(t) || isFloat(t); };
  if (!bitcastable(*from) || !bitcastable(to) || bitWidth(*from) != bitWidth(to)) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch, "operation 'bitcast': cannot reinterpret " + toString(*from) +
                                                           " as " + toString(to) +
                                                           " (needs integer or float types of one width)"));
    return {};
  }
  llvm::Type* lt = detail::shapedLike(lowerElementType(impl_->ir.getContext(), to, impl_->opts()), v.llvm()->getType());
  return BuilderOps::make(*this, impl_->ir.CreateBitCast(v.llvm(), lt), to);
}

}  // namespace memjit::codegen
