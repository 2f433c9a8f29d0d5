// The memjit::runtime entry points generated code calls by name, defined in
// a JIT as absolute symbols. Internal to jit/.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

#include "memjit/error.h"

namespace memjit::jit::detail {

/// Makes a "memjit.runtime" symbol table, for every module's link order,
/// defining memjit_parallel_for and checked mode's memjit_check_report,
/// memjit_check_scratch and memjit_check_pending.
Expected<llvm::orc::JITDylib*> defineRuntimeSymbols(llvm::orc::LLJIT& jit);

}  // namespace memjit::jit::detail
