// JitOptions::perfJitdump: LLVM's PerfSupportPlugin writes the jitdump `perf
// inject --jit` reads, with each function's code, unwind information and
// line table. Internal to jit/.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>

#include "memjit/error.h"

namespace memjit::jit::detail {

/// Adds the jitdump writer to `linker`, with two things LLVM's plugin needs
/// but does not do itself:
///  - JITLink drops an object's DWARF sections before the plugin reads the
///    line tables, unless a pass keeps them (DebugInfoPreservationPlugin, as
///    llvm-jitlink's -perf-support adds): without it the dump has no line
///    table and perf shows `??:0` for every JIT'd sample;
///  - LLVM (19 and 22) leaves the dump header's `flags` uninitialised, and
///    perf inject refuses a dump whose garbage sets a reserved bit ("jitdump
///    file contains invalid or unsupported flags") or bit 0 ("jitdump file
///    uses arch timestamps but there is no timestamp conversion"): LLVM's
///    writer is called through wrappers that clear the flags no one set once
///    the header is on disk.
Error addPerfJitdump(llvm::orc::LLJIT& jit, llvm::orc::ObjectLinkingLayer& linker);

}  // namespace memjit::jit::detail
