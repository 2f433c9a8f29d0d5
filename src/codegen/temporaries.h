// Internal: where a kernel's allocs live (docs/runtime.md, "Temporaries").
// FunctionBuilder::alloc emits a malloc and marks it; finish() decides,
// per alloc, from how its pointers are used: escaping ones keep malloc,
// the others move to the stack (small static sizes) or the thread's arena.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Function.h>

namespace memjit::codegen::detail {

/// Marks `malloc` (of bytes + alignment - 1, the aligned pointer ptrmask(gep(malloc, alignment - 1))) as an alloc's.
void markAlloc(llvm::CallInst* malloc, unsigned alignment, std::optional<std::uint64_t> staticBytes);

/// The largest alloc placed on the stack, and the most one function places there.
inline constexpr std::uint64_t kStackTemporaryLimit = 4096;
inline constexpr std::uint64_t kStackTemporaryBudget = 16384;

/// Moves every marked alloc of `functions` (a builder's function and its outlined bodies) that does not escape to
/// the stack or the arena (see the rule in temporaries.cpp).
void placeTemporaries(const std::vector<llvm::Function*>& functions);

}  // namespace memjit::codegen::detail
