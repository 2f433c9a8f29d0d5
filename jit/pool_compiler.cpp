#include "pool_compiler.h"

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

#include "compile.h"

namespace memjit::jit::detail {
namespace {

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

}  // namespace

std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler> makePoolCompiler(MachinePool& pool,
                                                                         const llvm::TargetOptions& options) {
  return std::make_unique<PoolCompiler>(pool, options);
}

}  // namespace memjit::jit::detail
