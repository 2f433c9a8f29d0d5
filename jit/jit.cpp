#include "memjit/jit/jit.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/Debugging/DebuggerSupport.h>
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/ObjectFileInterface.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "compile.h"
#include "crash_recovery.h"
#include "deferred_entries.h"
#include "engine.h"
#include "global_structors.h"
#include "llvm_error.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/embedded_metadata.h"
#include "memjit/jit/object_cache.h"
#include "memjit/metadata_symbols.h"
#include "perf_jitdump.h"
#include "perf_map.h"
#include "runtime_symbols.h"
#include "vector_math.h"

#ifndef MEMJIT_VERSION
#define MEMJIT_VERSION "0.0.0"
#endif

namespace memjit::jit {
namespace detail {

// ORC reports why a symbol failed to materialise (e.g. which externals were
// missing) through the session's error reporter, and the lookup only says
// "failed to materialize". Linking runs on the thread that asked, so a
// thread-local buffer pairs the two.
thread_local std::vector<OrcFailure> reportedErrors;

// ---- MachinePool -------------------------------------------------------

Expected<MachinePool::Lease> MachinePool::acquire(OptLevel level) {
  Lease lease;
  lease.pool = this;
  lease.level = level;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      lease.pooled = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!lease.pooled) {
    lease.pooled = std::make_unique<Pooled>();
    MEMJIT_ASSIGN_OR_RETURN(lease.pooled->machine, createTargetMachine(spec_, level));
    std::lock_guard<std::mutex> lock(mutex_);
    ++created_;
  }
  llvm::TargetMachine& machine = *lease.pooled->machine;
  switch (level) {
    case OptLevel::O0: machine.setOptLevel(llvm::CodeGenOptLevel::None); break;
    case OptLevel::O1: machine.setOptLevel(llvm::CodeGenOptLevel::Less); break;
    case OptLevel::O2: machine.setOptLevel(llvm::CodeGenOptLevel::Default); break;
    case OptLevel::O3: machine.setOptLevel(llvm::CodeGenOptLevel::Aggressive); break;
  }
  return lease;
}

Expected<std::string> MachinePool::Lease::emitObject(llvm::Module& module) {
  auto& emitter = pooled->emitters[static_cast<std::size_t>(level)];
  if (!emitter) {
    MEMJIT_ASSIGN_OR_RETURN(emitter, CodeEmitter::create(*pooled->machine, EmitKind::Object));
  }
  auto object = emitter->emit(module);
  if (!object) emitter.reset();
  return object;
}

MachinePool& MachinePool::host() {
  static MachinePool* pool = new MachinePool(TargetSpec::host());
  return *pool;
}

std::size_t MachinePool::created() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return created_;
}

void MachinePool::retire(std::unique_ptr<Pooled> pooled) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  retired_.push_back(std::move(pooled));
}

void MachinePool::release(std::unique_ptr<Pooled> pooled) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(pooled));
}

void writeFile(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

namespace {

// LLJIT wants an IR compiler even though memjit hands it finished objects;
// this one borrows from the pool instead of making a TargetMachine of its own.
class PoolCompiler final : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  PoolCompiler(MachinePool& pool, const llvm::TargetOptions& options)
      : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(options)), pool_(pool) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& module) override {
    auto lease = pool_.acquire(OptLevel::O2);
    if (!lease)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), lease.error().str());
    prepareModule(module, **lease);
    auto object = lease->emitObject(module);
    if (!object)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), object.error().str());
    return llvm::MemoryBuffer::getMemBufferCopy(*object, module.getModuleIdentifier());
  }

 private:
  MachinePool& pool_;
};

// Stands for a module's deferred expanded entries in their JITDylib until one
// is looked up; then builds the stubs and hands them to LLJIT's compile layer.
class DeferredEntriesUnit final : public llvm::orc::MaterializationUnit {
 public:
  DeferredEntriesUnit(llvm::orc::LLJIT& lljit, std::string moduleName, DeferredEntries entries)
      : MaterializationUnit(interface(lljit, entries.names)),
        lljit_(lljit),
        moduleName_(std::move(moduleName)),
        entries_(std::move(entries)) {}

  llvm::StringRef getName() const override { return "memjit expanded entries"; }

