#include "streaming_stores.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MemoryModelRelaxationAnnotations.h>
#include <llvm/IR/Metadata.h>

#include "memjit/metadata_symbols.h"

namespace memjit::jit::detail {

namespace {

// Whether the target streams a store of `type` at `align`. X86's answer stops
// at 32 bytes, but a naturally aligned wider vector is split by the code
// generator into streaming halves (or streamed whole with AVX-512), so a
// vector qualifies when its halves do. A vector store below its own width
// never does: it would become element-wise streaming stores, slower than the
// plain store it stays.
bool streamable(const llvm::TargetTransformInfo& tti, const llvm::DataLayout& layout, llvm::Type* type,
                llvm::Align align) {
  if (tti.isLegalNTStore(type, align)) return true;
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type);
  if (!vector || vector->getNumElements() % 2 != 0 || align.value() < layout.getTypeStoreSize(type))
    return false;
  return streamable(tti, layout, llvm::FixedVectorType::get(vector->getElementType(), vector->getNumElements() / 2),
                    align);
}

}  // namespace

llvm::PreservedAnalyses StreamingStoresPass::run(llvm::Function& function,
                                                 llvm::FunctionAnalysisManager& analyses) {
  using metadata::kStreamingStoreTagPrefix, metadata::kStreamingStoreTagSuffix;
  llvm::SmallVector<llvm::StoreInst*, 16> tagged;
  for (llvm::Instruction& inst : llvm::instructions(function))
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst))
      if (store->hasMetadata(llvm::LLVMContext::MD_mmra) &&
          llvm::MMRAMetadata(*store).hasTag(kStreamingStoreTagPrefix, kStreamingStoreTagSuffix))
        tagged.push_back(store);
  if (tagged.empty()) return llvm::PreservedAnalyses::all();

  llvm::LLVMContext& context = function.getContext();
  const llvm::TargetTransformInfo& tti = analyses.getResult<llvm::TargetIRAnalysis>(function);
  llvm::MDNode* nontemporal = llvm::MDNode::get(
      context, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1)));
  for (llvm::StoreInst* store : tagged) {
    // Drop memjit's tag, keeping any tags of others.
    llvm::SmallVector<llvm::MMRAMetadata::TagT, 2> others;
    for (const auto& t : llvm::MMRAMetadata(*store))
      if (t.first != kStreamingStoreTagPrefix || t.second != kStreamingStoreTagSuffix) others.push_back(t);
    store->setMetadata(llvm::LLVMContext::MD_mmra,
                       others.empty() ? nullptr : llvm::MMRAMetadata::getMD(context, others));
    if (streamable(tti, function.getDataLayout(), store->getValueOperand()->getType(), store->getAlign()))
      store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
  }
  // Only metadata changed: every analysis stays valid.
  return llvm::PreservedAnalyses::all();
}

}  // namespace memjit::jit::detail
