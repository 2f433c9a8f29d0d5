// `memjit run` in function mode: call any function of a program file with
// arguments from the command line (.npy files, literals, generators), print
// or save its results, and time it -- like Halide's RunGen, driven by
// memjit's signature metadata (or --signature). See kFunctionModeHelp.
#pragma once

#include "command.h"

namespace memjit::cli {

/// True when `args` (after `memjit run`) use a flag only function mode has:
/// --arg, --signature, --out/--output, --print, --no-print, --print-results,
/// --benchmark, --warmup.
bool wantsFunctionMode(const Args& args);

/// Parses all of `memjit run`'s arguments (FILE, -e ENTRY, -O0..3,
/// --shared-libs and the function-mode flags), runs, and returns the exit
/// status: 0, 1 after an error (one line on stderr), 2 for a usage error.
int runFunctionMode(const Args& args);

}  // namespace memjit::cli
