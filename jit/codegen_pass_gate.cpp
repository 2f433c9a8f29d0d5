#include "codegen_pass_gate.h"

#include "half_registers.h"
#include "large_functions.h"
#include "strength_reduction.h"

#include <algorithm>

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/Target/TargetMachine.h>

namespace memjit::jit::detail {

// FastISel gives the bits SelectionDAG gives for the same IR, except where
// the IR leaves a choice (fast-math flags: contraction into FMA, for one) and
// for half values, which it keeps in f32 registers (code_emitter.cpp).
static bool leavesTheBackEndNoChoice(const llvm::Function& function) {
  for (const llvm::BasicBlock& block : function)
    for (const llvm::Instruction& inst : block)
      if (llvm::isa<llvm::FPMathOperator>(inst) && inst.getFastMathFlags().any()) return false;
  return true;
}

CodegenPassGate::CodegenPassGate(llvm::Module& module, llvm::TargetMachine* machine)
    : context_(module.getContext()),
      previous_(module.getContext().getOptPassGate()),
      machine_(machine),
      fastISelBefore_(machine && machine->Options.EnableFastISel) {
  const bool halves = hasHalfValues(module);
  for (llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    positionOf_[function.getName()] = outlined_.size();
    const bool outlined = function.hasFnAttribute(kOutlinedLoopsAttribute);
    outlined_.push_back(outlined);
    withoutLsr_.push_back(outlined || loopsNeedNoStrengthReduction(function));
    fastSelectable_.push_back(outlined && !halves && leavesTheBackEndNoChoice(function));
  }
  lsrSkippedIn_.assign(outlined_.size(), false);
  skippedIn_.assign(outlined_.size(), false);
  fastSelectedIn_.assign(outlined_.size(), false);
  context_.setOptPassGate(*this);
}

CodegenPassGate::~CodegenPassGate() {
  context_.setOptPassGate(previous_);
  if (machine_) machine_->setFastISel(fastISelBefore_);
}

bool CodegenPassGate::allows(llvm::StringRef pass, llvm::StringRef description) const {
  if (previous_.isEnabled() && !previous_.shouldRunPass(pass, description)) return false;
  // LLVM 19 names legacy passes by description, LLVM 22 by argument.
  if (description == "loop") {
    if (pass != "Loop Strength Reduction" && pass != "loop-reduce") return true;
    if (loopOwner_ >= withoutLsr_.size() || !withoutLsr_[loopOwner_]) return true;
    ++skippedLoopPasses_;
    lsrSkippedIn_[loopOwner_] = true;
    return false;
  }
  // "function (NAME)": the loops described next are the following function's.
  llvm::StringRef name = description;
  if (!name.consume_front("function (") || !name.consume_back(")")) return true;
  const auto found = positionOf_.find(name);
  if (found == positionOf_.end()) return true;
  loopOwner_ = found->second + 1;
  if (pass == "X86 DAG->DAG Instruction Selection" || pass == "x86-isel") {
    // Asked just before the selector reads the machine's FastISel switch for
    // this function. Run, not skipped: a skipped selector selects at O0,
    // without branch probabilities, and block placement then left the vector
    // loops unaligned and the remainders in worse order (loops:10K with 1,000
    // elements ran 25% slower).
    const bool fast = fastSelectable_[found->second];
    fastSelectedIn_[found->second] = fast;
    if (machine_) machine_->setFastISel(fast || fastISelBefore_);
    return true;
  }
  if (pass != "X86 Domain Reassignment Pass" && pass != "x86-domain-reassignment") return true;
  if (!outlined_[found->second]) return true;
  skippedIn_[found->second] = true;
  return false;
}

std::size_t CodegenPassGate::functionsWithoutStrengthReduction() const noexcept {
  return static_cast<std::size_t>(std::count(lsrSkippedIn_.begin(), lsrSkippedIn_.end(), true));
}

std::size_t CodegenPassGate::functionsSkippedIn() const noexcept {
  return static_cast<std::size_t>(std::count(skippedIn_.begin(), skippedIn_.end(), true));
}

std::size_t CodegenPassGate::functionsFastSelected() const noexcept {
  return static_cast<std::size_t>(std::count(fastSelectedIn_.begin(), fastSelectedIn_.end(), true));
}

}  // namespace memjit::jit::detail
