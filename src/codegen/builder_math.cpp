// The kernel builder: the math dialect (elementary functions, rounding,
// min/max). Functions with an LLVM 19 intrinsic use it, so LLVM folds
// constants and the loop vectoriser can map them to a vector math library;
// the others call libm, declared without memory effects as MLIR's
// math-to-libm declares them (and as `-fno-math-errno` does), so loops
// calling them vectorise too.
#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "builder_impl.h"
#include "builder_util.h"
#include "mutants.h"

namespace memjit::codegen {
namespace {

constexpr llvm::Intrinsic::ID kLibm = llvm::Intrinsic::not_intrinsic;

struct MathFunction {
  const char* op;                         // the builder operation, for messages
  llvm::Intrinsic::ID intrinsic = kLibm;  // kLibm: call `libm`
  const char* libm = nullptr;             // the double version's name; the float one adds 'f'
  bool wideHalf = false;                  // f16/bf16 computed in f64 rather than f32 (fma)
  bool callsLibrary = false;              // becomes a call (scalar libm or vector math), not an instruction
};

llvm::Value* callLibm(BuilderOps::Impl& I, const std::string& name, llvm::Type* type,
                      const std::vector<llvm::Value*>& args) {
  llvm::Module& m = *I.lowered.function->getParent();
  std::vector<llvm::Type*> params(args.size(), type);
  llvm::FunctionCallee callee = m.getOrInsertFunction(name, llvm::FunctionType::get(type, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  return I.ir.CreateCall(callee, args);
}

// Emits `fn` over float operands of one type; f16 and bf16 are widened.
Value emitMath(FunctionBuilder& self, const MathFunction& fn, std::initializer_list<const Value*> vs) {
  auto t = detail::sameFloatScalar(self, fn.op, vs);
  if (!t) return {};
  auto& I = BuilderOps::impl(self);
  auto& ir = I.ir;
  llvm::Type* type = (*vs.begin())->llvm()->getType();
  llvm::Type* compute = type;
  if (*t == ElementType::F16 || *t == ElementType::BF16)
    compute = detail::shapedLike(fn.wideHalf ? ir.getDoubleTy() : ir.getFloatTy(), type);
  if (fn.callsLibrary && !I.scopes.empty()) I.scopes.back().callsMath = true;
  std::vector<llvm::Value*> args;
  for (const Value* v : vs) args.push_back(compute == type ? v->llvm() : ir.CreateFPExt(v->llvm(), compute));
  llvm::Value* r;
  if (fn.intrinsic != kLibm) {
    r = ir.CreateIntrinsic(fn.intrinsic, {compute}, args);
  } else {
    // libm takes scalars: a vector calls it once per lane (what LLVM's
    // scalarisation of a vector intrinsic does too).
    llvm::Type* scalar = compute->getScalarType();
    const std::string name = scalar->isDoubleTy() ? std::string(fn.libm) : std::string(fn.libm) + "f";
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(compute)) {
      r = llvm::PoisonValue::get(vt);
      for (unsigned lane = 0; lane < vt->getNumElements(); ++lane) {
        std::vector<llvm::Value*> laneArgs;
        for (llvm::Value* a : args) laneArgs.push_back(ir.CreateExtractElement(a, lane));
        r = ir.CreateInsertElement(r, callLibm(I, name, scalar, laneArgs), lane);
      }
    } else {
      r = callLibm(I, name, compute, args);
    }
  }
  if (compute != type) r = detail::truncateFloat(ir, r, type);
  return BuilderOps::make(self, r, *t);
}

}  // namespace

#define MEMJIT_MATH_1(name, ...)                                          \
  Value FunctionBuilder::name(const Value& a, std::source_location loc) { \
    const detail::OpLocation at(*this, loc);                              \
    return emitMath(*this, MathFunction{.op = #name, __VA_ARGS__}, {&a}); \
  }
#define MEMJIT_MATH_2(name, ...)                                                          \
  Value FunctionBuilder::name(const Value& a, const Value& b, std::source_location loc) { \
    const detail::OpLocation at(*this, loc);                                              \
    return emitMath(*this, MathFunction{.op = #name, __VA_ARGS__}, {&a, &b});             \
  }

MEMJIT_MATH_1(sqrt, .intrinsic = llvm::Intrinsic::sqrt)
MEMJIT_MATH_1(cbrt, .libm = "cbrt", .callsLibrary = true)
MEMJIT_MATH_1(exp, .intrinsic = llvm::Intrinsic::exp, .callsLibrary = true)
MEMJIT_MATH_1(exp2, .intrinsic = llvm::Intrinsic::exp2, .callsLibrary = true)
MEMJIT_MATH_1(expm1, .libm = "expm1", .callsLibrary = true)
MEMJIT_MATH_1(log, .intrinsic = llvm::Intrinsic::log, .callsLibrary = true)
MEMJIT_MATH_1(log2, .intrinsic = llvm::Intrinsic::log2, .callsLibrary = true)
MEMJIT_MATH_1(log10, .intrinsic = llvm::Intrinsic::log10, .callsLibrary = true)
MEMJIT_MATH_1(log1p, .libm = "log1p", .callsLibrary = true)
MEMJIT_MATH_1(sin, .intrinsic = llvm::Intrinsic::sin, .callsLibrary = true)
MEMJIT_MATH_1(cos, .intrinsic = llvm::Intrinsic::cos, .callsLibrary = true)
MEMJIT_MATH_1(tan, .libm = "tan", .callsLibrary = true)
MEMJIT_MATH_1(asin, .libm = "asin", .callsLibrary = true)
MEMJIT_MATH_1(acos, .libm = "acos", .callsLibrary = true)
MEMJIT_MATH_1(atan, .libm = "atan", .callsLibrary = true)
MEMJIT_MATH_2(atan2, .libm = "atan2", .callsLibrary = true)
MEMJIT_MATH_1(sinh, .libm = "sinh", .callsLibrary = true)
MEMJIT_MATH_1(cosh, .libm = "cosh", .callsLibrary = true)
MEMJIT_MATH_1(tanh, .libm = "tanh", .callsLibrary = true)
MEMJIT_MATH_1(erf, .libm = "erf", .callsLibrary = true)
MEMJIT_MATH_1(erfc, .libm = "erfc", .callsLibrary = true)
MEMJIT_MATH_1(floor, .intrinsic = llvm::Intrinsic::floor)
MEMJIT_MATH_1(ceil, .intrinsic = llvm::Intrinsic::ceil)
MEMJIT_MATH_1(round, .intrinsic = llvm::Intrinsic::round)
MEMJIT_MATH_1(roundeven, .intrinsic = llvm::Intrinsic::roundeven)
MEMJIT_MATH_1(trunc, .intrinsic = llvm::Intrinsic::trunc)
MEMJIT_MATH_2(minnumf, .intrinsic = llvm::Intrinsic::minnum)
MEMJIT_MATH_2(maxnumf, .intrinsic = llvm::Intrinsic::maxnum)
#undef MEMJIT_MATH_1
#undef MEMJIT_MATH_2

// An explicit unordered test keeps minimumf/maximumf NaN-propagating at every
// optimisation level, because x86's lowering of llvm.minimum/maximum loses
// NaNs twice: LLVM 19 narrows fptrunc(maximum(fpext a, fpext b)) back to a
// half-precision maximum whose vector lowering returns the other operand for
// a NaN; and when one operand is known not to be NaN (an integer converted,
// say), SelectionDAG orders the operands with vfpclass for quiet NaN or +0,
// which a signalling NaN fails, so vmaxss returns the number (LLVM 19 and 22,
// at O0 with SelectionDAG and at O1-O3; the difftest's seed 2490000000346).
static Value nanPropagating(FunctionBuilder& self, const char* op, llvm::Intrinsic::ID id, const Value& a,
                            const Value& b) {
  Value r = emitMath(self, MathFunction{.op = op, .intrinsic = id}, {&a, &b});
  if (!r.valid()) return r;
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value* unordered = ir.CreateFCmpUNO(a.llvm(), b.llvm());
  llvm::Value* nan = llvm::ConstantFP::getQNaN(a.llvm()->getType());
  return BuilderOps::make(self, ir.CreateSelect(unordered, nan, r.llvm()), r.type());
}

Value FunctionBuilder::minimumf(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (MEMJIT_MUTANT("minimumf_as_minnum")) return nanPropagating(*this, "minimumf", llvm::Intrinsic::minnum, a, b);
  return nanPropagating(*this, "minimumf", llvm::Intrinsic::minimum, a, b);
}
Value FunctionBuilder::maximumf(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return nanPropagating(*this, "maximumf", llvm::Intrinsic::maximum, a, b);
}

// pow(1, y) = 1 and pow(x, +-0) = 1 for every x and y, NaNs included (C's
// Annex F, IEEE 754's pow): glibc's pow returns NaN when the NaN is
// signalling, LLVM's constant folding and instcombine return 1, so an
// explicit test makes every optimisation level agree.
Value FunctionBuilder::pow(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  Value r = emitMath(*this, MathFunction{.op = "pow", .intrinsic = llvm::Intrinsic::pow, .callsLibrary = true}, {&a, &b});
  if (!r.valid()) return r;
  auto& ir = impl_->ir;
  llvm::Value* one = llvm::ConstantFP::get(a.llvm()->getType(), 1.0);
  llvm::Value* exact = ir.CreateOr(ir.CreateFCmpOEQ(a.llvm(), one),
                                   ir.CreateFCmpOEQ(b.llvm(), llvm::ConstantFP::get(b.llvm()->getType(), 0.0)));
  return BuilderOps::make(*this, ir.CreateSelect(exact, one, r.llvm()), r.type());
}

Value FunctionBuilder::copysign(const Value& magnitude, const Value& signSource, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const Value& sign = MEMJIT_MUTANT("copysign_sign_of_magnitude") ? magnitude : signSource;
  auto t = detail::sameFloatScalar(*this, "copysign", {&magnitude, &sign});
  if (!t) return {};
  if (*t == ElementType::F16 || *t == ElementType::BF16)
    return BuilderOps::make(*this, detail::halfSignOp(impl_->ir, magnitude.llvm(), sign.llvm(), false), *t);
  return emitMath(*this, MathFunction{.op = "copysign", .intrinsic = llvm::Intrinsic::copysign}, {&magnitude, &sign});
}

Value FunctionBuilder::fma(const Value& a, const Value& b, const Value& c, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const MathFunction fma{.op = "fma", .intrinsic = llvm::Intrinsic::fma, .wideHalf = true};
  if (MEMJIT_MUTANT("fma_rounds_product") && (a.type() == Type(ElementType::F32) || a.type() == Type(ElementType::F64)))
    return add(mul(a, b), c);
  return emitMath(*this, fma, {&a, &b, &c});
}

// Halves compute 1 / sqrt in f64 and round once: both steps are then exact
// enough that the one rounding to the half type is correct (rounding sqrt to
// the half type first, as `1 / sqrt(x)` on halves did, gave bf16
// rsqrt(0x7f7f) = 0x1f81 instead of 0x1f80).
Value FunctionBuilder::rsqrt(const Value& a, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = detail::sameFloatScalar(*this, "rsqrt", {&a});
  if (!t) return {};
  auto& ir = impl_->ir;
  llvm::Type* type = a.llvm()->getType();
  const bool half = *t == ElementType::F16 || *t == ElementType::BF16;
  llvm::Type* compute = half ? detail::shapedLike(ir.getDoubleTy(), type) : type;
  llvm::Value* x = half ? ir.CreateFPExt(a.llvm(), compute) : a.llvm();
  llvm::Value* r = ir.CreateFDiv(llvm::ConstantFP::get(compute, 1.0), ir.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
  if (half) r = detail::truncateFloat(ir, r, type);
  return BuilderOps::make(*this, r, *t);
}

// math.fpowi: a vector base takes a scalar exponent (for every lane) or a
// vector of as many lanes; llvm.powi takes a scalar exponent only, so a
// vector exponent computes lane by lane.
Value FunctionBuilder::powi(const Value& a, const Value& n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = detail::sameFloatScalar(*this, "powi", {&a});
  if (!t) return {};
  if (!detail::checkOperands(*this, "powi", {&a, &n}, true)) return {};
  if (!(n.type() == Type(ElementType::I32)) && !(n.type() == Type(ElementType::SI32))) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch, "operation 'powi': the exponent must be i32 or si32, got " +
                                                           detail::describeOperands({&a, &n})));
    return {};
  }
  if (n.isVector() && n.lanes() != a.lanes()) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch,
                              "operation 'powi': a vector exponent needs a base of as many lanes, got " +
                                  detail::describeOperands({&a, &n})));
    return {};
  }
  auto& ir = impl_->ir;
  llvm::Type* type = a.llvm()->getType();
  const bool half = *t == ElementType::F16 || *t == ElementType::BF16;
  llvm::Value* x = half ? ir.CreateFPExt(a.llvm(), detail::shapedLike(ir.getFloatTy(), type)) : a.llvm();
  llvm::Value* r;
  if (!n.isVector()) {
    r = ir.CreateIntrinsic(llvm::Intrinsic::powi, {x->getType(), ir.getInt32Ty()}, {x, n.llvm()});
  } else {
    r = llvm::PoisonValue::get(x->getType());
    llvm::Type* lane = x->getType()->getScalarType();
    for (std::uint32_t k = 0; k < a.lanes(); ++k) {
      llvm::Value* p = ir.CreateIntrinsic(llvm::Intrinsic::powi, {lane, ir.getInt32Ty()},
                                          {ir.CreateExtractElement(x, k), ir.CreateExtractElement(n.llvm(), k)});
      r = ir.CreateInsertElement(r, p, k);
    }
  }
  if (half) r = ir.CreateFPTrunc(r, type);
  return BuilderOps::make(*this, r, *t);
}

Value FunctionBuilder::powi(const Value& a, std::int32_t n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return powi(a, i32(n));
}

Value FunctionBuilder::min(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = detail::sameNumericScalar(*this, "min", a, b);
  if (!t) return {};
  if (isFloat(*t)) return minnumf(a, b);
  auto id = detail::isUnsignedLike(*t) ? llvm::Intrinsic::umin : llvm::Intrinsic::smin;
  return BuilderOps::make(*this, impl_->ir.CreateBinaryIntrinsic(id, a.llvm(), b.llvm()), *t);
}

Value FunctionBuilder::max(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = detail::sameNumericScalar(*this, "max", a, b);
  if (!t) return {};
  if (isFloat(*t)) return maxnumf(a, b);
  auto id = detail::isUnsignedLike(*t) ? llvm::Intrinsic::umax : llvm::Intrinsic::smax;
  return BuilderOps::make(*this, impl_->ir.CreateBinaryIntrinsic(id, a.llvm(), b.llvm()), *t);
}

Value FunctionBuilder::abs(const Value& a, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = detail::numericScalar(*this, "abs", a);
  if (!t) return {};
  if (*t == ElementType::F16 || *t == ElementType::BF16)
    return BuilderOps::make(*this, detail::halfSignOp(impl_->ir, a.llvm(), nullptr, false), *t);
  if (isFloat(*t)) return emitMath(*this, MathFunction{.op = "abs", .intrinsic = llvm::Intrinsic::fabs}, {&a});
  if (detail::isUnsignedLike(*t)) return a;
  llvm::Value* r = impl_->ir.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a.llvm(), impl_->ir.getFalse());
  if (MEMJIT_MUTANT("abs_int_min_saturates"))  // |INT_MIN| as INT_MAX instead of wrapping to INT_MIN
    r = impl_->ir.CreateBinaryIntrinsic(llvm::Intrinsic::umin, r, llvm::ConstantInt::get(r->getType(),
        llvm::APInt::getSignedMaxValue(r->getType()->getScalarSizeInBits())));
  return BuilderOps::make(*this, r, *t);
}

}  // namespace memjit::codegen
