// The memjit::runtime entry points generated code calls by name, defined in
// a JIT as absolute symbols. Internal to jit/.
#pragma once

#include <string>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

#include "memjit/error.h"

namespace memjit::jit::detail {

/// Makes a "memjit.runtime" symbol table, for every module's link order,
/// defining memjit_parallel_for and checked mode's memjit_check_report,
/// memjit_check_scratch and memjit_check_pending.
Expected<llvm::orc::JITDylib*> defineRuntimeSymbols(llvm::orc::LLJIT& jit);

/// Makes a "memjit.runner_utils" symbol table defining MLIR's runner
/// utilities (printMemrefF32, printF32, memrefCopy, ...) from memjit's runtime,
/// (memjit::runner_utils) for modules added with AddOptions::runnerUtilities.
Expected<llvm::orc::JITDylib*> defineRunnerUtilitySymbols(llvm::orc::LLJIT& jit);

/// Makes a symbol table resolving to the exported symbols of the shared
/// library at `path` and of its dependencies (loaded with dlopen, and kept
/// loaded for the rest of the process as dlopen'ed libraries usually are).
Expected<llvm::orc::JITDylib*> loadSharedLibrary(llvm::orc::LLJIT& jit, const std::string& path);

}  // namespace memjit::jit::detail
