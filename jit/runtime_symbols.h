// The memjit::runtime entry points generated code calls by name, defined in
// a JIT as absolute symbols. Internal to jit/.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

#include "memjit/error.h"

namespace memjit::jit::detail {

/// Adds a "memjit.runtime" symbol table to `jit`'s main table's link order
/// (after the tables already there) defining memjit_parallel_for and checked
/// mode's memjit_check_report, memjit_check_scratch and memjit_check_pending.
Error defineRuntimeSymbols(llvm::orc::LLJIT& jit);

}  // namespace memjit::jit::detail
