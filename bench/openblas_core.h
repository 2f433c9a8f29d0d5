// Makes an OpenBLAS twin run OpenBLAS's AVX-512 kernels on a CPU that has
// AVX-512. Debian's libopenblas is built DYNAMIC_ARCH and picks its kernels
// from CPUID at load; on some VMs and CPUs the detection fails (Sapphire Rapids
// VM: Prescott, SSE3, 27-33 GFLOP/s; AMD Zen 4: Haswell), which makes every
// memjit / openblas ratio meaningless. OPENBLAS_CORETYPE is read only when the
// library loads, so the fix is to re-execute the benchmark once with it set.
#pragma once

#include <benchmark/benchmark.h>
#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace openblas_core {

// Set in the re-executed process to the core OpenBLAS chose first, so the
// re-execution happens once and the context can say what was overridden.
inline constexpr const char* kReexecMarker = "MEMJIT_BENCH_OPENBLAS_DETECTED";
// OpenBLAS 0.3.21 (Debian 12) names no SapphireRapids core and maps it to
// Cooperlake; SkylakeX's SGEMM kernel is the one both use.
inline constexpr const char* kForcedCore = "SkylakeX";

inline bool isAvx512Core(std::string_view core) {
  for (std::string_view family : {"skylakex", "cooperlake", "sapphirerapids"})
    if (core.size() == family.size() &&
        std::equal(core.begin(), core.end(), family.begin(), [](char a, char b) { return (a | 0x20) == b; }))
      return true;
  return false;
}

// Whether this process may run OpenBLAS twins. Call first in main, with main's
// own argv, before benchmark::Initialize rewrites it: on an AVX-512 CPU where
// OpenBLAS chose another core, and unless the user set OPENBLAS_CORETYPE
// themselves, this replaces the process with itself under
// OPENBLAS_CORETYPE=SkylakeX and does not return. Otherwise it records the
// core as the context line openblas_core and returns false only when the twins
// would compare against the wrong kernels (the reason goes to stderr and to
// the context line openblas_skipped).
inline bool ensureAvx512Kernels(char** argv) {
  const std::string core = openblas_get_corename();
  const bool hostAvx512 = __builtin_cpu_supports("avx512f");
  const char* detected = std::getenv(kReexecMarker);
  const char* userCoreType = std::getenv("OPENBLAS_CORETYPE");
  if (hostAvx512 && !isAvx512Core(core) && detected == nullptr && userCoreType == nullptr) {
    ::setenv("OPENBLAS_CORETYPE", kForcedCore, 1);
    ::setenv(kReexecMarker, core.c_str(), 1);
    ::execv("/proc/self/exe", argv);
    // Only reached when execv failed; the checks below then refuse the twins.
    std::fprintf(stderr, "openblas_core: re-executing with OPENBLAS_CORETYPE=%s failed: %s\n", kForcedCore,
                 std::strerror(errno));
  }
  benchmark::AddCustomContext("openblas_core", core);
  if (detected != nullptr)
    benchmark::AddCustomContext("openblas_core_detected", std::string(detected) + " (overridden: OPENBLAS_CORETYPE=" +
                                                              kForcedCore + ", re-executed)");
  if (!hostAvx512 || isAvx512Core(core)) return true;
  if (userCoreType != nullptr && detected == nullptr) {
    // The user chose the kernels; compare against them and say so.
    benchmark::AddCustomContext("openblas_coretype", std::string(userCoreType) + " (set by the user)");
    return true;
  }
  const std::string why = "OpenBLAS runs its " + core +
                          " kernels on this AVX-512 CPU, so no openblas twin is registered; "
                          "OPENBLAS_CORETYPE=" + kForcedCore + " did not take effect";
  std::fprintf(stderr, "openblas_core: %s\n", why.c_str());
  benchmark::AddCustomContext("openblas_skipped", why);
  return false;
}

}  // namespace openblas_core
