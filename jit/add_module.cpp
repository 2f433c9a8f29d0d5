// Jit::add for codegen modules, LLVM modules, IR text and objects: compile (or
// fetch from the object cache), then link (link_module.cpp).
#include <algorithm>
#include <cstdint>
#include <chrono>
#include <fstream>
#include <mutex>
#include <optional>
#include <string_view>
#include <tuple>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ObjectFileInterface.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

#include "compile.h"
#include "crash_recovery.h"
#include "deferred_entries.h"
#include "engine.h"
#include "first_tier_bodies.h"
#include "global_structors.h"
#include "large_functions.h"
#include "link_module.h"
#include "module_hash.h"
#include "module_parts.h"
#include "object_archive.h"
#include "llvm_error.h"
#include "phase_timer.h"
#include "tiering.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"

#ifndef MEMJIT_VERSION
#define MEMJIT_VERSION "0.0.0"
#endif

namespace memjit::jit {
namespace {

using detail::JitCore;

// A module and its context, as members so that the module always dies before
// its context (the order parameters are destroyed in is up to the compiler).
struct ModuleIR {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;

  void reset() noexcept {
    module.reset();
    context.reset();
  }
  // After LLVM crashed on them their state is unknown: leaked rather than
  // destroyed (see crash_recovery.h).
  void leak() noexcept {
    (void)module.release();
    (void)context.release();
  }
};

// The levels one addition optimises and generates code at.
struct Levels {
  OptLevel ir;
  OptLevel codegen;
};

Levels levelsFor(const JitCore& core, const AddOptions& options) {
  const OptLevel ir = options.optLevel.value_or(core.options.optLevel);
  return {ir, options.codegenLevel.value_or(ir)};
}

// Names the module defines, known before compiling (needed on cache hits too).
std::vector<std::string> definedNames(const llvm::Module& module) {
  std::vector<std::string> defined;
  for (const llvm::GlobalValue& value : module.global_values())
    if (!value.isDeclaration() && !value.hasLocalLinkage() && value.hasName())
      defined.push_back(value.getName().str());
  return defined;
}

// The key of the module as handed over (before memjit's own deterministic
// rewrites: deferring expanded entries, lowering constructors), so that a hit
// in the same Jit can skip them; every option that changes the object is in it.
// `contents` is the module's structural digest or, where that does not cover
// it, its bitcode.
std::string objectCacheKey(const JitCore& core, std::string_view contents, const AddOptions& options,
                           Levels levels, bool defersExpanded) {
  const TargetSpec& host = TargetSpec::host();
  std::string pipeline = core.options.skipVectorEpilogue ? "" : "/vector-epilogue";
  if (defersExpanded) pipeline += "/expanded-on-first-use";
  if (!options.runIRPasses) pipeline += "/no-ir-passes";
  if (levels.codegen != levels.ir) pipeline += std::string("/codegen-") + optLevelName(levels.codegen);
  if (const LargeFunctionOptions& large = core.options.largeFunctions; large != LargeFunctionOptions{})
    pipeline += "/large-functions-" + std::to_string(large.outlineLoopsAbove) + "-" +
                std::to_string(large.compileInPartsAbove) + "-" + std::to_string(large.instructionsPerPart);
  return cacheKey({.moduleBitcode = contents,
                   .triple = host.triple,
                   .cpu = host.cpu,
                   .features = host.features,
                   .optLevel = static_cast<int>(levels.ir),
                   .memjitVersion = MEMJIT_VERSION,
                   .pipeline = pipeline,
                   .llvmVersion = LLVM_VERSION_STRING,
                   .vectorMath = core.options.vectorMath,
                   .codeModel = detail::kCodeModelName,
                   .relocationModel = detail::kRelocationModelName});
}

// The key of `handed` from its structural digest; nullopt where the digest
// does not cover the module (its bitcode is the key's contents then).
std::optional<std::string> structuralKey(const JitCore& core, const llvm::Module& handed, const AddOptions& options,
                                         bool defersExpanded) {
  auto digest = detail::structuralDigest(handed);
  if (!digest) return std::nullopt;
  const std::string contents = "memjit-structural:" + std::string(digest->begin(), digest->end());
  return objectCacheKey(core, contents, options, levelsFor(core, options), defersExpanded);
}

// "<JitOptions::dumpDirectory>/<module>.<tag>", or "" when not dumping.
std::string dumpStem(const JitCore& core, const llvm::Module& module, const std::string& key) {
  const std::string& dumps = core.options.dumpDirectory;
  if (dumps.empty()) return "";
  std::string tag = key.empty() ? std::to_string(reinterpret_cast<std::uintptr_t>(&module)) : key.substr(0, 16);
  return dumps + "/" + module.getModuleIdentifier() + "." + tag;
}

// Dumps are for looking at; failing to write one is no reason to fail the add.
void writeDump(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

// Whether a module added with `options` may compile its outlined loops in
// parts on several threads (module_parts.h): at O1 and above, through the IR
// passes, without remarks (collected on one context) or crash recovery (a
// crash on another thread cannot become an Error).
bool mayCompileInParts(const JitCore& core, const AddOptions& options, Levels levels) {
  return options.runIRPasses && levels.ir >= OptLevel::O1 && !options.remarks && !core.options.recoverFromLlvmCrashes;
}

// Compiles `rest` (the module the parts were split from) on this thread with
// `lease` and each part with a machine of its own; returns the objects as one
// archive (object_archive.h). The optimise and codegen phases are the sums
// over the parts.
Expected<std::string> compileWithParts(JitCore& core, llvm::Module& rest, detail::MachinePool::Lease& lease,
                                       detail::ModuleSplit& parts, const detail::PipelineOptions& pipeline,
                                       Levels levels, const std::string& dumps, CompileStats& stats) {
  detail::applyProcessWideOptions(pipeline);
  std::mutex mutex;
  auto account = [&](const CompileStats& own) {
    std::lock_guard<std::mutex> lock(mutex);
    stats.optimize += own.optimize;
    stats.codegen += own.codegen;
  };
  auto compile = [&](llvm::Module& module, detail::MachinePool::Lease& machine,
                     const std::string& dump) -> Expected<std::string> {
    CompileStats own;
    {
      detail::PhaseTimer timer(own.optimize);
      detail::optimize(module, *machine, pipeline);
    }
    if (!dump.empty()) writeDump(dump + ".after.ll", detail::printIR(module));
    auto object = [&] {
      detail::PhaseTimer timer(own.codegen);
      return machine.emitObject(module);
    }();
    account(own);
    return object;
  };
  MEMJIT_ASSIGN_OR_RETURN(
      std::vector<std::string> objects,
      detail::compileInParts(
          parts, core.options.compileThreads, [&] { return compile(rest, lease, dumps); },
          [&](llvm::Module& part, std::size_t index) -> Expected<std::string> {
            MEMJIT_ASSIGN_OR_RETURN(auto own, core.machines.acquire(levels.codegen));
            part.setModuleIdentifier(rest.getModuleIdentifier() + ".part" + std::to_string(index + 1));
            return compile(part, own, dumps.empty() ? dumps : dumps + ".part" + std::to_string(index + 1));
          }));
  return detail::archiveObjects(objects);
}

// Runs the IR passes (unless AddOptions::runIRPasses is off) and generates
// the object with a leased machine; under JitOptions::recoverFromLlvmCrashes
// a crash in LLVM becomes an Error. A large module may compile in parts
// (module_parts.h), into an archive of objects.
Expected<std::string> compileObject(JitCore& core, ModuleIR& ir, const AddOptions& options, Levels levels,
                                    const std::string& dumps, CompileStats& stats, std::vector<Remark>& remarks) {
  MEMJIT_ASSIGN_OR_RETURN(auto lease, core.machines.acquire(levels.codegen));
  llvm::Module& module = *ir.module;
  const LargeFunctionOptions& large = core.options.largeFunctions;
  detail::PipelineOptions pipeline{levels.ir, core.options.skipVectorEpilogue, core.options.vectorMath,
                                   options.remarks ? &remarks : nullptr};
  pipeline.outlineLoopsAbove = large.outlineLoopsAbove;
  std::string code;
  auto compile = [&]() -> Error {
    {
      detail::PhaseTimer timer(stats.prepare);
      detail::prepareModule(module, *lease);
    }
    if (!dumps.empty()) writeDump(dumps + ".before.ll", detail::printIR(module));
    if (mayCompileInParts(core, options, levels)) {
      std::optional<detail::ModuleSplit> parts;
      {
        detail::PhaseTimer timer(stats.optimize);
        detail::outlineLoopsOfLargeFunctions(module, large.outlineLoopsAbove);
        parts = detail::ModuleSplit::plan(module, large.compileInPartsAbove, large.instructionsPerPart);
      }
      pipeline.outlineLoops = false;
      if (parts) {
        MEMJIT_ASSIGN_OR_RETURN(code, compileWithParts(core, module, lease, *parts, pipeline, levels, dumps, stats));
        return Error::success();
      }
    }
    if (options.runIRPasses) {
      detail::PhaseTimer timer(stats.optimize);
      detail::optimize(module, *lease, pipeline);
    }
    if (!dumps.empty()) writeDump(dumps + ".after.ll", detail::printIR(module));
    detail::PhaseTimer timer(stats.codegen);
    MEMJIT_ASSIGN_OR_RETURN(code, lease.emitObject(module));
    return Error::success();
  };
  if (!core.options.recoverFromLlvmCrashes) {
    MEMJIT_TRY(compile());
    return code;
  }
  bool crashed = false;
  Error error = detail::runRecoveringFromCrashes(module.getModuleIdentifier(), compile, crashed);
  if (crashed) {
    // Whatever LLVM was working on is in an unknown state (see crash_recovery.h).
    lease.discard();
    ir.leak();
  }
  MEMJIT_TRY(std::move(error));
  return code;
}

struct ModuleObject {
  std::shared_ptr<const std::string> bytes;
  std::string cacheKey;  // empty without a cache
  bool fromCache = false;
  std::vector<Remark> remarks;  // AddOptions::remarks
};

// What JitOptions::cache held under a module's key, once asked.
struct CacheLookup {
  bool asked = false;
  std::shared_ptr<const std::string> hit;  ///< null on a miss
};

// Asks the cache for `key` (nothing without a cache, or when remarks are
// asked for: they come from optimising, which a cached object skips).
CacheLookup lookUp(JitCore& core, const AddOptions& options, const std::string& key, CompileStats& stats) {
  CacheLookup lookup;
  if (!core.options.cache || options.remarks) return lookup;
  detail::PhaseTimer timer(stats.cacheLookup);
  lookup.asked = true;
  if (auto hit = core.options.cache->get(key)) lookup.hit = std::move(*hit);
  return lookup;
}

// The object from `lookup` (the cache's answer for `key`, which addModule
// asked once) when it is a hit; else compiled (and put in the cache). With `tiered`, a miss compiles the first tier
// instead (tiering.h), which stays out of the cache: a hit skips tiering.
Expected<ModuleObject> compileOrFetch(JitCore& core, ModuleIR& ir, const AddOptions& options, std::string key,
                                      CompileStats& stats, CacheLookup lookup,
                                      std::shared_ptr<detail::TieredModule>* tiered = nullptr,
                                      std::vector<detail::LaterInlining> inlineOnTierUp = {}) {
  Levels levels = levelsFor(core, options);
  ModuleObject object;
  object.cacheKey = std::move(key);
  if (lookup.hit) {
    object.bytes = std::move(lookup.hit);
    object.fromCache = true;
  }
  const std::string dumps = dumpStem(core, *ir.module, object.cacheKey);
  AddOptions firstTier;
  if (!object.bytes && tiered) {
    MEMJIT_ASSIGN_OR_RETURN(*tiered, detail::prepareFirstTier(core, ir.module, options, object.cacheKey,
                                                                    std::move(inlineOnTierUp)));
    levels = {detail::firstTierLevel(core), detail::firstTierLevel(core)};
    firstTier.runIRPasses = levels.ir != OptLevel::O0;
  }
  if (!object.bytes) {
    const bool firstTierOnly = tiered && *tiered;
    auto code = compileObject(core, ir, firstTierOnly ? firstTier : options, levels, dumps, stats, object.remarks);
    if (firstTierOnly && !ir.context) (*tiered)->leakModule();  // LLVM crashed on the context: both leaked
    if (!code) return code.error();
    if (firstTierOnly) {
      // The first tier's module goes now, on this thread; the copy and the
      // context are the tier-up's alone from here.
      ir.module.reset();
      (*tiered)->adoptContext(std::move(ir.context));
    } else if (core.options.cache) {
      core.options.cache->put(object.cacheKey, *code);
    }
    object.bytes = std::make_shared<const std::string>(std::move(*code));
  }
  if (!dumps.empty()) writeDump(dumps + (detail::isArchive(*object.bytes) ? ".a" : ".o"), *object.bytes);
  return object;
}

}  // namespace

// What addAll learnt of one module before adding it: its structural key and
// the cache's answer for it.
struct detail::PrefetchedObject {
  std::string key;
  std::shared_ptr<const std::string> hit;  ///< null on a miss
  CompileStats::Duration lookupTime{0};    ///< its share of the batch's digests and lookup
};

Expected<std::shared_ptr<const std::string>> detail::compileFinalTier(JitCore& core, TieredModule& tiered,
                                                                      const std::string& moduleName,
                                                                      CompileStats& stats) {
  // The copy is compiled once, or not at all on a hit: freed either way when this returns.
  ModuleIR ir{std::move(tiered.context), std::move(tiered.module)};
  if (core.options.cache && !tiered.cacheKey.empty())
    if (auto hit = core.options.cache->get(tiered.cacheKey)) return *hit;
  if (!ir.module || !ir.context)
    return Error(ErrorCode::Internal, "the tier-up of module '" + moduleName + "' has no module to compile");
  ir.module->setModuleIdentifier(moduleName);
  if (tiered.verifyOnTierUp) MEMJIT_TRY(verify(*ir.module));
  inlineDeferredEntries(*ir.module, tiered.inlineOnTierUp);
  // Apart from the first tier's dumps, which have the same key (and, for a
  // module with first-tier bodies, the same module's address).
  std::string dumps = dumpStem(core, *ir.module, tiered.cacheKey);
  if (!dumps.empty()) dumps += ".tier-up";
  std::vector<Remark> remarks;  // none: a tiered module was added without AddOptions::remarks
  MEMJIT_ASSIGN_OR_RETURN(std::string code, compileObject(core, ir, tiered.options, levelsFor(core, tiered.options),
                                                          dumps, stats, remarks));
  if (core.options.cache && !tiered.cacheKey.empty()) core.options.cache->put(tiered.cacheKey, code);
  return std::make_shared<const std::string>(std::move(code));
}

Expected<LoadedModule> Jit::addIR(std::string_view irText, std::string_view moduleName, AddOptions options) {
  if (!core_) return detail::movedFromJit("addIR");
  auto context = std::make_unique<llvm::LLVMContext>();
  auto buffer = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(irText.data(), irText.size()),
                                                 llvm::StringRef(moduleName.data(), moduleName.size()), false);
  MEMJIT_ASSIGN_OR_RETURN(
      auto module,
      detail::parseIR(buffer->getMemBufferRef(), *context, "invalid LLVM IR in '" + std::string(moduleName) + "'"));
  return add(std::move(context), std::move(module), options);
}

Expected<LoadedModule> Jit::add(std::unique_ptr<llvm::LLVMContext> context,
                                std::unique_ptr<llvm::Module> module, AddOptions options) {
  if (!core_) {
    module.reset();  // before its context, whichever parameter is destroyed first
    return detail::movedFromJit("add");
  }
  if (!context || !module) return Error(ErrorCode::InvalidArgument, "null LLVM module or context");
  return addModule(std::move(context), std::move(module), options, nullptr);
}

Expected<LoadedModule> Jit::add(codegen::Module module, AddOptions options) {
  if (!core_) return detail::movedFromJit("add");
  return addModule(nullptr, nullptr, options, &module);
}

Expected<std::vector<LoadedModule>> Jit::addAll(std::vector<codegen::Module> modules, AddOptions options) {
  if (!core_) return detail::movedFromJit("addAll");
  std::vector<detail::PrefetchedObject> prefetched(modules.size());
  std::vector<bool> keyed(modules.size(), false);
  // Remarks come from optimising, which a hit skips: add() does not read the cache for them either.
  if (core_->options.cache && !options.remarks && !modules.empty()) {
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::string> keys;
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < modules.size(); ++i)
      if (auto key = structuralKey(*core_, modules[i].llvm(), options, core_->options.compileExpandedOnFirstUse)) {
        keys.push_back(std::move(*key));
        indices.push_back(i);
      }
    std::vector<std::shared_ptr<const std::string>> hits = core_->options.cache->getMany(keys);
    const auto share = (std::chrono::steady_clock::now() - started) / std::max<std::size_t>(1, indices.size());
    for (std::size_t j = 0; j < indices.size(); ++j) {
      prefetched[indices[j]] = {std::move(keys[j]), std::move(hits[j]),
                                std::chrono::duration_cast<CompileStats::Duration>(share)};
      keyed[indices[j]] = true;
    }
  }
  std::vector<LoadedModule> added;
  added.reserve(modules.size());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const std::string name = modules[i].name();
    auto loaded = addModule(nullptr, nullptr, options, &modules[i], keyed[i] ? &prefetched[i] : nullptr);
    if (!loaded.ok()) {
      for (LoadedModule& module : added) (void)remove(module);
      return loaded.error().withContext("Jit::addAll: module '" + name + "' (" + std::to_string(i + 1) + " of " +
                                        std::to_string(modules.size()) + ")");
    }
    added.push_back(std::move(*loaded));
  }
  return added;
}

