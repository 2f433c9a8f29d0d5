// Test helper for the tests that compare memjit with MLIR: where CMake found
// MLIR's tools of LLVM's own version (memjit_uses_mlir in tests/CMakeLists.txt
// passes MEMJIT_MLIR_OPT, MEMJIT_MLIR_TRANSLATE, MEMJIT_LLC and
// MEMJIT_MLIR_VERSION), and what such a test does when MLIR is missing.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace memjit::test {

/// The tool CMake found, or "" when it found none or the file is gone since.
inline std::string mlirTool(const char* configured) {
  const std::string path = configured;
  if (path.empty() || path.find("NOTFOUND") != std::string::npos || ::access(path.c_str(), X_OK) != 0) return "";
  return path;
}

/// "" when mlir-opt, mlir-translate and llc are all there; otherwise which is missing.
inline std::string missingMlirTools() {
  const std::string version = MEMJIT_MLIR_VERSION;
  if (mlirTool(MEMJIT_MLIR_OPT).empty()) return "mlir-opt-" + version + " not found (MEMJIT_MLIR_OPT)";
  if (mlirTool(MEMJIT_MLIR_TRANSLATE).empty())
    return "mlir-translate-" + version + " not found (MEMJIT_MLIR_TRANSLATE)";
  if (mlirTool(MEMJIT_LLC).empty()) return "llc-" + version + " not found (MEMJIT_LLC)";
  return "";
}

}  // namespace memjit::test

/// Ends a test that cannot run because MLIR is missing, with a message
/// streamed after it: a visible skip, or, in a build configured with
/// MEMJIT_REQUIRE_MLIR=ON (./dev.sh test's MLIR pass), a failure, so a CI
/// machine that lost its MLIR cannot pass the conformance tests by skipping them.
#if MEMJIT_REQUIRE_MLIR
#define MEMJIT_MLIR_UNAVAILABLE() FAIL() << "MEMJIT_REQUIRE_MLIR is ON, but: "
#else
#define MEMJIT_MLIR_UNAVAILABLE() GTEST_SKIP()
#endif
