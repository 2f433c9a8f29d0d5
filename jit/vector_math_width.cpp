#include "vector_math_width.h"

#include <algorithm>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include "narrow_type_width.h"

namespace memjit::jit::detail {
namespace {

constexpr unsigned kMaxLanes = 64;

// The most lanes the library has a vector variant of `name` for; 0 for none.
unsigned widestVariant(const llvm::TargetLibraryInfo& library, llvm::StringRef name) {
  for (unsigned lanes = kMaxLanes; lanes >= 2; lanes /= 2)
    if (library.isFunctionVectorizable(name, llvm::ElementCount::getFixed(lanes))) return lanes;
  return 0;
}

// The widest width every call of the loop has a vector variant for; 0 when
// the loop calls nothing, or something without one.
unsigned commonCallWidth(const llvm::TargetLibraryInfo& library, const llvm::Loop& loop) {
  unsigned width = 0;
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block) {
      const auto* call = llvm::dyn_cast<llvm::CallInst>(&inst);
      if (!call) continue;
      const llvm::Function* callee = call->getCalledFunction();
      // Intrinsics that are no library call (fabs, fma, ...) lower to instructions at any width.
      if (callee && callee->isIntrinsic() && !library.isFunctionVectorizable(callee->getName())) continue;
      const unsigned lanes = callee ? widestVariant(library, callee->getName()) : 0;
      if (lanes == 0) return 0;
      width = width ? std::min(width, lanes) : lanes;
    }
  return width;
}

// The widest scalar a loop loads, stores or computes: the element the width is counted in.
unsigned widestElementBits(const llvm::Loop& loop) {
  unsigned bits = 0;
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block)
      if (llvm::Type* type = inst.getType(); type->isFloatingPointTy())
        bits = std::max(bits, static_cast<unsigned>(type->getPrimitiveSizeInBits().getFixedValue()));
  return bits;
}

}  // namespace

llvm::PreservedAnalyses VectorMathWidthPass::run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  if (loops.empty()) return llvm::PreservedAnalyses::all();
  const unsigned registerBits = preferredVectorBits(function, analyses);
  if (registerBits == 0) return llvm::PreservedAnalyses::all();
  const auto& library = analyses.getResult<llvm::TargetLibraryAnalysis>(function);
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || hasVectorizeHint(*loop)) continue;
    const unsigned width = commonCallWidth(library, *loop);
    if (width == 0 || width * widestElementBits(*loop) <= registerBits || carriesExactFloat(*loop)) continue;
    if (!accessesAreUnitStride(analyses.getResult<llvm::ScalarEvolutionAnalysis>(function), *loop)) continue;
    llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.width", width);
  }
  // Only loop metadata changed, which no cached analysis depends on.
  return llvm::PreservedAnalyses::all();
}

}  // namespace memjit::jit::detail
