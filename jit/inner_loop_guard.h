// Hoisting an inner loop's zero-trip guard out of its outer loop, for the
// accumulator jam (accumulator_jam.h). After loop rotation the check that
// the inner loop runs at all (`cols > 0`) sits inside the outer loop even
// though it does not change from one outer iteration to the next; LLVM's
// isSafeToUnrollAndJam refuses that shape, and only O3's non-trivial
// SimpleLoopUnswitch moves the guard out. Rather than unswitching every loop
// at O2, the jam versions just its candidate nests on the guard:
//   if (guard) { outer loop, inner loop entered unconditionally }   <- jammed
//   else       { the nest as written, a copy }
// The copy then either loses its inner loop (the guard is false there, so it
// never runs: dropInnerLoop) or, when the jam turns out illegal, becomes the
// only path again (keepAsWritten). Both only fix the branch's condition;
// removeDeadVersions then deletes what no longer runs, after all jams, so
// LoopInfo and the dominator tree stay valid while the pass works. Internal
// to jit/.
#pragma once

#include <optional>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>

namespace memjit::jit::detail {

struct HoistedGuard {
  llvm::BranchInst* choice;      // before both versions, on the guard's condition
  llvm::BranchInst* copyGuard;   // the copy's own guard, still in place
  bool skipCondition;            // the condition value that skips the inner loop
};

// For `outer` with a single inner loop, whose preheader is entered only
// through a conditional branch on a value defined outside `outer`, and whose
// other side rejoins where the inner loop exits: versions `outer` as above.
// Expects `outer` in loop-simplify and LCSSA form; keeps LoopInfo, the
// dominator tree and ScalarEvolution up to date. `outer` stays the guarded
// version (without dedicated exits: simplifyLoop again before transforming it).
std::optional<HoistedGuard> hoistInnerLoopGuard(llvm::Loop& outer, llvm::LoopInfo& loops,
                                                llvm::DominatorTree& dominators, llvm::ScalarEvolution& scev);

// The outer loop was transformed: in the copy the inner loop never runs.
// Both return the block whose branch now has a constant condition.
llvm::BasicBlock* dropInnerLoop(const HoistedGuard& guard);
// The outer loop was left alone: every entry takes the copy, the nest as written.
llvm::BasicBlock* keepAsWritten(const HoistedGuard& guard);
// Folds the branches fixed above and deletes the blocks no longer reached.
// Invalidates every analysis of the function.
void removeDeadVersions(llvm::Function& function, const std::vector<llvm::BasicBlock*>& foldedBlocks);

}  // namespace memjit::jit::detail
