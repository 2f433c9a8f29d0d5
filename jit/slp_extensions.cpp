#include "slp_extensions.h"

#include "llvm_compat.h"

#include <vector>

#include <llvm/ADT/Any.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PassInstrumentation.h>

namespace memjit::jit::detail {

int signExtendNonNegativeZeroExtensions(llvm::Function& function) {
  std::vector<llvm::ZExtInst*> found;
  for (llvm::Instruction& inst : llvm::instructions(function))
    if (auto* zext = llvm::dyn_cast<llvm::ZExtInst>(&inst); zext && zext->hasNonNeg()) found.push_back(zext);
  for (llvm::ZExtInst* zext : found) {
    auto* sext = new llvm::SExtInst(zext->getOperand(0), zext->getType(), "", zext->getIterator());
    sext->takeName(zext);
    sext->setDebugLoc(zext->getDebugLoc());
    zext->replaceAllUsesWith(sext);
    zext->eraseFromParent();
  }
  return static_cast<int>(found.size());
}

void guardSlpAgainstMixedExtensions(llvm::PassInstrumentationCallbacks& callbacks) {
  if (!llvm_compat::kSlpMisPacksMixedExtensions) return;
  // The IR changes under analyses SLP asks for, but none that is cached at
  // this point depends on which extension an instruction is: the
  // InstCombine and SimplifyCFG before SLP keep only the CFG's analyses, and
  // the CFG does not change.
  callbacks.registerBeforeNonSkippedPassCallback([](llvm::StringRef pass, llvm::Any ir) {
    if (pass != "SLPVectorizerPass") return;
    if (const auto* const* function = llvm::any_cast<const llvm::Function*>(&ir))
      signExtendNonNegativeZeroExtensions(const_cast<llvm::Function&>(**function));
  });
}

}  // namespace memjit::jit::detail
