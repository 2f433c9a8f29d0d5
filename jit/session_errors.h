// What ORC's execution session reports outside a lookup's result (internal
// to jit/). ORC tells the session's error reporter why a symbol failed to
// materialise (e.g. which externals were missing) while the lookup itself
// only says "failed to materialize". The engine installs the reporter when
// it makes the session; linking a module reads what it collected.
#pragma once

#include <vector>

#include <llvm/Support/Error.h>

#include "llvm_error.h"

namespace memjit::jit::detail {

/// The execution session's error reporter: keeps the failures for the
/// calling thread (a link runs on the thread that asked for it).
void reportSessionError(llvm::Error error);

/// Forgets what was reported on this thread so far (before a lookup).
void clearSessionErrors() noexcept;

/// What was reported on this thread since the last clear, and clears it.
std::vector<OrcFailure> takeSessionErrors() noexcept;

}  // namespace memjit::jit::detail
