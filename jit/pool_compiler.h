// The IR compiler LLJIT is built with (internal to jit/).
#pragma once

#include <memory>

#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>
#include <llvm/Target/TargetOptions.h>

#include "machine_pool.h"

namespace memjit::jit::detail {

/// LLJIT wants an IR compiler even though memjit hands it finished objects
/// (only deferred expanded entries go through it); this one borrows a machine
/// from `pool` instead of making a TargetMachine of its own, and compiles at O2.
std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler> makePoolCompiler(MachinePool& pool,
                                                                         const llvm::TargetOptions& options);

}  // namespace memjit::jit::detail
