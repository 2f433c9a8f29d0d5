// The kernel builder's core: Value, opening and finishing a function (and
// removing a failed one), arguments, constants and the exact conversion of
// C++ literals, the arithmetic shared by every type (add .. rem, neg, cmp,
// select, cast), fast-math regions, the operators, and the escape hatch to
// LLVM (ir, wrap, debug names). Integer, math, control-flow, memref, vector
// and parallel operations live in builder_<family>.cpp.
#include "memjit/codegen/builder.h"

#include <cmath>
#include <cstdio>

#include <llvm/ADT/APFloat.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "builder_checks.h"
#include "builder_impl.h"
#include "builder_util.h"
#include "descriptor_ops.h"
#include "function_removal.h"
#include "memjit/type_syntax.h"
#include "module_impl.h"
#include "mutants.h"

namespace memjit::codegen {

using detail::describeOperands;

Value::Value(FunctionBuilder* b, llvm::Value* v, Type t) : builder_(b), value_(v), type_(std::move(t)) {
  if (v)
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType())) lanes_ = vt->getNumElements();
}

std::optional<VectorType> Value::vectorType() const {
  if (!isVector()) return std::nullopt;
  return VectorType{std::get<ElementType>(type_), lanes_};
}

std::string Value::typeName() const {
  if (auto v = vectorType()) return toString(*v);
  return toString(type_);
}

FunctionBuilder::FunctionBuilder(Module& module, std::string name, const FunctionType& type,
                                 const FunctionOptions& options, std::source_location loc) {
  if (Error live = ModuleAccess::checkLive(module)) {
    impl_ = std::make_unique<Impl>(nullptr);  // never used: the error is sticky
    impl_->error = live;
    impl_->name = name;
    return;
  }
  impl_ = std::make_unique<Impl>(&module.context());
  impl_->module = &module;
  impl_->name = name;
  auto lf = defineFunction(module, name, type, options);
  if (!lf) {
    impl_->error = lf.error();
    return;
  }
  impl_->lowered = *lf;
  llvm::Function* f = lf->function;
  impl_->fastMath = options.fastMath;
  impl_->checked = options.checked;
  impl_->ir.setFastMathFlags(detail::toLLVM(options.fastMath));
  detail::addFastMathAttributes(*f, options.fastMath);
  if (lf->cInterface) detail::addFastMathAttributes(*lf->cInterface, options.fastMath);
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(module.context(), "entry", f);
  impl_->ir.SetInsertPoint(entry);
  if (options.debugInfo) {
    // Code not built by an operation (the entry's packing, ir() before its
    // first use) sits on the line that made the builder.
    impl_->debug = std::make_unique<detail::FunctionDebugInfo>(impl_->lowered, loc);
    impl_->ir.SetCurrentDebugLocation(impl_->debug->at(loc));
  }
  std::vector<llvm::Value*> expanded;
  for (llvm::Argument& a : f->args()) expanded.push_back(&a);
  auto it = std::as_const(expanded).begin();
  for (const Type& t : type.inputs)
    impl_->args.push_back(Value(this, detail::packArgument(impl_->ir, t, options.lowering, it), t));
  if (impl_->debug) impl_->debug->describeArguments(*entry);
}

FunctionBuilder::~FunctionBuilder() {
  // An unfinished function goes, as a failed one does: completing it here
  // would hand the module a body its author never meant to end there.
  if (impl_ && !impl_->finished && impl_->lowered.function && !ModuleAccess::checkLive(*impl_->module))
    discard();
}

const Error& FunctionBuilder::error() const noexcept { return impl_->error; }

std::vector<std::string> FunctionBuilder::discard() {
  Impl& I = *impl_;
  std::vector<llvm::Function*> helpers;
  for (const llvm::WeakVH& h : I.helpers)
    if (h) helpers.push_back(llvm::cast<llvm::Function>(h));
  I.ir.ClearInsertionPoint();
  auto callers = detail::removeFunction(*I.module, I.name, helpers);
  if (I.debug) {
    detail::removeCompileUnit(I.module->llvm(), I.debug->compileUnit());
    I.debug.reset();
  }
  I.helpers.clear();
  I.args.clear();
  I.lowered.function = nullptr;
  I.lowered.cInterface = nullptr;
  I.finished = true;
  return callers;
}

