#include "accumulator_jam.h"

#include <map>
#include <optional>
#include <vector>

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/DependenceAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/OptimizationRemarkEmitter.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Transforms/Scalar/DeadStoreElimination.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/UnrollLoop.h>

#include "inner_loop_guard.h"
#include "narrow_type_width.h"

namespace memjit::jit::detail {
namespace {

// Bigger inner loops gain less from sharing the accumulator's load and store
// and would grow kJamRows-fold.
constexpr unsigned kMaxInnerInstructions = 32;

// Any llvm.loop.unroll* or llvm.loop.unroll_and_jam* request: the user's or
// an earlier unroller's decision stands.
bool hasUnrollHint(const llvm::Loop& loop) {
  const llvm::MDNode* id = loop.getLoopID();
  if (!id) return false;
  for (const llvm::MDOperand& operand : id->operands()) {
    const auto* node = llvm::dyn_cast<llvm::MDNode>(operand.get());
    if (!node || node->getNumOperands() == 0) continue;
    if (const auto* name = llvm::dyn_cast<llvm::MDString>(node->getOperand(0).get());
        name && name->getString().starts_with("llvm.loop.unroll"))
      return true;
  }
  return false;
}

// The inner loop loads and stores the same address, which advances with the
// inner loop and does not move with the outer one: a row of accumulators.
bool accumulatesIntoRow(llvm::ScalarEvolution& scev, const llvm::Loop& outer, const llvm::Loop& inner) {
  std::vector<const llvm::SCEV*> loaded;
  std::vector<const llvm::SCEV*> stored;
  for (llvm::BasicBlock* block : inner.blocks())
    for (llvm::Instruction& inst : *block) {
      if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) loaded.push_back(scev.getSCEV(load->getPointerOperand()));
      if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst))
        stored.push_back(scev.getSCEV(store->getPointerOperand()));
    }
  for (const llvm::SCEV* address : stored) {
    const auto* row = llvm::dyn_cast<llvm::SCEVAddRecExpr>(address);
    if (!row || row->getLoop() != &inner || !row->isAffine()) continue;
    if (!scev.isLoopInvariant(row->getStart(), &outer) || !scev.isLoopInvariant(row->getStepRecurrence(scev), &outer))
      continue;
    for (const llvm::SCEV* read : loaded)
      if (read == address) return true;
  }
  return false;
}

bool isCandidate(llvm::ScalarEvolution& scev, const llvm::Loop& outer) {
  if (outer.getSubLoops().size() != 1) return false;
  const llvm::Loop& inner = *outer.getSubLoops().front();
  if (!inner.isInnermost() || hasUnrollHint(outer) || llvm::hasDisableAllTransformsHint(&outer) ||
      llvm::hasDisableAllTransformsHint(&inner))
    return false;
  unsigned size = 0;
  for (llvm::BasicBlock* block : inner.blocks()) size += static_cast<unsigned>(block->size());
  if (size > kMaxInnerInstructions || narrowestConvertedBits(inner) == 0) return false;
  // A known trip count too small to fill one jammed pass.
  const unsigned trips = scev.getSmallConstantTripCount(&outer);
  if (trips != 0 && trips < 2 * kJamRows) return false;
  return accumulatesIntoRow(scev, outer, inner);
}

// The jammed inner loop keeps one induction variable per jammed row, all
// equal; until they are one value the rows' y[c] addresses differ and GVN
// cannot forward one row's store into the next row's load.
void mergeEqualInductions(llvm::ScalarEvolution& scev, const llvm::Loop& loop) {
  std::map<const llvm::SCEV*, llvm::PHINode*> first;
  std::vector<llvm::PHINode*> duplicates;
  for (llvm::PHINode& phi : loop.getHeader()->phis()) {
    if (!scev.isSCEVable(phi.getType())) continue;
    const llvm::SCEV* value = scev.getSCEV(&phi);
    if (!llvm::isa<llvm::SCEVAddRecExpr>(value)) continue;
    auto [kept, inserted] = first.try_emplace(value, &phi);
    if (!inserted && kept->second->getType() == phi.getType()) duplicates.push_back(&phi);
  }
  for (llvm::PHINode* phi : duplicates) {
    phi->replaceAllUsesWith(first.at(scev.getSCEV(phi)));
    scev.forgetValue(phi);
    llvm::RecursivelyDeleteDeadPHINode(phi);
  }
}

}  // namespace

