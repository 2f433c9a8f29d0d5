// The kernel builder: setup, scalars, math, control flow, calls and return.
#include "memjit/codegen/builder.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "builder_impl.h"
#include "builder_util.h"
#include "descriptor_ops.h"
#include "memjit/type_syntax.h"
#include "module_impl.h"

namespace memjit::codegen {

using detail::describeOperands;

FunctionBuilder::FunctionBuilder(Module& module, std::string name, const FunctionType& type,
                                 const FunctionOptions& options) {
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
  impl_->ir.SetInsertPoint(llvm::BasicBlock::Create(module.context(), "entry", f));
  std::vector<llvm::Value*> expanded;
  for (llvm::Argument& a : f->args()) expanded.push_back(&a);
  auto it = std::as_const(expanded).begin();
  for (const Type& t : type.inputs)
    impl_->args.push_back(Value(this, detail::packArgument(impl_->ir, t, options.lowering, it), t));
}

FunctionBuilder::~FunctionBuilder() {
  // An unfinished body would leave the module invalid.
  if (impl_ && !impl_->finished && impl_->lowered.function) (void)finish();
}

const Error& FunctionBuilder::error() const noexcept { return impl_->error; }

Error FunctionBuilder::finish() {
  Impl& I = *impl_;
  // A failed function keeps its declaration (the C interface still calls it)
  // but loses its half-built body, so the module stays valid.
  auto failAndClean = [&](Error e) {
    detail::fail(*this, std::move(e));
    if (I.lowered.function && !I.lowered.function->isDeclaration()) I.lowered.function->deleteBody();
    I.finished = true;
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

Value FunctionBuilder::constant(ElementType t, double v) {
  if (impl_->error) return {};
  llvm::Type* lt = lowerElementType(impl_->ir.getContext(), t, impl_->opts());
  if (isFloat(t)) return Value(this, llvm::ConstantFP::get(lt, v), t);
  if (isInteger(t) || t == ElementType::Index)
    return Value(this, llvm::ConstantInt::get(lt, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)), true), t);
  detail::fail(*this, Error(ErrorCode::Unsupported, "operation 'constant': no numeric constant of type " +
                                                        toString(t)));
  return {};
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
  } else {
    const bool uns = isUnsignedInteger(*t);
    // Index arithmetic addresses memory and cannot wrap in a valid program.
    const bool nsw = *t == ElementType::Index;
    switch (k) {
      case Arith::Add: r = ir.CreateAdd(x, y, "", false, nsw); break;
      case Arith::Sub: r = ir.CreateSub(x, y, "", false, nsw); break;
      case Arith::Mul: r = ir.CreateMul(x, y, "", false, nsw); break;
      case Arith::Div: r = uns ? ir.CreateUDiv(x, y) : ir.CreateSDiv(x, y); break;
      case Arith::Rem: r = uns ? ir.CreateURem(x, y) : ir.CreateSRem(x, y); break;
    }
  }
  return BuilderOps::make(self, r, *t);
}

}  // namespace

Value FunctionBuilder::add(const Value& a, const Value& b) { return arith(*this, Arith::Add, a, b); }
Value FunctionBuilder::sub(const Value& a, const Value& b) { return arith(*this, Arith::Sub, a, b); }
Value FunctionBuilder::mul(const Value& a, const Value& b) { return arith(*this, Arith::Mul, a, b); }
Value FunctionBuilder::div(const Value& a, const Value& b) { return arith(*this, Arith::Div, a, b); }
Value FunctionBuilder::rem(const Value& a, const Value& b) { return arith(*this, Arith::Rem, a, b); }

Value FunctionBuilder::neg(const Value& a) {
  auto t = detail::numericScalar(*this, "neg", a);
  if (!t) return {};
  if (isFloat(*t)) return Value(this, impl_->ir.CreateFNeg(a.llvm()), *t);
  return Value(this, impl_->ir.CreateNeg(a.llvm()), *t);
}

