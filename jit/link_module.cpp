#include "link_module.h"

#include <algorithm>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectFileInterface.h>
#include <llvm/ExecutionEngine/Orc/ObjectTransformLayer.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include "llvm_error.h"
#include "object_archive.h"
#include "phase_timer.h"
#include "runtime_symbols.h"
#include "session_errors.h"

namespace memjit::jit::detail {
namespace {

// For a module that failed to link: the loaded modules, outside those it
// links against, that define a symbol it missed, as a hint to link them.
std::string definedElsewhere(const JitCore& core, const std::vector<OrcFailure>& failures,
                             const std::vector<std::shared_ptr<ModuleState>>& links) {
  std::vector<std::shared_ptr<ModuleState>> definers;
  {
    std::lock_guard<std::mutex> lock(core.mutex);
    for (const OrcFailure& failure : failures) {
      if (failure.kind != OrcFailure::Kind::SymbolsNotFound) continue;
      for (const std::string& symbol : failure.symbols)
        for (auto& state : core.definersLocked({symbol}))
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

// The state of the module about to be linked, numbered in the order of adding.
std::shared_ptr<ModuleState> newModuleState(const std::shared_ptr<JitCore>& core, ObjectToLink& object,
                                            ModuleLinks& links) {
  auto state = std::make_shared<ModuleState>();
  state->core = core;
  state->links = std::move(links.modules);
  state->name = object.name;
  state->cacheKey = std::move(object.cacheKey);
  state->fromCache = object.fromCache;
  state->object = object.owner ? std::move(object.owner) : std::make_shared<const std::string>(object.bytes);
  state->remarks = std::move(object.remarks);
  std::lock_guard<std::mutex> lock(core->mutex);
  state->serial = core->modulesAdded++;
  return state;
}

// The module's own namespace, searched first, then its links, then the Jit's shared ones.
Error createModuleDylib(ModuleState& state, const llvm::orc::JITDylibSearchOrder& tables) {
  JitCore& core = *state.core;
  // JITDylib names must be unique, module names need not be.
  auto dylib = core.lljit->createJITDylib("memjit.module." + std::to_string(state.serial) + "." + state.name);
  if (!dylib)
    return fromLLVM(dylib.takeError(), ErrorCode::Internal,
                    "cannot create a symbol table for module '" + state.name + "'");
  state.dylib = &*dylib;  // from here on the state removes it again
  llvm::orc::JITDylibSearchOrder linkOrder;
  for (const auto& link : state.links)
    linkOrder.push_back({link->dylib, llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly});
  linkOrder.insert(linkOrder.end(), tables.begin(), tables.end());
  linkOrder.insert(linkOrder.end(), core.sharedLinks.begin(), core.sharedLinks.end());
  state.dylib->setLinkOrder(std::move(linkOrder), /*LinkAgainstThisJITDylibFirst=*/true);
  return Error::success();
}

// A failed link as one Error: what the linker reported is the cause, "failed
// to materialize" only its consequence.
Error linkFailure(const ModuleState& state, llvm::Error lookupError) {
  std::vector<OrcFailure> failures = takeSessionErrors();
  auto outer = classifyOrc(std::move(lookupError));
  for (auto& failure : outer)
    if (failures.empty() || failure.kind != OrcFailure::Kind::FailedToMaterialize)
      failures.push_back(std::move(failure));
  Error error = combineOrc(failures, "cannot link module '" + state.name + "'");
  return Error(error.code(), error.message() + definedElsewhere(*state.core, failures, state.links));
}

// Adds the object to the module's namespace and links it now: unresolved
// externals and relocation problems surface here.
Expected<llvm::orc::SymbolMap> addAndResolve(ModuleState& state, const ObjectToLink& object) {
  llvm::orc::LLJIT& lljit = *state.core->lljit;
  MEMJIT_ASSIGN_OR_RETURN(std::vector<std::string_view> objects, objectsIn(object.bytes));
  for (std::string_view bytes : objects) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(bytes.data(), bytes.size()), object.name);
    // What LLJIT::addObjectFile does, with ORC's reading of the object when the add made it already.
    llvm::Error added = object.interface
                            ? lljit.getObjTransformLayer().add(*state.dylib, std::move(buffer), *object.interface)
                            : lljit.addObjectFile(*state.dylib, std::move(buffer));
    if (added) return fromOrc(std::move(added), "cannot add module '" + object.name + "'");
  }
  llvm::orc::SymbolLookupSet lookupSet;
  for (const std::string& symbol : object.defined) lookupSet.add(lljit.mangleAndIntern(symbol));
  clearSessionErrors();
  auto addresses = lljit.getExecutionSession().lookup(
      llvm::orc::makeJITDylibSearchOrder(state.dylib, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
      std::move(lookupSet));
  if (!addresses) return linkFailure(state, addresses.takeError());
  return std::move(*addresses);
}

// The expanded entries are built and compiled when first looked up; their
// names are claimed now, so a duplicate is reported here.
Error claimDeferredEntries(ModuleState& state, DeferredEntries* deferred) {
  state.deferred = deferred ? deferred->names : std::vector<std::string>{};
  if (state.deferred.empty()) return Error::success();
  if (auto err = defineDeferredEntries(*state.core->lljit, state.dylib->getDefaultResourceTracker(), state.name,
                                       *deferred))
    return fromOrc(std::move(err), "cannot add the expanded entries of module '" + state.name + "'");
  return Error::success();
}

void recordAddresses(ModuleState& state, const std::vector<std::string>& defined,
                     const llvm::orc::SymbolMap& addresses) {
  for (const std::string& symbol : defined) {
    auto it = addresses.find(state.core->lljit->mangleAndIntern(symbol));
    if (it != addresses.end()) state.symbols[symbol] = it->second.getAddress().toPtr<void*>();
  }
}

struct ObjectFacts {
  std::size_t codeBytes = 0;  ///< the sizes of the executable sections
  /// Whether loading it makes memory the code may write (data, bss, TLS,
  /// constructor arrays, common symbols): such code cannot be shared by two
  /// modules, each of which must see its own globals. True when unsure.
  bool writable = true;
};

ObjectFacts readOneObjectsFacts(std::string_view object) {
  ObjectFacts facts;
  auto file = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(
      llvm::StringRef(object.data(), object.size()), "object"));
  if (!file) {
    // The linker has read it already; an object this cannot read has no code worth counting.
    llvm::consumeError(file.takeError());
    return facts;
  }
  for (const llvm::object::SectionRef& section : (*file)->sections())
    if (section.isText()) facts.codeBytes += section.getSize();
  if (!llvm::isa<llvm::object::ELFObjectFileBase>(**file)) return facts;
  facts.writable = false;
  for (const llvm::object::ELFSectionRef section : (*file)->sections()) {
    const std::uint64_t flags = section.getFlags();
    if ((flags & llvm::ELF::SHF_ALLOC) && (flags & llvm::ELF::SHF_WRITE) && section.getSize() > 0)
      facts.writable = true;
  }
  for (const llvm::object::SymbolRef& symbol : (*file)->symbols()) {
    auto flags = symbol.getFlags();
    if (!flags || (*flags & llvm::object::SymbolRef::SF_Common)) facts.writable = true;
    if (!flags) llvm::consumeError(flags.takeError());
  }
  return facts;
}

// The facts of an object or of an archive of them (the sums, and writable when one is).
ObjectFacts readObjectFacts(std::string_view bytes, std::size_t& parts) {
  auto objects = objectsIn(bytes);
  if (!objects) return {};  // the linker has read it already
  parts = objects->size();
  ObjectFacts facts;
  facts.writable = false;
  for (std::string_view object : *objects) {
    const ObjectFacts one = readOneObjectsFacts(object);
    facts.codeBytes += one.codeBytes;
    facts.writable = facts.writable || one.writable;
  }
  return facts;
}

// Offers the module's code to later adds of the same key (shareLinkedTwin).
void offerForSharing(JitCore& core, const std::shared_ptr<ModuleState>& state) {
  // Caller holds core.mutex. Sweeping when the map outgrows the loaded
  // modules keeps it small without a hook in ~ModuleState.
  if (core.linkedByKey.size() > 2 * core.modules.size() + 16)
    std::erase_if(core.linkedByKey, [](const auto& entry) { return entry.second.expired(); });
  core.linkedByKey[state->cacheKey] = state;
}

}  // namespace

Expected<ObjectInterface> objectInterface(JitCore& core, std::string_view bytes, const std::string& name) {
  MEMJIT_ASSIGN_OR_RETURN(std::vector<std::string_view> objects, objectsIn(bytes));
  ObjectInterface out;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    auto interface = llvm::orc::getObjectFileInterface(
        core.lljit->getExecutionSession(),
        llvm::MemoryBufferRef(llvm::StringRef(objects[i].data(), objects[i].size()), name));
    if (!interface)
      return fromLLVM(interface.takeError(), ErrorCode::ParseError,
                      "'" + name + "'" + (objects.size() > 1 ? " (member " + std::to_string(i + 1) + ")" : "") +
                          " is not an object file memjit can load");
    for (const auto& [symbol, flags] : interface->SymbolFlags)
      if (symbol != interface->InitSymbol && !flags.hasMaterializationSideEffectsOnly() &&
          (i == 0 || flags.isExported()))
        out.defined.push_back((*symbol).str());
    if (objects.size() == 1) out.interface = std::move(*interface);
  }
  std::sort(out.defined.begin(), out.defined.end());
  out.defined.erase(std::unique(out.defined.begin(), out.defined.end()), out.defined.end());
  return out;
}

Expected<ModuleLinks> resolveLinks(JitCore& core, const std::string& name, const AddOptions& options) {
  ModuleLinks links;
  std::lock_guard<std::mutex> lock(core.mutex);
  for (const LoadedModule& link : options.linkAgainst) {
    if (!link.valid())
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
      auto dylib = loadSharedLibrary(*core.lljit, path);
      if (!dylib) return dylib.error().withContext("module '" + name + "'");
      it = core.libraries.emplace(path, *dylib).first;
    }
    links.tables.push_back({it->second, kExported});
  }
  if (options.runnerUtilities) {
    if (!core.runnerUtilities) {
      auto dylib = defineRunnerUtilitySymbols(*core.lljit);
      if (!dylib) return dylib.error().withContext("module '" + name + "'");
      core.runnerUtilities = *dylib;
    }
    links.tables.push_back({core.runnerUtilities, kExported});
  }
  return links;
}