Error FunctionBuilder::finish() {
  Impl& I = *impl_;
  // A failed function leaves the module with everything it emitted, so the
  // module's other functions still compile and its name can be defined again.
  auto failAndClean = [&](Error e) {
    detail::fail(*this, std::move(e));
    if (I.finished) return I.error;
    I.finished = true;
    if (!I.lowered.function || ModuleAccess::checkLive(*I.module)) return I.error;
    auto callers = discard();
    if (!callers.empty()) {
      std::string names;
      for (const std::string& c : callers) names += (names.empty() ? "'" : ", '") + c + "'";
      I.error = Error(I.error.code(), I.error.message() + " (the function was removed from module '" +
                                          I.module->name() + "' except its declaration, which " + names +
                                          " still call" + (callers.size() == 1 ? "s" : "") + ")");
    }
    return I.error;
  };
  if (I.error) return failAndClean(I.error);
  if (I.finished) return Error::success();
  if (!I.returned) {
    if (!I.lowered.type.results.empty())
      return failAndClean(Error(ErrorCode::ArityMismatch,
                                       "function '" + I.name + "' of type " + toString(I.lowered.type) +
                                           " ends without ret of its " +
                                           std::to_string(I.lowered.type.results.size()) + " results"));
    I.ir.CreateRetVoid();
    I.returned = true;
  }
  if (!I.lowered.options.temporariesOnHeap) {
    std::vector<llvm::Function*> functions{I.lowered.function};
    for (const llvm::WeakVH& h : I.helpers)
      if (h) functions.push_back(llvm::cast<llvm::Function>(h));
    detail::placeTemporaries(functions);
  }
  if (I.debug) I.debug->finish();
  std::string report;
  llvm::raw_string_ostream os(report);
  if (llvm::verifyFunction(*I.lowered.function, &os)) {
    os.flush();
    return failAndClean(Error(ErrorCode::CompileError,
                                     "function '" + I.name + "' is not valid LLVM IR: " + report));
  }
  I.finished = true;
  return Error::success();
}

Value FunctionBuilder::arg(std::size_t i) {
  if (impl_->error) return {};
  if (i >= impl_->args.size()) {
    detail::fail(*this, Error(ErrorCode::ArityMismatch,
                              "operation 'arg': function '" + impl_->name + "' of type " +
                                  toString(impl_->lowered.type) + " has no argument #" + std::to_string(i)));
    return {};
  }
  return impl_->args[i];
}

Value FunctionBuilder::arg(std::string_view name) {
  if (impl_->error) return {};
  const auto& names = impl_->lowered.options.argumentNames;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return arg(i);
  detail::fail(*this, Error(ErrorCode::NotFound,
                            "operation 'arg': function '" + impl_->name + "' has no argument named '" +
                                std::string(name) + "'" +
                                (names.empty() ? " (no FunctionOptions::argumentNames were given)" : "")));
  return {};
}

