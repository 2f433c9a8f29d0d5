// Deferred result allocation (`fbr`), memjit's exact convention. The raw ABI
// names a result allocator but no system defined how it is called; this is
// memjit's definition, followed by codegen (which emits allocators) and by
// the dynamic invoker (which calls them). docs/runtime.md ("Deferred result allocation") has the prose.
//
// For a function F with an allocator, where R1..Rm are F's results and
// D1..Dk the RANKED MEMREF results among them, in order:
//
// 1. F takes k trailing destination arguments: F's real (lowered and
//    metadata) type is (I1..In, D1..Dk) -> (R1..Rm). Its `fbr` metadata
//    names the allocator, by default `<F>__allocate_results`. The `iree.abi`
//    reflection may list either the n user inputs or all n + k.
// 2. The allocator A is an ordinary function with a C interface, of type
//    (index x d) -> (D1..Dk), where d is the number of dynamic dims over the
//    ranked memref inputs I1..In: input order, then dim order. Unranked
//    inputs contribute none. A allocates with malloc (MLIR's default), so
//    each returned `allocated` pointer is freed with free(). For a result whose
//    shape depends on data, A returns a descriptor with null allocated and
//    aligned pointers (sizes and strides 0): an absent destination.
// 3. F writes each result Dj into destination j when its allocated pointer is
//    non-null and then returns that destination's descriptor (same allocated
//    pointer: the result aliases it). For an absent destination F allocates
//    the result itself, as a function without an allocator does.
// 4. The caller owns the destinations: a result that aliases destination j
//    shares its ownership; a destination F did not return is freed by the
//    caller. A caller may always pass absent destinations (no allocator
//    available): F then allocates every result.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "memjit/error.h"
#include "memjit/types.h"

namespace memjit::runtime {

/// The suffix of the default allocator name: `<fn>__allocate_results`.
inline constexpr std::string_view kAllocatorSuffix = "__allocate_results";
/// `<fn>__allocate_results`.
std::string defaultAllocatorName(std::string_view function);

/// k: how many destination arguments F takes (its ranked memref results).
std::size_t numDestinations(const FunctionType& fullType) noexcept;
/// The type callers see, without the trailing destinations. InvalidArgument
/// when the last k inputs are not exactly the ranked memref result types.
Expected<FunctionType> userFacingType(const FunctionType& fullType);
/// The type a function has once destinations are appended to `userType`.
FunctionType withDestinations(const FunctionType& userType);
/// The allocator's type for F's full type: (index x d) -> (D1..Dk).
Expected<FunctionType> allocatorType(const FunctionType& fullType);

}  // namespace memjit::runtime
