// Jit::add for codegen modules, LLVM modules, IR text and objects: compile (or
// fetch from the object cache), then link (link_module.cpp).
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string_view>

#include <llvm/ExecutionEngine/Orc/ObjectFileInterface.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

#include "compile.h"
#include "crash_recovery.h"
#include "deferred_entries.h"
#include "engine.h"
#include "global_structors.h"
#include "link_module.h"
#include "llvm_error.h"
#include "phase_timer.h"
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

std::string objectCacheKey(const JitCore& core, const llvm::Module& module, const AddOptions& options,
                           Levels levels) {
  const TargetSpec& host = TargetSpec::host();
  std::string pipeline = core.options.vectorMath ? "vector-math" : "no-vector-math";
  if (!options.runIRPasses) pipeline += "/no-ir-passes";
  if (levels.codegen != levels.ir) pipeline += std::string("/codegen-") + optLevelName(levels.codegen);
  return cacheKey({detail::writeBitcode(module), host.triple, host.cpu, host.features, static_cast<int>(levels.ir),
                   MEMJIT_VERSION, pipeline});
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

// Runs the IR passes (unless AddOptions::runIRPasses is off) and generates
// the object with a leased machine; under JitOptions::recoverFromLlvmCrashes
// a crash in LLVM becomes an Error.
Expected<std::string> compileObject(JitCore& core, ModuleIR& ir, const AddOptions& options, Levels levels,
                                    const std::string& dumps, CompileStats& stats, std::vector<Remark>& remarks) {
  MEMJIT_ASSIGN_OR_RETURN(auto lease, core.machines.acquire(levels.codegen));
  llvm::Module& module = *ir.module;
  std::string code;
  auto compile = [&]() -> Error {
    {
      detail::PhaseTimer timer(stats.prepare);
      detail::prepareModule(module, *lease);
    }
    if (!dumps.empty()) writeDump(dumps + ".before.ll", detail::printIR(module));
    if (options.runIRPasses) {
      detail::PhaseTimer timer(stats.optimize);
      detail::optimize(module, *lease,
                       {levels.ir, core.options.skipVectorEpilogue, core.options.vectorMath,
                        options.remarks ? &remarks : nullptr});
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

// The object from JitOptions::cache when it holds one for this module,
// options and host; else compiled (and put in the cache).
Expected<ModuleObject> compileOrFetch(JitCore& core, ModuleIR& ir, const AddOptions& options,
                                      CompileStats& stats) {
  const Levels levels = levelsFor(core, options);
  ModuleObject object;
  if (core.options.cache) {
    detail::PhaseTimer timer(stats.cacheLookup);
    object.cacheKey = objectCacheKey(core, *ir.module, options, levels);
    // Remarks come from optimising, which a cached object skips.
    std::optional<std::shared_ptr<const std::string>> hit;
    if (!options.remarks) hit = core.options.cache->get(object.cacheKey);
    if (hit) {
      object.bytes = *hit;
      object.fromCache = true;
    }
  }
  const std::string dumps = dumpStem(core, *ir.module, object.cacheKey);
  if (!object.bytes) {
    MEMJIT_ASSIGN_OR_RETURN(std::string code, compileObject(core, ir, options, levels, dumps, stats, object.remarks));
    if (core.options.cache) core.options.cache->put(object.cacheKey, code);
    object.bytes = std::make_shared<const std::string>(std::move(code));
  }
  if (!dumps.empty()) writeDump(dumps + ".o", *object.bytes);
  return object;
}

}  // namespace

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
  return addModule(std::move(context), std::move(module), options, nullptr);
}

Expected<LoadedModule> Jit::add(codegen::Module module, AddOptions options) {
  if (!core_) return detail::movedFromJit("add");
  detail::DeferredEntries deferred;
  if (this->options().compileExpandedOnFirstUse) {
    MEMJIT_ASSIGN_OR_RETURN(deferred, detail::deferExpandedEntries(module));
  }
  auto [context, llvmModule] = std::move(module).release();
  return addModule(std::move(context), std::move(llvmModule), options, &deferred);
}

Expected<LoadedModule> Jit::addModule(std::unique_ptr<llvm::LLVMContext> context,
                                      std::unique_ptr<llvm::Module> module, AddOptions options,
                                      detail::DeferredEntries* deferred) {
  ModuleIR ir{std::move(context), std::move(module)};
  if (!ir.context || !ir.module) return Error(ErrorCode::InvalidArgument, "null LLVM module or context");
  detail::ObjectToLink object;
  object.started = std::chrono::steady_clock::now();
  object.name = ir.module->getModuleIdentifier();
  object.deferred = deferred;
  MEMJIT_ASSIGN_OR_RETURN(detail::ModuleLinks links, detail::resolveLinks(*core_, object.name, options));
  {
    detail::PhaseTimer timer(object.stats.verify);
    MEMJIT_TRY(detail::verify(*ir.module));
  }
  {
    detail::PhaseTimer timer(object.stats.prepare);
    detail::lowerGlobalStructors(*ir.module);
    object.defined = definedNames(*ir.module);
  }
  MEMJIT_ASSIGN_OR_RETURN(ModuleObject compiled, compileOrFetch(*core_, ir, options, object.stats));
  ir.reset();
  object.bytes = *compiled.bytes;
  object.owner = compiled.bytes;
  object.remarks = std::move(compiled.remarks);
  object.cacheKey = std::move(compiled.cacheKey);
  object.fromCache = compiled.fromCache;
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
  auto buffer = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(objectBytes.data(), objectBytes.size()),
                                                 object.name, /*RequiresNullTerminator=*/false);
  // ORC's own reading of the object: what it defines, as the linker will see it.
  auto interface =
      llvm::orc::getObjectFileInterface(core_->lljit->getExecutionSession(), buffer->getMemBufferRef());
  if (!interface)
    return detail::fromLLVM(interface.takeError(), ErrorCode::ParseError,
                            "'" + object.name + "' is not an object file memjit can load");
  for (const auto& [symbol, flags] : interface->SymbolFlags)
    // The init symbol ORC makes up for an object with .init_array is no definition.
    if (symbol != interface->InitSymbol && !flags.hasMaterializationSideEffectsOnly())
      object.defined.push_back((*symbol).str());
  std::sort(object.defined.begin(), object.defined.end());
  return detail::linkObject(core_, std::move(object), std::move(links));
}

}  // namespace memjit::jit
