#include "memjit/codegen/lowering.h"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/LLVMContext.h>

#include "memjit/type_syntax.h"

namespace memjit::codegen {

Error checkOptions(const LoweringOptions& options) {
  if (options.indexBitwidth != 32 && options.indexBitwidth != 64)
    return Error(ErrorCode::InvalidArgument,
                 "index bitwidth must be 32 or 64, got " + std::to_string(options.indexBitwidth));
  return Error::success();
}

llvm::IntegerType* indexType(llvm::LLVMContext& ctx, const LoweringOptions& options) {
  return llvm::IntegerType::get(ctx, options.indexBitwidth);
}

llvm::Type* lowerElementType(llvm::LLVMContext& ctx, ElementType t, const LoweringOptions& options) {
  switch (t) {
    case ElementType::F16: return llvm::Type::getHalfTy(ctx);
    case ElementType::BF16: return llvm::Type::getBFloatTy(ctx);
    case ElementType::F32: return llvm::Type::getFloatTy(ctx);
    case ElementType::F64: return llvm::Type::getDoubleTy(ctx);
    case ElementType::Index: return indexType(ctx, options);
    case ElementType::Ptr: return llvm::PointerType::get(ctx, 0);
    case ElementType::ComplexF32: {
      llvm::Type* f = llvm::Type::getFloatTy(ctx);
      return llvm::StructType::get(ctx, {f, f});
    }
    case ElementType::ComplexF64: {
      llvm::Type* f = llvm::Type::getDoubleTy(ctx);
      return llvm::StructType::get(ctx, {f, f});
    }
    default: return llvm::IntegerType::get(ctx, bitWidth(t));
  }
}

llvm::StructType* descriptorType(llvm::LLVMContext& ctx, const MemRefType& t,
                                 const LoweringOptions& options) {
  llvm::Type* ptr = llvm::PointerType::get(ctx, t.memorySpace());
  llvm::Type* idx = indexType(ctx, options);
  if (t.rank() == 0) return llvm::StructType::get(ctx, {ptr, ptr, idx});
  llvm::Type* arr = llvm::ArrayType::get(idx, t.rank());
  return llvm::StructType::get(ctx, {ptr, ptr, idx, arr, arr});
}

llvm::StructType* unrankedDescriptorType(llvm::LLVMContext& ctx, const LoweringOptions& options) {
  return llvm::StructType::get(ctx, {indexType(ctx, options), llvm::PointerType::get(ctx, 0)});
}

Error checkBarePtr(const Type& t) {
  if (isScalar(t)) return Error::success();
  if (isUnrankedMemRef(t))
    return Error(ErrorCode::Unsupported,
                 "the bare-pointer convention cannot pass unranked " + toString(t) +
                     ": its rank and shape would be lost");
  const auto& m = std::get<MemRefType>(t);
  if (!m.hasStaticShape())
    return Error(ErrorCode::Unsupported,
                 "the bare-pointer convention needs a static shape, but " + toString(t) +
                     " has dynamic dims (MLIR would leave such a function unconverted)");
  bool dynLayout = m.effectiveOffset() == kDynamic;
  for (std::int64_t s : m.effectiveStrides()) dynLayout |= s == kDynamic;
  if (dynLayout)
    return Error(ErrorCode::Unsupported,
                 "the bare-pointer convention needs a static layout, but " + toString(t) +
                     " has a dynamic offset or stride");
  return Error::success();
}

Expected<llvm::Type*> lowerType(llvm::LLVMContext& ctx, const Type& t, const LoweringOptions& options) {
  if (isScalar(t)) return lowerElementType(ctx, std::get<ElementType>(t), options);
  if (options.barePtr) {
    MEMJIT_TRY(checkBarePtr(t));
    return static_cast<llvm::Type*>(
        llvm::PointerType::get(ctx, std::get<MemRefType>(t).memorySpace()));
  }
  if (isUnrankedMemRef(t)) return static_cast<llvm::Type*>(unrankedDescriptorType(ctx, options));
  return static_cast<llvm::Type*>(descriptorType(ctx, std::get<MemRefType>(t), options));
}

Expected<std::vector<llvm::Type*>> expandedArgumentTypes(llvm::LLVMContext& ctx, const Type& t,
                                                         const LoweringOptions& options) {
  if (isScalar(t) || options.barePtr) {
    MEMJIT_ASSIGN_OR_RETURN(llvm::Type * one, lowerType(ctx, t, options));
    return std::vector<llvm::Type*>{one};
  }
  llvm::Type* idx = indexType(ctx, options);
  if (isUnrankedMemRef(t)) return std::vector<llvm::Type*>{idx, llvm::PointerType::get(ctx, 0)};
  const auto& m = std::get<MemRefType>(t);
  llvm::Type* ptr = llvm::PointerType::get(ctx, m.memorySpace());
  std::vector<llvm::Type*> out{ptr, ptr, idx};
  out.insert(out.end(), 2 * m.rank(), idx);
  return out;
}

namespace {

Expected<llvm::Type*> lowerResults(llvm::LLVMContext& ctx, const FunctionType& type,
                                   const LoweringOptions& options) {
  if (type.results.empty()) return llvm::Type::getVoidTy(ctx);
  std::vector<llvm::Type*> parts;
  for (std::size_t i = 0; i < type.results.size(); ++i) {
    auto t = lowerType(ctx, type.results[i], options);
    if (!t) return t.error().withContext("result #" + std::to_string(i));
    parts.push_back(*t);
  }
  if (parts.size() == 1) return parts[0];
  return static_cast<llvm::Type*>(llvm::StructType::get(ctx, parts));
}

}  // namespace

Expected<llvm::FunctionType*> lowerFunctionType(llvm::LLVMContext& ctx, const FunctionType& type,
                                                const LoweringOptions& options) {
  MEMJIT_TRY(checkOptions(options));
  MEMJIT_ASSIGN_OR_RETURN(llvm::Type * result, lowerResults(ctx, type, options));
  std::vector<llvm::Type*> params;
  for (std::size_t i = 0; i < type.inputs.size(); ++i) {
    auto parts = expandedArgumentTypes(ctx, type.inputs[i], options);
    if (!parts) return parts.error().withContext("argument #" + std::to_string(i));
    params.insert(params.end(), parts->begin(), parts->end());
  }
  return llvm::FunctionType::get(result, params, false);
}

bool cInterfaceReturnsByPointer(llvm::LLVMContext& ctx, const FunctionType& type,
                                const LoweringOptions& options) {
  auto result = lowerResults(ctx, type, options);
  return result && (*result)->isStructTy();
}

Expected<llvm::FunctionType*> cInterfaceFunctionType(llvm::LLVMContext& ctx, const FunctionType& type,
                                                     const LoweringOptions& options) {
  MEMJIT_TRY(checkOptions(options));
  MEMJIT_ASSIGN_OR_RETURN(llvm::Type * result, lowerResults(ctx, type, options));
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  std::vector<llvm::Type*> params;
  if (result->isStructTy()) {
    params.push_back(ptr);
    result = llvm::Type::getVoidTy(ctx);
  }
  for (const Type& t : type.inputs) {
    if (isMemRef(t)) {
      params.push_back(ptr);
    } else {
      params.push_back(lowerElementType(ctx, std::get<ElementType>(t), options));
    }
  }
  return llvm::FunctionType::get(result, params, false);
}

std::size_t rankedDescriptorBytes(std::size_t rank, const LoweringOptions& options) noexcept {
  return 2 * sizeof(void*) + (2 * rank + 1) * (options.indexBitwidth / 8);
}

}  // namespace memjit::codegen
