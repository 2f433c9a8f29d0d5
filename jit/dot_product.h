// Dot-product instructions (VNNI's vpdpbusd and vpdpwssd, AVX512_BF16's
// vdpbf16ps) in memjit's pipeline. Internal to jit/.
//
// DotInstructionsPass replaces the builder's `memjit.dot.*` calls (whose
// bodies are the portable definition, metadata_symbols.h) with the
// instruction where the calling function's target has it. It runs at the
// start of the pipeline, before the always-inliner would inline the fallback.
//
// DotLoopIdiomPass finds the u8 x s8 -> i32 sum `acc += zext(a[i]) * sext(b[i])`
// the loop vectoriser has widened (a `<4N x i32>` accumulator fed by products
// of extended bytes, only ever summed after the loop) and carries it in an
// `<N x i32>` accumulator updated by vpdpbusd: four bytes per lane per
// instruction instead of one. Neither LLVM 19 nor 22 does this (both widen the
// bytes to i32 and use vpdpwssd or vpmaddwd); they already turn the s16 x s16
// sum into vpdpwssd themselves. Integer sums wrap, so regrouping the products
// gives the same bits.
#pragma once

#include <llvm/IR/PassManager.h>

namespace llvm {
class DominatorTree;
class Function;
class IRBuilderBase;
class Loop;
class LoopInfo;
class Module;
class PHINode;
class ScalarEvolution;
class TargetMachine;
class Value;
}  // namespace llvm

namespace memjit::jit::detail {

struct DotInstructionsPass : llvm::PassInfoMixin<DotInstructionsPass> {
  explicit DotInstructionsPass(const llvm::TargetMachine& machine) : machine(&machine) {}
  llvm::PreservedAnalyses run(llvm::Module& module, llvm::ModuleAnalysisManager& analyses);
  static bool isRequired() { return true; }  // also at O0
  const llvm::TargetMachine* machine;
};

// Before vectorisation: a scalar u8 x s8 sum gets the vectorisation width of one vpdpbusd on zmm registers (64
// bytes) where the target has AVX512-VNNI, as g++ does; the cost model (which prefers 256-bit vectors on
// Sapphire Rapids) would pick 32 and halve the bytes per instruction. A long sum over unit-stride bytes also gets
// a masked head up to the streamed operand's next 64-byte boundary and a masked tail (dot_loop_alignment.cpp), so
// the vector loop's loads of that operand do not cross cache lines and no scalar remainder runs; shorter runs of
// the same loop take a copy of it as it was.
struct DotLoopWidthPass : llvm::PassInfoMixin<DotLoopWidthPass> {
  explicit DotLoopWidthPass(const llvm::TargetMachine& machine) : machine(&machine) {}
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
  const llvm::TargetMachine* machine;
};

struct DotLoopIdiomPass : llvm::PassInfoMixin<DotLoopIdiomPass> {
  explicit DotLoopIdiomPass(const llvm::TargetMachine& machine) : machine(&machine) {}
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
  const llvm::TargetMachine* machine;
};

// vpdpbusd (vpdpwssd, vdpbf16ps: `id`) on (acc, a, b), each bitcast to the intrinsic's operand type (they differ
// between LLVM versions: LLVM 21 made vpdpbusd's byte operands <64 x i8>), the result bitcast back to acc's type.
llvm::Value* emitDotInstruction(llvm::IRBuilderBase& ir, unsigned id, llvm::Value* acc, llvm::Value* a, llvm::Value* b);

// Head, body and tail (dot_loop_alignment.cpp) for `loop` when it runs 1024 times or more, an untouched copy of it
// (not to be unrolled) when it runs fewer, for a `loop` whose header phi `acc` sums
// `unsignedBytes * signedBytes` (the zext and sext of byte loads): false, and nothing changed, unless every
// other header phi and every value used after the loop is an affine induction (or the sum), both loads step one
// byte, and the loop has no side effects and one exit, at its latch. Emits AVX512-VNNI and AVX512-BW
// instructions. Keeps `dominators` and `loops` up to date.
bool alignDotLoop(llvm::Loop& loop, llvm::PHINode& acc, llvm::Value* unsignedBytes, llvm::Value* signedBytes,
                  llvm::ScalarEvolution& se, llvm::DominatorTree& dominators, llvm::LoopInfo& loops);

}  // namespace memjit::jit::detail
