#include "machine_pool.h"

#include "compile.h"

namespace memjit::jit::detail {

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
  lease.pooled->machine->setOptLevel(codegenOptLevel(level));
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

}  // namespace memjit::jit::detail
