#include "runtime_symbols.h"

#include <llvm/ExecutionEngine/Orc/Core.h>

#include "llvm_error.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/parallel.h"

namespace memjit::jit::detail {

Expected<llvm::orc::JITDylib*> defineRuntimeSymbols(llvm::orc::LLJIT& jit) {
  auto dylib = jit.getExecutionSession().createJITDylib("memjit.runtime");
  if (!dylib) return fromLLVM(dylib.takeError(), ErrorCode::Internal, "cannot create the runtime symbol table");
  llvm::orc::SymbolMap symbols;
  auto define = [&](const char* name, auto* function) {
    symbols[jit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  };
  define("memjit_parallel_for", &memjit_parallel_for);
  define("memjit_check_report", &memjit_check_report);  // checked mode (runtime/checks.h)
  define("memjit_check_scratch", &memjit_check_scratch);
  define("memjit_check_pending", &memjit_check_pending);
  if (auto err = dylib->define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return fromLLVM(std::move(err), ErrorCode::Internal, "cannot define the runtime symbols");
  return &*dylib;
}

}  // namespace memjit::jit::detail
