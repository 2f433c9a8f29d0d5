// Loops whose iterations form one serial floating-point chain are not
// runtime-unrolled. An innermost loop carrying one float (or float vector),
// and no other, through an fadd, fsub, fmul, fma or fmuladd without `reassoc`
// that takes the carried value itself (an exact sum or dot product, as in the naive matmul's
// `c = fma(a, b, c)`) runs at one chain step per iteration: 4 cycles on
// Sapphire Rapids, which hide the loop's own increment, compare and branch.
// Runtime unrolling (x86 asks for it on small loops) cannot shorten the chain
// without reassociating; it copied the matmul's inner loop 8 times plus a
// remainder loop, most of that kernel's O2 compile after it (docs/benchmarks.md,
// "Compile latency"). Such loops and the loops around them (whose unrolling
// only lays copies of the chain loop end to end) get
// `llvm.loop.unroll.runtime.disable`, unless they carry an unroll hint of their own. Run just before the
// vectoriser at O2/O3 (which vectorises no exact float reduction).
//
// The exception: a chain loop that widens halves (`fpext` from f16, as an
// exact f16 dot product does) spends its time converting, not in the chain:
// each element's load and vcvtph2ps is its own, and the chain waits on them.
// Such a loop is unrolled kHalfChainUnroll times (`llvm.loop.unroll.count`),
// and HalfChainSlpPass, after LLVM's unroller, runs the SLP vectoriser on its
// function, which converts and multiplies the unrolled elements as vectors
// while the adds stay one chain in order (same bits). On Zen 5 an f16 dot went
// from 0.93x to 1.1x of g++ (docs/benchmarks.md, "Exact f16 chains unrolled
// for the SLP vectoriser").
// Internal to jit/.
#pragma once

#include <llvm/IR/PassManager.h>

namespace llvm {
class Loop;
}

namespace memjit::jit::detail {

/// The loop's only header phi of float type has, from the latch, an exact
/// (non-`reassoc`) fadd/fsub/fmul/fma/fmuladd taking the phi as an operand.
/// Several float phis are independent chains that fill the FMA ports, where
/// unrolling may pay.
bool hasSerialFloatRecurrence(const llvm::Loop& loop);

/// The loop converts a scalar half to a wider float (`fpext half`).
bool widensHalves(const llvm::Loop& loop);

inline constexpr unsigned kHalfChainUnroll = 8;

struct SerialRecurrencesPass : llvm::PassInfoMixin<SerialRecurrencesPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

/// SLP-vectorises functions with an innermost loop that widens halves and
/// carries a float, once the unroller has laid out its copies (optimizer
/// last, O2/O3); other functions are left alone.
struct HalfChainSlpPass : llvm::PassInfoMixin<HalfChainSlpPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace memjit::jit::detail
