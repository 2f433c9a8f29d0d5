// Internal: the dynamic call with nothing to adapt. Most calls pass, by
// position, buffers that already have the layout the function declares, to a
// function without destinations or a result block (Plan::quick). Such a call
// is the checks of the values, one parameter word each, and the call: no
// Invocation (no structure to bind, no views, copies or keep-alives), and no
// Error built on the way. Anything else, and every failure, goes the general
// way (invocation.h), which says what went wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "memjit/runtime/variant.h"
#include "plan.h"

namespace memjit::runtime::detail {

/// Parameter words a quick call keeps on the stack.
inline constexpr std::size_t kQuickMaxWords = 16;

/// Whether calls of `plan` may take the quick way (sets nothing).
bool qualifiesForQuickCalls(const Plan& plan);

/// What callQuick did.
struct QuickCall {
  bool called = false;       ///< false: an argument needs the general way, and nothing was called
  bool checkFailed = false;  ///< a checked-mode function stopped at a failed check (runtime/checks.h)
  std::uint64_t ret = 0;     ///< the scalar result, if any
};

/// Calls `plan`'s function when every argument fits as it is.
QuickCall callQuick(const Plan& plan, std::span<const Variant> args);

}  // namespace memjit::runtime::detail
