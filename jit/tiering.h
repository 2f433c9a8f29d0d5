// Tiered compilation's machinery (internal to jit/; the user's view is
// memjit/jit/tiering.h). On a cache miss, a tiered module's exported
// functions are renamed `<name>.memjit.tier0` and compiled at the fast tier;
// the module's namespace defines `<name>` as an ORC indirect stub
// (`jmp *slot`) to them, so every handle, invoker and linking module holds
// the stub. The background worker compiles a copy of the module taken before
// the renaming (in the same LLVMContext, which the tier-up then owns) at the requested level (through the object cache, under the key a
// direct add would use), links it into a namespace of its own and points the
// slots at it. Both tiers and the stubs are freed with the module's state,
// which every handle keeps alive: no call can run freed code.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <llvm/ExecutionEngine/Orc/IndirectionUtils.h>
#include <llvm/IR/Module.h>

#include "deferred_entries.h"
#include "memjit/error.h"
#include "memjit/jit/compile_stats.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/tiering.h"

namespace memjit::jit::detail {

struct JitCore;
struct ModuleState;

/// The Jit's background thread: runs tier-up jobs one at a time, in the
/// order posted, none before its time, at a lower priority (nice + 10).
class TierUpWorker {
 public:
  TierUpWorker();
  /// Drops waiting jobs and joins the thread, or detaches it when the job
  /// running on it released the last owner of the Jit (then the thread ends
  /// right after that job, touching only its own queue).
  ~TierUpWorker();
  TierUpWorker(const TierUpWorker&) = delete;
  TierUpWorker& operator=(const TierUpWorker&) = delete;

  void post(std::chrono::steady_clock::time_point notBefore, std::function<void()> job);

 private:
  struct Queue;
  std::shared_ptr<Queue> queue_;
  std::thread thread_;
};

/// What a module compiled in tiers keeps (ModuleState::tiered).
class TieredModule {
 public:
  ~TieredModule();  ///< removes the optimised code's namespace, frees the stubs

  /// The module's exported functions, each reached through a stub.
  std::vector<std::string> exported;
  /// The module before the first tier's changes, in the context the first
  /// tier was compiled in. The add hands the context over once the first
  /// tier's module is gone (adoptContext); from then on only the tier-up
  /// touches either, and frees them once compiled. A copy, not bitcode:
  /// writing bitcode on the first call's path cost more than the first tier's
  /// whole IR pipeline (docs/benchmarks.md, "First call and tiered compilation").
  std::unique_ptr<llvm::LLVMContext> context;  // declared first: outlives `module`
  std::unique_ptr<llvm::Module> module;
  /// The expanded entries the tier-up inlines into their C interfaces before
  /// compiling `module` (deferred_entries.h: off the first call's path).
  std::vector<LaterInlining> inlineOnTierUp;
  /// Whether the tier-up verifies `module` first: one with first-tier bodies,
  /// whose add verified only the first tier's copy.
  bool verifyOnTierUp = false;
  /// Its object cache key (empty without a cache).
  std::string cacheKey;
  /// The levels and pipeline flags of the requested compile.
  AddOptions options;
  std::uint32_t callThreshold = 0;
  std::chrono::steady_clock::time_point added;
  std::unique_ptr<llvm::orc::IndirectStubsManager> stubs;
  llvm::orc::ExecutionSession* session = nullptr;
  std::weak_ptr<ModuleState> owner;
  /// Calls of the first tier's C interfaces (incremented by its code).
  std::atomic<std::uint32_t> calls{0};

  /// Takes over the context of `module` once nothing else uses it.
  void adoptContext(std::unique_ptr<llvm::LLVMContext> owner) { context = std::move(owner); }
  /// After LLVM crashed on the context (crash_recovery.h): its state is
  /// unknown, so the copy is leaked rather than destroyed.
  void leakModule() noexcept { (void)module.release(); }

  /// Posts the tier-up to the Jit's worker, once.
  void request();
  Tier tier() const;
  Error wait() const;
  /// The worker's job: compile, link, swap. Runs with no lock held.
  void tierUp();

 private:
  void finish(Error failure);
  mutable std::mutex mutex_;
  mutable std::condition_variable done_;
  bool requested_ = false;
  Tier tier_ = Tier::First;
  Error failure_;
  llvm::orc::JITDylib* optimised_ = nullptr;  // the tier-up's namespace, once linked
};

/// Whether `module`, added with `options`, is compiled in tiers: asked for,
/// a first tier cheaper than the requested one, IR passes on, and no
/// writable global (each tier would have its own copy).
bool tieringApplies(const JitCore& core, const llvm::Module& module, const AddOptions& options);

/// The first tier's levels.
OptLevel firstTierLevel(const JitCore& core);

/// On a cache miss, before compiling the first tier: keeps a copy of the
/// module, renames its exported functions and makes each C interface count
/// its calls when a call threshold is set. A module with first-tier bodies
/// (first_tier_bodies.h) is kept as it is and `module` becomes the first
/// tier's copy, which leaves out the bodies it replaces; that copy is
/// verified here, and the whole module by the tier-up. `inlineOnTierUp`
/// (deferExpandedEntriesToTierUp) is spliced into the first tier's copy and
/// kept for the tier-up.
Expected<std::shared_ptr<TieredModule>> prepareFirstTier(JitCore& core, std::unique_ptr<llvm::Module>& module,
                                                        const AddOptions& options, const std::string& cacheKey,
                                                        std::vector<LaterInlining> inlineOnTierUp);

/// `defined` (the module's names before the renaming) as the first tier's
/// object defines them.
void renameDefined(const TieredModule& tiered, std::vector<std::string>& defined);

/// After the first tier is linked and before the module is published: the
/// stubs, their symbols in the module's namespace, and the tier-up request
/// when no call threshold is set.
Error publishFirstTier(const std::shared_ptr<ModuleState>& state, const std::shared_ptr<TieredModule>& tiered);

/// The Jit's worker, started on first use.
TierUpWorker& tierUpWorker(JitCore& core);

/// The optimised object of `tiered` (add_module.cpp): from the object cache,
/// else compiled at the requested level and put there, as a direct add would.
/// Consumes (frees) the module copy and its context.
Expected<std::shared_ptr<const std::string>> compileFinalTier(JitCore& core, TieredModule& tiered,
                                                              const std::string& moduleName, CompileStats& stats);

}  // namespace memjit::jit::detail
