// Streaming stores made vectorisable. codegen marks a streaming store with
// memjit's own `!memjit.nontemporal` tag instead of LLVM's `!nontemporal`,
// because LLVM's loop vectoriser refuses to widen a `!nontemporal` store whose
// alignment is below the vector's width (X86's isLegalNTStore), and a scalar
// store only has its element's alignment: such loops stayed scalar. This pass
// runs at the end of the optimisation pipeline, after vectorisation and
// alignment inference, and turns each tagged store into a `!nontemporal` one
// where the target can stream it at its (now inferred) alignment; elsewhere it
// stays an ordinary store. Internal to jit/.
#pragma once

#include <llvm/IR/PassManager.h>

namespace llvm {
class Function;
}

namespace memjit::jit::detail {

/// Rewrites `!memjit.nontemporal` stores of a function (see above).
struct StreamingStoresPass : llvm::PassInfoMixin<StreamingStoresPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
  static bool isRequired() { return true; }  // also at O0 and on optnone functions
};

}  // namespace memjit::jit::detail