  void materialize(std::unique_ptr<llvm::orc::MaterializationResponsibility> responsibility) override {
    auto stubs = entries_.buildStubs();
    if (!stubs) {
      lljit_.getExecutionSession().reportError(llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "cannot build the expanded entries of module '" + moduleName_ + "': " + stubs.error().str()));
      responsibility->failMaterialization();
      return;
    }
    lljit_.getIRCompileLayer().emit(std::move(responsibility),
                                    llvm::orc::ThreadSafeModule(std::move(stubs->second), std::move(stubs->first)));
  }

 private:
  static Interface interface(llvm::orc::LLJIT& lljit, const std::vector<std::string>& names) {
    llvm::orc::SymbolFlagsMap flags;
    for (const std::string& name : names)
      flags[lljit.mangleAndIntern(name)] = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
    return Interface(std::move(flags), nullptr);
  }
  void discard(const llvm::orc::JITDylib&, const llvm::orc::SymbolStringPtr&) override {}

  llvm::orc::LLJIT& lljit_;
  std::string moduleName_;
  DeferredEntries entries_;
};

}  // namespace

llvm::Error defineDeferredEntries(llvm::orc::LLJIT& lljit, const llvm::orc::ResourceTrackerSP& tracker,
                                  const std::string& moduleName, DeferredEntries& entries) {
  return tracker->getJITDylib().define(
      std::make_unique<DeferredEntriesUnit>(lljit, moduleName, std::move(entries)), tracker);
}

JitCore::~JitCore() {
  // Modules hold the core; none can be left here once the core dies.
  modules.clear();
}

bool ModuleState::defers(std::string_view symbol) const {
  return std::find(deferred.begin(), deferred.end(), symbol) != deferred.end();
}

Expected<void*> ModuleState::lookupDeferred(const std::string& symbol) const {
  // Materialises the stub on first use; ORC serialises concurrent requests.
  auto address = core->lljit->getExecutionSession().lookup(
      llvm::orc::makeJITDylibSearchOrder(dylib, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
      core->lljit->mangleAndIntern(symbol));
  if (!address) return fromOrc(address.takeError(), "expanded entry '" + symbol + "' of module '" + name + "'");
  return address->getAddress().toPtr<void*>();
}

ModuleState::~ModuleState() {
  if (dylib) {
    // Nothing can be reported from a destructor; ORC only fails here when
    // a plugin refuses to release, and the memory is gone either way.
    llvm::consumeError(core->lljit->getExecutionSession().removeJITDylib(*dylib));
  }
}

Expected<FunctionRecord> readFunction(const std::string& moduleName,
                                      const std::map<std::string, void*>& symbols,
                                      std::string_view function) {
  const std::string name(function);
  auto text = [&](std::string_view prefix) -> std::optional<std::string> {
    auto it = symbols.find(metadata::symbolName(prefix, name));
    if (it == symbols.end() || !it->second) return std::nullopt;
    return std::string(static_cast<const char*>(it->second));
  };
  FunctionRecord record;
  auto expanded = symbols.find(name);
  auto ciface = symbols.find(metadata::symbolName(metadata::kCInterfacePrefix, name));
  if (expanded == symbols.end() && ciface == symbols.end())
    return Error(ErrorCode::NotFound,
                 "module '" + moduleName + "' defines no function '" + name + "'");
  if (expanded != symbols.end()) record.expanded = expanded->second;
  if (ciface != symbols.end()) record.cInterface = ciface->second;
  MetadataStrings strings;
  auto type = text(metadata::kTypePrefix);
  if (!type)
    return Error(ErrorCode::NotFound, "module '" + moduleName + "' has no signature metadata for '" +
                                          name + "' (no symbol " +
                                          metadata::symbolName(metadata::kTypePrefix, name) + ")");
  strings.type = *type;
  strings.raw = text(metadata::kRawPrefix);
  strings.reflection = text(metadata::kReflectionPrefix);
  strings.sip = text(metadata::kSipPrefix);
  strings.resultAllocator = text(metadata::kAllocatorPrefix);
  MEMJIT_ASSIGN_OR_RETURN(record.signature, signatureFromMetadata(name, strings));
  if (record.signature.resultAllocator) {
    auto allocator = symbols.find(
        metadata::symbolName(metadata::kCInterfacePrefix, *record.signature.resultAllocator));
    if (allocator != symbols.end()) record.resultAllocator = allocator->second;
  }
  if (record.cInterface) {
    auto invoker = runtime::Function::create(record.cInterface, record.signature, record.resultAllocator);
    if (!invoker) return invoker.error().withContext("function '" + name + "'");
    record.invoker = std::move(*invoker);
  }
  return record;
}

}  // namespace detail

