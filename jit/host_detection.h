// Detecting the host CPU, and remembering the answer across processes.
//
// LLVM asks the CPU for its name and features with about twenty `cpuid`
// instructions. Under a hypervisor each one traps: 8 us apiece on the
// Sapphire Rapids VM memjit is measured on, 0.2 ms per process, a fifth of a
// fresh process's cache hit. The answer is a pure function of what `cpuid`
// and `xgetbv` report (and of LLVM's version), which glibc has already read
// at start-up: a Jit with an on-disk cache keeps LLVM's answer in the cache
// directory under a fingerprint of those values, and a later process with the
// same fingerprint reads it back instead of asking again. Internal to jit/.
#pragma once

#include <optional>
#include <string>

#include "memjit/jit/target.h"

namespace memjit::jit::detail {

/// LLVM's detection of the running CPU (the slow way).
TargetSpec detectHost();

/// Everything LLVM's detection reads, from glibc's copy of the `cpuid` leaves
/// (plus the vendor, `xgetbv` and the AVX10 leaf), as text; nullopt where it
/// is not available (not x86-64 glibc). The APIC ID, which differs between
/// the cores a process may start on, is left out.
std::optional<std::string> hostFingerprint();

/// The host target, remembered in `directory` (an object cache's directory):
/// read from `host-<hash>.txt` when a well-formed entry for this fingerprint,
/// LLVM and memjit version is there, otherwise detected and written there
/// (atomically: to a temporary name, then renamed). Failing to write costs
/// only the next process its detection.
TargetSpec hostThroughDirectory(const std::string& directory);

/// TargetSpec::host(), which `directory` (when not empty and when the host
/// has not been detected yet in this process) answers as above.
const TargetSpec& hostTarget(const std::string& directory);

}  // namespace memjit::jit::detail
