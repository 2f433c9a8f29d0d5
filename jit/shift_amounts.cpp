#include "shift_amounts.h"

#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace memjit::jit::detail {
namespace {

// The amount with each out-of-range lane 0, or null when none is.
llvm::Constant* inRangeAmount(llvm::Constant* amount, unsigned width) {
  auto* type = llvm::dyn_cast<llvm::FixedVectorType>(amount->getType());
  if (!type) return nullptr;
  std::vector<llvm::Constant*> lanes;
  bool changed = false;
  for (unsigned i = 0; i < type->getNumElements(); ++i) {
    llvm::Constant* lane = amount->getAggregateElement(i);
    if (!lane) return nullptr;  // a constant expression: not a lane list
    if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(lane); k && k->getValue().uge(width)) {
      lane = llvm::ConstantInt::get(type->getElementType(), 0);
      changed = true;
    }
    lanes.push_back(lane);
  }
  return changed ? llvm::ConstantVector::get(lanes) : nullptr;
}

}  // namespace

int zeroOutOfRangeShiftLanes(llvm::Module& module) {
  int changed = 0;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block) {
        if (!inst.isShift() || !inst.getType()->isVectorTy()) continue;
        auto* amount = llvm::dyn_cast<llvm::Constant>(inst.getOperand(1));
        if (!amount) continue;
        if (llvm::Constant* fixed = inRangeAmount(amount, inst.getType()->getScalarSizeInBits())) {
          inst.setOperand(1, fixed);
          ++changed;
        }
      }
  return changed;
}

}  // namespace memjit::jit::detail
