// memjit's half-precision value types, `memjit::f16` (IEEE binary16) and
// `memjit::bf16` (bfloat16): two bytes holding the bit pattern, so a
// StridedMemRef<f16, N> is exactly a `memref<...xf16>` in memory, with
// conversions that do not depend on the compiler having a half type.
//
//   f16 h(0.1);               // from float or double: rounded to nearest even, once
//   float x = h;              // to float: exact
//   f16 nan = f16::fromBits(0x7e01);  // any bit pattern, kept as is
//
// Narrowing (float/double -> f16/bf16) rounds to nearest, ties to even, in
// one step from the source (a double is not rounded to float first); a
// result too large for the type becomes +-inf, subnormal results are exact
// where representable, and a NaN stays a NaN of the same sign: quieted, with
// the top bits of its payload (as x86's conversions and GCC's and clang's
// casts do). Widening to float is exact (NaNs quieted the same way). The
// constructors from float and double are explicit because they round.
//
// By value at a C interface LLVM passes `half` and `bfloat` like the C types
// `_Float16` and `__bf16`: on x86-64 SysV in the low 16 bits of an XMM
// register, or of an 8-byte stack slot. A struct of a uint16_t travels in an
// integer register instead, so f16 and bf16 are NOT the by-value C types:
// `f16::abi_type`/`bf16::abi_type` are: for f16 the compiler's `_Float16`
// where it has one, for bf16 on x86-64 SysV a float carrying the bits in its
// low half (elsewhere `__bf16` where the compiler has it), and for f16
// without _Float16 on x86-64 SysV that float too. MEMJIT_HALF_BY_VALUE is
// defined where both exist. The typed invoker converts through them; AOT
// headers declare scalars with them.
#pragma once

#include <type_traits>

#if defined(__FLT16_MANT_DIG__)
#define MEMJIT_HAS_FLOAT16 1  // the compiler has _Float16 (GCC >= 12 and clang on x86-64 and AArch64)
#endif
#if defined(__BFLT16_MANT_DIG__) || (defined(__clang__) && __clang_major__ >= 17 && defined(__x86_64__))
#define MEMJIT_HAS_BF16 1  // the compiler has an arithmetic __bf16 (GCC >= 13, clang >= 17 on x86-64)
#endif
#if defined(__x86_64__) && !defined(_WIN32)
#define MEMJIT_HALF_FLOAT_CARRIER 1  // SysV: a float's low 16 bits travel where a half would
#endif
#if (defined(MEMJIT_HAS_FLOAT16) || defined(MEMJIT_HALF_FLOAT_CARRIER)) && \
    (defined(MEMJIT_HAS_BF16) || defined(MEMJIT_HALF_FLOAT_CARRIER))
#define MEMJIT_HALF_BY_VALUE 1
#endif

#include "memjit/runtime/detail/half.h"

namespace memjit {

// What f16 and bf16 offer (both from half_detail::Half; `H` is f16 or bf16):
//   H() uninitialised, as a float is
//   explicit H(float), explicit H(double)    rounded to nearest even, once (see the top)
//   H(_Float16) / H(__bf16), and back         exact, where the compiler has the type
//   static H fromBits(std::uint16_t), bits()  the bit pattern, kept as is
//   operator float()                          exact
//   isNaN(); ==, <=>                          IEEE comparison: NaN is unordered, -0 == +0
//   abi_type, toAbi(), static fromAbi()       the by-value C type (see the top), where there is one

/// IEEE 754 binary16: 1 sign, 5 exponent, 10 significand bits.
class f16 : public half_detail::Half<f16, half_detail::F16Format> {
 public:
  using Half::Half;
};

/// bfloat16: 1 sign, 8 exponent, 7 significand bits (a float's top half).
class bf16 : public half_detail::Half<bf16, half_detail::BF16Format> {
 public:
  using Half::Half;
};

static_assert(sizeof(f16) == 2 && alignof(f16) == 2 && sizeof(bf16) == 2 && alignof(bf16) == 2);
static_assert(std::is_trivially_copyable_v<f16> && std::is_standard_layout_v<f16>);
static_assert(std::is_trivially_copyable_v<bf16> && std::is_standard_layout_v<bf16>);

}  // namespace memjit
