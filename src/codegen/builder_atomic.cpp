// The kernel builder: atomic updates of memref elements (memref.atomic_rmw,
// memref.generic_atomic_rmw and a compare-exchange).
//
// The kinds LLVM has an `atomicrmw` operation for lower to it, as MLIR's
// MemRefToLLVM does; the others (multiplication and the float min/max
// kinds, which MLIR's memref-expand rewrites into generic_atomic_rmw) lower
// to the generic compare-exchange loop with the builder's own min/max/mul,
// so their NaN and -0 rules are those of the scalar operations. Unlike
// MLIR 19, whose loop exchanges floats directly (an LLVM verifier error),
// the loop exchanges the element's bits as an integer, and its first read is
// atomic (MLIR's is a plain load, a data race in LLVM's memory model).
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include "atomic_update.h"
#include "builder_util.h"
#include "memref_access.h"
#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "mutants.h"

namespace memjit::codegen {

using detail::checkOperands;
using detail::fail;

namespace {

using Impl = BuilderOps::Impl;

const char* kindName(AtomicKind k) {
  switch (k) {
    case AtomicKind::Addi: return "addi";
    case AtomicKind::Muli: return "muli";
    case AtomicKind::Andi: return "andi";
    case AtomicKind::Ori: return "ori";
    case AtomicKind::Xori: return "xori";
    case AtomicKind::Maxs: return "maxs";
    case AtomicKind::Maxu: return "maxu";
    case AtomicKind::Mins: return "mins";
    case AtomicKind::Minu: return "minu";
    case AtomicKind::Addf: return "addf";
    case AtomicKind::Mulf: return "mulf";
    case AtomicKind::Maximumf: return "maximumf";
    case AtomicKind::Minimumf: return "minimumf";
    case AtomicKind::Maxnumf: return "maxnumf";
    case AtomicKind::Minnumf: return "minnumf";
    case AtomicKind::Assign: return "assign";
  }
  return "?";
}

bool isFloatKind(AtomicKind k) {
  switch (k) {
    case AtomicKind::Addf: case AtomicKind::Mulf: case AtomicKind::Maximumf: case AtomicKind::Minimumf:
    case AtomicKind::Maxnumf: case AtomicKind::Minnumf:
      return true;
    default: return false;
  }
}

llvm::AtomicOrdering llvmOrdering(AtomicOrdering o) {
  switch (o) {
    case AtomicOrdering::Relaxed: return llvm::AtomicOrdering::Monotonic;
    case AtomicOrdering::Acquire: return llvm::AtomicOrdering::Acquire;
    case AtomicOrdering::Release: return llvm::AtomicOrdering::Release;
    case AtomicOrdering::AcqRel: return llvm::AtomicOrdering::AcquireRelease;
    case AtomicOrdering::SeqCst: return llvm::AtomicOrdering::SequentiallyConsistent;
  }
  return llvm::AtomicOrdering::SequentiallyConsistent;
}

// What a failed compare-exchange reads with: the acquire part of `o`, as
// C++ derives it (release and acq_rel are not valid there).
llvm::AtomicOrdering failureOrdering(AtomicOrdering o) {
  switch (o) {
    case AtomicOrdering::Relaxed: case AtomicOrdering::Release: return llvm::AtomicOrdering::Monotonic;
    case AtomicOrdering::Acquire: case AtomicOrdering::AcqRel: return llvm::AtomicOrdering::Acquire;
    case AtomicOrdering::SeqCst: return llvm::AtomicOrdering::SequentiallyConsistent;
  }
  return llvm::AtomicOrdering::SequentiallyConsistent;
}

// An element atomics can update: an integer of 8 bits or more, index, or a float.
std::optional<ElementType> atomicElement(FunctionBuilder& self, const std::string& op, const Value& m) {
  const MemRefType* t = detail::rankedOperand(self, op, m);
  if (!t) return std::nullopt;
  const ElementType e = t->element();
  if ((isInteger(e) && bitWidth(e) >= 8) || e == ElementType::Index || isFloat(e)) return e;
  fail(self, Error(ErrorCode::TypeMismatch, "operation '" + op + "': elements of " + toString(m.type()) +
                                                " cannot be updated atomically; atomics take integers of 8 bits or "
                                                "more, index and floats"));
  return std::nullopt;
}

// `v` is a scalar of the element type `e`.
bool checkOperand(FunctionBuilder& self, const std::string& op, const char* what, const Value& v, const Value& m,
                  ElementType e) {
  if (!checkOperands(self, op, {&v})) return false;
  if (v.isVector() || !(v.type() == Type(e))) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + op + "': " + what + " is " + v.typeName() +
                                                  " but the elements of " + toString(m.type()) + " are " +
                                                  toString(Type(e))));
    return false;
  }
  return true;
}