using detail::JitCore;
using detail::ModuleState;

// ---- LoadedModule ------------------------------------------------------

static const std::string kEmpty;

const std::string& LoadedModule::name() const { return state_ ? state_->name : kEmpty; }
bool LoadedModule::fromCache() const { return state_ && state_->fromCache; }
const std::string& LoadedModule::cacheKey() const { return state_ ? state_->cacheKey : kEmpty; }

Expected<Function> LoadedModule::function(std::string_view name) const {
  if (!state_) return Error(ErrorCode::InvalidArgument, "empty module handle");
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto it = state_->functions.find(std::string(name));
  if (it == state_->functions.end()) {
    MEMJIT_ASSIGN_OR_RETURN(auto record, detail::readFunction(state_->name, state_->symbols, name));
    if (!record.expanded && state_->defers(name)) {
      record.lazyExpanded = std::make_shared<detail::LazyAddress>();
      // The record lives in the module's state, which this pointer outlives never.
      record.lazyExpanded->resolve = [state = state_.get(), symbol = std::string(name)]() -> void* {
        auto address = state->lookupDeferred(symbol);
        return address ? *address : nullptr;
      };
    }
    it = state_->functions
             .emplace(std::string(name), std::make_shared<detail::FunctionRecord>(std::move(record)))
             .first;
  }
  // Aliasing: the handle points at the record but owns the whole module.
  return Function(std::shared_ptr<const detail::FunctionRecord>(state_, it->second.get()));
}

std::vector<std::string> LoadedModule::functionNames() const {
  std::vector<std::string> names;
  if (!state_) return names;
  for (const auto& [symbol, address] : state_->symbols)
    if (std::string_view(symbol).substr(0, metadata::kTypePrefix.size()) == metadata::kTypePrefix)
      names.push_back(symbol.substr(metadata::kTypePrefix.size()));
  return names;
}

Expected<void*> LoadedModule::symbol(std::string_view name) const {
  if (!state_) return Error(ErrorCode::InvalidArgument, "empty module handle");
  auto it = state_->symbols.find(std::string(name));
  if (it == state_->symbols.end() && state_->defers(name)) return state_->lookupDeferred(std::string(name));
  if (it == state_->symbols.end())
    return Error(ErrorCode::NotFound,
                 "module '" + state_->name + "' defines no symbol '" + std::string(name) + "'");
  return it->second;
}

std::vector<std::string> LoadedModule::symbolNames() const {
  std::vector<std::string> names;
  if (!state_) return names;
  for (const auto& entry : state_->symbols) names.push_back(entry.first);
  names.insert(names.end(), state_->deferred.begin(), state_->deferred.end());
  std::sort(names.begin(), names.end());
  return names;
}

// ---- Jit ---------------------------------------------------------------

namespace {

// The loaded modules defining any of `symbols`, in the order they were added.
// Call with the core's lock held.
std::vector<std::shared_ptr<ModuleState>> definersLocked(const JitCore& core,
                                                         std::initializer_list<std::string> symbols) {
  std::vector<ModuleState*> found;
  for (const std::string& symbol : symbols)
    if (auto it = core.owners.find(symbol); it != core.owners.end())
      found.insert(found.end(), it->second.begin(), it->second.end());
  std::sort(found.begin(), found.end(), [](ModuleState* a, ModuleState* b) { return a->serial < b->serial; });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::vector<std::shared_ptr<ModuleState>> out;
  for (ModuleState* state : found) out.push_back(core.modules.at(state));
  return out;
}

// "modules 'a', 'b', 'c'" (at most five named).
std::string moduleList(const std::vector<std::shared_ptr<ModuleState>>& modules) {
  constexpr std::size_t kNamed = 5;
  std::string out = modules.size() == 1 ? "module " : "modules ";
  for (std::size_t i = 0; i < modules.size() && i < kNamed; ++i) out += (i ? ", '" : "'") + modules[i]->name + "'";
  if (modules.size() > kNamed) out += " and " + std::to_string(modules.size() - kNamed) + " more";
  return out;
}

Error ambiguous(std::string_view what, std::string_view name, const std::vector<std::shared_ptr<ModuleState>>& definers,
                std::string_view instead) {
  return Error(ErrorCode::InvalidArgument, std::string(what) + "'" + std::string(name) + "' is defined by " +
                                               moduleList(definers) + ": use " + std::string(instead));
}

// For a module that failed to link: the loaded modules, outside those it
// links against, that define a symbol it missed, as a hint to link them.
std::string definedElsewhere(const JitCore& core, const std::vector<detail::OrcFailure>& failures,
                             const std::vector<std::shared_ptr<ModuleState>>& links) {
  std::vector<std::shared_ptr<ModuleState>> definers;
  {
    std::lock_guard<std::mutex> lock(core.mutex);
    for (const detail::OrcFailure& failure : failures) {
      if (failure.kind != detail::OrcFailure::Kind::SymbolsNotFound) continue;
      for (const std::string& symbol : failure.symbols)
        for (auto& state : definersLocked(core, {symbol}))
          if (std::find(links.begin(), links.end(), state) == links.end() &&
              std::find(definers.begin(), definers.end(), state) == definers.end())
            definers.push_back(std::move(state));
    }
  }
  if (definers.empty()) return "";
  std::sort(definers.begin(), definers.end(), [](const auto& a, const auto& b) { return a->serial < b->serial; });
  return " (defined by loaded " + moduleList(definers) +
         ", which this module does not link against: list " + (definers.size() == 1 ? "it" : "them") +
         " in AddOptions::linkAgainst)";
}

}  // namespace

