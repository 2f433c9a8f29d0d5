// Shrinking a failing program (delta debugging over statements) and printing
// it as a C++ regression test.
#pragma once

#include <string>
#include <vector>

#include "oracles.h"
#include "program.h"

namespace memjit::difftest {

/// A smaller program that still disagrees with the interpreter under one of
/// `oracles`: outputs, stores and whole loops/branches removed, top-level
/// values replaced by the constants the interpreter computed for them, then
/// whatever no longer feeds an output removed. Every step keeps the program
/// free of undefined behaviour (constants are the values the guarded
/// program had).
Program reduce(Runner& runner, const Program& failing, const std::vector<Oracle>& oracles);

/// Removes statements whose results nothing uses (loads too, unless the program is out of bounds on purpose).
void removeDeadCode(Program& p);

/// `p` as a gtest that builds it with FunctionBuilder, calls it through the
/// typed invoker at O0 and O3, and expects the interpreter's exact values.
std::string toBuilderSnippet(const Program& p);

}  // namespace memjit::difftest
