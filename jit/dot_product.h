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
class Function;
class Module;
class TargetMachine;
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
// Sapphire Rapids) would pick 32 and halve the bytes per instruction.
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

}  // namespace memjit::jit::detail
