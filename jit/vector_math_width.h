// Vector width for loops that call the vector math library (vector_math.h).
// On CPUs whose tuning prefers 256-bit vectors (LLVM's for Skylake-X through
// Sapphire Rapids), the loop vectoriser fills a 256-bit register and calls
// libmvec's 8-lane AVX2 variant (`_ZGVdN8v_tanhf`), while g++ -march=native
// vectorises the same loop with 512-bit registers and calls the 16-lane
// AVX-512 one (`_ZGVeN16v_tanhf`); the AVX2 variants cost up to twice as much
// per element (a fast-math GELU 2.4x slower than g++'s, softmax 1.3x:
// docs/benchmarks.md, "Fast-math parity"). This pass, run just before the
// vectoriser at O2/O3, gives an innermost loop whose calls all have vector
// variants the widest width all of them have in the module's library info,
// when that is wider than the preferred register, as
// `llvm.loop.vectorize.width`. It leaves alone loops with a width or
// vectorisation hint of their own, loops with a memory access that is not
// unit-stride, and loops carrying a float value through operations without
// `reassoc` (a width hint would permit reassociating an exact sum, as in
// narrow_type_width.h). Internal to jit/.
// Functions compiled for the AVX-512 CPUs of prefers512BitVectors' list
// (jit/compile.cpp) carry prefer-vector-width=512, so LLVM already picks these
// widths there; this pass widens loops in functions that bring a narrower
// prefer-vector-width of their own, and on the CPUs left at 256 bits
// (skylake-avx512, cascadelake, cooperlake).
#pragma once

#include <llvm/IR/PassManager.h>

namespace memjit::jit::detail {

struct VectorMathWidthPass : llvm::PassInfoMixin<VectorMathWidthPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace memjit::jit::detail