namespace {

// "-5", "18446744073709551615": an integer literal for messages.
std::string integerText(std::uint64_t bits, bool negative) {
  return negative ? std::to_string(static_cast<std::int64_t>(bits)) : std::to_string(bits);
}

std::string floatText(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

const llvm::fltSemantics& semanticsOf(ElementType t) {
  switch (t) {
    case ElementType::F16: return llvm::APFloat::IEEEhalf();
    case ElementType::BF16: return llvm::APFloat::BFloat();
    case ElementType::F32: return llvm::APFloat::IEEEsingle();
    default: return llvm::APFloat::IEEEdouble();
  }
}

// Whether the integer `bits` (negative: the two's complement of a negative
// value) fits `t`: signless types take both interpretations of their bits.
bool integerFits(ElementType t, unsigned width, std::uint64_t bits, bool negative) {
  if (t == ElementType::I1) return !negative && bits <= 1;
  const bool isSigned = isSignedInteger(t) || t == ElementType::Index;
  const bool isUnsigned = isUnsignedInteger(t);
  if (width >= 64) {
    if (negative) return !isUnsigned;
    return isSigned ? bits <= static_cast<std::uint64_t>(INT64_MAX) : true;
  }
  const std::uint64_t half = std::uint64_t{1} << (width - 1);
  if (negative) {
    if (isUnsigned) return false;
    return static_cast<std::int64_t>(bits) >= -static_cast<std::int64_t>(half);
  }
  return bits < (isSigned ? half : 2 * half);
}

}  // namespace

Value FunctionBuilder::constantFromInteger(ElementType t, std::uint64_t bits, bool negative, std::source_location loc) {
  if (impl_->error) return {};
  const detail::OpLocation at(*this, loc);
  llvm::Type* lt = lowerElementType(impl_->ir.getContext(), t, impl_->opts());
  if (isInteger(t) || t == ElementType::Index) {
    const unsigned width = lt->getIntegerBitWidth();
    if (!integerFits(t, width, bits, negative)) {
      detail::fail(*this, Error(ErrorCode::InvalidArgument, "operation 'constant': " + integerText(bits, negative) +
                                                                " does not fit " + toString(t)));
      return {};
    }
    return Value(this, llvm::ConstantInt::get(lt, llvm::APInt(64, bits).trunc(width)), t);
  }
  if (isFloat(t)) {
    llvm::APFloat f(semanticsOf(t));
    llvm::APInt value(65, bits);  // one more bit: the sign of a value up to 2^64 - 1
    if (negative) value.setBit(64);
    auto status = f.convertFromAPInt(value, true, llvm::APFloat::rmNearestTiesToEven);
    if (status != llvm::APFloat::opOK) {
      detail::fail(*this, Error(ErrorCode::InvalidArgument, "operation 'constant': " + integerText(bits, negative) +
                                                                " is not exactly representable in " + toString(t)));
      return {};
    }
    return Value(this, llvm::ConstantFP::get(impl_->ir.getContext(), f), t);
  }
  detail::fail(*this, Error(ErrorCode::Unsupported, "operation 'constant': no numeric constant of type " +
                                                        toString(t)));
  return {};
}

Value FunctionBuilder::constantFromFloat(ElementType t, double v, bool exact, std::source_location loc) {
  if (impl_->error) return {};
  const detail::OpLocation at(*this, loc);
  if (isInteger(t) || t == ElementType::Index) {
    // 2^63 and 2^64 are exact doubles: compare against them, not against
    // INT64_MAX, which rounds up to 2^63.
    if (!(v == std::trunc(v)) || v < -0x1p63 || v >= 0x1p64) {
      detail::fail(*this, Error(ErrorCode::InvalidArgument, "operation 'constant': " + floatText(v) +
                                                                " is not an integer value of " + toString(t)));
      return {};
    }
    if (v < 0) return constantFromInteger(t, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)), true, loc);
    return constantFromInteger(t, static_cast<std::uint64_t>(v), false, loc);
  }
  if (isFloat(t)) {
    llvm::APFloat f(v);
    bool losesInfo = false;
    auto status = f.convert(semanticsOf(t), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    if ((status & llvm::APFloat::opOverflow) || (exact && losesInfo && !std::isnan(v))) {
      detail::fail(*this, Error(ErrorCode::InvalidArgument,
                                "operation 'constant': " + floatText(v) +
                                    ((status & llvm::APFloat::opOverflow) ? " overflows " : " is not exactly ") +
                                    ((status & llvm::APFloat::opOverflow) ? "" : "representable in ") + toString(t)));
      return {};
    }
    return Value(this, llvm::ConstantFP::get(impl_->ir.getContext(), f), t);
  }
  detail::fail(*this, Error(ErrorCode::Unsupported, "operation 'constant': no numeric constant of type " +
                                                        toString(t)));
  return {};
}

std::optional<ElementType> FunctionBuilder::literalType(const Value& like, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = detail::scalarOperand(*this, "constant", like);
  if (!t) return t;
  if (!isInteger(*t) && !isFloat(*t) && *t != ElementType::Index) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch,
                              "operation 'constant': a C++ literal next to a value of type " + toString(*t) +
                                  " (literals go with integer, index or float values)"));
    return std::nullopt;
  }
  return t;
}

Value FunctionBuilder::index(std::int64_t v) {
  if (impl_->error) return {};
  return Value(this, llvm::ConstantInt::get(indexType(impl_->ir.getContext(), impl_->opts()), v, true),
               ElementType::Index);
}
Value FunctionBuilder::i32(std::int32_t v) {
  if (impl_->error) return {};
  return Value(this, impl_->ir.getInt32(static_cast<std::uint32_t>(v)), ElementType::I32);
}
Value FunctionBuilder::i64(std::int64_t v) {
  if (impl_->error) return {};
  return Value(this, impl_->ir.getInt64(static_cast<std::uint64_t>(v)), ElementType::I64);
}
Value FunctionBuilder::f32(float v) {
  if (impl_->error) return {};
  return Value(this, llvm::ConstantFP::get(impl_->ir.getFloatTy(), v), ElementType::F32);
}
Value FunctionBuilder::f64(double v) {
  if (impl_->error) return {};
  return Value(this, llvm::ConstantFP::get(impl_->ir.getDoubleTy(), v), ElementType::F64);
}

