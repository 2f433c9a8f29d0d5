// Jit::add for codegen modules; built only when memjit::codegen is.
#include "deferred_entries.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace memjit::jit {

Expected<LoadedModule> Jit::add(codegen::Module module, AddOptions options) {
  if (!core_) return Error(ErrorCode::InvalidArgument, "moved-from Jit");
  detail::DeferredEntries deferred;
  if (this->options().compileExpandedOnFirstUse) {
    MEMJIT_ASSIGN_OR_RETURN(deferred, detail::deferExpandedEntries(module));
  }
  auto [context, llvmModule] = std::move(module).release();
  return addModule(std::move(context), std::move(llvmModule), options, &deferred);
}

}  // namespace memjit::jit

#include "memjit/jit/aot.h"

namespace memjit::jit {

Error compileAhead(codegen::Module& module, const AotOutputs& outputs, const AotOptions& options,
                   const HeaderOptions& header) {
  HeaderOptions h = header;
  if (h.moduleName.empty()) h.moduleName = module.name();
  return compileAhead(module.llvm(), outputs, options, h);
}

}  // namespace memjit::jit

#include <iostream>

#include "memjit/jit/aot_command.h"

namespace memjit::jit {

int runGenerator(int argc, char** argv, codegen::Module& module) {
  const std::string program = argc > 0 ? argv[0] : "generator";
  auto command = parseAotCommand(std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + argc));
  if (!command) {
    std::cerr << program << ": " << command.error().str() << "\n";
    return 2;
  }
  if (!command->inputs.empty()) {
    std::cerr << program << ": unexpected argument '" << command->inputs[0] << "'\n";
    return 2;
  }
  if (Error e = compileAhead(module, command->outputs, command->options, command->header)) {
    std::cerr << program << ": " << e.str() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace memjit::jit
