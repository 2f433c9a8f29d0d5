// Values the program only moves keep their bits through LLVM 22's SLP
// vectoriser. It packs plain values beside arithmetic ones as lanes of that
// arithmetic with the identity as the other operand ("copyable elements":
// lane 5 of `fdiv <7 x bfloat>` became x / 1.0), which changes their bits: x86
// computes bf16 arithmetic in f32 and narrows it with vcvtneps2bf16, which
// flushes a denormal (a bf16 argument came out as 0 at O2-O3, difftest seed
// 3500000001958), and any arithmetic quiets a signalling NaN (an f32
// 0x7f922cb3 read and scattered unchanged was stored as 0x7fd22cb3, seed
// 137766914070758). So, just before code generation, a lane of float vector
// arithmetic whose other operand is the identity (x / 1, x * 1, x + -0,
// x - 0) is shuffled back in from x (for halves passHalvesAsBits, which runs
// after, makes that an i16 shuffle). A lane the program itself wrote as
// x * 1.0 gives x too, as LLVM's own folds do: the documented result of
// arithmetic on a NaN is some NaN. Internal to jit/.
#pragma once

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// Rewrites the identity lanes described above in every function of `module`.
void identityLanesAsOperands(llvm::Module& module);

}  // namespace memjit::jit::detail
