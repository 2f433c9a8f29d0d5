#include "support/llvm_jit.h"

#include "jit/llvm_compat.h"
#include "memjit/runtime/arena.h"

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

namespace memjit::test {

namespace {
std::string take(llvm::Error e) {
  std::string s = llvm::toString(std::move(e));
  return s;
}
void initNative() {
  static bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)done;
}
}  // namespace

TestJit::TestJit() {
  initNative();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    init_ = Error(ErrorCode::CompileError, take(jit.takeError()));
    return;
  }
  jit_ = std::move(*jit);
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit_->getDataLayout().getGlobalPrefix());
  if (!gen) {
    init_ = Error(ErrorCode::CompileError, take(gen.takeError()));
    return;
  }
  jit_->getMainJITDylib().addGenerator(std::move(*gen));
  // What a JIT of one's own must give memjit's code besides the C library: the temporaries' arena (the test
  // executable does not export the runtime's symbols for the process search above).
  llvm::orc::SymbolMap arena;
  auto define = [&](const char* name, auto* function) {
    arena[jit_->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  };
  define("memjit_arena_mark", &memjit_arena_mark);
  define("memjit_arena_alloc", &memjit_arena_alloc);
  define("memjit_arena_free", &memjit_arena_free);
  define("memjit_arena_release", &memjit_arena_release);
  if (auto e = jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(arena))))
    init_ = Error(ErrorCode::CompileError, take(std::move(e)));
}

TestJit::~TestJit() = default;

Error TestJit::add(codegen::Module module, bool optimize) {
  MEMJIT_TRY(init_);
  MEMJIT_TRY(module.verify());
  if (optimize) MEMJIT_TRY(optimizeForHost(module));
  auto [ctx, mod] = std::move(module).release();
  mod->setDataLayout(jit_->getDataLayout());
  if (auto e = jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(mod), std::move(ctx))))
    return Error(ErrorCode::CompileError, take(std::move(e)));
  return Error::success();
}

Error TestJit::addObjectFile(const std::string& path) {
  MEMJIT_TRY(init_);
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) return Error(ErrorCode::IoError, "cannot read " + path);
  if (auto e = jit_->addObjectFile(std::move(*buf))) return Error(ErrorCode::CompileError, take(std::move(e)));
  return Error::success();
}

Expected<void*> TestJit::lookup(const std::string& symbol) {
  MEMJIT_TRY(init_);
  auto addr = jit_->lookup(symbol);
  if (!addr) return Error(ErrorCode::NotFound, symbol + ": " + take(addr.takeError()));
  return addr->toPtr<void*>();
}

Error optimizeForHost(codegen::Module& module) {
  initNative();
  std::string triple = llvm::sys::getProcessTriple();
  std::string err;
  const llvm::Target* target = llvm_compat::lookupTarget(triple, err);
  if (!target) return Error(ErrorCode::CompileError, err);
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::string fs;
  for (auto& f : features) fs += (f.second ? "+" : "-") + f.first().str() + ",";
  std::unique_ptr<llvm::TargetMachine> tm(llvm_compat::createTargetMachine(
      *target, triple, llvm::sys::getHostCPUName(), fs, llvm::TargetOptions(), std::nullopt));
  llvm::Module& m = module.llvm();
  llvm_compat::setTargetTriple(m, tm->getTargetTriple());
  m.setDataLayout(tm->createDataLayout());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
  return Error::success();
}

}  // namespace memjit::test
