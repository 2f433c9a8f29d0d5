#include "descriptor_ops.h"

#include "mutants.h"

#include <llvm/IR/Module.h>

namespace memjit::codegen::detail {

llvm::Value* packArgument(llvm::IRBuilderBase& b, const Type& t, const LoweringOptions& o,
                          std::vector<llvm::Value*>::const_iterator& it) {
  llvm::LLVMContext& ctx = b.getContext();
  if (isScalar(t) || o.barePtr) {
    if (isScalar(t) || !o.barePtr) return *it++;
    // A bare pointer becomes a full descriptor with the static layout, so the
    // rest of the body treats it like any ranked memref.
    const auto& m = std::get<MemRefType>(t);
    llvm::Value* ptr = *it++;
    llvm::Type* idx = indexType(ctx, o);
    llvm::Value* d = llvm::PoisonValue::get(descriptorType(ctx, m, o));
    d = b.CreateInsertValue(d, ptr, {0});
    d = b.CreateInsertValue(d, ptr, {1});
    d = b.CreateInsertValue(d, llvm::ConstantInt::get(idx, m.effectiveOffset()), {2});
    auto strides = m.effectiveStrides();
    for (unsigned i = 0; i < m.rank(); ++i) {
      d = b.CreateInsertValue(d, llvm::ConstantInt::get(idx, m.dim(i)), {3, i});
      d = b.CreateInsertValue(d, llvm::ConstantInt::get(idx, strides[i]), {4, i});
    }
    return d;
  }
  if (isUnrankedMemRef(t)) {
    llvm::Value* d = llvm::UndefValue::get(unrankedDescriptorType(ctx, o));
    d = b.CreateInsertValue(d, *it++, {0});
    return b.CreateInsertValue(d, *it++, {1});
  }
  const auto& m = std::get<MemRefType>(t);
  const unsigned rank = static_cast<unsigned>(m.rank());
  llvm::Value* d = llvm::UndefValue::get(descriptorType(ctx, m, o));
  d = b.CreateInsertValue(d, it[0], {0});
  d = b.CreateInsertValue(d, it[1], {1});
  d = b.CreateInsertValue(d, it[2], {2});
  for (unsigned i = 0; i < rank; ++i) {
    d = b.CreateInsertValue(d, it[3 + i], {3, i});
    const unsigned stride = MEMJIT_MUTANT("descriptor_strides_swapped") ? rank - 1 - i : i;
    d = b.CreateInsertValue(d, it[3 + rank + stride], {4, i});
  }
  it += 3 + 2 * rank;
  return d;
}

std::vector<llvm::Value*> unpackArgument(llvm::IRBuilderBase& b, const Type& t, const LoweringOptions& o,
                                         llvm::Value* v) {
  if (isScalar(t)) return {v};
  if (o.barePtr) return {b.CreateExtractValue(v, {1})};
  if (isUnrankedMemRef(t)) return {b.CreateExtractValue(v, {0}), b.CreateExtractValue(v, {1})};
  const unsigned rank = static_cast<unsigned>(std::get<MemRefType>(t).rank());
  std::vector<llvm::Value*> out{b.CreateExtractValue(v, {0}), b.CreateExtractValue(v, {1}),
                                b.CreateExtractValue(v, {2})};
  for (unsigned i = 0; i < rank; ++i) out.push_back(b.CreateExtractValue(v, {3, i}));
  for (unsigned i = 0; i < rank; ++i) out.push_back(b.CreateExtractValue(v, {4, i}));
  return out;
}

llvm::Value* unrankedDescriptorSize(llvm::IRBuilderBase& b, llvm::Value* rank, const LoweringOptions& o) {
  llvm::Type* idx = rank->getType();
  llvm::Value* twice = b.CreateMul(llvm::ConstantInt::get(idx, 2), rank);
  llvm::Value* fields = b.CreateAdd(twice, llvm::ConstantInt::get(idx, 1));
  llvm::Value* bytes = b.CreateMul(fields, llvm::ConstantInt::get(idx, o.indexBitwidth / 8));
  return b.CreateAdd(llvm::ConstantInt::get(idx, 2 * sizeof(void*)), bytes);
}

llvm::FunctionCallee mallocFunction(llvm::Module& m, const LoweringOptions& o) {
  llvm::LLVMContext& ctx = m.getContext();
  return m.getOrInsertFunction("malloc", llvm::PointerType::get(ctx, 0), indexType(ctx, o));
}

llvm::FunctionCallee freeFunction(llvm::Module& m) {
  llvm::LLVMContext& ctx = m.getContext();
  return m.getOrInsertFunction("free", llvm::Type::getVoidTy(ctx), llvm::PointerType::get(ctx, 0));
}

llvm::Value* copyUnrankedToHeap(llvm::IRBuilderBase& b, llvm::Value* unranked, const LoweringOptions& o) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::Value* rank = b.CreateExtractValue(unranked, {0});
  llvm::Value* size = unrankedDescriptorSize(b, rank, o);
  llvm::Value* heap = b.CreateCall(mallocFunction(m, o), {size});
  b.CreateMemCpy(heap, llvm::MaybeAlign(), b.CreateExtractValue(unranked, {1}), llvm::MaybeAlign(), size);
  llvm::Value* d = llvm::UndefValue::get(unranked->getType());
  d = b.CreateInsertValue(d, rank, {0});
  return b.CreateInsertValue(d, heap, {1});
}

llvm::Value* copyUnrankedToStack(llvm::IRBuilderBase& b, llvm::Value* unranked, const LoweringOptions& o) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::Value* rank = b.CreateExtractValue(unranked, {0});
  llvm::Value* heap = b.CreateExtractValue(unranked, {1});
  llvm::Value* size = unrankedDescriptorSize(b, rank, o);
  llvm::AllocaInst* stack = b.CreateAlloca(b.getInt8Ty(), size);
  stack->setAlignment(llvm::Align(8));
  b.CreateMemCpy(stack, llvm::Align(8), heap, llvm::MaybeAlign(), size);
  b.CreateCall(freeFunction(m), {heap});
  llvm::Value* d = llvm::UndefValue::get(unranked->getType());
  d = b.CreateInsertValue(d, rank, {0});
  return b.CreateInsertValue(d, stack, {1});
}

llvm::Value* zeroValue(llvm::Type* t) { return llvm::Constant::getNullValue(t); }

}  // namespace memjit::codegen::detail
