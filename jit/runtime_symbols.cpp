#include "runtime_symbols.h"

#include <llvm/ExecutionEngine/Orc/Core.h>

#include "llvm_error.h"
#include "memjit/runtime/parallel.h"

namespace memjit::jit::detail {

Expected<llvm::orc::JITDylib*> defineRuntimeSymbols(llvm::orc::LLJIT& jit) {
  auto dylib = jit.getExecutionSession().createJITDylib("memjit.runtime");
  if (!dylib) return fromLLVM(dylib.takeError(), ErrorCode::Internal, "cannot create the runtime symbol table");
  llvm::orc::SymbolMap symbols;
  symbols[jit.mangleAndIntern("memjit_parallel_for")] = {
      llvm::orc::ExecutorAddr::fromPtr(&memjit_parallel_for),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto err = dylib->define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return fromLLVM(std::move(err), ErrorCode::Internal, "cannot define the runtime symbols");
  return &*dylib;
}

}  // namespace memjit::jit::detail
