// A Program as memjit builder calls: one function of type kSignature, after
// the helper functions it calls.
#pragma once

#include <string>

#include "memjit/codegen/builder.h"
#include "program.h"

namespace memjit::difftest {

/// The name of helper `k` of the program built as `function`.
std::string helperName(const std::string& function, std::uint64_t k);

/// Builds `p` as function `name` in `module` (its helpers first, as helperName(name, k)); the builder's
/// error when it refuses the program.
Error lowerProgram(codegen::Module& module, const std::string& name, const Program& p,
                   const codegen::FunctionOptions& options = {});

}  // namespace memjit::difftest
