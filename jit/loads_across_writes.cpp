#include "loads_across_writes.h"

#include <utility>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/MapVector.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

namespace memjit::jit::detail {
namespace {

// Halves are left alone: the x86 back end widens a frozen bf16 to f32 and
// narrows it back through vcvtneps2bf16, which flushes denormals. (Run after
// passHalvesAsBits, as the code emitter does, there is no half load left.)
bool isScalarLoad(const llvm::Value* v) {
  auto* load = llvm::dyn_cast<llvm::LoadInst>(v);
  if (!load || !load->isSimple()) return false;
  llvm::Type* type = load->getType();
  return !type->isVectorTy() && !type->isAggregateType() && !type->isHalfTy() && !type->isBFloatTy();
}

// The zero-byte stackmaps boundSchedulingRegions (large_functions.h) puts in
// long blocks write nothing, though a call without attributes may. Counted as
// writes, they froze the loads of a 100K-operation loop body, whose values
// have thousands of uses each, and doubled its code generation (0.87 -> 1.73
// s, docs/benchmarks.md).
bool isSchedulingBoundary(const llvm::Instruction& inst) {
  const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
  return call && call->getIntrinsicID() == llvm::Intrinsic::experimental_stackmap;
}

// Each scalar load of `block` with the uses of it that come after a write
// that follows it (one pass: a use is late when the last write before it
// comes after the load).
llvm::MapVector<llvm::LoadInst*, std::vector<llvm::Use*>> lateUses(llvm::BasicBlock& block) {
  llvm::MapVector<llvm::LoadInst*, std::vector<llvm::Use*>> late;
  llvm::DenseMap<const llvm::Value*, unsigned> position;
  unsigned here = 0, lastWrite = 0;  // positions start at 1: 0 is "no write yet"
  for (llvm::Instruction& inst : block) {
    ++here;
    for (llvm::Use& operand : inst.operands()) {
      auto found = position.find(operand.get());
      if (found != position.end() && lastWrite > found->second)
        late[llvm::cast<llvm::LoadInst>(operand.get())].push_back(&operand);
    }
    if (isScalarLoad(&inst)) position[&inst] = here;
    if (inst.mayWriteToMemory() && !isSchedulingBoundary(inst)) lastWrite = here;
  }
  return late;
}

}  // namespace

int freezeLoadsUsedAfterWrites(llvm::Module& module) {
  int frozen = 0;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (auto& [load, uses] : lateUses(block)) {
        llvm::IRBuilder<> ir(load->getNextNode());
        ir.SetCurrentDebugLocation(load->getDebugLoc());
        llvm::Value* value = ir.CreateFreeze(load, load->getName() + ".ordered");
        for (llvm::Use* use : uses) use->set(value);
        ++frozen;
      }
  return frozen;
}

}  // namespace memjit::jit::detail