Value FunctionBuilder::cmp(CmpPredicate p, const Value& a, const Value& b) {
  auto t = detail::sameNumericScalar(*this, "cmp", a, b);
  if (!t) return {};
  using P = llvm::CmpInst::Predicate;
  P pred;
  if (isFloat(*t)) {
    const P f[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
    pred = f[static_cast<int>(p)];
  } else if (isUnsignedInteger(*t) || *t == ElementType::I1) {
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

Value FunctionBuilder::select(const Value& c, const Value& a, const Value& b) {
  if (!detail::checkOperands(*this, "select", {&c, &a, &b})) return {};
  if (!(c.type() == Type(ElementType::I1)) || !(a.type() == b.type())) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch, "operation 'select': needs (i1, T, T), got " +
                                                           describeOperands({&c, &a, &b})));
    return {};
  }
  return Value(this, impl_->ir.CreateSelect(c.llvm(), a.llvm(), b.llvm()), a.type());
}

Value FunctionBuilder::cast(const Value& v, ElementType to) {
  auto from = detail::scalarOperand(*this, "cast", v);
  if (!from) return {};
  auto& ir = impl_->ir;
  llvm::Type* lt = lowerElementType(ir.getContext(), to, impl_->opts());
  auto intLike = [](ElementType t) { return isInteger(t) || t == ElementType::Index; };
  auto unsignedLike = [](ElementType t) { return isUnsignedInteger(t) || t == ElementType::I1; };
  llvm::Value* x = v.llvm();
  llvm::Value* r = nullptr;
  if (*from == to) {
    r = x;
  } else if (intLike(*from) && intLike(to)) {
    r = unsignedLike(*from) ? ir.CreateZExtOrTrunc(x, lt) : ir.CreateSExtOrTrunc(x, lt);
  } else if (intLike(*from) && isFloat(to)) {
    r = unsignedLike(*from) ? ir.CreateUIToFP(x, lt) : ir.CreateSIToFP(x, lt);
  } else if (isFloat(*from) && intLike(to)) {
    r = isUnsignedInteger(to) ? ir.CreateFPToUI(x, lt) : ir.CreateFPToSI(x, lt);
  } else if (isFloat(*from) && isFloat(to)) {
    if (bitWidth(*from) == bitWidth(to)) x = ir.CreateFPExt(x, ir.getFloatTy());  // f16 <-> bf16
    r = x->getType()->getPrimitiveSizeInBits() < lt->getPrimitiveSizeInBits() ? ir.CreateFPExt(x, lt)
                                                                              : ir.CreateFPTrunc(x, lt);
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

// --- math ---

namespace {

Value floatIntrinsic(FunctionBuilder& self, const char* op, llvm::Intrinsic::ID id,
                     std::initializer_list<const Value*> vs) {
  if (!detail::checkOperands(self, op, vs)) return {};
  const Value& a = **vs.begin();
  for (const Value* v : vs) {
    if (!isScalar(v->type()) || !isFloat(std::get<ElementType>(v->type())) || !(v->type() == a.type())) {
      detail::fail(self, Error(ErrorCode::TypeMismatch, std::string("operation '") + op +
                                                            "': needs float operands of one type, got " +
                                                            describeOperands(vs)));
      return {};
    }
  }
  std::vector<llvm::Value*> args;
  for (const Value* v : vs) args.push_back(v->llvm());
  auto& ir = BuilderOps::impl(self).ir;
  return BuilderOps::make(self, ir.CreateIntrinsic(id, {a.llvm()->getType()}, args), a.type());
}

}  // namespace

Value FunctionBuilder::sqrt(const Value& a) { return floatIntrinsic(*this, "sqrt", llvm::Intrinsic::sqrt, {&a}); }
Value FunctionBuilder::exp(const Value& a) { return floatIntrinsic(*this, "exp", llvm::Intrinsic::exp, {&a}); }
Value FunctionBuilder::log(const Value& a) { return floatIntrinsic(*this, "log", llvm::Intrinsic::log, {&a}); }
Value FunctionBuilder::fma(const Value& a, const Value& b, const Value& c) {
  return floatIntrinsic(*this, "fma", llvm::Intrinsic::fma, {&a, &b, &c});
}

Value FunctionBuilder::tanh(const Value& a) {
  // LLVM 19 has no tanh intrinsic: call libm like MLIR's math-to-libm does.
  if (!detail::checkOperands(*this, "tanh", {&a})) return {};
  if (!isScalar(a.type()) || !isFloat(std::get<ElementType>(a.type()))) {
    detail::fail(*this, Error(ErrorCode::TypeMismatch,
                              "operation 'tanh': needs a float operand, got " + describeOperands({&a})));
    return {};
  }
  ElementType t = std::get<ElementType>(a.type());
  auto& ir = impl_->ir;
  llvm::Module& m = *impl_->lowered.function->getParent();
  const bool dbl = t == ElementType::F64;
  llvm::Type* ct = dbl ? ir.getDoubleTy() : ir.getFloatTy();
  llvm::Value* x = a.llvm();
  if (x->getType() != ct) x = ir.CreateFPExt(x, ct);
  llvm::FunctionCallee fn = m.getOrInsertFunction(dbl ? "tanh" : "tanhf", ct, ct);
  llvm::Value* r = ir.CreateCall(fn, {x});
  if (r->getType() != a.llvm()->getType()) r = ir.CreateFPTrunc(r, a.llvm()->getType());
  return Value(this, r, t);
}

Value FunctionBuilder::min(const Value& a, const Value& b) {
  auto t = detail::sameNumericScalar(*this, "min", a, b);
  if (!t) return {};
  if (isFloat(*t)) return floatIntrinsic(*this, "min", llvm::Intrinsic::minnum, {&a, &b});
  auto id = isUnsignedInteger(*t) || *t == ElementType::I1 ? llvm::Intrinsic::umin : llvm::Intrinsic::smin;
  return Value(this, impl_->ir.CreateBinaryIntrinsic(id, a.llvm(), b.llvm()), *t);
}
Value FunctionBuilder::max(const Value& a, const Value& b) {
  auto t = detail::sameNumericScalar(*this, "max", a, b);
  if (!t) return {};
  if (isFloat(*t)) return floatIntrinsic(*this, "max", llvm::Intrinsic::maxnum, {&a, &b});
  auto id = isUnsignedInteger(*t) || *t == ElementType::I1 ? llvm::Intrinsic::umax : llvm::Intrinsic::smax;
  return Value(this, impl_->ir.CreateBinaryIntrinsic(id, a.llvm(), b.llvm()), *t);
}
Value FunctionBuilder::abs(const Value& a) {
  auto t = detail::numericScalar(*this, "abs", a);
  if (!t) return {};
  if (isFloat(*t)) return floatIntrinsic(*this, "abs", llvm::Intrinsic::fabs, {&a});
  if (isUnsignedInteger(*t)) return a;
  return Value(this,
               impl_->ir.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a.llvm(), impl_->ir.getFalse()), *t);
}

Value operator+(const Value& a, const Value& b) { return a.builder() ? a.builder()->add(a, b) : Value(); }
Value operator-(const Value& a, const Value& b) { return a.builder() ? a.builder()->sub(a, b) : Value(); }
Value operator*(const Value& a, const Value& b) { return a.builder() ? a.builder()->mul(a, b) : Value(); }
Value operator/(const Value& a, const Value& b) { return a.builder() ? a.builder()->div(a, b) : Value(); }

// --- escape hatch ---

llvm::IRBuilderBase& FunctionBuilder::ir() { return impl_->ir; }
llvm::Function* FunctionBuilder::function() { return impl_->lowered.function; }
Module& FunctionBuilder::module() noexcept { return *impl_->module; }
const LoweredFunction& FunctionBuilder::lowered() const noexcept { return impl_->lowered; }

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