Jit::Jit(std::shared_ptr<JitCore> core) noexcept : core_(std::move(core)) {}
Jit::Jit(Jit&&) noexcept = default;
Jit& Jit::operator=(Jit&& other) noexcept {
  if (this != &other) {
    if (core_) {
      std::lock_guard<std::mutex> lock(core_->mutex);
      core_->modules.clear();
    }
    core_ = std::move(other.core_);
  }
  return *this;
}

Jit::~Jit() {
  if (!core_) return;
  // Break the core <-> module cycle; modules still referenced by a Function
  // keep the core (and LLJIT) alive until they go.
  std::unordered_map<ModuleState*, std::shared_ptr<ModuleState>> modules;
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    modules.swap(core_->modules);
    core_->owners.clear();
  }
  modules.clear();
}

Expected<Jit> Jit::create(JitOptions options) {
  detail::initializeNativeTarget();
  auto core = std::make_shared<JitCore>(std::move(options));
  const TargetSpec& host = TargetSpec::host();

  // The one machine made up front; its data layout configures LLJIT so that
  // LLJIT does not build a TargetMachine of its own just to ask for it.
  llvm::DataLayout layout("");
  llvm::TargetOptions targetOptions;
  {
    MEMJIT_ASSIGN_OR_RETURN(auto lease, core->machines.acquire(core->options.optLevel));
    layout = (*lease).createDataLayout();
    targetOptions = (*lease).Options;
  }

  llvm::orc::JITTargetMachineBuilder machineBuilder{llvm::Triple(host.triple)};
  machineBuilder.setCPU(host.cpu);
  machineBuilder.setRelocationModel(llvm::Reloc::PIC_);
  {
    llvm::SubtargetFeatures features(host.features);
    machineBuilder.addFeatures(features.getFeatures());
  }
  JitCore* rawCore = core.get();
  auto built = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(machineBuilder))
                   .setDataLayout(layout)
                   .setCompileFunctionCreator(
                       [rawCore, targetOptions](llvm::orc::JITTargetMachineBuilder)
                           -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                         return std::make_unique<detail::PoolCompiler>(rawCore->machines, targetOptions);
                       })
                   .create();
  if (!built) return detail::fromLLVM(built.takeError(), ErrorCode::Unsupported, "cannot create the JIT");
  core->lljit = std::move(*built);

  auto* linker = llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&core->lljit->getObjLinkingLayer());
  if (!linker)
    return Error(ErrorCode::Unsupported, "LLJIT on " + host.triple + " does not use JITLink");

  auto& session = core->lljit->getExecutionSession();
  session.setErrorReporter([](llvm::Error error) {
    for (auto& failure : detail::classifyOrc(std::move(error))) detail::reportedErrors.push_back(std::move(failure));
  });
  auto user = session.createJITDylib("memjit.user");
  if (!user) return detail::fromLLVM(user.takeError(), ErrorCode::Internal, "cannot create the symbol table");
  core->userDylib = &*user;

  // What generated code calls in memjit::runtime by name (parallel loops),
  // defined at its address in this process so it resolves even when the
  // executable does not export it; after the user's table, which may override.
  MEMJIT_ASSIGN_OR_RETURN(llvm::orc::JITDylib * runtime, detail::defineRuntimeSymbols(*core->lljit));
  if (core->options.vectorMath) MEMJIT_TRY(detail::addVectorMathSymbols(*core->lljit, *runtime));
  core->sharedLinks = llvm::orc::makeJITDylibSearchOrder({core->userDylib, runtime},
                                                         llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly);
  for (const auto& link : core->lljit->defaultLinkOrder()) core->sharedLinks.push_back(link);

  if (core->options.gdbRegistration) {
    if (auto err = llvm::orc::enableDebuggerSupport(*core->lljit))
      return detail::fromLLVM(std::move(err), ErrorCode::Unsupported, "GDB JIT registration");
  }
  if (core->options.perfMap) linker->addPlugin(detail::createPerfMapPlugin());
  if (core->options.perfJitdump) MEMJIT_TRY(detail::addPerfJitdump(*core->lljit, *linker));
  if (!core->options.dumpDirectory.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(core->options.dumpDirectory, ec);
    if (ec)
      return Error(ErrorCode::IoError, "cannot create dump directory '" +
                                           core->options.dumpDirectory + "': " + ec.message());
  }
  return Jit(std::move(core));
}

