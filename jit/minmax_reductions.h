// Loops carrying minnum/maxnum reductions of two floating-point types stay
// scalar on LLVM 22. Its loop vectoriser vectorises such a reduction without
// fast-math flags by leaving the vector loop when an input is NaN, and with
// several of them in one loop (llvm-project#161735) it tests two reductions'
// inputs in one `fcmp uno` even when one is float and the other double: the
// IR is invalid, and the x86 back end aborts ("Cannot emit physreg copy
// instruction", difftest seed 3000000000296: a parallelReduce with an f32 min
// and max and an f64 min). This pass, run just before the vectoriser at
// O2/O3, marks such loops `llvm.loop.vectorize.enable` false and interleave
// count 1; loops whose min/max reductions share one type are untouched.
// LLVM 19 vectorises no such reduction without `nnan`. Internal to jit/.
#pragma once

#include <llvm/IR/PassManager.h>

namespace memjit::jit::detail {

struct MixedMinMaxReductionsPass : llvm::PassInfoMixin<MixedMinMaxReductionsPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace memjit::jit::detail
