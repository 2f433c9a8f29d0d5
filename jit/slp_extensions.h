// LLVM 19's SLP vectoriser mis-packs a `zext nneg` beside a `sext`. Storing
// a sext and a `zext nneg` (InstCombine's form of a sext it proved
// non-negative) of two values, one of them to several places, SLP emits one
// sext vector and a shuffle mask that reads the reused lane from its poison
// operand (`<0, 0, 2, 0>` for `<0, 0, 1, 0>`): that store writes poison, 0 or
// stale bits at O2/O3 (difftest seed 6500000001004; 17 lines of IR reproduce
// it with `opt-19 -passes=slp-vectorizer`, docs/debugging.md; LLVM 22 is
// right). Just before SLP runs on a function, every `zext nneg` becomes the
// `sext` it equals (the operand is non-negative, or the zext was poison), so
// SLP sees one kind of extension; InstCombine after it restores the canonical
// form of any scalar left. LLVM 19's pipeline has no entry point between its
// last InstCombine and SLP, so this runs from a pass-instrumentation callback.
// Internal to jit/.
#pragma once

namespace llvm {
class Function;
class PassInstrumentationCallbacks;
}  // namespace llvm

namespace memjit::jit::detail {

/// Replaces each `zext nneg` of `function` by a sext of the same operand;
/// returns how many.
int signExtendNonNegativeZeroExtensions(llvm::Function& function);

/// Runs signExtendNonNegativeZeroExtensions on each function just before the
/// SLP vectoriser does, with LLVM versions whose SLP mis-packs the mix (19);
/// nothing elsewhere.
void guardSlpAgainstMixedExtensions(llvm::PassInstrumentationCallbacks& callbacks);

}  // namespace memjit::jit::detail