const TargetSpec& Jit::target() const noexcept { return TargetSpec::host(); }
const JitOptions& Jit::options() const noexcept { return core_->options; }

std::size_t Jit::moduleCount() const {
  std::lock_guard<std::mutex> lock(core_->mutex);
  return core_->modules.size();
}

Expected<LoadedModule> Jit::addIR(std::string_view irText, std::string_view moduleName,
                                  AddOptions options) {
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic diagnostic;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(irText.data(), irText.size()),
                                                 llvm::StringRef(moduleName.data(), moduleName.size()),
                                                 false);
  auto module = llvm::parseIR(buffer->getMemBufferRef(), diagnostic, *context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    diagnostic.print(nullptr, os, false);
    os.flush();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return Error(ErrorCode::ParseError, "invalid LLVM IR in '" + std::string(moduleName) + "': " + message);
  }
  return add(std::move(context), std::move(module), options);
}

Expected<LoadedModule> Jit::add(std::unique_ptr<llvm::LLVMContext> context,
                                std::unique_ptr<llvm::Module> module, AddOptions options) {
  return addModule(std::move(context), std::move(module), options, nullptr);
}

Expected<LoadedModule> Jit::add(codegen::Module module, AddOptions options) {
  if (!core_) return Error(ErrorCode::InvalidArgument, "moved-from Jit");
  detail::DeferredEntries deferred;
  if (this->options().compileExpandedOnFirstUse) {
    MEMJIT_ASSIGN_OR_RETURN(deferred, detail::deferExpandedEntries(module));
  }
  auto [context, llvmModule] = std::move(module).release();
  return addModule(std::move(context), std::move(llvmModule), options, &deferred);
}

