// Unroll-and-jam for loop nests that stream narrow elements into a row of
// accumulators: `for r { for c { y[c] = y[c] + x[r] * widen(w[r][c]) } }`,
// the axpy form of a bf16/f16/i8 GEMV. LLVM vectorises the inner loop but
// reads and writes all of y once per row; g++ -O3 jams rows (two per pass,
// -floop-unroll-and-jam), and jamming four cut the time of a 4096x4096 bf16
// GEMV by a third (docs/benchmarks.md, "bf16 GEMV"). LLVM's own
// unroll-and-jam is off by default and runs after the vectoriser, where it
// can no longer apply; this pass runs before it at O2/O3 and jams kJamRows
// rows of an outer loop when
//   - it has exactly one inner loop, innermost, that converts narrow elements
//     to or from wide ones (narrow_type_width.h: the case measured),
//   - the inner loop loads and stores one address that moves with the inner
//     loop only (the accumulator row),
//   - neither loop carries an unroll or disable hint, the inner loop is small,
//   - and LLVM's dependence analysis finds the jam legal
//     (isSafeToUnrollAndJam), which also keeps every memory location's
//     updates in their original order: y[c] still receives row 0, then row 1,
//     ..., each rounded as written, so exact float results are unchanged.
// Then GVN and DSE fold the jammed rows' reloads and stores of y[c] into one
// load and one store. Each jam is reported as a remark of pass kJamRemarkPass
// ("Jammed"). Internal to jit/.
#pragma once

#include <llvm/IR/PassManager.h>

namespace memjit::jit::detail {

inline constexpr const char* kJamRemarkPass = "memjit-jam";
inline constexpr unsigned kJamRows = 4;

struct AccumulatorJamPass : llvm::PassInfoMixin<AccumulatorJamPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace memjit::jit::detail
