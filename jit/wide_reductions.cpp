#include "wide_reductions.h"

#include <algorithm>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include "narrow_type_width.h"

namespace memjit::jit::detail {
namespace {

constexpr unsigned kFullBits = 512;

bool hasAvx512(const llvm::Function& function) {
  const llvm::Attribute features = function.getFnAttribute("target-features");
  return features.isValid() && features.getValueAsString().contains("+avx512f");
}

// The widest float the loop carries or computes; 0 when it carries none.
unsigned carriedFloatBits(const llvm::Loop& loop) {
  unsigned bits = 0;
  for (llvm::PHINode& phi : loop.getHeader()->phis())
    if (phi.getType()->isFloatingPointTy())
      bits = std::max(bits, static_cast<unsigned>(phi.getType()->getPrimitiveSizeInBits().getFixedValue()));
  if (bits == 0) return 0;
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block)
      if (inst.getType()->isFloatingPointTy())
        bits = std::max(bits, static_cast<unsigned>(inst.getType()->getPrimitiveSizeInBits().getFixedValue()));
  return bits;
}

// Min, max and fabs become vector instructions; any other call (a math
// function: vector_math_width.h decides those) keeps the loop out.
bool lowersToInstructions(const llvm::Instruction& inst) {
  const auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
  if (!intrinsic) return false;
  switch (intrinsic->getIntrinsicID()) {
    case llvm::Intrinsic::maxnum:
    case llvm::Intrinsic::minnum:
    case llvm::Intrinsic::maximum:
    case llvm::Intrinsic::minimum:
    case llvm::Intrinsic::fabs: return true;
    default: return false;
  }
}

bool makesCalls(const llvm::Loop& loop) {
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block)
      if (llvm::isa<llvm::CallBase>(inst) && !lowersToInstructions(inst)) return true;
  return false;
}

}  // namespace

llvm::PreservedAnalyses WideReductionsPass::run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  if (!hasAvx512(function) || function.hasFnAttribute("prefer-vector-width")) return llvm::PreservedAnalyses::all();
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  if (loops.empty()) return llvm::PreservedAnalyses::all();
  const unsigned registerBits = preferredVectorBits(function, analyses);
  if (registerBits == 0 || registerBits >= kFullBits) return llvm::PreservedAnalyses::all();
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || hasVectorizeHint(*loop)) continue;
    const unsigned bits = carriedFloatBits(*loop);
    if (bits == 0 || carriesExactFloat(*loop) || makesCalls(*loop)) continue;
    if (!accessesAreUnitStride(analyses.getResult<llvm::ScalarEvolutionAnalysis>(function), *loop)) continue;
    llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.width", kFullBits / bits);
  }
  // Only loop metadata changed, which no cached analysis depends on.
  return llvm::PreservedAnalyses::all();
}

}  // namespace memjit::jit::detail
