#include "float_results.h"

#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace memjit::jit::detail {
namespace {

bool isX87Candidate(llvm::Type* t) { return t->isFloatTy() || t->isDoubleTy(); }

// The result type with each f32/f64 member that would go to the x87 stack as
// an integer of its width, or null when none would: f32 and f64 take xmm0 and
// xmm1 while they are free, and halves and vectors take xmm registers too.
llvm::StructType* bitsResultType(llvm::Type* result) {
  auto* s = llvm::dyn_cast<llvm::StructType>(result);
  if (!s || s->isOpaque()) return nullptr;
  std::vector<llvm::Type*> members;
  int xmm = 0;
  bool changed = false;
  for (llvm::Type* m : s->elements()) {
    if (isX87Candidate(m) && xmm >= 2) {
      members.push_back(llvm::IntegerType::get(m->getContext(), m->getPrimitiveSizeInBits().getFixedValue()));
      changed = true;
      continue;
    }
    if (m->isFloatingPointTy() || m->isVectorTy()) ++xmm;
    members.push_back(m);
  }
  return changed ? llvm::StructType::get(s->getContext(), members) : nullptr;
}

// `value` (of struct type `to`'s layout) with each member bitcast to `to`'s member type.
llvm::Value* convert(llvm::IRBuilder<>& ir, llvm::Value* value, llvm::StructType* to) {
  llvm::Value* r = llvm::PoisonValue::get(to);
  for (unsigned i = 0; i < to->getNumElements(); ++i) {
    llvm::Value* m = ir.CreateExtractValue(value, i);
    if (m->getType() != to->getElementType(i)) m = ir.CreateBitCast(m, to->getElementType(i));
    r = ir.CreateInsertValue(r, m, i);
  }
  return r;
}

bool calledInModule(llvm::Function& f) {
  for (llvm::User* user : f.users())
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(user); call && call->getCalledOperand() == &f) return true;
  return false;
}

void rewrite(llvm::Function& f, llvm::StructType* bits) {
  auto* original = llvm::cast<llvm::StructType>(f.getReturnType());
  auto* type = llvm::FunctionType::get(bits, f.getFunctionType()->params(), f.isVarArg());
  llvm::Function* body =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, f.getName() + ".memjit.bits", f.getParent());
  body->copyAttributesFrom(&f);
  body->setLinkage(llvm::GlobalValue::InternalLinkage);
  body->setComdat(nullptr);
  body->setVisibility(llvm::GlobalValue::DefaultVisibility);
  body->setAttributes(f.getAttributes().removeAttributesAtIndex(f.getContext(), llvm::AttributeList::ReturnIndex));
  body->setSubprogram(f.getSubprogram());
  f.setSubprogram(nullptr);
  body->splice(body->end(), &f);
  for (unsigned i = 0; i < f.arg_size(); ++i) {
    f.getArg(i)->replaceAllUsesWith(body->getArg(i));
    body->getArg(i)->takeName(f.getArg(i));
  }
  std::vector<llvm::ReturnInst*> returns;
  for (llvm::BasicBlock& block : *body)
    if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) returns.push_back(ret);
  for (llvm::ReturnInst* ret : returns) {
    llvm::IRBuilder<> ir(ret);
    ir.CreateRet(convert(ir, ret->getReturnValue(), bits));
    ret->eraseFromParent();
  }
  // Every call in the module, the exported function's own new body among them.
  std::vector<llvm::CallInst*> calls;
  for (llvm::User* user : f.users())
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(user); call && call->getCalledOperand() == &f) calls.push_back(call);
  for (llvm::CallInst* call : calls) {
    llvm::IRBuilder<> ir(call);
    std::vector<llvm::Value*> args(call->arg_begin(), call->arg_end());
    llvm::CallInst* bitsCall = ir.CreateCall(body, args);
    bitsCall->setDebugLoc(call->getDebugLoc());
    bitsCall->setAttributes(call->getAttributes().removeAttributesAtIndex(f.getContext(), llvm::AttributeList::ReturnIndex));
    call->replaceAllUsesWith(convert(ir, bitsCall, original));
    call->eraseFromParent();
  }
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(f.getContext(), "", &f);
  llvm::IRBuilder<> ir(entry);
  std::vector<llvm::Value*> args;
  for (llvm::Argument& a : f.args()) args.push_back(&a);
  ir.CreateRet(convert(ir, ir.CreateCall(body, args), original));
}

}  // namespace

int returnFloatsAsBitsToCallers(llvm::Module& module) {
  std::vector<std::pair<llvm::Function*, llvm::StructType*>> todo;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    if (llvm::StructType* bits = bitsResultType(f.getReturnType()); bits && calledInModule(f)) todo.push_back({&f, bits});
  }
  for (auto [f, bits] : todo) rewrite(*f, bits);
  return static_cast<int>(todo.size());
}

}  // namespace memjit::jit::detail
