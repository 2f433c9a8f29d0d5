#include "strength_reduction.h"

#include <cstdint>
#include <optional>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

namespace memjit::jit::detail {
namespace {

// The constant step of `value` as an induction variable of `loop`, if it is one.
std::optional<std::int64_t> constantStep(llvm::ScalarEvolution& evolution, const llvm::SCEV* value,
                                         const llvm::Loop& loop) {
  const auto* recurrence = llvm::dyn_cast<llvm::SCEVAddRecExpr>(value);
  if (!recurrence || recurrence->getLoop() != &loop || !recurrence->isAffine()) return std::nullopt;
  const auto* step = llvm::dyn_cast<llvm::SCEVConstant>(recurrence->getStepRecurrence(evolution));
  if (!step || step->getAPInt().getSignificantBits() > 63) return std::nullopt;
  return step->getAPInt().getSExtValue();
}

// The pointers `inst` reads or writes through; false when it may touch
// memory through one this cannot name (a gather's vector of pointers, a call).
bool accessedPointers(const llvm::Instruction& inst, llvm::SmallVectorImpl<const llvm::Value*>& pointers) {
  if (!inst.mayReadOrWriteMemory()) return true;
  if (const llvm::Value* pointer = llvm::getLoadStorePointerOperand(&inst)) {
    pointers.push_back(pointer);
    return true;
  }
  if (const auto* exchange = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) {
    pointers.push_back(exchange->getPointerOperand());
    return true;
  }
  if (const auto* update = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) {
    pointers.push_back(update->getPointerOperand());
    return true;
  }
  if (const auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&inst)) {
    switch (intrinsic->getIntrinsicID()) {
      case llvm::Intrinsic::masked_load:
      case llvm::Intrinsic::masked_expandload:
        pointers.push_back(intrinsic->getArgOperand(0));
        return true;
      case llvm::Intrinsic::masked_store:
      case llvm::Intrinsic::masked_compressstore:
        pointers.push_back(intrinsic->getArgOperand(1));
        return true;
      case llvm::Intrinsic::prefetch:
        pointers.push_back(intrinsic->getArgOperand(0));
        return true;
      default:
        break;
    }
  }
  // A call that only reads or writes no argument memory (a vector math
  // function is `memory(none)` and never gets here) could still be any other
  // call: say LSR may help rather than guess.
  return false;
}

bool innermostLoopNeedsNoStrengthReduction(llvm::ScalarEvolution& evolution, const llvm::Loop& loop) {
  llvm::SmallVector<std::int64_t, 4> integerSteps, pointerSteps;
  for (llvm::PHINode& phi : loop.getHeader()->phis()) {
    if (!evolution.isSCEVable(phi.getType())) continue;
    const std::optional<std::int64_t> step = constantStep(evolution, evolution.getSCEV(&phi), loop);
    if (!step || *step == 0) continue;
    (phi.getType()->isPointerTy() ? pointerSteps : integerSteps).push_back(*step);
  }
  llvm::SmallVector<const llvm::Value*, 2> pointers;
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block) {
      pointers.clear();
      if (!accessedPointers(inst, pointers)) return false;
      for (const llvm::Value* pointer : pointers) {
        const llvm::SCEV* address = evolution.getSCEV(const_cast<llvm::Value*>(pointer));
        if (evolution.isLoopInvariant(address, &loop)) continue;
        const std::optional<std::int64_t> step = constantStep(evolution, address, loop);
        if (!step) return false;
        const bool scaled = llvm::any_of(integerSteps, [&](std::int64_t ivStep) {
          if (*step % ivStep != 0) return false;
          const std::int64_t scale = *step / ivStep;
          return scale == 1 || scale == 2 || scale == 4 || scale == 8;
        });
        if (!scaled && !llvm::is_contained(pointerSteps, *step)) return false;
      }
    }
  return true;
}

}  // namespace

bool loopsNeedNoStrengthReduction(llvm::Function& function) {
  if (function.isDeclaration()) return true;
  const llvm::Triple triple(function.getParent()->getTargetTriple());
  if (triple.getArch() != llvm::Triple::x86_64) return false;
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  if (loops.empty()) return true;
  llvm::TargetLibraryInfoImpl libraryImpl(triple);
  llvm::TargetLibraryInfo library(libraryImpl, &function);
  llvm::AssumptionCache assumptions(function);
  llvm::ScalarEvolution evolution(function, library, assumptions, dominators, loops);
  for (const llvm::Loop* loop : loops.getLoopsInPreorder())
    if (loop->isInnermost() && !innermostLoopNeedsNoStrengthReduction(evolution, *loop)) return false;
  return true;
}

}  // namespace memjit::jit::detail
