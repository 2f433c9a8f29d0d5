// Tiered compilation (JitOptions::tiering, AddOptions::tiered): where a
// module's code stands. A tiered module's exported functions are reached
// through stubs (`jmp *slot`) whose slots first point at the fast tier and
// then, once the background compile linked the optimised code, at that code;
// handles, invokers and every address the module handed out stay valid, and
// both tiers stay loaded until the module is freed, so a call in flight
// during the swap finishes in the code it started in.
#pragma once

#include "memjit/error.h"
#include "memjit/jit/loaded_module.h"

namespace memjit::jit {

/// The code a module's functions run.
enum class Tier {
  /// Compiled at the requested level: directly, from the object cache, or
  /// tiered up.
  Optimised,
  /// The fast tier; the tier-up is waiting for its threshold or compiling.
  First,
  /// The fast tier for good: the tier-up failed (waitForTierUp says why).
  FirstTierOnly,
};

/// "Optimised", "First", "FirstTierOnly".
const char* tierName(Tier tier) noexcept;

/// Where `module` stands now (Optimised for an empty handle).
Tier currentTier(const LoadedModule& module) noexcept;

/// Starts the module's tier-up now, whatever its thresholds (nothing for a
/// module not compiled in tiers or tiered up already).
void requestTierUp(const LoadedModule& module);

/// Blocks until `module` runs its optimised code and returns success, or
/// returns the error that stopped its tier-up (the module keeps its first
/// tier, which stays correct). Returns at once for a module compiled
/// directly. Waiting on a module whose call threshold is not reached waits
/// until it is: call requestTierUp first to wait for the compile only.
/// InvalidArgument for an empty handle.
[[nodiscard]] Error waitForTierUp(const LoadedModule& module);

}  // namespace memjit::jit
