#include "machine_pool.h"

#include "compile.h"

namespace memjit::jit::detail {

Expected<MachinePool::Lease> MachinePool::acquire(OptLevel level) {
  Lease lease;
  lease.pool = this;
  lease.level = level;
  auto& idle = idle_[static_cast<std::size_t>(level)];
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle.empty()) {
      lease.pooled = std::move(idle.back());
      idle.pop_back();
    }
  }
  if (!lease.pooled) {
    lease.pooled = std::make_unique<Pooled>();
    lease.pooled->level = level;
    MEMJIT_ASSIGN_OR_RETURN(lease.pooled->machine, createTargetMachine(spec_, level));
    std::lock_guard<std::mutex> lock(mutex_);
    ++created_;
  }
  return lease;
}

Expected<std::string> MachinePool::Lease::emitObject(llvm::Module& module) {
  auto& emitter = pooled->emitter;
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

std::size_t MachinePool::idle(OptLevel level) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_[static_cast<std::size_t>(level)].size();
}

void MachinePool::release(std::unique_ptr<Pooled> pooled) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto level = static_cast<std::size_t>(pooled->level);
  idle_[level].push_back(std::move(pooled));
}

}  // namespace memjit::jit::detail
