#include "builder_checks.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include "memjit/runtime/checks.h"

namespace memjit::codegen::detail {

namespace {

using Impl = BuilderOps::Impl;

// A private constant string, one per text and function.
llvm::Constant* stringConstant(Impl& I, std::string_view text) {
  if (auto it = I.checkStrings.find(text); it != I.checkStrings.end()) return it->second;
  llvm::Module& m = *I.lowered.function->getParent();
  llvm::Constant* data = llvm::ConstantDataArray::getString(m.getContext(), llvm::StringRef(text.data(), text.size()));
  auto* g = new llvm::GlobalVariable(m, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data,
                                     I.name + ".check");
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  g->setAlignment(llvm::Align(1));
  I.checkStrings.emplace(std::string(text), g);
  return g;
}

// The runtime entry `name`, declared nounwind (and cold for the failure path).
llvm::FunctionCallee runtimeFunction(llvm::Module& m, const char* name, llvm::FunctionType* type, bool cold) {
  llvm::FunctionCallee callee = m.getOrInsertFunction(name, type);
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->addFnAttr(llvm::Attribute::NoUnwind);
    if (cold) f->addFnAttr(llvm::Attribute::Cold);
  }
  return callee;
}

// Where a failed check leaves to: the end of the innermost parallel chunk,
// else a block returning zero results (made on first use).
llvm::BasicBlock* failTarget(Impl& I) {
  if (!I.failTargets.empty()) return I.failTargets.back();
  if (!I.earlyReturn) {
    llvm::Function* f = I.lowered.function;
    I.earlyReturn = llvm::BasicBlock::Create(f->getContext(), "check.return", f);
    llvm::IRBuilder<> r(I.earlyReturn);
    llvm::Type* t = f->getReturnType();
    if (t->isVoidTy())
      r.CreateRetVoid();
    else
      r.CreateRet(llvm::Constant::getNullValue(t));
  }
  return I.earlyReturn;
}

// Branches to a new block when `ok`, else to `otherwise`, weighted as
// __builtin_expect weighs a likely branch; continues in the new block.
void branchIfOk(Impl& I, llvm::Value* ok, llvm::BasicBlock* otherwise) {
  llvm::LLVMContext& ctx = I.ir.getContext();
  auto* next = llvm::BasicBlock::Create(ctx, "check.ok", I.lowered.function);
  I.ir.CreateCondBr(ok, next, otherwise, llvm::MDBuilder(ctx).createBranchWeights(2000, 1));
  I.ir.SetInsertPoint(next);
}

}  // namespace

bool checking(FunctionBuilder& self) noexcept {
  const Impl& I = BuilderOps::impl(self);
  return I.checked && !I.error;
}

void emitCheck(FunctionBuilder& self, llvm::Value* ok, int kind, std::string_view op, std::string_view type,
               const std::vector<llvm::Value*>& values, const std::vector<llvm::Value*>& bounds) {
  if (!checking(self)) return;
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(ok); c && c->isOne()) return;
  Impl& I = BuilderOps::impl(self);
  llvm::LLVMContext& ctx = I.ir.getContext();
  llvm::Module& m = *I.lowered.function->getParent();
  auto* fail = llvm::BasicBlock::Create(ctx, "check.fail", I.lowered.function);
  llvm::IRBuilder<> fb(fail);
  fb.SetCurrentDebugLocation(I.ir.getCurrentDebugLocation());  // the report is the checked operation's
  llvm::Type* i32 = fb.getInt32Ty();
  llvm::Type* i64 = fb.getInt64Ty();
  llvm::Type* ptr = fb.getPtrTy();
  const auto numValues = static_cast<unsigned>(values.size()), numBounds = static_cast<unsigned>(bounds.size());
  llvm::Value* valuePtr = llvm::ConstantPointerNull::get(fb.getPtrTy());
  llvm::Value* boundPtr = valuePtr;
  if (numValues + numBounds > 0) {
    auto scratch = runtimeFunction(m, "memjit_check_scratch", llvm::FunctionType::get(ptr, {i32}, false), true);
    llvm::Value* array = fb.CreateCall(scratch, {fb.getInt32(numValues + numBounds)});
    unsigned k = 0;
    for (const auto* list : {&values, &bounds})
      for (llvm::Value* v : *list) fb.CreateStore(fb.CreateSExtOrTrunc(v, i64), fb.CreateConstInBoundsGEP1_32(i64, array, k++));
    if (numValues) valuePtr = array;
    if (numBounds) boundPtr = fb.CreateConstInBoundsGEP1_32(i64, array, numValues);
  }
  auto report = runtimeFunction(m, "memjit_check_report",
                                llvm::FunctionType::get(fb.getVoidTy(), {ptr, i32, ptr, ptr, ptr, i32, ptr, i32}, false),
                                true);
  fb.CreateCall(report, {stringConstant(I, I.name), fb.getInt32(static_cast<std::uint32_t>(kind)),
                         stringConstant(I, op), stringConstant(I, type), valuePtr, fb.getInt32(numValues), boundPtr,
                         fb.getInt32(numBounds)});
  fb.CreateBr(failTarget(I));
  branchIfOk(I, ok, fail);
}

