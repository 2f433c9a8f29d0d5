// A JITLink plugin that appends each linked function to /tmp/perf-<pid>.map,
// the text format `perf report` reads to name JIT'd code. Internal to jit/.
#pragma once

#include <memory>

#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>

namespace memjit::jit::detail {

std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> createPerfMapPlugin();

}  // namespace memjit::jit::detail
