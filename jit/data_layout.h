// The data layout a target's code is compiled with, known without building a
// TargetMachine: a Jit that only loads cached objects never needs one.
#pragma once

#include <llvm/IR/DataLayout.h>

#include "memjit/error.h"
#include "memjit/jit/target.h"

namespace memjit::jit::detail {

/// The data layout LLVM's TargetMachine for `spec` would report. Where LLVM has `Triple::computeDataLayout` (22)
/// the triple computes it; on older LLVMs, triples whose layout is known to
/// depend on the triple alone (x86-64 ELF) come from a table that
/// data_layout_test checks against a TargetMachine, and any other triple
/// builds a TargetMachine to ask.
[[nodiscard]] Expected<llvm::DataLayout> dataLayoutFor(const TargetSpec& spec);

}  // namespace memjit::jit::detail
