// A code generation target: triple, CPU and features. The host target names the
// running CPU and all its features, so generated code uses the host's vectors.
#pragma once

#include <string>

#include "memjit/error.h"

namespace memjit::jit {

struct TargetSpec {
  std::string triple;    ///< e.g. "x86_64-pc-linux-gnu"
  std::string cpu;       ///< e.g. "znver3", "generic"; empty means generic
  std::string features;  ///< LLVM feature string, e.g. "+avx2,+fma"

  /// The process's triple, CPU name and every feature the CPU has.
  static const TargetSpec& host();
  /// "triple/cpu/features", used in cache keys and messages.
  std::string str() const;
  friend bool operator==(const TargetSpec&, const TargetSpec&) = default;
};

/// Checks that LLVM can generate code for `spec` (its triple names a target
/// this LLVM was built with). The error names the triple.
Error checkTarget(const TargetSpec& spec);

}  // namespace memjit::jit