namespace {

// What a new module links against besides its own definitions and the
// Jit's shared links: AddOptions::linkAgainst (checked to be loaded here),
// its shared libraries and the runner utilities.
struct ModuleLinks {
  std::vector<std::shared_ptr<ModuleState>> modules;
  llvm::orc::JITDylibSearchOrder tables;
};

Expected<ModuleLinks> resolveLinks(JitCore& core, const std::string& name, const AddOptions& options) {
  ModuleLinks links;
  std::lock_guard<std::mutex> lock(core.mutex);
  for (const LoadedModule& link : options.linkAgainst) {
    if (!link)
      return Error(ErrorCode::InvalidArgument,
                   "module '" + name + "': AddOptions::linkAgainst holds an empty module handle");
    if (!core.modules.count(link.state().get()))
      return Error(ErrorCode::InvalidArgument, "module '" + name + "' cannot link against module '" +
                                                   link.name() + "': it is not loaded in this JIT");
    links.modules.push_back(link.state());
  }
  constexpr auto kExported = llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly;
  for (const std::string& path : options.sharedLibraries) {
    auto it = core.libraries.find(path);
    if (it == core.libraries.end()) {
      auto dylib = detail::loadSharedLibrary(*core.lljit, path);
      if (!dylib) return dylib.error().withContext("module '" + name + "'");
      it = core.libraries.emplace(path, *dylib).first;
    }
    links.tables.push_back({it->second, kExported});
  }
  if (options.runnerUtilities) {
    if (!core.runnerUtilities) {
      auto dylib = detail::defineRunnerUtilitySymbols(*core.lljit);
      if (!dylib) return dylib.error().withContext("module '" + name + "'");
      core.runnerUtilities = *dylib;
    }
    links.tables.push_back({core.runnerUtilities, kExported});
  }
  return links;
}

// Links a compiled object into a new module namespace and resolves the
// symbols it defines now, so that a missing external or a duplicate
// definition is reported here.
Expected<LoadedModule> linkObject(const std::shared_ptr<JitCore>& corePtr, const std::string& name,
                                  const std::string& object, const std::vector<std::string>& defined,
                                  ModuleLinks links, std::string key, bool fromCache,
                                  detail::DeferredEntries* deferred) {
  JitCore& core = *corePtr;
  auto& lljit = *core.lljit;
  auto& session = lljit.getExecutionSession();
  auto state = std::make_shared<ModuleState>();
  state->core = corePtr;
  state->links = std::move(links.modules);
  state->name = name;
  state->cacheKey = std::move(key);
  state->fromCache = fromCache;
  {
    std::lock_guard<std::mutex> lock(core.mutex);
    state->serial = core.modulesAdded++;
  }
  // The module's own namespace; JITDylib names must be unique, module names need not be.
  auto dylib = lljit.createJITDylib("memjit.module." + std::to_string(state->serial) + "." + name);
  if (!dylib)
    return detail::fromLLVM(dylib.takeError(), ErrorCode::Internal,
                            "cannot create a symbol table for module '" + name + "'");
  state->dylib = &*dylib;  // from here on the state removes it again
  llvm::orc::JITDylibSearchOrder linkOrder;
  for (const auto& link : state->links)
    linkOrder.push_back({link->dylib, llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly});
  linkOrder.insert(linkOrder.end(), links.tables.begin(), links.tables.end());
  linkOrder.insert(linkOrder.end(), core.sharedLinks.begin(), core.sharedLinks.end());
  state->dylib->setLinkOrder(std::move(linkOrder), /*LinkAgainstThisJITDylibFirst=*/true);

  if (auto err = lljit.addObjectFile(*state->dylib, llvm::MemoryBuffer::getMemBufferCopy(object, name)))
    return detail::fromOrc(std::move(err), "cannot add module '" + name + "'");

  // Link now: unresolved externals and relocation problems surface here.
  llvm::orc::SymbolLookupSet lookupSet;
  for (const std::string& symbol : defined) lookupSet.add(lljit.mangleAndIntern(symbol));
  detail::reportedErrors.clear();
  auto addresses = session.lookup(
      llvm::orc::makeJITDylibSearchOrder(state->dylib, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
      std::move(lookupSet));
  if (!addresses) {
    // What the linker reported is the cause; "failed to materialize" only its consequence.
    std::vector<detail::OrcFailure> failures = std::move(detail::reportedErrors);
    detail::reportedErrors.clear();
    auto outer = detail::classifyOrc(addresses.takeError());
    for (auto& failure : outer)
      if (failures.empty() || failure.kind != detail::OrcFailure::Kind::FailedToMaterialize)
        failures.push_back(std::move(failure));
    Error error = detail::combineOrc(failures, "cannot link module '" + name + "'");
    return Error(error.code(), error.message() + definedElsewhere(core, failures, state->links));
  }

  // The expanded entries are built and compiled when first looked up; their
  // names are claimed now, so a duplicate is reported here.
  state->deferred = deferred ? deferred->names : std::vector<std::string>{};
  if (!state->deferred.empty()) {
    if (auto err = detail::defineDeferredEntries(lljit, state->dylib->getDefaultResourceTracker(), name, *deferred))
      return detail::fromOrc(std::move(err), "cannot add the expanded entries of module '" + name + "'");
  }

  for (const std::string& symbol : defined) {
    auto it = addresses->find(lljit.mangleAndIntern(symbol));
    if (it != addresses->end()) state->symbols[symbol] = it->second.getAddress().toPtr<void*>();
  }
  {
    std::lock_guard<std::mutex> lock(core.mutex);
    core.modules.emplace(state.get(), state);
    for (const auto& entry : state->symbols) core.owners[entry.first].push_back(state.get());
    for (const std::string& entry : state->deferred) core.owners[entry].push_back(state.get());
  }
  return LoadedModule(std::move(state));
}

}  // namespace

Expected<LoadedModule> Jit::addModule(std::unique_ptr<llvm::LLVMContext> contextArg,
                                      std::unique_ptr<llvm::Module> moduleArg, AddOptions addOptions,
                                      detail::DeferredEntries* deferred) {
  // Own both in locals so the module always dies before its context (the
  // order parameters are destroyed in is up to the compiler).
  std::unique_ptr<llvm::LLVMContext> context = std::move(contextArg);
  std::unique_ptr<llvm::Module> module = std::move(moduleArg);
  if (!context || !module) return Error(ErrorCode::InvalidArgument, "null LLVM module or context");
  JitCore& core = *core_;
  const std::string name = module->getModuleIdentifier();
  MEMJIT_ASSIGN_OR_RETURN(ModuleLinks links, resolveLinks(core, name, addOptions));
  MEMJIT_TRY(detail::verify(*module));
  const OptLevel level = addOptions.optLevel.value_or(core.options.optLevel);
  const OptLevel codegenLevel = addOptions.codegenLevel.value_or(level);
  const TargetSpec& host = TargetSpec::host();
  detail::lowerGlobalStructors(*module);

  // Names the module defines, known before compiling (needed on cache hits too).
  std::vector<std::string> defined;
  for (const llvm::GlobalValue& value : module->global_values())
    if (!value.isDeclaration() && !value.hasLocalLinkage() && value.hasName())
      defined.push_back(value.getName().str());

  std::string key;
  std::shared_ptr<const std::string> object;
  bool fromCache = false;
  if (core.options.cache) {
    const std::string bitcode = detail::writeBitcode(*module);
    std::string pipeline = core.options.vectorMath ? "vector-math" : "no-vector-math";
    if (!addOptions.runIRPasses) pipeline += "/no-ir-passes";
    if (codegenLevel != level) pipeline += std::string("/codegen-") + optLevelName(codegenLevel);
    key = cacheKey({bitcode, host.triple, host.cpu, host.features, static_cast<int>(level), MEMJIT_VERSION, pipeline});
    if (auto hit = core.options.cache->get(key)) {
      object = *hit;
      fromCache = true;
    }
  }
  const std::string& dumps = core.options.dumpDirectory;
  std::string dumpStem;
  if (!dumps.empty()) {
    std::string tag = key.empty() ? std::to_string(reinterpret_cast<std::uintptr_t>(module.get())) : key.substr(0, 16);
    dumpStem = dumps + "/" + name + "." + tag;
  }
  if (!object) {
    MEMJIT_ASSIGN_OR_RETURN(auto lease, core.machines.acquire(codegenLevel));
    std::string code;
    auto compile = [&]() -> Error {
      detail::prepareModule(*module, *lease);
      if (!dumpStem.empty()) detail::writeFile(dumpStem + ".before.ll", detail::printIR(*module));
      if (addOptions.runIRPasses)
        detail::optimize(*module, *lease, {level, core.options.skipVectorEpilogue, core.options.vectorMath});
      if (!dumpStem.empty()) detail::writeFile(dumpStem + ".after.ll", detail::printIR(*module));
      MEMJIT_ASSIGN_OR_RETURN(code, lease.emitObject(*module));
      return Error::success();
    };
    if (core.options.recoverFromLlvmCrashes) {
      bool crashed = false;
      Error error = detail::runRecoveringFromCrashes(name, compile, crashed);
      if (crashed) {
        // Whatever LLVM was working on is in an unknown state: leak it rather
        // than reuse or destroy it (see crash_recovery.h).
        lease.discard();
        (void)module.release();
        (void)context.release();
      }
      MEMJIT_TRY(std::move(error));
    } else {
      MEMJIT_TRY(compile());
    }
    if (core.options.cache) core.options.cache->put(key, code);
    object = std::make_shared<const std::string>(std::move(code));
  }
  if (!dumpStem.empty()) detail::writeFile(dumpStem + ".o", *object);
  module.reset();
  context.reset();
  return linkObject(core_, name, *object, defined, std::move(links), std::move(key), fromCache, deferred);
}

Expected<LoadedModule> Jit::addObject(std::string_view objectBytes, std::string_view moduleName,
                                      AddOptions options) {
  const std::string name(moduleName);
  MEMJIT_ASSIGN_OR_RETURN(ModuleLinks links, resolveLinks(*core_, name, options));
  auto buffer = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(objectBytes.data(), objectBytes.size()), name,
                                                 /*RequiresNullTerminator=*/false);
  auto& lljit = *core_->lljit;
  // ORC's own reading of the object: what it defines, as the linker will see it.
  auto interface = llvm::orc::getObjectFileInterface(lljit.getExecutionSession(), buffer->getMemBufferRef());
  if (!interface)
    return detail::fromLLVM(interface.takeError(), ErrorCode::ParseError,
                            "'" + name + "' is not an object file memjit can load");
  std::vector<std::string> defined;
  for (const auto& [symbol, flags] : interface->SymbolFlags)
    // The init symbol ORC makes up for an object with .init_array is no definition.
    if (symbol != interface->InitSymbol && !flags.hasMaterializationSideEffectsOnly())
      defined.push_back((*symbol).str());
  std::sort(defined.begin(), defined.end());
  return linkObject(core_, name, std::string(objectBytes), defined, std::move(links), "", false, nullptr);
}

