// Half precision keeps its bits between blocks. LLVM's x86 back end holds a
// bf16 (and, without AVX512-FP16, an f16) that one block defines and another
// uses in an f32 register: the value is widened where it is defined and
// narrowed where it is used, and the narrowing (vcvtneps2bf16, vcvtps2ph)
// flushes bf16 denormals to zero and quiets signalling NaNs. A select or a
// load/store pair moves such values unchanged, an ifElse or loop did not
// (issue 24). Just before code generation, every half value (or aggregate
// holding one, as a helper's several results) used in another block (or in
// its own block after an atomic, a masked memory operation or a select, where
// code generation may start a block) is passed there as its i16 bits instead (frozen, as CodeGenPrepare
// folds bitcast pairs and makes i16 phis of bitcast halves half phis again),
// so is every half argument (live across a call it was
// spilled as f32); selects, vector lane moves, loads and stores of halves,
// which the back end also promotes to f32, become i16 operations (so do the
// shuffles identity_lanes.h makes of moved half values); bf16 arithmetic
// is done in f32 on operands widened from their bits by a shift (the back
// end's own widening of an argument was seen to go through vcvtneps2bf16 at
// O1) and rounded to bf16 once; fabs, fneg
// and copysign, which InstCombine re-forms from the builder's masks, become
// masks again; and the bits of a computed bf16 reach integer operations
// through an empty asm (the back end takes their sign to be zero). Nothing
// is left for the optimiser to fold back. Within a block SelectionDAG keeps halves as they
// are, but FastISel (LLVM's O0 selector) does not, so the code emitter takes
// SelectionDAG for modules with half values (hasHalfValues). Internal to jit/.
#pragma once

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// Rewrites `module` so that no f16/bf16 value (or vector of them) crosses a
/// block boundary, stays live as an argument or is moved without arithmetic:
/// half phis, selects, lane moves, loads, stores and sign operations become
/// i16 ones, and half arguments and halves used in another block are carried
/// as frozen i16 bits, made after their definition and turned back before
/// each use.
void passHalvesAsBits(llvm::Module& module);

/// Puts an llvm.arithmetic.fence after each bitcast between bf16 and f16 (or
/// vectors of them), for the optimiser; passHalvesAsBits removes them.
/// InstCombine folds `fcmp oeq/une (bitcast X), 0.0` into an integer test of
/// X assuming X is an integer, and for a bf16 X makes invalid IR (`and bfloat
/// %x, i16 32767`) on which the x86 back end aborts ("Do not know how to soft
/// promote this operator's result!", LLVM 19 and 22; fixed upstream by
/// llvm/llvm-project#198389). A fence is not a bitcast, and the optimiser
/// moves nothing across it. Run before the IR passes.
void fenceHalfBitcasts(llvm::Module& module);

/// True when some f16/bf16 value (or vector of them) is an argument, a result
/// or an operand in `module`'s function definitions.
bool hasHalfValues(const llvm::Module& module);

}  // namespace memjit::jit::detail