Expected<LoadedModule> linkObject(const std::shared_ptr<JitCore>& core, ObjectToLink object, ModuleLinks links) {
  std::shared_ptr<ModuleState> state = newModuleState(core, object, links);
  {
    PhaseTimer timer(object.stats.link);
    MEMJIT_TRY(createModuleDylib(*state, links.tables));
    MEMJIT_ASSIGN_OR_RETURN(llvm::orc::SymbolMap addresses, addAndResolve(*state, object));
    MEMJIT_TRY(claimDeferredEntries(*state, object.deferred));
    recordAddresses(*state, object.defined, addresses);
    if (object.beforePublish) MEMJIT_TRY(object.beforePublish(state));
  }
  const ObjectFacts facts = readObjectFacts(object.bytes, object.stats.parts);
  object.stats.objectBytes = object.bytes.size();
  object.stats.codeBytes = facts.codeBytes;
  object.stats.cacheHit = object.fromCache;
  object.stats.total =
      std::chrono::duration_cast<CompileStats::Duration>(std::chrono::steady_clock::now() - object.started);
  state->stats = object.stats;
  {
    std::lock_guard<std::mutex> lock(core->mutex);
    core->addLocked(state);
    if (object.shareable && !facts.writable && !state->cacheKey.empty()) offerForSharing(*core, state);
  }
  return LoadedModule(std::move(state));
}