llvm::PreservedAnalyses AccumulatorJamPass::run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  std::vector<llvm::Loop*> nests;
  for (llvm::Loop* loop : loops.getLoopsInPreorder())
    if (loop->getSubLoops().size() == 1 && loop->getSubLoops().front()->isInnermost()) nests.push_back(loop);
  if (nests.empty()) return llvm::PreservedAnalyses::all();
  auto& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  std::erase_if(nests, [&](llvm::Loop* loop) { return !isCandidate(scev, *loop); });
  if (nests.empty()) return llvm::PreservedAnalyses::all();

  auto& dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(function);
  auto& dependences = analyses.getResult<llvm::DependenceAnalysis>(function);
  auto& assumptions = analyses.getResult<llvm::AssumptionAnalysis>(function);
  auto& target = analyses.getResult<llvm::TargetIRAnalysis>(function);
  auto& remarks = analyses.getResult<llvm::OptimizationRemarkEmitterAnalysis>(function);
  bool changed = false, versioned = false;
  std::vector<llvm::BasicBlock*> folded;  // branches that now pick one version of a nest
  for (llvm::Loop* outer : nests) {
    // Simplified (preheader, dedicated exits) and LCSSA form is what the
    // unroller expects: LLVM's own unroll-and-jam pass gets both from the
    // loop pass manager.
    changed |= llvm::simplifyLoop(outer, &dominators, &loops, &scev, &assumptions, nullptr, false);
    changed |= llvm::formLCSSARecursively(*outer, dominators, &loops, &scev);
    // Below O3 nothing has moved the inner loop's zero-trip guard out of the
    // outer loop, and the jam refuses a guarded inner loop (inner_loop_guard.h).
    const std::optional<HoistedGuard> guard = hoistInnerLoopGuard(*outer, loops, dominators, scev);
    if (guard) {
      versioned = true;
      llvm::simplifyLoop(outer, &dominators, &loops, &scev, &assumptions, nullptr, /*PreserveLCSSA=*/true);
      llvm::formLCSSARecursively(*outer, dominators, &loops, &scev);
    }
    if (!llvm::isSafeToUnrollAndJam(outer, scev, dominators, dependences, loops)) {
      if (guard) folded.push_back(keepAsWritten(*guard));
      continue;
    }
    llvm::OptimizationRemark remark(kJamRemarkPass, "Jammed", outer->getStartLoc(), outer->getHeader());
    const unsigned trips = scev.getSmallConstantTripCount(outer);
    const unsigned multiple = scev.getSmallConstantTripMultiple(outer);
    const llvm::LoopUnrollResult result =
        llvm::UnrollAndJamLoop(outer, kJamRows, trips, multiple, /*UnrollRemainder=*/false, &loops, &scev,
                               &dominators, &assumptions, &target, &remarks);
    if (result == llvm::LoopUnrollResult::Unmodified) {
      if (guard) folded.push_back(keepAsWritten(*guard));
      continue;
    }
    changed = true;
    if (guard) folded.push_back(dropInnerLoop(*guard));
    mergeEqualInductions(scev, *outer->getSubLoops().front());
    remarks.emit(remark << "jammed " << llvm::ore::NV("Rows", kJamRows)
                        << " iterations of the outer loop around one pass of the inner loop");
  }
  if (!changed && !versioned) return llvm::PreservedAnalyses::all();
  if (!folded.empty()) removeDeadVersions(function, folded);
  if (!changed) return llvm::PreservedAnalyses::none();
  // The jammed rows reload and store y[c] one after another: forward the
  // stores into the loads, then drop all but the last store.
  analyses.invalidate(function, llvm::PreservedAnalyses::none());
  llvm::FunctionPassManager cleanup;
  cleanup.addPass(llvm::GVNPass());
  cleanup.addPass(llvm::DSEPass());
  cleanup.run(function, analyses);
  return llvm::PreservedAnalyses::none();
}

}  // namespace memjit::jit::detail
