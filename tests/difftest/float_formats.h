// The reference interpreter's own binary floating-point formats: decoding any
// of f16, bf16, f32, f64 to double (exact) and rounding a double or a 64-bit
// integer to one of them, to nearest even, with denormals and overflow.
// Written from IEEE 754, sharing nothing with memjit/runtime/half.h or LLVM.
#pragma once

#include <cstdint>

#include "memjit/types.h"

namespace memjit::difftest {

struct FloatFormat {
  int precision;  // significand bits including the implicit one
  int exponentBits;
  int width;
};
FloatFormat formatOf(ElementType t);

double decodeFloat(ElementType t, std::uint64_t bits);
/// `x` rounded to nearest even in `t` (NaN: a quiet NaN keeping the sign and the payload's top bits).
std::uint64_t roundToFloat(ElementType t, double x);
/// The integer `magnitude` (negated when `negative`) rounded once to `t`.
std::uint64_t roundIntegerToFloat(ElementType t, std::uint64_t magnitude, bool negative);

bool isNaNBits(ElementType t, std::uint64_t bits);
bool isDenormalBits(ElementType t, std::uint64_t bits);
std::uint64_t signBit(ElementType t);
/// Distance in representable values between two non-NaN floats of `t` (inf next to the largest finite).
std::uint64_t ulpDistance(ElementType t, std::uint64_t a, std::uint64_t b);

}  // namespace memjit::difftest
