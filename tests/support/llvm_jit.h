// Test helper: compiles a codegen Module with LLVM's LLJIT directly (the
// memjit::Jit engine is another layer) so codegen tests can call what they
// built. Process symbols (malloc, free, libm) resolve from the test binary.
#pragma once

#include <memory>
#include <string>

#include "memjit/codegen/module.h"
#include "memjit/error.h"

namespace llvm::orc {
class LLJIT;
}

namespace memjit::test {

class TestJit {
 public:
  TestJit();
  ~TestJit();
  TestJit(const TestJit&) = delete;
  TestJit& operator=(const TestJit&) = delete;

  /// Verifies the module, then hands it to the JIT (optionally at O3 first).
  Error add(codegen::Module module, bool optimize = false);
  /// Adds a relocatable object file (e.g. one llc-19 made from MLIR's output).
  Error addObjectFile(const std::string& path);
  /// The address of `symbol`, or an error naming it.
  Expected<void*> lookup(const std::string& symbol);

  template <typename F>
  Expected<F*> function(const std::string& symbol) {
    auto p = lookup(symbol);
    if (!p) return p.error();
    return reinterpret_cast<F*>(*p);
  }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  Error init_;
};

/// Runs LLVM's O3 pipeline on `module` for the host CPU (as a C compiler would).
Error optimizeForHost(codegen::Module& module);

}  // namespace memjit::test