Error Jit::remove(LoadedModule& module) {
  std::shared_ptr<ModuleState> state = module.state();
  if (!state) return Error(ErrorCode::InvalidArgument, "empty module handle");
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    auto it = core_->modules.find(state.get());
    if (it == core_->modules.end())
      return Error(ErrorCode::NotFound, "module '" + state->name + "' is not loaded in this JIT");
    auto disown = [&](const std::string& symbol) {
      auto owners = core_->owners.find(symbol);
      if (owners == core_->owners.end()) return;
      std::erase(owners->second, state.get());
      if (owners->second.empty()) core_->owners.erase(owners);
    };
    for (const auto& entry : state->symbols) disown(entry.first);
    for (const std::string& entry : state->deferred) disown(entry);
    core_->modules.erase(it);
  }
  module = LoadedModule();
  // Once `state` goes (unless a Function or a module linking against it
  // still holds it) its JITDylib is removed and the code freed.
  return Error::success();
}

Expected<Function> Jit::lookup(std::string_view name) const {
  std::vector<std::shared_ptr<ModuleState>> definers;
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    definers = definersLocked(*core_, {std::string(name), metadata::symbolName(metadata::kCInterfacePrefix, name)});
  }
  if (definers.empty())
    return Error(ErrorCode::NotFound, "no loaded module defines function '" + std::string(name) + "'");
  if (definers.size() > 1) return ambiguous("", name, definers, "LoadedModule::function");
  return LoadedModule(std::move(definers.front())).function(name);
}

