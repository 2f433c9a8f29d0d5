#include "float_formats.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace memjit::difftest {

FloatFormat formatOf(ElementType t) {
  switch (t) {
    case ElementType::F16: return {11, 5, 16};
    case ElementType::BF16: return {8, 8, 16};
    case ElementType::F32: return {24, 8, 32};
    default: return {53, 11, 64};
  }
}

namespace {
std::uint64_t mask(int width) { return width == 64 ? ~0ULL : (1ULL << width) - 1; }
int bias(const FloatFormat& f) { return (1 << (f.exponentBits - 1)) - 1; }
}  // namespace

std::uint64_t signBit(ElementType t) { return 1ULL << (formatOf(t).width - 1); }

double decodeFloat(ElementType t, std::uint64_t bits) {
  const FloatFormat f = formatOf(t);
  if (f.width == 64) return std::bit_cast<double>(bits);
  const int mantBits = f.precision - 1;
  const std::uint64_t mant = bits & mask(mantBits);
  const std::uint64_t exp = (bits >> mantBits) & mask(f.exponentBits);
  const bool negative = (bits >> (f.width - 1)) & 1;
  double v;
  if (exp == mask(f.exponentBits)) {
    if (mant == 0) {
      v = INFINITY;
    } else {  // keep the payload's top bits and quietness as the hardware extends them
      const std::uint64_t d = (0x7ffULL << 52) | (mant << (52 - mantBits));
      v = std::bit_cast<double>(d);
    }
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), 1 - bias(f) - mantBits);
  } else {
    v = std::ldexp(static_cast<double>(mant | (1ULL << mantBits)), static_cast<int>(exp) - bias(f) - mantBits);
  }
  return negative ? -v : v;
}

std::uint64_t roundToFloat(ElementType t, double x) {
  const FloatFormat f = formatOf(t);
  if (f.width == 64) return std::bit_cast<std::uint64_t>(x);
  const int mantBits = f.precision - 1;
  const std::uint64_t sign = std::signbit(x) ? 1ULL << (f.width - 1) : 0;
  const std::uint64_t expAll = mask(f.exponentBits) << mantBits;
  if (std::isnan(x)) {
    const std::uint64_t payload = (std::bit_cast<std::uint64_t>(x) >> (52 - mantBits)) & mask(mantBits);
    return sign | expAll | payload | (1ULL << (mantBits - 1));
  }
  double a = std::fabs(x);
  if (std::isinf(a)) return sign | expAll;
  if (a == 0) return sign;
  const int emin = 1 - bias(f), emax = bias(f);
  int e;
  std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1): the leading bit has weight 2^(e-1)
  const int exponent = e - 1 < emin ? emin : e - 1;
  const double quantumLog = exponent - mantBits;
  const double scaled = std::ldexp(a, static_cast<int>(-quantumLog));  // exact: a power-of-two scale
  double n = std::floor(scaled);
  const double fraction = scaled - n;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(n, 2.0) != 0)) n += 1;
  const double rounded = std::ldexp(n, static_cast<int>(quantumLog));
  if (rounded >= std::ldexp(1.0, emax + 1)) return sign | expAll;
  if (rounded < std::ldexp(1.0, emin)) return sign | static_cast<std::uint64_t>(n);  // denormal (or the smallest normal)
  int re;
  std::frexp(rounded, &re);
  const int biased = re - 1 + bias(f);
  const std::uint64_t significand = static_cast<std::uint64_t>(std::ldexp(rounded, -(re - 1 - mantBits)));
  return sign | (static_cast<std::uint64_t>(biased) << mantBits) | (significand & mask(mantBits));
}

std::uint64_t roundIntegerToFloat(ElementType t, std::uint64_t magnitude, bool negative) {
  // Round to 53 bits first: to nearest even for f64, to odd otherwise (then the
  // second rounding to p <= 51 bits is exact-once).
  const bool toOdd = formatOf(t).width != 64;
  int length = 64 - std::countl_zero(magnitude);
  double v;
  if (length <= 53) {
    v = static_cast<double>(magnitude);
  } else {
    const int shift = length - 53;
    std::uint64_t q = magnitude >> shift;
    const std::uint64_t rest = magnitude & mask(shift);
    const std::uint64_t half = 1ULL << (shift - 1);
    if (toOdd) {
      if (rest) q |= 1;
    } else if (rest > half || (rest == half && (q & 1))) {
      ++q;
    }
    v = std::ldexp(static_cast<double>(q), shift);
  }
  return roundToFloat(t, negative ? -v : v);
}

bool isNaNBits(ElementType t, std::uint64_t bits) {
  const FloatFormat f = formatOf(t);
  const int mantBits = f.precision - 1;
  return ((bits >> mantBits) & mask(f.exponentBits)) == mask(f.exponentBits) && (bits & mask(mantBits)) != 0;
}

bool isDenormalBits(ElementType t, std::uint64_t bits) {
  const FloatFormat f = formatOf(t);
  const int mantBits = f.precision - 1;
  return ((bits >> mantBits) & mask(f.exponentBits)) == 0 && (bits & mask(mantBits)) != 0;
}

std::uint64_t ulpDistance(ElementType t, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t s = signBit(t);
  auto ordered = [&](std::uint64_t v) -> std::int64_t {
    const std::int64_t magnitude = static_cast<std::int64_t>(v & (s - 1));
    return (v & s) ? -magnitude : magnitude;
  };
  const std::int64_t x = ordered(a), y = ordered(b);
  return x > y ? static_cast<std::uint64_t>(x - y) : static_cast<std::uint64_t>(y - x);
}

}  // namespace memjit::difftest
