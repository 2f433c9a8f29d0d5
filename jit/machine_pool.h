// The process's pool of host TargetMachines (internal to jit/).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <llvm/Target/TargetMachine.h>

#include "code_emitter.h"
#include "memjit/error.h"
#include "memjit/jit/options.h"
#include "memjit/jit/target.h"

namespace memjit::jit::detail {

/// TargetMachines for the host, made once and reused. A TargetMachine must not
/// generate code on two threads at once, so concurrent compilations each lease
/// one; the pool only grows to the number of threads compiling at once.
/// Every Jit shares the process's host pool: a new machine's first module pays
/// ~3.5 ms for building its X86 subtarget, which a Jit made per kernel (the
/// way MLIR makes an ExecutionEngine per module) would otherwise pay each time.
/// A machine serves one optimisation level for good: the subtarget it builds
/// on first use (and caches) reads the machine's level then, so one made at O0
/// and later set to O2 generated O2 code without what X86TargetLowering enables
/// only from O2 (bypassSlowDivision's 32-bit division for a 64-bit one), and
/// the JIT's O2 code depended on the level the process compiled at first.
class MachinePool {
 public:
  /// A machine for one level and the code generator built for it on first use.
  struct Pooled {
    std::unique_ptr<llvm::TargetMachine> machine;
    std::unique_ptr<CodeEmitter> emitter;
    OptLevel level = OptLevel::O2;
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
  /// Machines of `level` waiting for a lease.
  std::size_t idle(OptLevel level) const;

 private:
  void release(std::unique_ptr<Pooled> pooled);
  // Machines LLVM crashed on: kept (reachable, so no leak report) but never
  // handed out again, and never destroyed (see ~MachinePool).
  void retire(std::unique_ptr<Pooled> pooled) noexcept;
  TargetSpec spec_;
  mutable std::mutex mutex_;
  std::array<std::vector<std::unique_ptr<Pooled>>, 4> idle_;  // indexed by OptLevel
  std::vector<std::unique_ptr<Pooled>> retired_;
  std::size_t created_ = 0;
};

}  // namespace memjit::jit::detail
