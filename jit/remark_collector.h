// Collects the loop vectoriser's optimisation remarks of one LLVMContext while
// it lives (see memjit/jit/remarks.h). Internal to jit/.
#pragma once

#include <memory>
#include <vector>

#include "memjit/jit/remarks.h"

namespace llvm {
class LLVMContext;
struct DiagnosticHandler;
}  // namespace llvm

namespace memjit::jit::detail {

/// Installs a diagnostic handler that enables and keeps the remarks of
/// `loop-vectorize` (all other diagnostics go to the handler it replaces);
/// the destructor puts the previous handler back.
class RemarkCollector {
 public:
  RemarkCollector(llvm::LLVMContext& context, std::vector<Remark>& out);
  ~RemarkCollector();
  RemarkCollector(const RemarkCollector&) = delete;
  RemarkCollector& operator=(const RemarkCollector&) = delete;

 private:
  llvm::LLVMContext& context_;
  std::unique_ptr<llvm::DiagnosticHandler> previous_;
};

}  // namespace memjit::jit::detail
