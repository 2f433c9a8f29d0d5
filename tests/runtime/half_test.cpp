// memjit::f16 and memjit::bf16: bit-exact storage, conversions checked
// against an independent reference (the nearest of all finite values of the
// format, ties to the even pattern) and against the compiler's _Float16.
#include "memjit/runtime/half.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using memjit::bf16;
using memjit::f16;

namespace {

std::uint32_t floatBits(float f) { return std::bit_cast<std::uint32_t>(f); }

// A format's finite non-negative values, ascending, with their patterns,
// widened by exact arithmetic on the fields (not by the code under test).
template <int E, int M>
struct Reference {
  struct Entry {
    double value;
    std::uint16_t bits;
  };
  std::vector<Entry> values;
  std::uint16_t infinity = static_cast<std::uint16_t>(((1u << E) - 1) << M);

  Reference() {
    const int bias = (1 << (E - 1)) - 1;
    for (std::uint32_t b = 0; b < infinity; ++b) {
      const std::uint32_t exponent = b >> M, mantissa = b & ((1u << M) - 1);
      double v = exponent == 0 ? std::ldexp(mantissa, 1 - bias - M)
                               : std::ldexp((1u << M) | mantissa, static_cast<int>(exponent) - bias - M);
      values.push_back({v, static_cast<std::uint16_t>(b)});
    }
  }
  double max() const { return values.back().value; }
  // What rounding `d` (not NaN) to nearest, ties to even, must give.
  std::uint16_t round(double d) const {
    const std::uint16_t sign = std::signbit(d) ? 0x8000 : 0;
    const double a = std::fabs(d);
    if (std::isinf(a)) return sign | infinity;
    auto it = std::upper_bound(values.begin(), values.end(), a, [](double x, const Entry& e) { return x < e.value; });
    const Entry lo = *(it - 1);
    // Past the largest finite value the next candidate is infinity, one ulp up.
    const Entry hi = it != values.end() ? *it : Entry{max() + (max() - (values.end() - 2)->value), infinity};
    if (a == lo.value) return sign | lo.bits;
    const double below = a - lo.value, above = hi.value - a;  // exact: both are short in double
    if (below < above) return sign | lo.bits;
    if (above < below) return sign | hi.bits;
    return sign | ((lo.bits & 1) ? hi.bits : lo.bits);
  }
  // Inputs that exercise every rounding boundary: each value, each midpoint
  // (a tie) and the doubles next to it on either side, past the maximum, and
  // random doubles across and beyond the format's range.
  std::vector<double> inputs() const {
    std::vector<double> in;
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
      const double a = values[i].value, mid = (a + values[i + 1].value) / 2;
      for (double x : {a, mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e308)}) {
        in.push_back(x);
        in.push_back(-x);
      }
    }
    const double ulp = max() - (values.end() - 2)->value;
    for (double x : {max() + ulp / 2, std::nextafter(max() + ulp / 2, 0.0), max() + ulp, 1e300, 1e-300,
                     std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity()}) {
      in.push_back(x);
      in.push_back(-x);
    }
    std::mt19937_64 rng(12);
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    std::uniform_int_distribution<int> exponent(-160, 140);
    for (int i = 0; i < 200000; ++i) in.push_back(std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1));
    return in;
  }
};

const Reference<5, 10>& f16Reference() {
  static const Reference<5, 10> r;
  return r;
}
const Reference<8, 7>& bf16Reference() {
  static const Reference<8, 7> r;
  return r;
}

}  // namespace

TEST(Half, StorageIsTheBitPattern) {
  static_assert(sizeof(f16) == 2 && std::is_trivially_copyable_v<f16> && std::is_standard_layout_v<f16>);
  static_assert(sizeof(bf16) == 2 && std::is_trivially_copyable_v<bf16> && std::is_standard_layout_v<bf16>);
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    f16 h = f16::fromBits(static_cast<std::uint16_t>(b));
    bf16 g = bf16::fromBits(static_cast<std::uint16_t>(b));
    std::uint16_t stored;
    std::memcpy(&stored, &h, 2);
    ASSERT_EQ(stored, b);
    std::memcpy(&stored, &g, 2);
    ASSERT_EQ(stored, b);
    ASSERT_EQ(h.bits(), b);
    ASSERT_EQ(g.bits(), b);
  }
}