std::optional<LoadedModule> shareLinkedTwin(const std::shared_ptr<JitCore>& core, ObjectToLink& object,
                                            ModuleLinks& links) {
  if (object.cacheKey.empty() || !links.modules.empty() || !links.tables.empty()) return std::nullopt;
  std::shared_ptr<ModuleState> owner;
  {
    std::lock_guard<std::mutex> lock(core->mutex);
    auto it = core->linkedByKey.find(object.cacheKey);
    if (it == core->linkedByKey.end()) return std::nullopt;
    owner = it->second.lock();
    if (!owner) {
      core->linkedByKey.erase(it);
      return std::nullopt;
    }
  }
  object.fromCache = true;
  std::shared_ptr<ModuleState> state = newModuleState(core, object, links);
  state->dylib = owner->dylib;
  state->symbols = owner->symbols;
  state->deferred = owner->deferred;
  state->object = owner->object;  // the code's object, which LoadedModule::assembly disassembles
  state->codeOwner = std::move(owner);  // whose resolved functions LoadedModule::function reuses
  object.stats.objectBytes = state->codeOwner->stats.objectBytes;
  object.stats.codeBytes = state->codeOwner->stats.codeBytes;
  object.stats.parts = state->codeOwner->stats.parts;
  object.stats.cacheHit = true;
  object.stats.total =
      std::chrono::duration_cast<CompileStats::Duration>(std::chrono::steady_clock::now() - object.started);
  state->stats = object.stats;
  {
    std::lock_guard<std::mutex> lock(core->mutex);
    core->addLocked(state);
  }
  return LoadedModule(std::move(state));
}

}  // namespace memjit::jit::detail
