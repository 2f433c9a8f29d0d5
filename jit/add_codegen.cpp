// Jit::add for codegen modules; built only when memjit::codegen is.
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace memjit::jit {

Expected<LoadedModule> Jit::add(codegen::Module module, AddOptions options) {
  auto [context, llvmModule] = std::move(module).release();
  return add(std::move(context), std::move(llvmModule), options);
}

}  // namespace memjit::jit
