// Adds the steady-clock time of a scope to a CompileStats phase (internal to jit/).
#pragma once

#include <chrono>

#include "memjit/jit/compile_stats.h"

namespace memjit::jit::detail {

/// Adds the time from construction to destruction to `phase`, so a phase left
/// early through an error still counts what it spent. A null phase times nothing.
class PhaseTimer {
 public:
  explicit PhaseTimer(CompileStats::Duration* phase) noexcept
      : phase_(phase), start_(phase ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{}) {}
  explicit PhaseTimer(CompileStats::Duration& phase) noexcept : PhaseTimer(&phase) {}
  ~PhaseTimer() {
    if (phase_) *phase_ += std::chrono::duration_cast<CompileStats::Duration>(std::chrono::steady_clock::now() - start_);
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  CompileStats::Duration* phase_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace memjit::jit::detail