// --- arithmetic ---

namespace {

enum class Arith { Add, Sub, Mul, Div, Rem };
const char* arithName(Arith k) {
  switch (k) {
    case Arith::Add: return "add";
    case Arith::Sub: return "sub";
    case Arith::Mul: return "mul";
    case Arith::Div: return "div";
    case Arith::Rem: return "rem";
  }
  return "?";
}

Value arith(FunctionBuilder& self, Arith k, const Value& a, const Value& b) {
  const char* op = arithName(k);
  auto t = detail::sameNumericScalar(self, op, a, b);
  if (!t) return {};
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value* x = a.llvm();
  llvm::Value* y = b.llvm();
  llvm::Value* r = nullptr;
  if (isFloat(*t)) {
    switch (k) {
      case Arith::Add: r = ir.CreateFAdd(x, y); break;
      case Arith::Sub: r = ir.CreateFSub(x, y); break;
      case Arith::Mul: r = ir.CreateFMul(x, y); break;
      case Arith::Div: r = ir.CreateFDiv(x, y); break;
      case Arith::Rem: r = ir.CreateFRem(x, y); break;
    }
    if (auto* m = llvm::dyn_cast<llvm::BinaryOperator>(x);  // a peephole that forgets exact mode: x * y + z as fma
        k == Arith::Add && m && m->getOpcode() == llvm::Instruction::FMul && MEMJIT_MUTANT("contract_in_exact_mode"))
      r = ir.CreateIntrinsic(llvm::Intrinsic::fma, {r->getType()}, {m->getOperand(0), m->getOperand(1), y});
  } else {
    const bool uns = detail::isUnsignedLike(*t);
    // Index arithmetic addresses memory and cannot wrap in a valid program.
    const bool nsw = *t == ElementType::Index;
    if (k == Arith::Div || k == Arith::Rem) detail::checkDivision(self, op, !uns, k == Arith::Rem, x, y);
    switch (k) {
      case Arith::Add: r = ir.CreateAdd(x, y, "", false, nsw); break;
      case Arith::Sub: r = ir.CreateSub(x, y, "", false, nsw); break;
      case Arith::Mul: r = ir.CreateMul(x, y, "", false, nsw); break;
      case Arith::Div: r = uns ? ir.CreateUDiv(x, y) : ir.CreateSDiv(x, y); break;
      case Arith::Rem: r = uns ? ir.CreateURem(x, y) : ir.CreateSRem(x, y); break;
    }
    if (k == Arith::Rem && !uns && MEMJIT_MUTANT("rem_sign_of_divisor")) {  // a floored modulo
      llvm::Value* zero = llvm::Constant::getNullValue(r->getType());
      llvm::Value* differ = ir.CreateAnd(ir.CreateICmpNE(r, zero), ir.CreateICmpSLT(ir.CreateXor(r, y), zero));
      r = ir.CreateSelect(differ, ir.CreateAdd(r, y), r);
    }
  }
  return BuilderOps::make(self, r, *t);
}

}  // namespace

Value FunctionBuilder::add(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return arith(*this, Arith::Add, a, b);
}
Value FunctionBuilder::sub(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return arith(*this, Arith::Sub, a, b);
}
Value FunctionBuilder::mul(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return arith(*this, Arith::Mul, a, b);
}
Value FunctionBuilder::div(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return arith(*this, Arith::Div, a, b);
}
Value FunctionBuilder::rem(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return arith(*this, Arith::Rem, a, b);
}

Value FunctionBuilder::neg(const Value& a, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = detail::numericScalar(*this, "neg", a);
  if (!t) return {};
  if (*t == ElementType::F16 || *t == ElementType::BF16)
    return Value(this, detail::halfSignOp(impl_->ir, a.llvm(), nullptr, true), *t);
  if (isFloat(*t) && MEMJIT_MUTANT("fneg_as_zero_minus"))
    return Value(this, impl_->ir.CreateFSub(llvm::ConstantFP::get(a.llvm()->getType(), 0.0), a.llvm()), *t);
  if (isFloat(*t)) return Value(this, impl_->ir.CreateFNeg(a.llvm()), *t);
  return Value(this, impl_->ir.CreateNeg(a.llvm()), *t);
}