// The element's alignment: its size, as MLIR's data layout gives scalars.
llvm::Align elementAlign(llvm::Type* t) { return llvm::Align(t->getPrimitiveSizeInBits() / 8); }

llvm::Type* bitsOf(llvm::Type* t) {
  return llvm::IntegerType::get(t->getContext(), static_cast<unsigned>(t->getPrimitiveSizeInBits()));
}

}  // namespace

// Returns the value replaced, as MLIR's generic_atomic_rmw does.
Value detail::atomicUpdate(FunctionBuilder& self, llvm::Value* addr, ElementType e, AtomicOrdering ordering,
                           const std::function<Value(Value)>& update) {
  Impl& I = BuilderOps::impl(self);
  auto& ir = I.ir;
  llvm::Type* vt = lowerElementType(ir.getContext(), e, I.opts());
  llvm::Type* st = bitsOf(vt);
  const llvm::Align align = elementAlign(vt);
  llvm::LoadInst* first = ir.CreateAlignedLoad(st, addr, align, "atomic.first");
  first->setAtomic(llvm::AtomicOrdering::Monotonic);
  llvm::BasicBlock* pre = ir.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(ir.getContext(), "atomic.loop", I.lowered.function);
  auto* done = llvm::BasicBlock::Create(ir.getContext(), "atomic.done", I.lowered.function);
  ir.CreateBr(loop);
  ir.SetInsertPoint(loop);
  llvm::PHINode* old = ir.CreatePHI(st, 2, "atomic.old");
  old->addIncoming(first, pre);
  Value next = update(BuilderOps::make(self, ir.CreateBitCast(old, vt), e));
  if (I.error) return {};
  auto* pair = ir.CreateAtomicCmpXchg(addr, old, ir.CreateBitCast(next.llvm(), st), align, llvmOrdering(ordering),
                                      llvm::AtomicOrdering::Monotonic);
  old->addIncoming(ir.CreateExtractValue(pair, {0}), ir.GetInsertBlock());
  ir.CreateCondBr(ir.CreateExtractValue(pair, {1}), done, loop);
  ir.SetInsertPoint(done);
  return BuilderOps::make(self, ir.CreateBitCast(old, vt), e);
}

namespace {

std::optional<llvm::AtomicRMWInst::BinOp> directOp(AtomicKind k) {
  using Op = llvm::AtomicRMWInst::BinOp;
  switch (k) {
    case AtomicKind::Addi: return Op::Add;
    case AtomicKind::Andi: return Op::And;
    case AtomicKind::Ori: return Op::Or;
    case AtomicKind::Xori: return Op::Xor;
    case AtomicKind::Maxs: return Op::Max;
    case AtomicKind::Maxu: return Op::UMax;
    case AtomicKind::Mins: return Op::Min;
    case AtomicKind::Minu: return Op::UMin;
    case AtomicKind::Addf: return Op::FAdd;
    case AtomicKind::Assign: return Op::Xchg;
    default: return std::nullopt;
  }
}

// kind(a, b) built from the scalar operations, for the kinds with no atomicrmw.
Value combine(FunctionBuilder& self, AtomicKind k, const Value& a, const Value& b) {
  switch (k) {
    // Wrapping on index too (the builder's index arithmetic is nsw).
    case AtomicKind::Muli: return BuilderOps::make(self, BuilderOps::impl(self).ir.CreateMul(a.llvm(), b.llvm()), a.type());
    case AtomicKind::Mulf: return self.mul(a, b);
    case AtomicKind::Maximumf: return self.maximumf(a, b);
    case AtomicKind::Minimumf: return self.minimumf(a, b);
    case AtomicKind::Maxnumf: return self.maxnumf(a, b);
    case AtomicKind::Minnumf: return self.minnumf(a, b);
    default: return {};
  }
}

}  // namespace