void emitPendingCheck(FunctionBuilder& self) {
  if (!checking(self)) return;
  Impl& I = BuilderOps::impl(self);
  llvm::Module& m = *I.lowered.function->getParent();
  auto pending = runtimeFunction(m, "memjit_check_pending", llvm::FunctionType::get(I.ir.getInt32Ty(), false), false);
  llvm::Value* failed = I.ir.CreateCall(pending);
  branchIfOk(I, I.ir.CreateICmpEQ(failed, I.ir.getInt32(0)), failTarget(I));
}

void checkDivision(FunctionBuilder& self, std::string_view op, bool isSigned, bool isRemainder, llvm::Value* a,
                   llvm::Value* b) {
  if (!checking(self)) return;
  auto& ir = BuilderOps::impl(self).ir;
  // Vector operands: every lane must pass; the report names no values (a
  // check reports scalars).
  const bool vector = a->getType()->isVectorTy();
  auto all = [&](llvm::Value* lanes) { return vector ? ir.CreateAndReduce(lanes) : lanes; };
  emitCheck(self, all(ir.CreateICmpNE(b, llvm::Constant::getNullValue(b->getType()))), MEMJIT_CHECK_DIVISION_BY_ZERO,
            op, "", {});
  if (!isSigned) return;
  const unsigned width = a->getType()->getScalarSizeInBits();
  // A constant operand other than INT_MIN / -1 rules the overflow out here
  // (the builder folds only when both are constant).
  auto* ca = llvm::dyn_cast<llvm::ConstantInt>(a);
  auto* cb = llvm::dyn_cast<llvm::ConstantInt>(b);
  if ((ca && !ca->getValue().isMinSignedValue()) || (cb && !cb->isMinusOne())) return;
  llvm::Value* overflow =
      ir.CreateAnd(ir.CreateICmpEQ(a, llvm::ConstantInt::get(a->getType(), llvm::APInt::getSignedMinValue(width))),
                   ir.CreateICmpEQ(b, llvm::Constant::getAllOnesValue(b->getType())));
  emitCheck(self, all(ir.CreateNot(overflow)),
            isRemainder ? MEMJIT_CHECK_REMAINDER_OVERFLOW : MEMJIT_CHECK_DIVISION_OVERFLOW, op, "",
            vector ? std::vector<llvm::Value*>{} : std::vector<llvm::Value*>{a, b});
}

ChunkFailTarget::ChunkFailTarget(FunctionBuilder& self, llvm::BasicBlock* chunkEnd) : impl_(BuilderOps::impl(self)) {
  impl_.failTargets.push_back(chunkEnd);
}
ChunkFailTarget::~ChunkFailTarget() { impl_.failTargets.pop_back(); }

Unchecked::Unchecked(FunctionBuilder& self) noexcept : impl_(BuilderOps::impl(self)), saved_(impl_.checked) {
  impl_.checked = false;
}
Unchecked::~Unchecked() { impl_.checked = saved_; }

}  // namespace memjit::codegen::detail
