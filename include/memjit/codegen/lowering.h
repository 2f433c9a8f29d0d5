// Type lowering: how memjit's types become LLVM types under MLIR 19's memref
// calling convention (MLIR's "Built-in Function and MemRef Calling Convention",
// sections "Default Memref Model" and "Calling Convention for Ranked `memref`").
//
// A ranked memref is the descriptor `{ptr, ptr, index, [N x index], [N x index]}`
// (rank 0 drops the arrays), its two data pointers in the memref's memory space
// as LLVM address space. An unranked memref is `{index, ptr}`. As a function
// argument a ranked memref expands to 3+2N values and an unranked one to 2; a
// function returns nothing (void), one lowered value, or a literal struct.
#pragma once

#include <cstddef>
#include <vector>

#include "memjit/error.h"
#include "memjit/types.h"

namespace llvm {
class LLVMContext;
class FunctionType;
class IntegerType;
class StructType;
class Type;
}  // namespace llvm

namespace memjit::codegen {

/// Options of the lowering, mirroring MLIR's `index-bitwidth` and
/// `use-bare-ptr-memref-call-conv` pass options.
struct LoweringOptions {
  /// Width of `index` and of the descriptor's offset/size/stride fields: 64 or 32.
  unsigned indexBitwidth = 64;
  /// Pass each ranked memref as one pointer to its aligned data. Only for
  /// static shapes and static layouts; MLIR then emits no C interface.
  bool barePtr = false;
  friend bool operator==(const LoweringOptions&, const LoweringOptions&) = default;
};

/// Rejects an index bitwidth other than 32 or 64.
Error checkOptions(const LoweringOptions& options);

/// The integer type of `index` and of descriptor fields.
llvm::IntegerType* indexType(llvm::LLVMContext& ctx, const LoweringOptions& options);

/// i1..i64 (signedness dropped), half, bfloat, float, double, the index
/// integer, `ptr`, and `{float, float}` / `{double, double}` for complex.
llvm::Type* lowerElementType(llvm::LLVMContext& ctx, ElementType t, const LoweringOptions& options);

/// The ranked descriptor struct (a literal struct, as MLIR emits).
llvm::StructType* descriptorType(llvm::LLVMContext& ctx, const MemRefType& t,
                                 const LoweringOptions& options);
/// `{index, ptr}`.
llvm::StructType* unrankedDescriptorType(llvm::LLVMContext& ctx, const LoweringOptions& options);

/// Whether `t` can use the bare-pointer convention: static shape, static
/// strides and offset. The error names the type and what is dynamic.
Error checkBarePtr(const Type& t);

/// The value type of `t` inside a function: its scalar type, descriptor struct,
/// or for bare pointers a `ptr`. Errors only for bare-pointer misuse.
Expected<llvm::Type*> lowerType(llvm::LLVMContext& ctx, const Type& t, const LoweringOptions& options);

/// The LLVM types one argument of type `t` expands to (3+2N, 2 or 1 values).
Expected<std::vector<llvm::Type*>> expandedArgumentTypes(llvm::LLVMContext& ctx, const Type& t,
                                                         const LoweringOptions& options);

/// The lowered function type: expanded arguments; void, one value or a
/// literal struct of results.
Expected<llvm::FunctionType*> lowerFunctionType(llvm::LLVMContext& ctx, const FunctionType& type,
                                                const LoweringOptions& options);

/// Whether the `_mlir_ciface_` form returns its result through a first
/// pointer parameter (the lowered result is a struct).
bool cInterfaceReturnsByPointer(llvm::LLVMContext& ctx, const FunctionType& type,
                                const LoweringOptions& options);

/// The `_mlir_ciface_` function type: each memref argument becomes a pointer
/// to its descriptor, a struct result becomes a first pointer parameter.
Expected<llvm::FunctionType*> cInterfaceFunctionType(llvm::LLVMContext& ctx, const FunctionType& type,
                                                     const LoweringOptions& options);

/// Bytes of a ranked descriptor of `rank` as the unranked-result copy sizes
/// it: 2 pointers + (2*rank+1) index fields.
std::size_t rankedDescriptorBytes(std::size_t rank, const LoweringOptions& options) noexcept;

}  // namespace memjit::codegen
