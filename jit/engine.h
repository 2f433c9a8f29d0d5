// The Jit's shared state and each loaded module's state (internal to jit/).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Target/TargetMachine.h>

#include "code_emitter.h"
#include "function_record.h"
#include "memjit/jit/jit.h"

namespace memjit::jit::detail {

/// TargetMachines for the host, made once and reused. A TargetMachine must not
/// generate code on two threads at once, so concurrent compilations each lease
/// one; the pool only grows to the number of threads compiling at once.
/// Every Jit shares the process's host pool: a new machine's first module pays
/// ~3.5 ms for building its X86 subtarget, which a Jit made per kernel (the
/// way MLIR makes an ExecutionEngine per module) would otherwise pay each time.
class MachinePool {
 public:
  /// A machine and the code generators built for it, one per level on first use.
  struct Pooled {
    std::unique_ptr<llvm::TargetMachine> machine;
    std::array<std::unique_ptr<CodeEmitter>, 4> emitters;  // indexed by OptLevel
  };

  struct Lease {
    MachinePool* pool = nullptr;
    std::unique_ptr<Pooled> pooled;
    OptLevel level = OptLevel::O2;
    Lease() = default;
    Lease(Lease&&) = default;
    ~Lease() {
      if (pool && pooled) pool->release(std::move(pooled));
    }
    llvm::TargetMachine& operator*() const { return *pooled->machine; }
    /// Generates an object for `module` at the lease's level with the
    /// machine's cached code generator (built on first use). After an error the
    /// generator is dropped, so the next module gets a fresh one.
    [[nodiscard]] Expected<std::string> emitObject(llvm::Module& module);
    /// Keeps the machine out of the pool for good: after LLVM crashed while
    /// using it its state is unknown, so it is leaked rather than reused or
    /// destroyed (its destructor could touch what the crash left broken).
    void discard() noexcept {
      if (pool && pooled) pool->retire(std::move(pooled));
      pool = nullptr;
    }
  };

  explicit MachinePool(TargetSpec spec) : spec_(std::move(spec)) {}
  ~MachinePool() {
    for (auto& pooled : retired_) (void)pooled.release();
  }
  MachinePool(const MachinePool&) = delete;
  MachinePool& operator=(const MachinePool&) = delete;
  /// The process-wide pool for TargetSpec::host(); never destroyed, so no
  /// TargetMachine outlives LLVM's own statics at exit.
  static MachinePool& host();
  Expected<Lease> acquire(OptLevel level);
  /// Number of machines made so far (tests check that it stays small).
  std::size_t created() const;

 private:
  void release(std::unique_ptr<Pooled> pooled);
  // Machines LLVM crashed on: kept (reachable, so no leak report) but never
  // handed out again, and never destroyed (see ~MachinePool).
  void retire(std::unique_ptr<Pooled> pooled) noexcept;
  TargetSpec spec_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Pooled>> idle_;
  std::vector<std::unique_ptr<Pooled>> retired_;
  std::size_t created_ = 0;
};

struct ModuleState;

struct JitCore {
  explicit JitCore(JitOptions o) : options(std::move(o)), machines(MachinePool::host()) {}
  ~JitCore();

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
};

struct ModuleState {
  ~ModuleState();

  std::shared_ptr<JitCore> core;  // first: destroyed last, after the JITDylib is removed
  /// Modules this one links against, kept loaded while it is.
  std::vector<std::shared_ptr<ModuleState>> links;
  /// The module's own symbol namespace; removed (code and data freed) with the state.
  llvm::orc::JITDylib* dylib = nullptr;
  std::uint64_t serial = 0;  // order of adding, for messages that list modules
  std::string name;
  std::string cacheKey;
  bool fromCache = false;
  std::map<std::string, void*> symbols;
  /// Expanded entries compiled on first lookup (not in `symbols` until then).
  std::vector<std::string> deferred;
  bool defers(std::string_view symbol) const;
  /// Looks a deferred entry up in ORC, compiling it the first time.
  Expected<void*> lookupDeferred(const std::string& symbol) const;

  mutable std::mutex mutex;
  mutable std::unordered_map<std::string, std::shared_ptr<FunctionRecord>> functions;
};

/// Reads the function's metadata constants out of `symbols` (loaded memory).
Expected<FunctionRecord> readFunction(const std::string& moduleName,
                                      const std::map<std::string, void*>& symbols,
                                      std::string_view function);

}  // namespace memjit::jit::detail
