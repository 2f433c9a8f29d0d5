// Vector shifts by constants keep their meaning through the x86 back end.
// The SLP vectoriser packs an `ashr` and an `and` of neighbouring lanes into
// one shift and one mask whose results a shuffle blends, and gives each the
// other's constants in the lanes it does not use: `ashr <48, 48, 65535, 255>`.
// Those lanes are poison in IR, and SelectionDAG's known-bits analysis takes a
// lane shifted by at least its width to be zero, so it rewrites the blend as
// an OR, which needs the unused lanes to be zero; but vpsravq fills them with
// the sign bit, and the OR sets every bit of the other operand's lanes (a ui8
// 0xfa read back as -1, difftest seed 1000943; LLVM 19 and 22 alike). Just
// before code generation each constant lane of a vector shift amount that is
// at least the lane's width becomes 0: a defined value in place of poison.
// Internal to jit/.
#pragma once

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// Replaces every out-of-range lane of a constant vector shift amount in
/// `module` (shl, lshr, ashr) by 0. Returns how many shifts it changed.
int zeroOutOfRangeShiftLanes(llvm::Module& module);

}  // namespace memjit::jit::detail
