// Test helper: runs the real MLIR tools of LLVM's version (paths from CMake's
// MEMJIT_MLIR_OPT, MEMJIT_MLIR_TRANSLATE, MEMJIT_LLC) on MLIR text.
#pragma once

#include <string>

#include "memjit/error.h"
#include "support/mlir.h"

namespace memjit::test {

/// Options of the lowering pipeline (`index-bitwidth=32`, bare pointers).
struct PipelineOptions {
  unsigned indexBitwidth = 64;
  bool barePtr = false;
  /// Passes run first, e.g. "--arith-expand --convert-math-to-llvm".
  std::string firstPasses{};
};

/// `mlir-opt --finalize-memref-to-llvm --convert-arith-to-llvm
/// --convert-func-to-llvm --reconcile-unrealized-casts | mlir-translate
/// --mlir-to-llvmir`: the LLVM IR text MLIR produces.
Expected<std::string> lowerWithMlir(const std::string& mlir, const PipelineOptions& options = {});

/// The same, then `llc -filetype=obj -relocation-model=pic` into `objectPath`.
Error compileWithMlir(const std::string& mlir, const std::string& objectPath);

/// A fresh path under the temp directory.
std::string tempPath(const std::string& stem);

}  // namespace memjit::test
