#include "inner_loop_guard.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/DomTreeUpdater.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

namespace memjit::jit::detail {
namespace {

// The branch that decides whether `inner` runs at all, when it is one the
// outer loop can be versioned on; `runs` is its successor into the inner loop.
llvm::BranchInst* invariantGuard(const llvm::Loop& outer, const llvm::Loop& inner, unsigned& runs) {
  llvm::BasicBlock* innerPreheader = inner.getLoopPreheader();
  llvm::BasicBlock* innerExit = inner.getUniqueExitBlock();
  if (!innerPreheader || !innerExit || !innerPreheader->getSinglePredecessor()) return nullptr;
  auto* guard = llvm::dyn_cast<llvm::BranchInst>(innerPreheader->getSinglePredecessor()->getTerminator());
  if (!guard || !guard->isConditional() || !outer.contains(guard)) return nullptr;
  llvm::Value* condition = guard->getCondition();
  if (llvm::isa<llvm::Constant>(condition) || !outer.isLoopInvariant(condition)) return nullptr;
  runs = guard->getSuccessor(0) == innerPreheader ? 0 : 1;
  llvm::BasicBlock* skip = guard->getSuccessor(1 - runs);
  // The skipping edge must lead where the inner loop's exit leads, so that
  // dropping it strands no block of the outer loop.
  if (skip == innerPreheader || innerExit->getSingleSuccessor() != skip) return nullptr;
  return guard;
}

}  // namespace

std::optional<HoistedGuard> hoistInnerLoopGuard(llvm::Loop& outer, llvm::LoopInfo& loops,
                                                llvm::DominatorTree& dominators, llvm::ScalarEvolution& scev) {
  if (outer.getSubLoops().size() != 1) return std::nullopt;
  unsigned runs = 0;
  llvm::BranchInst* guard = invariantGuard(outer, *outer.getSubLoops().front(), runs);
  llvm::BasicBlock* preheader = outer.getLoopPreheader();
  llvm::BasicBlock* exit = outer.getUniqueExitBlock();
  if (!guard || !preheader || !exit) return std::nullopt;
  const bool skipCondition = runs == 1;

  // The preheader becomes the choice between the versions (as in LLVM's
  // LoopVersioning), the copy enters through a clone of the new preheader.
  llvm::BasicBlock* choice = preheader;
  llvm::BasicBlock* entry = llvm::SplitBlock(choice, choice->getTerminator(), &dominators, &loops, nullptr,
                                             outer.getHeader()->getName() + ".guarded");
  llvm::ValueToValueMapTy copied;
  llvm::SmallVector<llvm::BasicBlock*, 16> copyBlocks;
  llvm::Loop* copy =
      llvm::cloneLoopWithPreheader(entry, choice, &outer, copied, ".as.written", &loops, &dominators, copyBlocks);
  llvm::remapInstructionsInBlocks(copyBlocks, copied);

  // Both versions leave through the same exit: its LCSSA phis take the
  // copy's values from the copy's exiting blocks.
  for (llvm::PHINode& phi : exit->phis()) {
    const unsigned incoming = phi.getNumIncomingValues();
    for (unsigned i = 0; i < incoming; ++i) {
      llvm::BasicBlock* from = phi.getIncomingBlock(i);
      if (!outer.contains(from)) continue;
      llvm::Value* value = phi.getIncomingValue(i);
      llvm::Value* copiedValue = copied.lookup(value);
      phi.addIncoming(copiedValue ? copiedValue : value, llvm::cast<llvm::BasicBlock>(copied.lookup(from)));
    }
    scev.forgetValue(&phi);
  }
  llvm::Instruction* jump = choice->getTerminator();
  llvm::IRBuilder<>(jump).CreateCondBr(guard->getCondition(), skipCondition ? copy->getLoopPreheader() : entry,
                                       skipCondition ? entry : copy->getLoopPreheader());
  jump->eraseFromParent();
  dominators.changeImmediateDominator(exit, choice);

  // In `outer` the guard always holds: enter the inner loop unconditionally.
  auto* copyGuard = llvm::cast<llvm::BranchInst>(copied.lookup(guard));
  llvm::BasicBlock* guardBlock = guard->getParent();
  llvm::BasicBlock* skip = guard->getSuccessor(1 - runs);
  skip->removePredecessor(guardBlock);
  llvm::IRBuilder<>(guard).CreateBr(guard->getSuccessor(runs));
  guard->eraseFromParent();
  llvm::DomTreeUpdater updater(dominators, llvm::DomTreeUpdater::UpdateStrategy::Eager);
  updater.applyUpdates({{llvm::DominatorTree::Delete, guardBlock, skip}});
  // The unroller takes a single block after the inner loop: the one the
  // skipping edge led to joins the inner loop's exit.
  llvm::MergeBlockIntoPredecessor(skip, &updater, &loops);
  scev.forgetLoop(&outer);
  return HoistedGuard{llvm::cast<llvm::BranchInst>(choice->getTerminator()), copyGuard, skipCondition};
}

llvm::BasicBlock* dropInnerLoop(const HoistedGuard& guard) {
  guard.copyGuard->setCondition(llvm::ConstantInt::getBool(guard.copyGuard->getContext(), guard.skipCondition));
  return guard.copyGuard->getParent();
}

llvm::BasicBlock* keepAsWritten(const HoistedGuard& guard) {
  guard.choice->setCondition(llvm::ConstantInt::getBool(guard.choice->getContext(), guard.skipCondition));
  return guard.choice->getParent();
}

void removeDeadVersions(llvm::Function& function, const std::vector<llvm::BasicBlock*>& foldedBlocks) {
  for (llvm::BasicBlock* block : foldedBlocks) llvm::ConstantFoldTerminator(block, /*DeleteDeadConditions=*/true);
  llvm::removeUnreachableBlocks(function);
}

}  // namespace memjit::jit::detail
