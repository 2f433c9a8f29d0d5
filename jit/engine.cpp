// Making the Jit's engine (LLJIT, its plugins and shared symbol tables) and
// the index of the modules loaded in it.
#include "engine.h"

#include <algorithm>
#include <filesystem>

#include <llvm/ExecutionEngine/Orc/Debugging/DebuggerSupport.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include "memjit/jit/object_cache.h"

#include "compile.h"
#include "data_layout.h"
#include "host_detection.h"
#include "llvm_error.h"
#include "perf_jitdump.h"
#include "perf_map.h"
#include "pool_compiler.h"
#include "runtime_symbols.h"
#include "session_errors.h"
#include "tiering.h"
#include "vector_math.h"

namespace memjit::jit::detail {
namespace {

llvm::orc::JITTargetMachineBuilder hostMachineBuilder() {
  const TargetSpec& host = TargetSpec::host();
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(host.triple)};
  builder.setCPU(host.cpu);
  builder.setRelocationModel(kRelocationModel);
  llvm::SubtargetFeatures features(host.features);
  builder.addFeatures(features.getFeatures());
  return builder;
}

Expected<std::unique_ptr<llvm::orc::LLJIT>> buildLLJIT(JitCore& core) {
  // LLJIT is given the data layout so that it does not build a TargetMachine
  // just to ask for it: a Jit that only loads cached objects never builds one
  // (half of a fresh process's cache hit was that machine). The compiler's
  // machines come from the pool, made on the first miss. Its IR mangling reads
  // only EmulatedTLS, which the pool's default TargetOptions leave off too.
  MEMJIT_ASSIGN_OR_RETURN(llvm::DataLayout layout, dataLayoutFor(TargetSpec::host()));
  MachinePool* pool = &core.machines;
  auto built = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(hostMachineBuilder())
                   .setDataLayout(layout)
                   // memjit runs a module's constructors and destructors itself
                   // (global_structors.cpp), so LLJIT's generic IR platform,
                   // which would add a support dylib to every JITDylib, is off.
                   .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                   .setCompileFunctionCreator(
                       [pool](llvm::orc::JITTargetMachineBuilder)
                           -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                         return makePoolCompiler(*pool, llvm::TargetOptions());
                       })
                   .create();
  if (!built) return fromLLVM(built.takeError(), ErrorCode::Unsupported, "cannot create the JIT");
  return std::move(*built);
}

// The tables every module links against: registered symbols, then what
// generated code calls in memjit::runtime by name (parallel loops), defined at
// its address in this process so it resolves even when the executable does
// not export it (after the user's table, which may override), libmvec, and
// LLJIT's defaults.
Error createSharedLinks(JitCore& core) {
  auto user = core.lljit->getExecutionSession().createJITDylib("memjit.user");
  if (!user) return fromLLVM(user.takeError(), ErrorCode::Internal, "cannot create the symbol table");
  core.userDylib = &*user;
  MEMJIT_ASSIGN_OR_RETURN(llvm::orc::JITDylib * runtime, defineRuntimeSymbols(*core.lljit));
  if (core.options.vectorMath) addVectorMathSymbols(*core.lljit, *runtime);
  core.sharedLinks = llvm::orc::makeJITDylibSearchOrder({core.userDylib, runtime},
                                                        llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly);
  for (const auto& link : core.lljit->defaultLinkOrder()) core.sharedLinks.push_back(link);
  return Error::success();
}

Error addDebuggerAndProfilers(JitCore& core, llvm::orc::ObjectLinkingLayer& linker) {
  if (core.options.gdbRegistration) {
    if (auto err = llvm::orc::enableDebuggerSupport(*core.lljit))
      return fromLLVM(std::move(err), ErrorCode::Unsupported, "GDB JIT registration");
  }
  if (core.options.perfMap) linker.addPlugin(createPerfMapPlugin());
  if (core.options.perfJitdump) MEMJIT_TRY(addPerfJitdump(*core.lljit, linker));
  return Error::success();
}

Error createDumpDirectory(const std::string& directory) {
  if (directory.empty()) return Error::success();
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) return Error(ErrorCode::IoError, "cannot create dump directory '" + directory + "': " + ec.message());
  return Error::success();
}

}  // namespace

Expected<std::shared_ptr<JitCore>> JitCore::create(JitOptions options) {
  initializeNativeTarget();
  // A disk cache's directory also remembers the host's detection (host_detection.h).
  if (options.cache)
    if (const std::string directory = options.cache->localDirectory(); !directory.empty())
      (void)hostTarget(directory);
  auto core = std::make_shared<JitCore>(std::move(options));
  MEMJIT_ASSIGN_OR_RETURN(core->lljit, buildLLJIT(*core));
  auto* linker = llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&core->lljit->getObjLinkingLayer());
  if (!linker)
    return Error(ErrorCode::Unsupported, "LLJIT on " + TargetSpec::host().triple + " does not use JITLink");
  core->lljit->getExecutionSession().setErrorReporter(reportSessionError);
  MEMJIT_TRY(createSharedLinks(*core));
  MEMJIT_TRY(addDebuggerAndProfilers(*core, *linker));
  MEMJIT_TRY(createDumpDirectory(core->options.dumpDirectory));
  return core;
}

JitCore::~JitCore() {
  // Modules hold the core; none can be left here once the core dies.
  modules.clear();
}

std::vector<std::shared_ptr<ModuleState>> JitCore::definersLocked(std::initializer_list<std::string> symbols) const {
  std::vector<ModuleState*> found;
  for (const std::string& symbol : symbols)
    if (auto it = owners.find(symbol); it != owners.end()) found.insert(found.end(), it->second.begin(), it->second.end());
  std::sort(found.begin(), found.end(), [](ModuleState* a, ModuleState* b) { return a->serial < b->serial; });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::vector<std::shared_ptr<ModuleState>> out;
  for (ModuleState* state : found) out.push_back(modules.at(state));
  return out;
}

void JitCore::addLocked(std::shared_ptr<ModuleState> state) {
  ModuleState* key = state.get();
  for (const auto& entry : key->symbols) owners[entry.first].push_back(key);
  for (const std::string& entry : key->deferred) owners[entry].push_back(key);
  modules.emplace(key, std::move(state));
}

bool JitCore::removeLocked(ModuleState* state) {
  auto it = modules.find(state);
  if (it == modules.end()) return false;
  auto disown = [&](const std::string& symbol) {
    auto found = owners.find(symbol);
    if (found == owners.end()) return;
    std::erase(found->second, state);
    if (found->second.empty()) owners.erase(found);
  };
  for (const auto& entry : state->symbols) disown(entry.first);
  for (const std::string& entry : state->deferred) disown(entry);
  modules.erase(it);
  return true;
}

std::string moduleList(const std::vector<std::shared_ptr<ModuleState>>& modules) {
  constexpr std::size_t kNamed = 5;
  std::string out = modules.size() == 1 ? "module " : "modules ";
  for (std::size_t i = 0; i < modules.size() && i < kNamed; ++i) out += (i ? ", '" : "'") + modules[i]->name + "'";
  if (modules.size() > kNamed) out += " and " + std::to_string(modules.size() - kNamed) + " more";
  return out;
}

}  // namespace memjit::jit::detail