Value FunctionBuilder::cmp(CmpPredicate p, const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = detail::sameNumericScalar(*this, "cmp", a, b);
  if (!t) return {};
  using P = llvm::CmpInst::Predicate;
  P pred;
  if (isFloat(*t)) {
    const P f[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
    pred = f[static_cast<int>(p)];
    if (pred == P::FCMP_UNE && MEMJIT_MUTANT("cmp_ne_ordered")) pred = P::FCMP_ONE;
  } else if (detail::isUnsignedLike(*t) || MEMJIT_MUTANT("cmp_signed_as_unsigned")) {
    const P u[] = {P::ICMP_EQ, P::ICMP_NE, P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
    pred = u[static_cast<int>(p)];
  } else {
    const P s[] = {P::ICMP_EQ, P::ICMP_NE, P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE};
    pred = s[static_cast<int>(p)];
  }
  llvm::Value* r = isFloat(*t) ? impl_->ir.CreateFCmp(pred, a.llvm(), b.llvm())
                               : impl_->ir.CreateICmp(pred, a.llvm(), b.llvm());
  return Value(this, r, ElementType::I1);
}

Value FunctionBuilder::select(const Value& c, const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!detail::checkOperands(*this, "select", {&c, &a, &b}, true)) return {};
  // The condition is one i1 for all lanes or one per lane (arith.select).
  if (!(c.type() == Type(ElementType::I1)) || !(a.type() == b.type()) || a.lanes() != b.lanes() ||
      (c.isVector() && c.lanes() != a.lanes())) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch, "operation 'select': needs (i1, T, T) or (vector<Nxi1>, "
                                                       "vector<NxT>, vector<NxT>), got " +
                                                           describeOperands({&c, &a, &b})));
    return {};
  }
  const bool half = a.type() == Type(ElementType::F16) || a.type() == Type(ElementType::BF16);
  if (half && MEMJIT_MUTANT("select_half_arms_swapped"))
    return Value(this, impl_->ir.CreateSelect(c.llvm(), b.llvm(), a.llvm()), a.type());
  return Value(this, impl_->ir.CreateSelect(c.llvm(), a.llvm(), b.llvm()), a.type());
}

Value FunctionBuilder::cast(const Value& v, ElementType to, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto from = detail::scalarOperand(*this, "cast", v);
  if (!from) return {};
  auto& ir = impl_->ir;
  if (v.isVector() && !isVectorElement(to)) {
    detail::fail(*this, Error(ErrorCode::Unsupported, "operation 'cast': cannot convert " + v.typeName() +
                                                          " to a vector of " + toString(to)));
    return {};
  }
  llvm::Type* lt = detail::shapedLike(lowerElementType(ir.getContext(), to, impl_->opts()), v.llvm()->getType());
  auto intLike = [](ElementType t) { return isInteger(t) || t == ElementType::Index; };
  using detail::isUnsignedLike;
  llvm::Value* x = v.llvm();
  llvm::Value* r = nullptr;
  if (*from == to) {
    r = x;
  } else if (intLike(*from) && intLike(to)) {
    r = isUnsignedLike(*from) || MEMJIT_MUTANT("cast_zext_for_sext") ? ir.CreateZExtOrTrunc(x, lt)
                                                                       : ir.CreateSExtOrTrunc(x, lt);
  } else if (intLike(*from) && isFloat(to)) {
    r = detail::integerToFloat(ir, x, !isUnsignedLike(*from) || MEMJIT_MUTANT("uitofp_as_sitofp"), lt);
  } else if (isFloat(*from) && intLike(to)) {
    // Saturating: NaN gives 0 and a value beyond the type its nearest bound,
    // at every level, where fptosi's poison let the unoptimised code and
    // constant folding disagree. i1 converts as unsigned (1.0 is true).
    r = detail::floatToInteger(ir, x, isUnsignedLike(to), lt);
  } else if (isFloat(*from) && isFloat(to)) {
    if (bitWidth(*from) == bitWidth(to))  // f16 <-> bf16
      x = ir.CreateFPExt(x, detail::shapedLike(ir.getFloatTy(), x->getType()));
    r = x->getType()->getScalarSizeInBits() < lt->getScalarSizeInBits() ? ir.CreateFPExt(x, lt)
                                                                              : detail::truncateFloat(ir, x, lt);
  } else if (*from == ElementType::Ptr && intLike(to)) {
    r = ir.CreatePtrToInt(x, lt);
  } else if (intLike(*from) && to == ElementType::Ptr) {
    r = ir.CreateIntToPtr(x, lt);
  } else {
    detail::fail(*this, Error(ErrorCode::Unsupported,
                              "operation 'cast': cannot convert " + toString(*from) + " to " + toString(to)));
    return {};
  }
  return Value(this, r, to);
}

