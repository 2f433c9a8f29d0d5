// Shrinking a failing program (delta debugging over statements) and printing
// it as a C++ regression test.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "oracles.h"
#include "program.h"

namespace memjit::difftest {

/// A smaller program that still disagrees with the interpreter under one of
/// `oracles` (see reduceWhile). Every step keeps the program
/// free of undefined behaviour (constants are the values the guarded
/// program had).
Program reduce(Runner& runner, const Program& failing, const std::vector<Oracle>& oracles);

/// The reduction itself, for any property `stillFails` of a program (reduce()
/// asks the failing oracles): outputs and stores removed, loops, parallel
/// reductions and branches at any depth replaced by their bodies run once (or
/// one arm), top-level values replaced by constants, dead code removed.
Program reduceWhile(const Program& failing, const std::function<bool(const Program&)>& stillFails);

/// Removes statements whose results nothing uses (loads too, unless the program is out of bounds on purpose).
void removeDeadCode(Program& p);

/// `p` as a gtest that builds it with FunctionBuilder, calls it through the
/// typed invoker at O0 and O3, and expects the interpreter's exact values.
std::string toBuilderSnippet(const Program& p);

}  // namespace memjit::difftest
