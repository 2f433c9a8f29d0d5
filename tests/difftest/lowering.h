// A Program as memjit builder calls: one function of type kSignature.
#pragma once

#include <string>

#include "memjit/codegen/builder.h"
#include "program.h"

namespace memjit::difftest {

/// Builds `p` as function `name` in `module`; the builder's error when it refuses the program.
Error lowerProgram(codegen::Module& module, const std::string& name, const Program& p,
                   const codegen::FunctionOptions& options = {});

}  // namespace memjit::difftest
