// Internal: IR helpers for memref descriptors shared by function lowering,
// calls and the kernel builder.
#pragma once

#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "memjit/codegen/lowering.h"
#include "memjit/types.h"

namespace memjit::codegen::detail {

/// Builds the in-function value of a `t` argument from its expanded values
/// starting at `*it` (advanced past them), as MLIR's function lowering does.
llvm::Value* packArgument(llvm::IRBuilderBase& b, const Type& t, const LoweringOptions& o,
                          std::vector<llvm::Value*>::const_iterator& it);

/// The expanded values of a descriptor (allocated, aligned, offset, sizes...,
/// strides...), a `{rank, ptr}` pair's two fields, or a scalar/bare pointer.
std::vector<llvm::Value*> unpackArgument(llvm::IRBuilderBase& b, const Type& t, const LoweringOptions& o,
                                         llvm::Value* v);

/// `2*sizeof(ptr) + (2*rank+1)*sizeof(index)` computed in IR as MLIR does.
llvm::Value* unrankedDescriptorSize(llvm::IRBuilderBase& b, llvm::Value* rank, const LoweringOptions& o);

llvm::FunctionCallee mallocFunction(llvm::Module& m, const LoweringOptions& o);
llvm::FunctionCallee freeFunction(llvm::Module& m);

/// Callee side of an unranked result: copies the descriptor into malloc'd memory.
llvm::Value* copyUnrankedToHeap(llvm::IRBuilderBase& b, llvm::Value* unranked, const LoweringOptions& o);
/// Caller side: copies a returned descriptor to the stack and frees the heap copy.
llvm::Value* copyUnrankedToStack(llvm::IRBuilderBase& b, llvm::Value* unranked, const LoweringOptions& o);

/// A zero value of `t` (zeroinitializer of its lowered type).
llvm::Value* zeroValue(llvm::Type* t);

}  // namespace memjit::codegen::detail
