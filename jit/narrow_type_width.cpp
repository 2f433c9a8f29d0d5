#include "narrow_type_width.h"

#include <algorithm>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

namespace memjit::jit::detail {
namespace {

// Bits of a scalar (or a vector's element) type; 0 for what is neither int nor float.
unsigned elementBits(llvm::Type* type) {
  llvm::Type* scalar = type->getScalarType();
  if (!scalar->isIntegerTy() && !scalar->isFloatingPointTy()) return 0;
  return scalar->getPrimitiveSizeInBits().getFixedValue();
}

bool isNarrow(unsigned bits) { return bits == 8 || bits == 16; }
bool isWide(unsigned bits) { return bits == 32 || bits == 64; }

// A conversion between a narrow and a wide element: what the cost model underprices the vectorisation of.
bool convertsNarrowAndWide(const llvm::Instruction& inst) {
  const auto* cast = llvm::dyn_cast<llvm::CastInst>(&inst);
  if (!cast || cast->getSrcTy()->isVectorTy()) return false;
  const unsigned from = elementBits(cast->getSrcTy()), to = elementBits(cast->getDestTy());
  return (isNarrow(from) && isWide(to)) || (isWide(from) && isNarrow(to));
}

// Loop-invariant, or advancing by exactly one element per iteration.
bool isUnitStride(llvm::ScalarEvolution& scev, const llvm::Loop& loop, llvm::Value* pointer, llvm::Type* accessed) {
  const llvm::SCEV* address = scev.getSCEV(pointer);
  if (scev.isLoopInvariant(address, &loop)) return true;
  const auto* recurrence = llvm::dyn_cast<llvm::SCEVAddRecExpr>(address);
  if (!recurrence || recurrence->getLoop() != &loop || !recurrence->isAffine()) return false;
  const auto* step = llvm::dyn_cast<llvm::SCEVConstant>(recurrence->getStepRecurrence(scev));
  const llvm::DataLayout& layout = loop.getHeader()->getModule()->getDataLayout();
  return step && step->getAPInt() == layout.getTypeStoreSize(accessed).getFixedValue();
}

}  // namespace

// The loop's hints win: any width or on/off request of its own.
bool hasVectorizeHint(const llvm::Loop& loop) {
  return llvm::findStringMetadataForLoop(&loop, "llvm.loop.vectorize.width") ||
         llvm::findStringMetadataForLoop(&loop, "llvm.loop.vectorize.enable") ||
         llvm::hasDisableAllTransformsHint(&loop);
}

// A width hint is also LLVM's permission to reorder the loop's floating-point
// operations (LoopVectorizeHints::allowReordering, as clang's `#pragma clang
// loop vectorize_width`), so a loop carrying a float value through operations
// without `reassoc` (an exact sum) keeps LLVM's own choice: a hint would
// reassociate it.
bool carriesExactFloat(const llvm::Loop& loop) {
  bool carriesFloat = false;
  for (llvm::PHINode& phi : loop.getHeader()->phis()) carriesFloat |= phi.getType()->isFPOrFPVectorTy();
  if (!carriesFloat) return false;
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block)
      if (llvm::isa<llvm::BinaryOperator>(inst) || llvm::isa<llvm::CallInst>(inst))
        if (llvm::isa<llvm::FPMathOperator>(inst) && !inst.hasAllowReassoc()) return true;
  return false;
}

bool accessesAreUnitStride(llvm::ScalarEvolution& scev, const llvm::Loop& loop) {
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block) {
      if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
        if (!isUnitStride(scev, loop, load->getPointerOperand(), load->getType())) return false;
      } else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
        if (!isUnitStride(scev, loop, store->getPointerOperand(), store->getValueOperand()->getType())) return false;
      }
    }
  return true;
}

unsigned preferredVectorBits(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  const auto& target = analyses.getResult<llvm::TargetIRAnalysis>(function);
  return target.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector).getFixedValue();
}

unsigned narrowestConvertedBits(const llvm::Loop& loop) {
  unsigned narrowest = 0;
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block)
      if (convertsNarrowAndWide(inst)) {
        const auto* cast = llvm::cast<llvm::CastInst>(&inst);
        const unsigned bits = std::min(elementBits(cast->getSrcTy()), elementBits(cast->getDestTy()));
        narrowest = narrowest ? std::min(narrowest, bits) : bits;
      }
  return narrowest;
}

llvm::PreservedAnalyses NarrowTypeWidthPass::run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  if (loops.empty()) return llvm::PreservedAnalyses::all();
  const unsigned registerBits = preferredVectorBits(function, analyses);
  if (registerBits == 0) return llvm::PreservedAnalyses::all();
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || hasVectorizeHint(*loop)) continue;
    const unsigned narrowest = narrowestConvertedBits(*loop);
    if (narrowest == 0 || registerBits / narrowest < 2 || carriesExactFloat(*loop)) continue;
    // Scalar evolution only for loops that convert: most functions have none.
    if (!accessesAreUnitStride(analyses.getResult<llvm::ScalarEvolutionAnalysis>(function), *loop)) continue;
    llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.width", registerBits / narrowest);
  }
  // Only loop metadata changed, which no cached analysis depends on.
  return llvm::PreservedAnalyses::all();
}

}  // namespace memjit::jit::detail
