// A codegen module: an LLVM module (with its own LLVMContext, so modules can
// be built and compiled on different threads) plus the signature metadata of
// every function defined in it. The JIT and the AOT writer consume it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "memjit/error.h"
#include "memjit/signature/function_signature.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace memjit::codegen {

class Module {
 public:
  /// An empty module named `name` with a fresh LLVMContext.
  explicit Module(std::string name);
  ~Module();
  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;

  const std::string& name() const noexcept;
  llvm::LLVMContext& context();
  llvm::Module& llvm();
  const llvm::Module& llvm() const;

  /// Signatures of the functions whose metadata this module embeds.
  const std::vector<signature::FunctionSignature>& signatures() const noexcept;

  /// Runs llvm::verifyModule; the error carries LLVM's report.
  Error verify() const;

  /// Hands the context and module over (for ORC's ThreadSafeModule). The
  /// Module is empty afterwards.
  std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>> release() &&;

  // codegen adds its own members below (signature registration, metadata emission, ...).
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend class ModuleAccess;
};

}  // namespace memjit::codegen