Value FunctionBuilder::atomicRMW(AtomicKind kind, const Value& v, const Value& m, const std::vector<Value>& indices,
                                 AtomicOrdering ordering, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const std::string op = std::string("atomic_rmw ") + kindName(kind);
  if (impl_->error) return {};
  const std::optional<ElementType> e = atomicElement(*this, op, m);
  if (!e || !checkOperand(*this, op, "the operand", v, m, *e)) return {};
  if (kind != AtomicKind::Assign && isFloatKind(kind) != isFloat(*e)) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation '" + op + "': " + kindName(kind) + " takes " +
                                                   (isFloatKind(kind) ? "float" : "integer or index") +
                                                   " elements, not those of " + toString(m.type())));
    return {};
  }
  llvm::Value* addr = detail::elementAddress(*this, op, m, indices);
  if (!addr) return {};
  if (std::optional<llvm::AtomicRMWInst::BinOp> rmw = directOp(kind))
    return Value(this, impl_->ir.CreateAtomicRMW(*rmw, addr, v.llvm(), elementAlign(v.llvm()->getType()),
                                                 llvmOrdering(ordering)),
                 *e);
  return detail::atomicUpdate(*this, addr, *e, ordering,
                              [&](const Value& current) { return combine(*this, kind, current, v); });
}

Value FunctionBuilder::genericAtomicRMW(const Value& m, const std::vector<Value>& indices,
                                        const std::function<Value(Value)>& body, AtomicOrdering ordering,
                                        std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const std::string op = "generic_atomic_rmw";
  if (impl_->error) return {};
  const std::optional<ElementType> e = atomicElement(*this, op, m);
  if (!e) return {};
  llvm::Value* addr = detail::elementAddress(*this, op, m, indices);
  if (!addr) return {};
  return detail::atomicUpdate(*this, addr, *e, ordering, [&](const Value& current) -> Value {
    Value next;
    {
      const detail::UserCode user(*this, at);
      next = body(current);
    }
    if (impl_->error || !checkOperand(*this, op, "the body's result", next, m, *e)) return {};
    if (MEMJIT_MUTANT("generic_atomic_update_lost")) return current;
    return next;
  });
}

std::pair<Value, Value> FunctionBuilder::atomicCompareExchange(const Value& m, const std::vector<Value>& indices,
                                                               const Value& expected, const Value& desired,
                                                               AtomicOrdering ordering, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const std::string op = "atomic_compare_exchange";
  if (impl_->error) return {};
  const std::optional<ElementType> e = atomicElement(*this, op, m);
  if (!e || !checkOperand(*this, op, "the expected value", expected, m, *e) ||
      !checkOperand(*this, op, "the desired value", desired, m, *e))
    return {};
  llvm::Value* addr = detail::elementAddress(*this, op, m, indices);
  if (!addr) return {};
  auto& ir = impl_->ir;
  llvm::Type* vt = expected.llvm()->getType();
  llvm::Type* st = bitsOf(vt);
  llvm::Value* desiredBits = ir.CreateBitCast(desired.llvm(), st);
  if (MEMJIT_MUTANT("compare_exchange_stores_expected")) desiredBits = ir.CreateBitCast(expected.llvm(), st);
  auto* pair = ir.CreateAtomicCmpXchg(addr, ir.CreateBitCast(expected.llvm(), st), desiredBits,
                                      elementAlign(vt), llvmOrdering(ordering), failureOrdering(ordering));
  return {Value(this, ir.CreateBitCast(ir.CreateExtractValue(pair, {0}), vt), *e),
          Value(this, ir.CreateExtractValue(pair, {1}), ElementType::I1)};
}

}  // namespace memjit::codegen
