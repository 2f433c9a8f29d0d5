// Which functions loop strength reduction serves (internal to jit/).
#pragma once

namespace llvm {
class Function;
}

namespace memjit::jit::detail {

/// True when every memory access in `function`'s innermost loops addresses
/// its element without a multiply the loop would repeat: its address is the
/// same on every iteration, or steps by 1, 2, 4 or 8 times the step of one of
/// the loop's integer induction variables (x86's scaled-index addressing), or
/// by the step of a pointer induction variable. Such loops are what
/// LoopStrengthReduce rewrites for nothing: a fifth of a small kernel's O2
/// compile (docs/benchmarks.md). False for a loop that reads a column
/// (a stride that is a run-time value or no legal scale), for accesses SCEV
/// cannot describe (gathers, pointers loaded in the loop) and for targets
/// other than x86-64.
bool loopsNeedNoStrengthReduction(llvm::Function& function);

}  // namespace memjit::jit::detail
