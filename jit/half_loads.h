// A scalar half loaded only to be widened is loaded into a vector register.
// After passHalvesAsBits a half is loaded as i16, and LLVM's x86 back end
// widens it through a general-purpose register: `movzwl; vmovd; vcvtph2ps`
// for f16 (without AVX512-FP16), `movzwl; shll $16; vmovd` for bf16. The move
// from a general-purpose to a vector register is the bottleneck of an exact
// (in-order) f16 or bf16 dot product, which cannot be vectorised: measured on
// a Zen 5 EPYC, 16M elements, 12.2 ms against 10.1 ms for f16 and 11.4
// against 8.2 ms for bf16 (docs/benchmarks.md). Written as the low i16 lane of
// a zero vector (f16: then bitcast to <8 x half>) or its second lane (bf16: the
// bits of a float whose low half is zero), the load becomes `vpbroadcastw
// (mem)` or `vpinsrw $1, (mem)`: the same bits, never through a
// general-purpose register.
//
// Only where the load's one use chain ends in the widening in the load's own
// block with no write between them, so that the rewritten load is where the
// original one was (the back end folds a load into the instruction that uses
// it, and it once moved such a load past a write: loads_across_writes.h). Run
// after passHalvesAsBits and splatBitcastsOfScalars (which would turn the f16
// shape's lane-wise bitcast back into a scalar one) and before
// freezeLoadsUsedAfterWrites. x86-64 only; f16 where the function has F16C
// and not AVX512-FP16 (whose `vmovsh` already loads into a vector register).
// Internal to jit/.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace memjit::jit::detail {

/// Rewrites the widenings above in `module`; returns how many.
int widenHalfLoadsInVectorRegisters(llvm::Module& module, const llvm::TargetMachine& machine);

}  // namespace memjit::jit::detail
