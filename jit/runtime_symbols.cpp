#include "runtime_symbols.h"

#include <cstdint>
#include <filesystem>
#include <system_error>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>

#include "llvm_error.h"
#include "memjit/runtime/arena.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/detail/first_tier.h"
#include "memjit/runtime/parallel.h"
#include "memjit/runtime/runner_utils.h"

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
  define("memjit_arena_mark", &memjit_arena_mark);  // temporaries (runtime/arena.h)
  define("memjit_arena_alloc", &memjit_arena_alloc);
  define("memjit_arena_free", &memjit_arena_free);
  define("memjit_arena_release", &memjit_arena_release);
  define("memjit_first_tier_matmul_f32", &memjit_first_tier_matmul_f32);
  define("memjit_first_tier_matmul_f64", &memjit_first_tier_matmul_f64);
  define("memjit_first_tier_softmax_f32", &memjit_first_tier_softmax_f32);
  define("memjit_first_tier_softmax_f64", &memjit_first_tier_softmax_f64);
  if (auto err = dylib->define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return fromLLVM(std::move(err), ErrorCode::Internal, "cannot define the runtime symbols");
  return &*dylib;
}

Expected<llvm::orc::JITDylib*> defineRunnerUtilitySymbols(llvm::orc::LLJIT& jit) {
  auto dylib = jit.getExecutionSession().createJITDylib("memjit.runner_utils");
  if (!dylib) return fromLLVM(dylib.takeError(), ErrorCode::Internal, "cannot create the runner utilities' symbol table");
  llvm::orc::SymbolMap symbols;
  for (const runtime::RunnerSymbol& symbol : runtime::runnerUtilitySymbols())
    symbols[jit.mangleAndIntern(symbol.name)] = {llvm::orc::ExecutorAddr::fromPtr(symbol.address),
                                                 llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto err = dylib->define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return fromLLVM(std::move(err), ErrorCode::Internal, "cannot define the runner utilities");
  return &*dylib;
}

Expected<llvm::orc::JITDylib*> loadSharedLibrary(llvm::orc::LLJIT& jit, const std::string& path) {
  // dlopen's own message for a missing file is only "cannot open shared object
  // file"; say which one and why in the usual words.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Error(ErrorCode::NotFound, "shared library '" + path + "' does not exist");
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::Load(
      path.c_str(), jit.getDataLayout().getGlobalPrefix());
  if (!generator)
    return fromLLVM(generator.takeError(), ErrorCode::IoError, "cannot load shared library '" + path + "'");
  auto& session = jit.getExecutionSession();
  // JITDylib names must be unique; the same path is loaded once per Jit by the caller.
  auto& dylib = session.createBareJITDylib("memjit.library." + path);
  dylib.addGenerator(std::move(*generator));
  return &dylib;
}

}  // namespace memjit::jit::detail
