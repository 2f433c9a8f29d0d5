// The O0 first tier's IR made selectable by FastISel (tiering.h). FastISel
// gives up on vector compares, illegal vector types and most intrinsics;
// where it gives up on an instruction that is not a call, SelectionDAG
// selects the rest of the block above it, and each call it gives up on gets a
// SelectionDAG of its own. sgemm's micro-kernel spent most of its first tier
// there (docs/benchmarks.md, "First call and tiered compilation"). Rewritten,
// in the first tier only and without changing any result:
// - a masked load or store whose mask is `splat(iv) + <0, 1, ..> ult splat(n)`
//   (a partial tile's lanes) becomes a call to an internal helper that copies
//   the active lanes one by one through a stack slot, testing `iv + lane < n`
//   in the mask's own wrapping arithmetic, so every mask value, including
//   wrapped ones, selects the same lanes;
// - `llvm.prefetch` is dropped: it is a hint;
// - scalar `llvm.smin/smax/umin/umax` become a compare and a select;
// - scalar f32/f64 `llvm.maxnum/minnum` become compares and selects, and
//   `llvm.exp/exp2/log/log2/log10/sin/cos/pow/fma` calls of the C library's
//   functions (`expf`, ..., `fmaf`/`fma`);
// - a simple load of an aggregate (a memref descriptor) whose users all
//   extract scalar fields becomes one load per field, before the original.
// Internal to jit/.
#pragma once

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// Rewrites `module`'s defined functions as above; returns whether anything changed.
bool makeSelectableByFastISel(llvm::Module& module);

}  // namespace memjit::jit::detail
