// Turning LLVM's fatal errors and crashes inside the optimiser or the code
// generator into memjit::Error (JitOptions/AotOptions::recoverFromLlvmCrashes).
// Internal to jit/.
#pragma once

#include <string_view>

#include <llvm/ADT/STLFunctionalExtras.h>

#include "memjit/error.h"

namespace memjit::jit::detail {

/// Runs `body` under an llvm::CrashRecoveryContext. When LLVM calls
/// report_fatal_error (e.g. SelectionDAG's "Cannot select: ...") or the thread
/// gets a crash signal (SIGSEGV, SIGABRT, SIGILL, SIGFPE, SIGBUS, SIGTRAP)
/// inside `body`, the thread jumps back here and the result is CompileError
/// "LLVM ERROR: <LLVM's message> (while compiling module '<moduleName>')"
/// with `crashed` set; otherwise it is what `body` returned, `crashed` false.
///
/// After a crash nothing `body` was working on can be trusted: the caller must
/// neither reuse nor destroy the llvm::Module, LLVMContext and TargetMachine it
/// used (destroying half-transformed IR can crash again), so they are leaked,
/// as is everything the unwound frames owned (longjmp runs no destructors).
///
/// The first call makes process-wide changes, which is why recovery is opt-in:
///  - llvm::CrashRecoveryContext::Enable() installs signal handlers for the
///    signals above. A signal on a thread outside a recovery scope (any other
///    thread, or this one outside `body`) makes LLVM restore the previous
///    handlers and re-raise it, so the process dies as it would have; every
///    later call enables recovery again.
///  - memjit installs LLVM's single fatal error handler
///    (llvm::install_fatal_error_handler). Outside a recovery scope it does
///    what LLVM does without a handler: prints "LLVM ERROR: <message>" and
///    lets LLVM abort. LLVM offers no way to read a handler installed earlier,
///    so one the application installed is replaced (and memjit cannot chain
///    to it); one installed after memjit's replaces memjit's, and then a fatal
///    error is recovered only through the SIGABRT that follows it, with
///    "LLVM crashed (signal 6)" instead of LLVM's message (or not at all when
///    the application's handler exits).
/// Scopes are per thread: compiles on other threads are not affected.
/// C++ exceptions (std::bad_alloc) pass through as before.
[[nodiscard]] Error runRecoveringFromCrashes(std::string_view moduleName,
                                             llvm::function_ref<Error()> body,
                                             bool& crashed);

}  // namespace memjit::jit::detail
