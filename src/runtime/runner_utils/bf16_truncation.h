// float and double to bf16 as the compiler-runtime functions __truncsfbf2
// and __truncdfbf2 that LLVM calls for `fptrunc ... to bfloat` on x86 without
// AVX512-BF16 (MLIR's mlir_float16_utils defines them; GCC 12's libgcc does
// not). C++ names here: runnerUtilitySymbols() gives them their C names for
// the JIT only, so nothing linked with memjit clashes with a compiler runtime.
#pragma once

#include <cstdint>

namespace memjit::runtime::runner {

/// The bf16 rounded to nearest even from `x`; a NaN becomes the quiet NaN
/// 0x7fc0 with x's sign (MLIR's function drops the payload too). Returned in
/// the low 16 bits of a float's bits, where x86-64 SysV returns a bfloat.
/// (Not noexcept: the JIT and the tests call them through plain function types.)
float truncFloatToBF16(float x);
/// `x` rounded to float first, then as above: MLIR's __truncdfbf2 rounds twice
/// (a value just past a bf16 halfway point can round the other way than a
/// single rounding would), and memjit gives the same bits as MLIR.
float truncDoubleToBF16(double x);

/// The bf16 bits from what the two functions above return.
inline std::uint16_t bf16BitsOf(float carrier) noexcept {
  std::uint32_t bits;
  __builtin_memcpy(&bits, &carrier, sizeof bits);
  return static_cast<std::uint16_t>(bits);
}

}  // namespace memjit::runtime::runner
