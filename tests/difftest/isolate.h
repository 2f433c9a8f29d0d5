// Programs that take the process down (an LLVM fatal error, a crash in
// codegen or in the compiled code) cannot be reported or reduced in-process:
// `memjit-difftest --isolate` runs each one in a child process, and reduces a
// crashing one with every candidate run in a child of its own.
#pragma once

#include <string>
#include <vector>

#include "oracles.h"
#include "program.h"

namespace memjit::difftest {

/// Runs `p` under `oracles` in a forked child (which builds its own Jit). Empty
/// when the child exits normally (a disagreement is not a crash), else how it
/// ended ("signal 6"). The caller must not have started threads (fork keeps
/// only the calling one).
std::string crashOf(const Program& p, const std::vector<Oracle>& oracles);

}  // namespace memjit::difftest