// --- floating-point semantics ---

FastMath FunctionBuilder::fastMath() const noexcept { return impl_->fastMath; }

void FunctionBuilder::withFastMath(FastMath flags, const std::function<void()>& body) {
  Impl& I = *impl_;
  const FastMath saved = I.fastMath;
  I.fastMath = flags;
  I.ir.setFastMathFlags(detail::toLLVM(flags));
  body();
  I.fastMath = saved;
  I.ir.setFastMathFlags(detail::toLLVM(saved));
}

// --- operators ---

namespace {

template <typename Op>
Value binary(const Located& a, const Value& b, Op op) {
  FunctionBuilder* builder = a.value.builder() ? a.value.builder() : b.builder();
  return builder ? op(*builder) : Value();
}

}  // namespace

#define MEMJIT_BINARY_OPERATOR(sym, call)                           \
  Value operator sym(Located a, const Value& b) {                   \
    return binary(a, b, [&](FunctionBuilder& f) { return call; }); \
  }
MEMJIT_BINARY_OPERATOR(+, f.add(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(-, f.sub(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(*, f.mul(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(/, f.div(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(%, f.rem(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(&, f.andi(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(|, f.ori(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(^, f.xori(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(<<, f.shl(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(>>, f.shr(a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(<, f.cmp(CmpPredicate::Lt, a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(<=, f.cmp(CmpPredicate::Le, a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(>, f.cmp(CmpPredicate::Gt, a.value, b, a.loc))
MEMJIT_BINARY_OPERATOR(>=, f.cmp(CmpPredicate::Ge, a.value, b, a.loc))
#undef MEMJIT_BINARY_OPERATOR

// Both operands Located: C++20 also tries `b == a` for `a == b`, and only
// with the same conversions on both sides is the written order preferred.
Value operator==(Located a, Located b) {
  return binary(a, b.value, [&](FunctionBuilder& f) { return f.cmp(CmpPredicate::Eq, a.value, b.value, a.loc); });
}
Value operator!=(Located a, Located b) {
  return binary(a, b.value, [&](FunctionBuilder& f) { return f.cmp(CmpPredicate::Ne, a.value, b.value, a.loc); });
}

Value operator-(Located a) { return a.value.builder() ? a.value.builder()->neg(a.value, a.loc) : Value(); }
Value operator~(Located a) { return a.value.builder() ? a.value.builder()->noti(a.value, a.loc) : Value(); }

// --- escape hatch ---

llvm::IRBuilderBase& FunctionBuilder::ir(std::source_location loc) {
  // What the caller builds next through the IRBuilder is on its line (until
  // the next operation ends, which restores it).
  if (impl_->debug && !impl_->inOperation) impl_->ir.SetCurrentDebugLocation(impl_->debug->at(loc));
  return impl_->ir;
}

void FunctionBuilder::name(const Value& v, std::string_view name, std::source_location loc) {
  if (!impl_->debug || impl_->error) return;
  const detail::OpLocation at(*this, loc);
  if (!detail::checkOperands(*this, "name", {&v}, true)) return;
  impl_->debug->name(impl_->ir, v.llvm(), v.type(), name, loc);
}
llvm::Function* FunctionBuilder::function() { return impl_->lowered.function; }
Module& FunctionBuilder::module() noexcept { return *impl_->module; }
const LoweredFunction& FunctionBuilder::lowered() const noexcept { return impl_->lowered; }

Value FunctionBuilder::wrap(llvm::Value* v, const VectorType& t) {
  if (impl_->error) return {};
  llvm::Type* lt = llvm::FixedVectorType::get(lowerElementType(impl_->ir.getContext(), t.element, impl_->opts()), t.lanes);
  if (!v || v->getType() != lt || !isVectorElement(t.element)) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch,
                              "operation 'wrap': the LLVM value does not have the lowered type of " + toString(t)));
    return {};
  }
  return Value(this, v, t.element);
}

Value FunctionBuilder::wrap(llvm::Value* v, const Type& t) {
  if (impl_->error) return {};
  auto lt = lowerType(impl_->ir.getContext(), t, LoweringOptions{impl_->opts().indexBitwidth, false});
  if (!v || !lt || v->getType() != *lt) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch,
                              "operation 'wrap': the LLVM value does not have the lowered type of " + toString(t)));
    return {};
  }
  return Value(this, v, t);
}

}  // namespace memjit::codegen
