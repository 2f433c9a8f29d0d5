// `memjit call`: call any function of a program file with arguments from the
// command line (.npy files, literals, generators), print or save its results,
// and time it -- like Halide's RunGen, driven by memjit's signature metadata
// (or --signature). See callHelp().
#pragma once

#include "command.h"

namespace memjit::cli {

/// Parses `memjit call`'s arguments (callFlags()), runs, and returns the exit
/// status: 0, 1 after an error (one line on stderr), 2 for a usage error.
int runCall(const Args& args);

}  // namespace memjit::cli