TEST(Half, ConversionsAreConstexpr) {
  static_assert(f16(1.0f).bits() == 0x3c00);
  static_assert(f16(-2.0).bits() == 0xc000);
  static_assert(bf16(1.0f).bits() == 0x3f80);
  static_assert(float(f16::fromBits(0x3555)) == 0.333251953125f);
  static_assert(float(bf16::fromBits(0x4049)) == 3.140625f);
}

TEST(Half, WideningIsExact) {
  const auto& f = f16Reference();
  for (const auto& e : f.values) {
    ASSERT_EQ(float(f16::fromBits(e.bits)), e.value) << std::hex << e.bits;
    ASSERT_EQ(float(f16::fromBits(e.bits | 0x8000)), -e.value) << std::hex << e.bits;
  }
  const auto& g = bf16Reference();
  for (const auto& e : g.values) {
    ASSERT_EQ(float(bf16::fromBits(e.bits)), e.value) << std::hex << e.bits;
    ASSERT_EQ(floatBits(bf16::fromBits(e.bits)), std::uint32_t{e.bits} << 16);
  }
  EXPECT_EQ(floatBits(f16::fromBits(0x8000)), 0x8000'0000u);  // -0 keeps its sign
  EXPECT_EQ(float(f16::fromBits(0x7c00)), std::numeric_limits<float>::infinity());
  EXPECT_EQ(float(bf16::fromBits(0xff80)), -std::numeric_limits<float>::infinity());
}

TEST(Half, NarrowingRoundsToNearestEvenOnce) {
  const auto& f = f16Reference();
  for (double d : f.inputs()) {
    ASSERT_EQ(f16(d).bits(), f.round(d)) << std::hexfloat << d;
    const float x = static_cast<float>(d);
    ASSERT_EQ(f16(x).bits(), f.round(x)) << std::hexfloat << x;
  }
  const auto& g = bf16Reference();
  for (double d : g.inputs()) {
    ASSERT_EQ(bf16(d).bits(), g.round(d)) << std::hexfloat << d;
    const float x = static_cast<float>(d);
    ASSERT_EQ(bf16(x).bits(), g.round(x)) << std::hexfloat << x;
  }
}

TEST(Half, EdgeValues) {
  EXPECT_EQ(f16(-0.0).bits(), 0x8000);
  EXPECT_EQ(f16(65504.0).bits(), 0x7bff);                   // max
  EXPECT_EQ(f16(65519.99).bits(), 0x7bff);                  // below the tie with infinity
  EXPECT_EQ(f16(65520.0).bits(), 0x7c00);                   // the tie goes to the even pattern: inf
  EXPECT_EQ(f16(-1e300).bits(), 0xfc00);                    // overflow
  EXPECT_EQ(f16(0x1p-24).bits(), 0x0001);                   // smallest subnormal
  EXPECT_EQ(f16(0x1p-25).bits(), 0x0000);                   // tie with zero: even
  EXPECT_EQ(f16(0x1.8p-24).bits(), 0x0002);                 // tie between 1 and 2 ulps: even
  EXPECT_EQ(f16(0x1.ff8p-15).bits(), 0x03ff);               // largest subnormal
  EXPECT_EQ(f16(0x1.ffcp-15).bits(), 0x0400);               // tie: rounds up (even) into the smallest normal
  EXPECT_EQ(f16(1.0 + 0x1p-11).bits(), 0x3c00);             // tie: even
  EXPECT_EQ(f16(1.0 + 0x1p-11 + 0x1p-40).bits(), 0x3c01);  // a float would round this to the tie first
  EXPECT_EQ(bf16(1.0 + 0x1p-8 + 0x1p-40).bits(), 0x3f81);
  EXPECT_EQ(bf16(1.0 + 0x1p-8).bits(), 0x3f80);
  EXPECT_EQ(bf16(1.0 + 0x3p-8).bits(), 0x3f82);
  EXPECT_EQ(bf16(0x1p-133).bits(), 0x0001);                 // bf16's smallest subnormal
  EXPECT_EQ(bf16(3.39e38).bits(), 0x7f7f);                  // max is 3.3895e38
  EXPECT_EQ(bf16(3.4e38).bits(), 0x7f80);                   // past max + half an ulp (3.3962e38)
}

TEST(Half, NaNStaysNaNQuietedWithItsPayload) {
  const double nan = std::bit_cast<double>(0xfff0'0000'0000'0001ull);  // signalling, payload only in the low bit
  EXPECT_EQ(f16(nan).bits(), 0xfe00);                                   // quiet bit set: still NaN
  EXPECT_EQ(bf16(nan).bits(), 0xffc0);
  EXPECT_EQ(f16(std::bit_cast<double>(0x7ff5'5000'0000'0000ull)).bits(), 0x7f54);  // top 10 payload bits
  EXPECT_EQ(f16(std::bit_cast<float>(0x7fa0'0000u)).bits(), 0x7f00);
  EXPECT_EQ(bf16(std::bit_cast<float>(0x7f81'0000u)).bits(), 0x7fc1);
  EXPECT_EQ(floatBits(f16::fromBits(0x7d01)), 0x7fe0'2000u);
  EXPECT_EQ(floatBits(bf16::fromBits(0xff81)), 0xffc1'0000u);
  EXPECT_TRUE(f16::fromBits(0x7c01).isNaN());
  EXPECT_FALSE(f16::fromBits(0x7c00).isNaN());
  EXPECT_TRUE(bf16::fromBits(0x7f81).isNaN());
  EXPECT_FALSE(bf16::fromBits(0xff80).isNaN());
}

TEST(Half, ComparisonIsIEEE) {
  EXPECT_TRUE(f16(1.0) < f16(2.0));
  EXPECT_TRUE(f16(-0.0) == f16(0.0));
  EXPECT_NE(f16(-0.0).bits(), f16(0.0).bits());
  const f16 nan = f16::fromBits(0x7e00);
  EXPECT_FALSE(nan == nan);
  EXPECT_FALSE(nan < f16(1.0) || nan > f16(1.0));
  EXPECT_TRUE(bf16(3.0) >= bf16(2.0));
  EXPECT_TRUE(f16(0.5) == 0.5f);  // through the exact conversion to float
}

#if defined(MEMJIT_HAS_FLOAT16)
TEST(Half, AgreesWithTheCompilersFloat16) {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    _Float16 native;
    std::uint16_t bits = static_cast<std::uint16_t>(b);
    std::memcpy(&native, &bits, 2);
    ASSERT_EQ(floatBits(f16::fromBits(bits)), floatBits(static_cast<float>(native))) << std::hex << b;
  }
  for (double d : f16Reference().inputs()) {
    _Float16 native = static_cast<_Float16>(d);
    ASSERT_EQ(f16(d).bits(), std::bit_cast<std::uint16_t>(native)) << std::hexfloat << d;
  }
  for (std::uint64_t payload : {1ull, 0x8'0000'0000'0000ull, 0x5'5000'0000'0000ull}) {
    const double nan = std::bit_cast<double>(0x7ff0'0000'0000'0000ull | payload);
    EXPECT_EQ(f16(nan).bits(), std::bit_cast<std::uint16_t>(static_cast<_Float16>(nan)));
  }
  // Interop: exact both ways, and the by-value carrier is the type itself.
  const _Float16 x = static_cast<_Float16>(1.5f);
  f16 h = x;
  EXPECT_EQ(h.bits(), 0x3e00);
  EXPECT_EQ(static_cast<float>(static_cast<_Float16>(h)), 1.5f);
  static_assert(std::is_same_v<f16::abi_type, _Float16>);
}
#endif

#if defined(MEMJIT_HALF_BY_VALUE)
TEST(Half, AbiCarrierKeepsEveryPattern) {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    ASSERT_EQ(f16::fromAbi(f16::fromBits(bits).toAbi()).bits(), bits);
    ASSERT_EQ(bf16::fromAbi(bf16::fromBits(bits).toAbi()).bits(), bits);
  }
}
#endif
