// Vector width for loops that widen or narrow (bf16/f16/i8/i16 <-> f32/i32).
// LLVM's loop vectoriser bounds its width by the widest element type (f32:
// 8 lanes in a 256-bit register) and then weighs the conversions' costs; on
// x86 it prices a bf16 -> f32 extension so high that a bf16 GEMV's inner loop
// vectorised 4 lanes wide, 2.4x slower than g++'s 16 lanes on cache-resident
// rows (docs/benchmarks.md, "bf16 GEMV"). This pass, run just before the
// vectoriser at O2/O3, gives such a loop the width that fills the target's
// preferred vector register with its narrowest element (256-bit: 16 bf16
// lanes, 32 i8 lanes), as `llvm.loop.vectorize.width`. It leaves alone every
// loop that carries a width or vectorisation hint of its own (LoopOptions,
// `#pragma clang loop`), loops with a memory access that is not unit-stride
// (gathers are the cost model's call), loops without such a conversion, and
// loops carrying a float value through operations without `reassoc`: to LLVM
// a width hint also permits reordering floating-point operations, which would
// reassociate an exact sum.
// Internal to jit/.
#pragma once

#include <llvm/IR/PassManager.h>

namespace llvm {
class Loop;
class ScalarEvolution;
}

namespace memjit::jit::detail {

/// The narrowest element (8 or 16 bits) the loop's instructions convert to or
/// from a 32- or 64-bit one; 0 when it converts none.
unsigned narrowestConvertedBits(const llvm::Loop& loop);

/// The loop carries a float value through an operation without `reassoc`
/// (an exact sum): a width hint would let LLVM reassociate it.
bool carriesExactFloat(const llvm::Loop& loop);

/// Any llvm.loop.vectorize.width/enable request, or all transformations off.
bool hasVectorizeHint(const llvm::Loop& loop);

/// The bits of the target's preferred vector register for `function`; 0 without vectors.
unsigned preferredVectorBits(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);

/// Every load and store is loop-invariant or advances one element per iteration.
bool accessesAreUnitStride(llvm::ScalarEvolution& scev, const llvm::Loop& loop);

struct NarrowTypeWidthPass : llvm::PassInfoMixin<NarrowTypeWidthPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace memjit::jit::detail
