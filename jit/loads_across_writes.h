// A scalar load keeps its order with the writes after it through the x86
// back end. SelectionDAG turns a vector built from a loaded scalar (also through
// fabs and the like) into a broadcast load from the scalar's address, even where
// the loaded value has another use and a write to that address comes between:
// the lanes then hold what the write left. In a helper that loaded an f32,
// compare-exchanged it with 0 and scattered its fabs, the fabs lanes read the
// element again after `lock cmpxchg` and scattered 0 (LLVM 19 and 22, O0 through
// SelectionDAG and O3; difftest seed 179466727052886; reduced to one load, one
// cmpxchg and one splat for a report to LLVM in loads_across_writes_test.cpp,
// which llc-19 and llc-22 get wrong at -O0 to -O3 with AVX, while a plain store
// or an atomicrmw in the cmpxchg's place compiles right). Last before code
// generation, the uses of a scalar load that come after a write in its block
// take a `freeze` of it instead, placed right after the load (not of a half:
// a frozen bf16 goes through f32 and vcvtneps2bf16, which flushes denormals).
// A frozen value is not a load to the back end, so nothing re-reads memory
// for it; a freeze of a loaded value is that value (or, were it poison, one
// fixed value: a refinement), and emits no instruction. Only the load's own
// uses are seen: a splat built from it before the write whose bitcast comes
// after is splat_bitcasts.h's (its gather case fails at O0-O3 without that
// rewrite; docs/debugging.md, "LLVM bugs memjit works around").
// Internal to jit/.
#pragma once

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// Rewrites the uses described above in every function of `module`. Returns
/// how many loads got a freeze.
int freezeLoadsUsedAfterWrites(llvm::Module& module);

}  // namespace memjit::jit::detail
