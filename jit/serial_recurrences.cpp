#include "serial_recurrences.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Operator.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Vectorize/SLPVectorizer.h>

namespace memjit::jit::detail {
namespace {

bool isExactChainStep(const llvm::Value* value, const llvm::PHINode& carried) {
  const auto* inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst || !llvm::isa<llvm::FPMathOperator>(inst) || inst->hasAllowReassoc()) return false;
  if (const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(inst)) {
    const llvm::Intrinsic::ID id = call->getIntrinsicID();
    if (id != llvm::Intrinsic::fma && id != llvm::Intrinsic::fmuladd) return false;
  } else if (inst->getOpcode() != llvm::Instruction::FAdd && inst->getOpcode() != llvm::Instruction::FSub &&
             inst->getOpcode() != llvm::Instruction::FMul) {
    return false;
  }
  for (const llvm::Use& operand : inst->operands())
    if (operand.get() == &carried) return true;
  return false;
}

bool hasUnrollHint(const llvm::Loop& loop) {
  const llvm::MDNode* id = loop.getLoopID();
  if (!id) return false;
  for (const llvm::MDOperand& operand : id->operands())
    if (const auto* node = llvm::dyn_cast<llvm::MDNode>(operand.get()); node && node->getNumOperands() > 0)
      if (const auto* name = llvm::dyn_cast<llvm::MDString>(node->getOperand(0).get()))
        if (name->getString().starts_with("llvm.loop.unroll.")) return true;
  return false;
}

}  // namespace

bool hasSerialFloatRecurrence(const llvm::Loop& loop) {
  const llvm::BasicBlock* latch = loop.getLoopLatch();
  if (!latch) return false;
  const llvm::PHINode* only = nullptr;
  for (const llvm::PHINode& phi : loop.getHeader()->phis()) {
    if (!phi.getType()->isFPOrFPVectorTy()) continue;
    if (only) return false;  // independent chains (a register tile's accumulators) fill the FMA ports instead
    only = &phi;
  }
  return only && isExactChainStep(only->getIncomingValueForBlock(latch), *only);
}

bool widensHalves(const llvm::Loop& loop) {
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block)
      if (const auto* ext = llvm::dyn_cast<llvm::FPExtInst>(&inst); ext && ext->getSrcTy()->isHalfTy()) return true;
  return false;
}

llvm::PreservedAnalyses SerialRecurrencesPass::run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || !hasSerialFloatRecurrence(*loop)) continue;
    // The enclosing loops too: unrolling one only lays copies of the chain
    // loop end to end (the naive matmul's row loop was runtime-unrolled 4x
    // once its inner loop was not), saving an increment per inner loop.
    const bool unrollForSlp = widensHalves(*loop) && !hasUnrollHint(*loop);
    if (unrollForSlp) {
      llvm::LLVMContext& context = function.getContext();
      llvm::Metadata* count[] = {
          llvm::MDString::get(context, "llvm.loop.unroll.count"),
          llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), kHalfChainUnroll))};
      loop->setLoopID(llvm::makePostTransformationMetadata(context, loop->getLoopID(), {"llvm.loop.unroll."},
                                                           {llvm::MDNode::get(context, count)}));
    }
    for (llvm::Loop* level = unrollForSlp ? loop->getParentLoop() : loop; level; level = level->getParentLoop())
      if (!hasUnrollHint(*level)) llvm::addStringMetadataToLoop(level, "llvm.loop.unroll.runtime.disable");
  }
  // Only loop metadata changed, which no cached analysis depends on.
  return llvm::PreservedAnalyses::all();
}

llvm::PreservedAnalyses HalfChainSlpPass::run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  if (function.isDeclaration()) return llvm::PreservedAnalyses::all();
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  bool wanted = false;
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || !widensHalves(*loop)) continue;
    for (const llvm::PHINode& phi : loop->getHeader()->phis()) wanted |= phi.getType()->isFPOrFPVectorTy();
  }
  if (!wanted) return llvm::PreservedAnalyses::all();
  return llvm::SLPVectorizerPass().run(function, analyses);
}

}  // namespace memjit::jit::detail
