#include "half_registers.h"

#include <utility>
#include <vector>

#include <llvm/ADT/STLExtras.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace memjit::jit::detail {
namespace {

bool isHalf(llvm::Type* t) { return t->getScalarType()->isHalfTy() || t->getScalarType()->isBFloatTy(); }

llvm::Type* bitsOf(llvm::Type* t) {
  llvm::Type* i16 = llvm::Type::getInt16Ty(t->getContext());
  if (auto* v = llvm::dyn_cast<llvm::VectorType>(t)) return llvm::VectorType::get(i16, v->getElementCount());
  return i16;
}

// Half phis become i16 phis, each incoming value converted at the end of its
// predecessor (where, if it comes from further away, the loop below passes
// it in turn).
void phisAsBits(llvm::Function& f) {
  std::vector<llvm::PHINode*> phis;
  for (llvm::BasicBlock& block : f)
    for (llvm::PHINode& phi : block.phis())
      if (isHalf(phi.getType())) phis.push_back(&phi);
  for (llvm::PHINode* phi : phis) {
    llvm::IRBuilder<> ir(phi);
    llvm::PHINode* bits = ir.CreatePHI(bitsOf(phi->getType()), phi->getNumIncomingValues());
    for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
      llvm::IRBuilder<> end(phi->getIncomingBlock(k)->getTerminator());
      bits->addIncoming(end.CreateBitCast(phi->getIncomingValue(k), bits->getType()), phi->getIncomingBlock(k));
    }
    ir.SetInsertPoint(phi->getParent(), phi->getParent()->getFirstInsertionPt());
    phi->replaceAllUsesWith(ir.CreateBitCast(bits, phi->getType()));
    phi->eraseFromParent();
  }
}

// A half that another block uses: converted after its definition, and back
// before each use there.
void valuesAsBits(llvm::Function& f) {
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> defs;
  for (llvm::Argument& a : f.args())
    if (isHalf(a.getType())) defs.push_back({&a, &f.getEntryBlock()});
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block)
      if (isHalf(inst.getType())) defs.push_back({&inst, &block});
  for (auto [def, block] : defs) {
    llvm::Value* bits = nullptr;
    for (llvm::Use& use : llvm::make_early_inc_range(def->uses())) {
      auto* user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
      if (!user || user->getParent() == block) continue;
      if (!bits) {
        auto* inst = llvm::dyn_cast<llvm::Instruction>(def);
        llvm::IRBuilder<> after(block, inst && !llvm::isa<llvm::PHINode>(inst) ? std::next(inst->getIterator())
                                                                               : block->getFirstInsertionPt());
        if (inst) after.SetCurrentDebugLocation(inst->getDebugLoc());
        bits = after.CreateBitCast(def, bitsOf(def->getType()));
      }
      llvm::IRBuilder<> before(user);
      use.set(before.CreateBitCast(bits, def->getType()));
    }
  }
}

}  // namespace

void passHalvesAsBits(llvm::Module& module) {
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    phisAsBits(f);
    valuesAsBits(f);
  }
}

bool hasHalfValues(const llvm::Module& module) {
  for (const llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    for (const llvm::Argument& a : f.args())
      if (isHalf(a.getType())) return true;
    for (const llvm::BasicBlock& block : f)
      for (const llvm::Instruction& inst : block) {
        if (isHalf(inst.getType())) return true;
        for (const llvm::Value* operand : inst.operand_values())
          if (isHalf(operand->getType())) return true;
      }
  }
  return false;
}

}  // namespace memjit::jit::detail
