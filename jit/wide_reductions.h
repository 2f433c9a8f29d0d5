// Full-width vectors for streaming float reductions that may reassociate.
// LLVM's tuning for AVX-512 Intel CPUs prefers 256-bit vectors, so a
// fast-math sum over memory runs four 8-lane accumulators of 32-byte loads;
// g++ -march=native reads 64 bytes per load. Once the data comes from DRAM
// the narrower loads cost 8-9%: a 16M-float sum ran at 0.91-0.92x of g++'s
// with 256-bit vectors and 0.99-1.01x with 512-bit ones, with four or eight
// accumulators alike (clang 19 on the same loop; docs/benchmarks.md,
// "bf16 GEMV and fast-math parity"). This pass, run just before the
// vectoriser at O2/O3 on targets with AVX-512, gives an innermost loop that
// carries a float value through operations that all allow `reassoc`, makes
// no call but min/max/fabs (one instruction each: a fast-math max), and
// accesses memory only unit-stride, the width that fills a
// 512-bit register with its widest float (`llvm.loop.vectorize.width`).
// Loops with a width or vectorisation hint of their own, exact sums and
// functions with a `prefer-vector-width` attribute are left alone.
// Internal to jit/.
// Since functions compiled for AVX-512 targets carry prefer-vector-width=512
// (jit/compile.cpp, prepareModule), LLVM already picks these widths there and
// this pass, which skips functions with the attribute, no longer changes
// anything in memjit's pipeline: a candidate for removal once the
// module-wide preference has run longer (docs/slow-kernels.md).
#pragma once

#include <llvm/IR/PassManager.h>

namespace memjit::jit::detail {

struct WideReductionsPass : llvm::PassInfoMixin<WideReductionsPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace memjit::jit::detail