Expected<void*> Jit::lookupSymbol(std::string_view name) const {
  std::vector<std::shared_ptr<ModuleState>> definers;
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    definers = definersLocked(*core_, {std::string(name)});
  }
  if (definers.size() > 1) return ambiguous("symbol ", name, definers, "LoadedModule::symbol");
  if (definers.size() == 1) return LoadedModule(std::move(definers.front())).symbol(name);
  // Not a module's: what every module links against.
  auto address = core_->lljit->getExecutionSession().lookup(
      core_->sharedLinks, core_->lljit->mangleAndIntern(llvm::StringRef(name.data(), name.size())));
  if (!address) return detail::fromOrc(address.takeError(), "symbol '" + std::string(name) + "'");
  return address->getAddress().toPtr<void*>();
}

Error Jit::registerSymbol(std::string name, void* address, std::optional<FunctionType> type) {
  if (name.empty()) return Error(ErrorCode::InvalidArgument, "cannot register a symbol with an empty name");
  if (!address)
    return Error(ErrorCode::InvalidArgument, "cannot register symbol '" + name + "' at a null address");
  std::lock_guard<std::mutex> lock(core_->mutex);
  llvm::orc::SymbolMap symbols;
  symbols[core_->lljit->mangleAndIntern(name)] = {
      llvm::orc::ExecutorAddr::fromPtr(address),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto err = core_->userDylib->define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return detail::fromOrc(std::move(err), "cannot register symbol '" + name + "'");
  core_->registered.push_back({std::move(name), address, std::move(type)});
  return Error::success();
}

std::vector<RegisteredSymbol> Jit::registeredSymbols() const {
  std::lock_guard<std::mutex> lock(core_->mutex);
  return core_->registered;
}

}  // namespace memjit::jit
