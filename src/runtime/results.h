// Internal: turning what a dynamic call returned into Values: scalars read
// back, memrefs as Buffers that own the callee's allocations (shared when two
// results, or a result and an input, point into the same allocation), and the
// structure (SIP or V1 reflection) rebuilt around them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "memjit/runtime/variant.h"
#include "memjit/types.h"
#include "plan.h"

namespace memjit::runtime::detail {

/// Owners of allocations seen so far, by allocated pointer.
struct OwnerTable {
  std::vector<std::pair<const void*, std::shared_ptr<void>>> known;
  /// The owner of `allocated`: the known one, none for memory the callee did
  /// not malloc (globals, unowned views), else a new owner that frees it.
  std::shared_ptr<void> ownerFor(void* allocated);
};

/// Reads a result of type `t` stored at `at` (an unranked result's descriptor
/// copy, malloc'd by the callee, is freed).
Variant rawResult(const Type& t, const unsigned char* at, OwnerTable& owners);

/// What a finished call left behind.
struct Returned {
  std::uint64_t word = 0;                      ///< a scalar result by value
  const unsigned char* block = nullptr;        ///< the result block, when results come via a pointer
  std::span<const Buffer* const> passed;       ///< every buffer that went in (results may alias them)
};

/// The value `invoke` returns for a finished call.
Variant unpackResults(const Plan& plan, const Returned& returned);

}  // namespace memjit::runtime::detail
