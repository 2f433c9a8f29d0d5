// Internal to memjit/runtime/half.h, which includes it after defining its
// feature macros (MEMJIT_HAS_FLOAT16, MEMJIT_HAS_BF16,
// MEMJIT_HALF_FLOAT_CARRIER): the rounding, the two formats and the
// by-value ABI members that f16 and bf16 share.
#pragma once

#include <bit>
#include <compare>
#include <cstdint>
#include <type_traits>

namespace memjit {
namespace half_detail {

// Rounds `x` to the binary format with `E` exponent and `M` stored
// significand bits (to nearest, ties to even) and returns its bit pattern.
template <int E, int M>
constexpr std::uint16_t narrow(double x) noexcept {
  constexpr int bias = (1 << (E - 1)) - 1;
  constexpr int minExponent = 1 - bias;  // of the smallest normal number
  constexpr std::uint32_t infinity = ((1u << E) - 1) << M;
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  const auto sign = static_cast<std::uint32_t>(bits >> 48) & 0x8000u;
  const std::uint64_t magnitude = bits & 0x7fff'ffff'ffff'ffffull;
  if (magnitude >= 0x7ff0'0000'0000'0000ull) {
    if (magnitude == 0x7ff0'0000'0000'0000ull) return static_cast<std::uint16_t>(sign | infinity);
    const auto payload = static_cast<std::uint32_t>(magnitude >> (52 - M)) & ((1u << M) - 1);
    return static_cast<std::uint16_t>(sign | infinity | (1u << (M - 1)) | payload);
  }
  const int exponent = static_cast<int>(magnitude >> 52) - 1023;
  if (exponent > bias) return static_cast<std::uint16_t>(sign | infinity);
  // The significand with its implicit bit (double subnormals are far below
  // either format's smallest subnormal: they round to zero below).
  const std::uint64_t significand = (magnitude & 0xf'ffff'ffff'ffffull) | (1ull << 52);
  const int shift = 52 - M + (exponent < minExponent ? minExponent - exponent : 0);
  if (shift > 53) return static_cast<std::uint16_t>(sign);  // below half the smallest subnormal
  std::uint64_t kept = significand >> shift;
  const std::uint64_t rest = significand & ((1ull << shift) - 1);
  const std::uint64_t halfway = 1ull << (shift - 1);
  if (rest > halfway || (rest == halfway && (kept & 1))) ++kept;
  // A normal number adds its exponent field; a carry out of the significand
  // (or a subnormal rounding up to the smallest normal) moves into it.
  std::uint64_t result = kept;
  if (exponent >= minExponent) result += static_cast<std::uint64_t>(exponent + bias - 1) << M;
  if (result >= infinity) result = infinity;
  return static_cast<std::uint16_t>(sign | result);
}

// What sets the two formats apart; Half<> below is everything they share.
// `native` is the compiler's arithmetic type (void where it has none),
// `abi` the by-value C type half.h describes (void where there is none).
struct F16Format {
  static constexpr int exponentBits = 5, significandBits = 10;
  static constexpr float widen(std::uint16_t h) noexcept {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0x1f)
      return std::bit_cast<float>(sign | 0x7f80'0000u | (mantissa ? 0x40'0000u | (mantissa << 13) : 0));
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
      const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
      return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
  }
#if defined(MEMJIT_HAS_FLOAT16)
  using native = _Float16;
  using abi = _Float16;
#elif defined(MEMJIT_HALF_FLOAT_CARRIER)
  using native = void;
  using abi = float;
#else
  using native = void;
  using abi = void;
#endif
};

struct BF16Format {
  static constexpr int exponentBits = 8, significandBits = 7;
  static constexpr float widen(std::uint16_t h) noexcept {
    std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;  // bf16 is the top half of a float
    if ((bits & 0x7fff'ffffu) > 0x7f80'0000u) bits |= 0x40'0000u;
    return std::bit_cast<float>(bits);
  }
#if defined(MEMJIT_HAS_BF16)
  using native = __bf16;
#else
  using native = void;
#endif
  // The float carrier first: clang 19 moves a __bf16 out of a register by
  // widening it to float and narrowing it back (quieting signalling NaNs, and
  // calling __truncsfbf2, which GCC 12's libgcc lacks).
#if defined(MEMJIT_HALF_FLOAT_CARRIER)
  using abi = float;
#elif defined(MEMJIT_HAS_BF16)
  using abi = __bf16;
#else
  using abi = void;
#endif
};

// The by-value ABI members (abi_type, toAbi, fromAbi) of a format that has
// one; none at all otherwise, so `typename H::abi_type` tells them apart.
template <typename Self, typename Abi>
struct ByValue {
  using abi_type = Abi;
  constexpr abi_type toAbi() const noexcept {
    const std::uint16_t bits = static_cast<const Self&>(*this).bits();
    if constexpr (std::is_same_v<Abi, float>)  // the carrier: the bits in a float's low half
      return std::bit_cast<float>(std::uint32_t{bits});
    else
      return std::bit_cast<Abi>(bits);
  }
  static constexpr Self fromAbi(abi_type v) noexcept {
    if constexpr (std::is_same_v<Abi, float>)
      return Self::fromBits(static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v)));
    else
      return Self::fromBits(std::bit_cast<std::uint16_t>(v));
  }
};
template <typename Self>
struct ByValue<Self, void> {};

// f16 and bf16 (`Self`, so the two stay distinct classes) over their Format.
template <typename Self, typename Format>
class Half : public ByValue<Self, typename Format::abi> {
  static constexpr std::uint16_t kInfinity = ((1u << Format::exponentBits) - 1) << Format::significandBits;

 public:
  Half() = default;  // uninitialised, as a float is
  constexpr explicit Half(float v) noexcept : bits_(narrow<Format::exponentBits, Format::significandBits>(v)) {}
  constexpr explicit Half(double v) noexcept : bits_(narrow<Format::exponentBits, Format::significandBits>(v)) {}
  /// From the compiler's type, where it has one: exact (a template, so a
  /// float argument is not silently narrowed through it).
  template <typename T>
    requires std::is_same_v<T, typename Format::native>
  constexpr Half(T v) noexcept : bits_(std::bit_cast<std::uint16_t>(v)) {}
  template <typename T>
    requires std::is_same_v<T, typename Format::native>
  constexpr explicit operator T() const noexcept {
    return std::bit_cast<T>(bits_);
  }

  static constexpr Self fromBits(std::uint16_t bits) noexcept {
    Self h;
    static_cast<Half&>(h).bits_ = bits;
    return h;
  }
  constexpr std::uint16_t bits() const noexcept { return bits_; }
  constexpr operator float() const noexcept { return Format::widen(bits_); }
  constexpr bool isNaN() const noexcept { return (bits_ & 0x7fffu) > kInfinity; }

  /// IEEE comparison: NaN is unordered, -0 == +0.
  friend constexpr bool operator==(Self a, Self b) noexcept { return float(a) == float(b); }
  friend constexpr std::partial_ordering operator<=>(Self a, Self b) noexcept { return float(a) <=> float(b); }

 private:
  std::uint16_t bits_;
};

}  // namespace half_detail

}  // namespace memjit
