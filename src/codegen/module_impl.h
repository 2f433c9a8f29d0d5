// Internal: the state behind codegen::Module, shared by the codegen sources.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/lowered_function.h"
#include "memjit/codegen/module.h"

namespace memjit::codegen {

struct Module::Impl {
  std::string name;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::vector<signature::FunctionSignature> signatures;
  std::vector<std::string> definedOrder;            // manifest order
  std::map<std::string, LoweredFunction, std::less<>> functions;
};

class ModuleAccess {
 public:
  static Module::Impl& impl(Module& m) { return *m.impl_; }
  static const Module::Impl& impl(const Module& m) { return *m.impl_; }
  /// Errors when the module was released.
  static Error checkLive(const Module& m) {
    if (!m.impl_ || !m.impl_->module)
      return Error(ErrorCode::InvalidArgument, "the codegen module was released (moved out)");
    return Error::success();
  }
};

}  // namespace memjit::codegen
