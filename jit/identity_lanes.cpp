#include "identity_lanes.h"

#include <vector>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Module.h>

namespace memjit::jit::detail {
namespace {

bool isIdentityFor(unsigned opcode, const llvm::Value* lane, bool right) {
  const auto* c = llvm::dyn_cast_or_null<llvm::ConstantFP>(lane);
  if (!c) return false;
  switch (opcode) {
    case llvm::Instruction::FMul: return c->isExactlyValue(1.0);
    case llvm::Instruction::FDiv: return right && c->isExactlyValue(1.0);
    case llvm::Instruction::FAdd: return c->isZero() && c->isNegative();
    case llvm::Instruction::FSub: return right && c->isZero() && !c->isNegative();
    default: return false;
  }
}

void takeOperandsInIdentityLanes(llvm::Function& f) {
  std::vector<llvm::BinaryOperator*> ops;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block)
      if (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(&inst);
          op && llvm::isa<llvm::FixedVectorType>(op->getType()) && op->getType()->isFPOrFPVectorTy())
        ops.push_back(op);
  for (llvm::BinaryOperator* op : ops) {
    const unsigned lanes = llvm::cast<llvm::FixedVectorType>(op->getType())->getNumElements();
    llvm::IRBuilder<> ir(op->getNextNode());
    ir.SetCurrentDebugLocation(op->getDebugLoc());
    llvm::Value* result = op;
    llvm::SmallPtrSet<const llvm::User*, 2> made;
    // Lanes where the right operand is the identity take the left one, and the other way round.
    for (unsigned side : {1u, 0u}) {
      llvm::SmallVector<int, 16> mask;
      bool any = false;
      for (unsigned i = 0; i < lanes; ++i) {
        const bool identity =
            isIdentityFor(op->getOpcode(), llvm::findScalarElement(op->getOperand(side), i), side == 1);
        mask.push_back(static_cast<int>(identity ? lanes + i : i));
        any |= identity;
      }
      if (!any) continue;
      result = ir.CreateShuffleVector(result, op->getOperand(1 - side), mask);
      if (auto* shuffle = llvm::dyn_cast<llvm::User>(result)) made.insert(shuffle);
    }
    if (result != op) op->replaceUsesWithIf(result, [&](const llvm::Use& u) { return !made.contains(u.getUser()); });
  }
}

}  // namespace

void identityLanesAsOperands(llvm::Module& module) {
  for (llvm::Function& f : module)
    if (!f.isDeclaration()) takeOperandsInIdentityLanes(f);
}

}  // namespace memjit::jit::detail
