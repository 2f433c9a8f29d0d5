// The Jit's shared state (jit/engine.cpp) and each loaded module's state
// (jit/loaded_module.cpp). Internal to jit/.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>

#include "function_record.h"
#include "machine_pool.h"
#include "memjit/jit/compile_stats.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/remarks.h"

namespace memjit::jit::detail {

struct ModuleState;
class TierUpWorker;
class TieredModule;

struct JitCore {
  explicit JitCore(JitOptions o) : options(std::move(o)), machines(MachinePool::host()) {}
  ~JitCore();
  /// Makes LLJIT, its compiler and linker plugins, and the symbol tables
  /// every module links against (what Jit::create does).
  static Expected<std::shared_ptr<JitCore>> create(JitOptions options);

  /// The loaded modules defining any of `symbols`, in the order they were
  /// added. Call with `mutex` held.
  std::vector<std::shared_ptr<ModuleState>> definersLocked(std::initializer_list<std::string> symbols) const;
  /// Makes a linked module's symbols findable (call with `mutex` held).
  void addLocked(std::shared_ptr<ModuleState> state);
  /// Forgets a module and its symbols; false when it is not loaded here
  /// (call with `mutex` held).
  bool removeLocked(ModuleState* state);

  JitOptions options;
  MachinePool& machines;  // LLJIT's compiler borrows from it
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  llvm::orc::JITDylib* userDylib = nullptr;
  /// What every module links against after its AddOptions::linkAgainst:
  /// registered symbols, memjit's runtime and libmvec, then LLJIT's defaults
  /// (its platform's and the process's symbols). Fixed once created.
  llvm::orc::JITDylibSearchOrder sharedLinks;
  /// AddOptions::sharedLibraries loaded so far, by path (under `mutex`).
  std::map<std::string, llvm::orc::JITDylib*> libraries;
  /// AddOptions::runnerUtilities' table, made on first use (under `mutex`).
  llvm::orc::JITDylib* runnerUtilities = nullptr;

  mutable std::mutex mutex;
  std::unordered_map<ModuleState*, std::shared_ptr<ModuleState>> modules;
  /// symbol -> the loaded modules defining it, in the order they were added
  std::unordered_map<std::string, std::vector<ModuleState*>> owners;
  std::vector<RegisteredSymbol> registered;
  std::uint64_t modulesAdded = 0;  // numbers the modules' JITDylibs and orders `owners`
  /// Cache key -> the module linked from it whose code later adds of the same
  /// key share (only modules without writable data or links of their own);
  /// expired entries are swept as the map grows (under `mutex`).
  std::unordered_map<std::string, std::weak_ptr<ModuleState>> linkedByKey;
  /// Compiles tier-ups (tiering.h); made on first use (under `mutex`). Last:
  /// stopped before anything else of the core goes.
  std::shared_ptr<TierUpWorker> tierUp;
};

struct ModuleState {
  ~ModuleState();

  std::shared_ptr<JitCore> core;  // first: destroyed last, after the JITDylib is removed
  /// Modules this one links against, kept loaded while it is.
  std::vector<std::shared_ptr<ModuleState>> links;
  /// The module's own symbol namespace; removed (code and data freed) with the
  /// state, unless the code is `codeOwner`'s.
  llvm::orc::JITDylib* dylib = nullptr;
  /// For a module sharing the code of an identical one linked before
  /// (link_module.h, shareLinkedTwin): that module, kept alive (its JITDylib
  /// with it) while this one is, and whose `functions` serve this one too;
  /// null when the module owns its code.
  std::shared_ptr<ModuleState> codeOwner;
  std::uint64_t serial = 0;  // order of adding, for messages that list modules
  std::string name;
  std::string cacheKey;
  bool fromCache = false;
  CompileStats stats;  // of the add that made the module
  /// The object as linked, for LoadedModule::assembly.
  std::shared_ptr<const std::string> object;
  std::vector<Remark> remarks;  // AddOptions::remarks
  std::map<std::string, void*> symbols;
  /// Expanded entries compiled on first lookup (not in `symbols` until then).
  std::vector<std::string> deferred;
  bool defers(std::string_view symbol) const;
  /// Looks a deferred entry up in ORC, compiling it the first time.
  Expected<void*> lookupDeferred(const std::string& symbol) const;

  mutable std::mutex mutex;
  mutable std::unordered_map<std::string, std::shared_ptr<FunctionRecord>> functions;
  /// Set when the module was compiled in tiers (tiering.h); last, so its
  /// optimised code and stubs go after the first tier's namespace.
  std::shared_ptr<TieredModule> tiered;
};

/// What a Jit method called on a moved-from Jit returns: InvalidArgument
/// naming the method.
Error movedFromJit(std::string_view method);

/// "modules 'a', 'b', 'c'" (at most five named), for messages.
std::string moduleList(const std::vector<std::shared_ptr<ModuleState>>& modules);

}  // namespace memjit::jit::detail
