#include "minmax_reductions.h"

#include <set>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

namespace memjit::jit::detail {
namespace {

// The phi's value from the latch is a minnum/maxnum the vectoriser would
// guard with a NaN test: one without `nnan`.
bool isNanCheckedMinMax(const llvm::PHINode& phi, const llvm::Loop& loop) {
  llvm::BasicBlock* latch = loop.getLoopLatch();
  if (!latch || phi.getBasicBlockIndex(latch) < 0) return false;
  const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(phi.getIncomingValueForBlock(latch));
  if (!call || !loop.contains(call) || call->hasNoNaNs()) return false;
  const llvm::Intrinsic::ID id = call->getIntrinsicID();
  return id == llvm::Intrinsic::minnum || id == llvm::Intrinsic::maxnum;
}

bool mixesMinMaxTypes(const llvm::Loop& loop) {
  std::set<llvm::Type*> types;
  for (const llvm::PHINode& phi : loop.getHeader()->phis())
    if (phi.getType()->isFloatingPointTy() && isNanCheckedMinMax(phi, loop)) types.insert(phi.getType());
  return types.size() > 1;
}

}  // namespace

llvm::PreservedAnalyses MixedMinMaxReductionsPass::run(llvm::Function& function,
                                                       llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || !mixesMinMaxTypes(*loop)) continue;
    llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.enable", 0);
    llvm::addStringMetadataToLoop(loop, "llvm.loop.interleave.count", 1);
  }
  // Only loop metadata changed, which no cached analysis depends on.
  return llvm::PreservedAnalyses::all();
}

}  // namespace memjit::jit::detail
