// Internal: addressing a ranked memref's elements, shared by the scalar
// (builder_memref.cpp) and vector (builder_vector_memory.cpp) accesses.
#pragma once

#include <string_view>
#include <vector>

#include "builder_impl.h"

namespace llvm {
class Value;
}  // namespace llvm

namespace memjit::codegen::detail {

/// The ranked memref type of `m`, or null with an error recorded.
const MemRefType* rankedOperand(FunctionBuilder& self, std::string_view op, const Value& m);
/// Size and stride of dim `i` of descriptor `d`: constants for static ones.
llvm::Value* memrefSize(FunctionBuilder& self, const MemRefType& t, llvm::Value* d, unsigned i);
llvm::Value* memrefStride(FunctionBuilder& self, const MemRefType& t, llvm::Value* d, unsigned i);
/// The address of m[indices] (index-typed, one per dim; errors recorded,
/// null then). Checked mode checks each index, the last one only when
/// `checkLast` (vector accesses check their lanes themselves).
llvm::Value* elementAddress(FunctionBuilder& self, std::string_view op, const Value& m,
                            const std::vector<Value>& indices, bool checkLast = true);

}  // namespace memjit::codegen::detail