Expected<LoadedModule> Jit::addModule(std::unique_ptr<llvm::LLVMContext> context,
                                      std::unique_ptr<llvm::Module> module, AddOptions options,
                                      codegen::Module* builder, detail::PrefetchedObject* prefetched) {
  ModuleIR ir{std::move(context), std::move(module)};
  const llvm::Module& handed = builder ? builder->llvm() : *ir.module;
  const bool defersExpanded = builder && core_->options.compileExpandedOnFirstUse;
  detail::ObjectToLink object;
  object.started = std::chrono::steady_clock::now();
  object.name = handed.getModuleIdentifier();
  MEMJIT_ASSIGN_OR_RETURN(detail::ModuleLinks links, detail::resolveLinks(*core_, object.name, options));
  const Levels levels = levelsFor(*core_, options);
  bool digested = false;
  // The cache is asked once per add, here (a hit skips verifying), or below
  // once the bitcode key is known; compileOrFetch only takes the answer.
  CacheLookup lookup;
  if (prefetched) {
    object.cacheKey = std::move(prefetched->key);
    object.stats.cacheLookup = prefetched->lookupTime;
    lookup = {.asked = true, .hit = std::move(prefetched->hit)};
    digested = true;
  } else if (core_->options.cache) {
    detail::PhaseTimer timer(object.stats.cacheLookup);
    if (auto key = structuralKey(*core_, handed, options, defersExpanded)) {
      object.cacheKey = std::move(*key);
      digested = true;
    }
  }
  // The same module already linked in this Jit: share its code (no link).
  // It was verified when it was added, and this one is identical to it.
  // Not when remarks are asked for: they come from optimising this module.
  if (!options.remarks)
    if (auto twin = detail::shareLinkedTwin(core_, object, links)) return std::move(*twin);
  // A structural hit skips verification: the same module (its digest covers
  // everything the verifier reads) was verified before it was compiled.
  if (digested && !lookup.asked) lookup = lookUp(*core_, options, object.cacheKey, object.stats);
  // A builder module compiled in tiers whose first tier replaces bodies
  // (first_tier_bodies.h: sgemm's 13K-line kernel) verifies and inlines them
  // on the tier-up, not on the first call's path (where they cost 10M and 47M
  // instructions): its first tier is verified instead (prepareFirstTier).
  // Each builder function was verified by finish(). Not when the cache key is
  // the module's bitcode, whose writer needs verified IR.
  const bool bodiesOnTierUp = builder && !options.remarks && !lookup.hit && (digested || !core_->options.cache) &&
                              detail::tieringApplies(*core_, handed, options) && detail::hasFirstTierBodies(handed);
  if (!lookup.hit && !bodiesOnTierUp) {
    detail::PhaseTimer timer(object.stats.verify);
    MEMJIT_TRY(detail::verify(handed));
  }
  if (core_->options.cache && !digested) {
    // After verifying: LLVM's bitcode writer may crash on IR the verifier rejects.
    {
      detail::PhaseTimer timer(object.stats.cacheLookup);
      object.cacheKey = objectCacheKey(*core_, detail::writeBitcode(handed), options, levels, defersExpanded);
    }
    lookup = lookUp(*core_, options, object.cacheKey, object.stats);  // times itself
  }
  detail::DeferredEntries deferred;
  // A builder module compiled in tiers defers its expanded entries without
  // inlining them: the first tier moves each body into its C interface
  // (spliceDeferredEntries: no copy), the tier-up inlines them as a direct
  // add would (inlining copied the body and cost conv3x3's first tier 15%).
  // (Every module with bodies on the tier-up is one: its lookup, if any, came before.)
  const bool deferToTierUp =
      builder && !options.remarks && !lookup.hit && detail::tieringApplies(*core_, handed, options);
  std::vector<detail::LaterInlining> inlineOnTierUp;
  bool definedByObject = false;  // what a cached object defines, read from it
  if (builder) {
    if (defersExpanded) {
      // A hit's object tells which entries were deferred when it was
      // compiled: the inlining that deferring does is not redone for it.
      std::optional<detail::DeferredEntries> told;
      if (lookup.hit) {
        MEMJIT_ASSIGN_OR_RETURN(detail::ObjectInterface read,
                                detail::objectInterface(*core_, *lookup.hit, object.name));
        told = detail::deferredEntriesOfObject(*builder, read.defined);
        if (told) {
          object.defined = std::move(read.defined);
          object.interface = std::move(read.interface);
          definedByObject = true;
        }
      }
      if (told) {
        deferred = std::move(*told);
      } else if (deferToTierUp) {
        MEMJIT_ASSIGN_OR_RETURN(deferred, detail::deferExpandedEntriesToTierUp(*builder, inlineOnTierUp));
      } else {
        MEMJIT_ASSIGN_OR_RETURN(deferred, detail::deferExpandedEntries(*builder));
      }
      object.deferred = &deferred;
    }
    std::tie(ir.context, ir.module) = std::move(*builder).release();
  }
  {
    detail::PhaseTimer timer(object.stats.prepare);
    detail::lowerGlobalStructors(*ir.module);
    if (!definedByObject) object.defined = definedNames(*ir.module);
  }
  std::shared_ptr<detail::TieredModule> tiered;
  // After lowering the structors: llvm.global_ctors is a writable global.
  const bool tiering = !options.remarks && detail::tieringApplies(*core_, *ir.module, options);
  if (bodiesOnTierUp && !tiering) {  // not seen: lowering the structors adds no writable global
    detail::PhaseTimer timer(object.stats.verify);
    MEMJIT_TRY(detail::verify(*ir.module));
  }
  MEMJIT_ASSIGN_OR_RETURN(ModuleObject compiled, compileOrFetch(*core_, ir, options, std::move(object.cacheKey),
                                                                object.stats, std::move(lookup),
                                                                tiering ? &tiered : nullptr, std::move(inlineOnTierUp)));
  if (tiered) {
    detail::renameDefined(*tiered, object.defined);
    object.beforePublish = [tiered](const std::shared_ptr<detail::ModuleState>& state) {
      return detail::publishFirstTier(state, tiered);
    };
  }
  ir.reset();
  object.bytes = *compiled.bytes;
  object.owner = compiled.bytes;
  object.remarks = std::move(compiled.remarks);
  object.cacheKey = std::move(compiled.cacheKey);
  object.fromCache = compiled.fromCache;
  // A first tier's code is about to be replaced: later adds link their own
  // (or share the optimised object's once a hit skips tiering).
  object.shareable = links.modules.empty() && links.tables.empty() && !tiered;
  return detail::linkObject(core_, std::move(object), std::move(links));
}

Expected<LoadedModule> Jit::addObject(std::string_view objectBytes, std::string_view moduleName,
                                      AddOptions options) {
  if (!core_) return detail::movedFromJit("addObject");
  detail::ObjectToLink object;
  object.started = std::chrono::steady_clock::now();
  object.name = std::string(moduleName);
  object.bytes = objectBytes;
  MEMJIT_ASSIGN_OR_RETURN(detail::ModuleLinks links, detail::resolveLinks(*core_, object.name, options));
  MEMJIT_ASSIGN_OR_RETURN(detail::ObjectInterface read, detail::objectInterface(*core_, objectBytes, object.name));
  object.defined = std::move(read.defined);
  object.interface = std::move(read.interface);
  return detail::linkObject(core_, std::move(object), std::move(links));
}

}  // namespace memjit::jit
