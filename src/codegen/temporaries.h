// Internal: where a kernel's allocs live (docs/runtime.md, "Temporaries").
// FunctionBuilder::alloc emits a malloc and records it; finish() decides,
// per alloc, from how its pointers are used: escaping ones keep malloc,
// the others move to the stack (small static sizes) or the thread's arena.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/ValueHandle.h>

namespace memjit::codegen::detail {

struct TemporaryAlloc {
  llvm::WeakVH malloc;   // the call of malloc(bytes + alignment - 1): the allocated pointer
  llvm::WeakVH aligned;  // the aligned pointer (the malloc itself when alignment is 1)
  llvm::WeakVH bytes;    // the requested size, an index value
  unsigned alignment = 1;
  std::optional<std::uint64_t> staticBytes;  // a size known when building
};

/// The largest alloc placed on the stack, and the most one function places there.
inline constexpr std::uint64_t kStackTemporaryLimit = 4096;
inline constexpr std::uint64_t kStackTemporaryBudget = 16384;

/// Moves every recorded alloc that does not escape to the stack or the arena (see the rule in temporaries.cpp).
void placeTemporaries(std::vector<TemporaryAlloc>& allocs);

}  // namespace memjit::codegen::detail
