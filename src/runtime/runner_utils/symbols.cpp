// The table `memjit run` defines in its JIT: every runner utility by name.
#include <array>

#include "bf16_truncation.h"
#include "view.h"

namespace memjit::runtime {
namespace {

template <typename F>
RunnerSymbol entry(const char* name, F* function) {
  return {name, reinterpret_cast<void*>(function)};
}
#define MEMJIT_RUNNER_SYMBOL_(fn) entry(#fn, &::fn)

const auto& table() {
  static const auto symbols = std::to_array<RunnerSymbol>({
      // mlir_c_runner_utils
      MEMJIT_RUNNER_SYMBOL_(printI64),
      MEMJIT_RUNNER_SYMBOL_(printU64),
      MEMJIT_RUNNER_SYMBOL_(printF32),
      MEMJIT_RUNNER_SYMBOL_(printF64),
      MEMJIT_RUNNER_SYMBOL_(printString),
      MEMJIT_RUNNER_SYMBOL_(printOpen),
      MEMJIT_RUNNER_SYMBOL_(printClose),
      MEMJIT_RUNNER_SYMBOL_(printComma),
      MEMJIT_RUNNER_SYMBOL_(printNewline),
      MEMJIT_RUNNER_SYMBOL_(printFlops),
      MEMJIT_RUNNER_SYMBOL_(rtclock),
      MEMJIT_RUNNER_SYMBOL_(memrefCopy),
      MEMJIT_RUNNER_SYMBOL_(mlirAlloc),
      MEMJIT_RUNNER_SYMBOL_(mlirAlignedAlloc),
      MEMJIT_RUNNER_SYMBOL_(mlirFree),
      MEMJIT_RUNNER_SYMBOL_(mlirAlignedFree),
      MEMJIT_RUNNER_SYMBOL_(rtsrand),
      MEMJIT_RUNNER_SYMBOL_(rtrand),
      MEMJIT_RUNNER_SYMBOL_(rtdrand),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_shuffle),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_stdSortI64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_stdSortF64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_stdSortF32),
      // mlir_float16_utils
      MEMJIT_RUNNER_SYMBOL_(printF16),
      MEMJIT_RUNNER_SYMBOL_(printBF16),
      entry("__truncsfbf2", &runner::truncFloatToBF16),
      entry("__truncdfbf2", &runner::truncDoubleToBF16),
      // mlir_runner_utils
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefShapeI8),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefShapeI32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefShapeI64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefShapeF32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefShapeF64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefShapeInd),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefShapeC32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefShapeC64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefI8),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefI16),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefI32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefI64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefF16),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefBF16),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefF32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefF64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefInd),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefC32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefC64),
      MEMJIT_RUNNER_SYMBOL_(printMemrefI32),
      MEMJIT_RUNNER_SYMBOL_(printMemrefI64),
      MEMJIT_RUNNER_SYMBOL_(printMemrefF32),
      MEMJIT_RUNNER_SYMBOL_(printMemrefF64),
      MEMJIT_RUNNER_SYMBOL_(printMemrefInd),
      MEMJIT_RUNNER_SYMBOL_(printMemrefC32),
      MEMJIT_RUNNER_SYMBOL_(printMemrefC64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref0dF32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref1dF32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref2dF32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref3dF32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref4dF32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref1dI8),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref1dI32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref1dI64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref1dF64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref1dInd),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref1dC32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemref1dC64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_printMemrefVector4x4xf32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_nanoTime),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefI8),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefI16),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefI32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefI64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefBF16),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefF16),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefF32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefF64),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefInd),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefC32),
      MEMJIT_RUNNER_SYMBOL_(_mlir_ciface_verifyMemRefC64),
      MEMJIT_RUNNER_SYMBOL_(verifyMemRefI32),
      MEMJIT_RUNNER_SYMBOL_(verifyMemRefF32),
      MEMJIT_RUNNER_SYMBOL_(verifyMemRefF64),
      MEMJIT_RUNNER_SYMBOL_(verifyMemRefInd),
      MEMJIT_RUNNER_SYMBOL_(verifyMemRefC32),
      MEMJIT_RUNNER_SYMBOL_(verifyMemRefC64),
  });
  return symbols;
}
#undef MEMJIT_RUNNER_SYMBOL_

}  // namespace

std::span<const RunnerSymbol> runnerUtilitySymbols() noexcept { return table(); }

}  // namespace memjit::runtime
