// Floating-point semantics that must hold at every optimisation level
// (issue 24, found by differential testing): half-precision values keep
// their bits through control flow and sign-bit operations, math functions on
// halves round once, pow/atan2 on NaN follow C's Annex F, and float ->
// integer casts saturate. Each kernel runs through memjit::Jit at O0 and O3,
// so an optimiser that folds or vectorises differently from the unoptimised
// code is caught.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "elementwise.h"
#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "support/jit.h"

namespace memjit::codegen {
namespace {

using test::Descriptor1D;
using test::describe;

constexpr jit::OptLevel kLevels[] = {jit::OptLevel::O0, jit::OptLevel::O3};

using ElementOp = std::function<Value(FunctionBuilder&, Value i, Value x, Value y)>;

// out[i] = op(i, x[i], y[i]) over memrefs of `in` and `out` (MLIR element
// type names), compiled by memjit::Jit at `level`.
template <typename In, typename Out>
std::vector<Out> run(jit::OptLevel level, const std::string& in, const std::string& out, const ElementOp& op,
                     std::vector<In> x, std::vector<In> y) {
  Module m("float_semantics");
  {
    auto type = parseFunctionType("(memref<?x" + in + ">, memref<?x" + in + ">, memref<?x" + out + ">) -> ()");
    if (!type) ADD_FAILURE() << type.error().str();
    FunctionBuilder f(m, "op", *type);
    Value a = f.arg(0), b = f.arg(1), r = f.arg(2);
    f.forLoop(f.index(0), f.dim(a, 0), f.index(1),
              [&](Value i) { f.store(op(f, i, f.load(a, {i}), f.load(b, {i})), r, {i}); });
    f.ret();
    if (Error e = f.finish()) ADD_FAILURE() << e.str();
  }
  auto compiled = test::compileModule(std::move(m), {.optLevel = level});
  auto* fn = compiled.get<void(Descriptor1D<In>*, Descriptor1D<In>*, Descriptor1D<Out>*)>("op");
  std::vector<Out> result(x.size());
  auto dx = describe(x), dy = describe(y);
  auto dr = describe(result);
  fn(&dx, &dy, &dr);
  return result;
}

std::vector<std::uint16_t> everyHalf() {
  std::vector<std::uint16_t> v;
  for (std::uint32_t b = 0; b <= 0xffff; ++b) v.push_back(static_cast<std::uint16_t>(b));
  return v;
}

const char* const kHalves[] = {"f16", "bf16"};

std::string hex(std::uint16_t b) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%04x", b);
  return s;
}

// Every half bit pattern through `op` at O0 and O3 against `expected`.
using HalfExpectation = std::function<std::uint16_t(const std::string& half, std::size_t k, std::uint16_t x)>;
void checkEveryHalf(const ElementOp& op, const HalfExpectation& expected, const std::string& what) {
  const auto all = everyHalf();
  for (const char* half : kHalves)
    for (jit::OptLevel level : kLevels) {
      auto got = run<std::uint16_t, std::uint16_t>(level, half, half, op, all, all);
      int failures = 0;
      for (std::size_t k = 0; k < all.size() && failures < 5; ++k)
        if (got[k] != expected(half, k, all[k])) {
          ++failures;
          ADD_FAILURE() << what << " on " << half << " at " << jit::optLevelName(level) << ": " << hex(all[k])
                        << " gave " << hex(got[k]) << ", expected " << hex(expected(half, k, all[k]));
        }
    }
}

// --- half precision keeps its bits through control flow ---

TEST(FloatSemantics, HalvesCrossIfElseWithTheirBits) {
  // One arm yields the operand, the other a constant (what made the
  // unoptimised code narrow the merged value through f32).
  checkEveryHalf(
      [](FunctionBuilder& f, Value i, Value x, Value) {
        Value even = f.cmp(CmpPredicate::Eq, f.rem(i, f.index(2)), f.index(0));
        return f.ifElse(even, [&] { return std::vector<Value>{x}; },
                        [&] { return std::vector<Value>{f.constantLike(x, 1.0)}; })[0];
      },
      [](const std::string& half, std::size_t k, std::uint16_t x) {
        return k % 2 == 0 ? x : std::uint16_t(half == "f16" ? 0x3c00 : 0x3f80);
      },
      "ifElse(even, x, 1.0)");
}

TEST(FloatSemantics, HalvesCarriedThroughLoopsKeepTheirBits) {
  // A carried value that starts as a constant and is replaced by the operand.
  checkEveryHalf(
      [](FunctionBuilder& f, Value, Value x, Value) {
        return f.forLoop(f.index(0), f.index(1), f.index(1), {f.constantLike(x, 1.0)},
                         [&](Value, const std::vector<Value>&) { return std::vector<Value>{x}; })[0];
      },
      [](const std::string&, std::size_t, std::uint16_t x) { return x; }, "a loop-carried value");
}

TEST(FloatSemantics, HalvesSwappedRoundARuntimeLengthLoopKeepTheirBits) {
  // An odd, unknown trip count, so no level removes the loop, and a computed
  // half beside the operand: the i16 phis carrying them must not become half
  // phis again (CodeGenPrepare's optimizePhiType did that at O1 and O2, and
  // kept the phi in an f32 register).
  for (jit::OptLevel level : {jit::OptLevel::O0, jit::OptLevel::O1, jit::OptLevel::O2, jit::OptLevel::O3})
    for (const char* half : kHalves) {
      const auto all = everyHalf();
      auto got = run<std::uint16_t, std::uint16_t>(
          level, half, half,
          [](FunctionBuilder& f, Value i, Value x, Value y) {
            Value trips = f.add(f.mul(f.rem(i, f.index(2)), f.index(2)), f.index(1));
            return f.forLoop(f.index(0), trips, f.index(1), {x, f.add(y, y)},
                             [&](Value, const std::vector<Value>& c) { return std::vector<Value>{c[1], c[0]}; })[1];
          },
          all, all);
      int failures = 0;
      for (std::size_t k = 0; k < all.size() && failures < 5; ++k)
        if (got[k] != all[k] && ++failures)
          ADD_FAILURE() << half << " at " << jit::optLevelName(level) << ": " << hex(all[k]) << " gave " << hex(got[k]);
    }
}

// Code generation may split a block after memjit has passed halves across
// blocks as bits: it expands an atomic max into a loop of its own, and a
// two-lane gather (which x86 does not take whole) into a block per lane.
// A half loaded before such an operation and stored after it keeps its bits.
void checkHalvesLiveAcross(const std::string& what,
                           const std::function<void(FunctionBuilder&, Value i, Value counter)>& between) {
  const auto all = everyHalf();
  for (const char* half : kHalves)
    for (jit::OptLevel level : {jit::OptLevel::O0, jit::OptLevel::O1, jit::OptLevel::O2, jit::OptLevel::O3}) {
      Module m("live_across");
      {
        auto type = parseFunctionType(std::string("(memref<?x") + half + ">, memref<?xi32>, memref<?x" + half + ">) -> ()");
        ASSERT_TRUE(type.ok()) << type.error().str();
        FunctionBuilder f(m, "op", *type);
        Value x = f.arg(0), counter = f.arg(1), out = f.arg(2);
        f.forLoop(f.index(0), f.dim(x, 0), f.index(1), [&](Value i) {
          Value v = f.load(x, {i});
          between(f, i, counter);
          f.store(v, out, {i});
        });
        f.ret();
        ASSERT_FALSE(f.finish());
      }
      auto compiled = test::compileModule(std::move(m), {.optLevel = level});
      auto* fn = compiled.get<void(Descriptor1D<std::uint16_t>*, Descriptor1D<std::int32_t>*,
                                   Descriptor1D<std::uint16_t>*)>("op");
      std::vector<std::uint16_t> x = all, got(all.size());
      std::vector<std::int32_t> counter{0, 0};
      auto dx = describe(x), dg = describe(got);
      auto dc = describe(counter);
      fn(&dx, &dc, &dg);
      EXPECT_EQ(counter[0], 0xffff) << what;
      int failures = 0;
      for (std::size_t k = 0; k < all.size() && failures < 5; ++k)
        if (got[k] != all[k] && ++failures)
          ADD_FAILURE() << half << " across " << what << " at " << jit::optLevelName(level) << ": " << hex(all[k])
                        << " gave " << hex(got[k]);
    }
}

TEST(FloatSemantics, HalvesLiveAcrossAnAtomicKeepTheirBits) {
  checkHalvesLiveAcross("an atomic max", [](FunctionBuilder& f, Value i, Value counter) {
    f.atomicRMW(AtomicKind::Maxu, f.cast(i, ElementType::I32), counter, {f.index(0)});
  });
}

TEST(FloatSemantics, HalvesLiveAcrossATwoLaneGatherKeepTheirBits) {
  checkHalvesLiveAcross("a two-lane gather", [](FunctionBuilder& f, Value i, Value counter) {
    Value zero = f.index(0), one = f.index(1);
    // A mask known only at run time (a constant one makes plain loads of the lanes, no blocks).
    Value on = f.cmp(CmpPredicate::Eq, f.load(counter, {one}), f.constant(ElementType::I32, 0));
    Value lanes = f.gather(counter, {zero}, f.fromElements({one, zero}), f.fromElements({on, on}),
                           f.fromElements({f.constant(ElementType::I32, 0), f.constant(ElementType::I32, 0)}));
    // Both lanes used, so no level drops the gather; counter[0] ends as the last i.
    Value sum = f.add(f.extract(lanes, 0), f.sub(f.extract(lanes, 1), f.extract(lanes, 1)));
    f.store(f.max(f.cast(i, ElementType::I32), sum), counter, {zero});
  });
}

TEST(FloatSemantics, MinimumfAndMaximumfOfASignallingNaNAndAKnownNumberAreNaN) {
  // The number is an integer converted to f32, which LLVM knows is no NaN; x86
  // then orders the operands with a quiet-NaN test that a signalling NaN fails.
  const std::vector<std::uint32_t> x = {0xff931171 /* -sNaN */, 0x7fa00000 /* sNaN */, 0x7fc00001, 0x3f800000 /* 1 */};
  const std::vector<std::uint32_t> y(x.size(), 0x47000000 /* 32768 */);
  for (bool isMax : {false, true})
    for (jit::OptLevel level : {jit::OptLevel::O0, jit::OptLevel::O2, jit::OptLevel::O3}) {
      auto got = run<std::uint32_t, std::uint32_t>(
          level, "f32", "f32",
          [isMax](FunctionBuilder& f, Value, Value a, Value b) {
            Value number = f.cast(f.cast(b, ElementType::UI16), ElementType::F32);
            return isMax ? f.maximumf(a, number) : f.minimumf(a, number);
          },
          x, y);
      for (std::size_t i = 0; i < 3; ++i)
        EXPECT_TRUE(std::isnan(std::bit_cast<float>(got[i])))
            << (isMax ? "maximumf" : "minimumf") << " of " << std::hex << x[i] << " gave " << got[i] << " at "
            << jit::optLevelName(level);
      EXPECT_EQ(got[3], isMax ? 0x47000000u : 0x3f800000u) << jit::optLevelName(level);
    }
}

// --- sign-bit operations are bit operations ---

TEST(FloatSemantics, HalfAbsClearsTheSignBitOnly) {
  checkEveryHalf([](FunctionBuilder& f, Value, Value x, Value) { return f.abs(x); },
                 [](const std::string&, std::size_t, std::uint16_t x) { return std::uint16_t(x & 0x7fff); }, "abs");
}

TEST(FloatSemantics, HalfNegFlipsTheSignBitOnly) {
  checkEveryHalf([](FunctionBuilder& f, Value, Value x, Value) { return f.neg(x); },
                 [](const std::string&, std::size_t, std::uint16_t x) { return std::uint16_t(x ^ 0x8000); }, "neg");
}

TEST(FloatSemantics, HalfCopysignOfItselfIsItself) {
  checkEveryHalf([](FunctionBuilder& f, Value, Value x, Value) { return f.copysign(x, x); },
                 [](const std::string&, std::size_t, std::uint16_t x) { return x; }, "copysign(x, x)");
}

TEST(FloatSemantics, HalfCopysignTakesTheSignBitOfItsSecondOperand) {
  // The sign comes from a value that itself went through arithmetic and a
  // bitcast (the fuzzer's f16 copysign(-inf, bitcast<f16>(bf16 rem)) gave +inf).
  for (jit::OptLevel level : kLevels) {
    auto got = run<std::uint16_t, std::uint16_t>(
        level, "bf16", "f16",
        [](FunctionBuilder& f, Value, Value x, Value y) {
          Value sign = f.bitcast(f.rem(x, y), ElementType::F16);
          return f.copysign(f.constant(ElementType::F16, -std::numeric_limits<double>::infinity()), sign);
        },
        {0xc312 /* -146 */, 0x4312 /* 146 */, 0x7fb1 /* sNaN */}, {0xe7ff /* -2.4e24 */, 0xe7ff, 0x3f80});
    EXPECT_EQ(got, (std::vector<std::uint16_t>{0xfc00, 0x7c00, 0x7c00})) << jit::optLevelName(level);
  }
}

// --- math functions on halves round once ---

double widen(const std::string& half, std::uint16_t h) {
  if (half == "f16") return static_cast<double>(std::bit_cast<_Float16>(h));
  return static_cast<double>(std::bit_cast<float>(std::uint32_t{h} << 16));
}

// Correct rounding of a double to `half` (a NaN: some quiet NaN).
std::uint16_t narrow(const std::string& half, double d) {
  if (half == "f16") return std::bit_cast<std::uint16_t>(static_cast<_Float16>(d));
  if (std::isnan(d)) return 0x7fc0;
  // Round to odd into float (no tie can then arise), then to nearest even.
  float f = static_cast<float>(d);
  std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if (std::isfinite(f) && static_cast<double>(f) != d) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) --bits;
    bits |= 1;
  }
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(bits >> 16);
}

TEST(FloatSemantics, HalfRsqrtRoundsOnce) {
  const auto all = everyHalf();
  for (const char* half : kHalves)
    for (jit::OptLevel level : kLevels) {
      auto got = run<std::uint16_t, std::uint16_t>(
          level, half, half, [](FunctionBuilder& f, Value, Value x, Value) { return f.rsqrt(x); }, all, all);
      int failures = 0;
      for (std::size_t k = 0; k < all.size() && failures < 5; ++k) {
        const double expected = 1.0 / std::sqrt(widen(half, all[k]));
        const bool bothNaN = std::isnan(expected) && std::isnan(widen(half, got[k]));
        if (!bothNaN && got[k] != narrow(half, expected)) {
          ++failures;
          ADD_FAILURE() << "rsqrt on " << half << " at " << jit::optLevelName(level) << ": " << hex(all[k])
                        << " gave " << hex(got[k]) << ", expected " << hex(narrow(half, expected));
        }
      }
    }
}

// --- powi on vectors (MLIR's math.fpowi: an exponent per lane) ---

TEST(FloatSemantics, PowiTakesAVectorExponentPerLane) {
  const std::vector<float> bases = {2.0f, -3.0f, 0.5f, 10.0f, -0.0f, 1.5f, std::numeric_limits<float>::infinity(), 7.0f};
  const std::vector<std::int32_t> exponents = {3, -2, 10, 0, -1, 5, -3, 1};
  for (jit::OptLevel level : kLevels) {
    Module m("powi");
    {
      FunctionBuilder f(m, "op", *parseFunctionType("(memref<8xf32>, memref<8xi32>, memref<8xf32>) -> ()"));
      Value base = f.vectorLoad(f.arg(0), {f.index(0)}, 8);
      Value n = f.vectorLoad(f.arg(1), {f.index(0)}, 8);
      f.vectorStore(f.powi(base, n), f.arg(2), {f.index(0)});
      f.ret();
      ASSERT_FALSE(f.finish());
    }
    auto compiled = test::compileModule(std::move(m), {.optLevel = level});
    auto* fn = compiled.get<void(Descriptor1D<float>*, Descriptor1D<std::int32_t>*, Descriptor1D<float>*)>("op");
    std::vector<float> x = bases, r(8);
    std::vector<std::int32_t> n = exponents;
    auto dx = describe(x);
    auto dn = describe(n);
    auto dr = describe(r);
    fn(&dx, &dn, &dr);
    for (std::size_t k = 0; k < 8; ++k)
      EXPECT_EQ(r[k], static_cast<float>(std::pow(static_cast<double>(bases[k]), exponents[k])))
          << bases[k] << "^" << exponents[k] << " at " << jit::optLevelName(level);
  }
}

// --- NaN through pow and atan2 ---

template <typename T>
T signallingNaN() {
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<T>(std::uint32_t{0x7fb03e6d});
  else
    return std::bit_cast<T>(std::uint64_t{0x7ff4000000003e6dULL});
}

template <typename T>
void checkPowOfNaN(const std::string& type) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), snan = signallingNaN<T>();
  // pow(1, y) = 1 and pow(x, +-0) = 1 for every x and y, NaNs (quiet or
  // signalling) included, as C's Annex F says; a NaN otherwise gives NaN.
  const std::vector<T> x = {1, 1, 1, nan, snan, snan, 2, nan, snan, -1};
  const std::vector<T> y = {nan, snan, -snan, 0, 0, -0.0, nan, 2, 1, snan};
  const std::vector<T> expected = {1, 1, 1, 1, 1, 1, nan, nan, nan, nan};
  for (jit::OptLevel level : kLevels) {
    auto got = run<T, T>(level, type, type, [](FunctionBuilder& f, Value, Value a, Value b) { return f.pow(a, b); }, x, y);
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (std::isnan(expected[k]))
        EXPECT_TRUE(std::isnan(got[k])) << "pow(" << x[k] << ", " << y[k] << ") at " << jit::optLevelName(level);
      else
        EXPECT_EQ(got[k], expected[k]) << "pow(" << x[k] << ", " << y[k] << ") #" << k << " at "
                                       << jit::optLevelName(level);
    }
  }
}

TEST(FloatSemantics, PowOfOneOrToTheZeroIsOneEvenForNaN) {
  checkPowOfNaN<float>("f32");
  checkPowOfNaN<double>("f64");
}

template <typename T>
void checkAtan2OfNaN(const std::string& type) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), snan = signallingNaN<T>();
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> x, y;
  for (T a : {nan, snan, -nan, T(1), inf, T(0)})
    for (T b : {nan, snan, T(1), inf, T(-2)}) {
      x.push_back(a);
      y.push_back(b);
    }
  for (jit::OptLevel level : kLevels) {
    auto got =
        run<T, T>(level, type, type, [](FunctionBuilder& f, Value, Value a, Value b) { return f.atan2(a, b); }, x, y);
    for (std::size_t k = 0; k < x.size(); ++k) {
      const T expected = std::atan2(x[k], y[k]);
      if (std::isnan(x[k]) || std::isnan(y[k])) {
        EXPECT_TRUE(std::isnan(got[k])) << "atan2(" << x[k] << ", " << y[k] << ") = " << got[k] << " at "
                                        << jit::optLevelName(level);
      } else {  // libmvec's vector atan2 (O3) is within an ulp or two
        EXPECT_NEAR(got[k], expected, 4 * std::numeric_limits<T>::epsilon() * std::fabs(expected))
            << "atan2(" << x[k] << ", " << y[k] << ") at " << jit::optLevelName(level);
      }
    }
    // atan2(x, x): the same NaN on both sides.
    got = run<T, T>(level, type, type, [](FunctionBuilder& f, Value, Value a, Value) { return f.atan2(a, a); }, x, y);
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (!std::isnan(x[k])) continue;
      EXPECT_TRUE(std::isnan(got[k])) << "atan2(" << x[k] << ", itself) = " << got[k] << " at "
                                      << jit::optLevelName(level);
    }
  }
}

TEST(FloatSemantics, Atan2OfNaNIsNaN) {
  checkAtan2OfNaN<float>("f32");
  checkAtan2OfNaN<double>("f64");
}

// --- float -> integer casts saturate ---

template <typename From, typename To>
void checkSaturatingCast(const std::string& from, const std::string& to, ElementType toType) {
  const From inf = std::numeric_limits<From>::infinity();
  const std::vector<From> x = {std::numeric_limits<From>::quiet_NaN(), -std::numeric_limits<From>::quiet_NaN(),
                               signallingNaN<From>(), inf, -inf, From(1e30), From(-1e30), From(2147483648.0),
                               From(-2147483904.0), From(4294967296.0), From(-1.5), From(-0.0), From(255.9),
                               From(256), From(-129), From(3.75)};
  for (jit::OptLevel level : kLevels) {
    auto got = run<From, To>(
        level, from, to, [&](FunctionBuilder& f, Value, Value a, Value) { return f.cast(a, toType); }, x, x);
    for (std::size_t k = 0; k < x.size(); ++k) {
      To expected = 0;
      const long double v = x[k];
      if (std::isnan(x[k]))
        expected = 0;
      else if (v <= static_cast<long double>(std::numeric_limits<To>::min()))
        expected = std::numeric_limits<To>::min();
      else if (v >= static_cast<long double>(std::numeric_limits<To>::max()))
        expected = std::numeric_limits<To>::max();
      else
        expected = static_cast<To>(x[k]);
      EXPECT_EQ(got[k], expected) << from << " " << x[k] << " to " << to << " at " << jit::optLevelName(level);
    }
  }
}

TEST(FloatSemantics, FloatToIntegerSaturatesAndNaNIsZero) {
  checkSaturatingCast<float, std::int32_t>("f32", "i32", ElementType::I32);
  checkSaturatingCast<float, std::uint32_t>("f32", "ui32", ElementType::UI32);
  checkSaturatingCast<double, std::int64_t>("f64", "si64", ElementType::SI64);
  checkSaturatingCast<double, std::uint8_t>("f64", "ui8", ElementType::UI8);
  checkSaturatingCast<double, std::int8_t>("f64", "i8", ElementType::I8);
  checkSaturatingCast<float, std::int64_t>("f32", "index", ElementType::Index);
}

TEST(FloatSemantics, HalfToIntegerSaturates) {
  // f16 65504 (the largest), +inf, -inf, NaN, -1.5; bf16 3.39e38, -3.39e38, 2^31.
  for (jit::OptLevel level : kLevels) {
    auto f16 = run<std::uint16_t, std::uint16_t>(
        level, "f16", "ui16",
        [](FunctionBuilder& f, Value, Value a, Value) { return f.cast(a, ElementType::UI16); },
        {0x7bff, 0x7c00, 0xfc00, 0x7e00, 0xbe00}, {0, 0, 0, 0, 0});
    EXPECT_EQ(f16, (std::vector<std::uint16_t>{65504, 65535, 0, 0, 0})) << jit::optLevelName(level);
    auto bf16 = run<std::uint16_t, std::int32_t>(
        level, "bf16", "si32",
        [](FunctionBuilder& f, Value, Value a, Value) { return f.cast(a, ElementType::SI32); },
        {0x7f7f, 0xff7f, 0x4f00, 0xcf00}, {0, 0, 0, 0});
    EXPECT_EQ(bf16, (std::vector<std::int32_t>{INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN}))
        << jit::optLevelName(level);
  }
}

TEST(FloatSemantics, FloatToI1IsUnsigned) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (jit::OptLevel level : kLevels) {
    auto got = run<float, std::uint8_t>(
        level, "f32", "i8",
        [](FunctionBuilder& f, Value, Value a, Value) {
          return f.select(f.cast(a, ElementType::I1), f.constant(ElementType::I8, 1), f.constant(ElementType::I8, 0));
        },
        {0.0f, 1.0f, 0.75f, 2.0f, -1.0f, nan, 1e30f}, {0, 0, 0, 0, 0, 0, 0});
    EXPECT_EQ(got, (std::vector<std::uint8_t>{0, 1, 0, 1, 0, 0, 1})) << jit::optLevelName(level);
  }
}

TEST(FloatSemantics, NaNThroughAnIntegerRoundTripIsZero) {
  // The fuzzer's float -> integer -> float: 2^31 at O3, something else at O0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (jit::OptLevel level : kLevels) {
    auto got = run<float, float>(
        level, "f32", "f32",
        [](FunctionBuilder& f, Value, Value a, Value) { return f.cast(f.cast(a, ElementType::I32), ElementType::F32); },
        {nan, -nan, 1e10f, -1e10f}, {nan, nan, nan, nan});
    EXPECT_EQ(got, (std::vector<float>{0.0f, 0.0f, 2147483648.0f, -2147483648.0f})) << jit::optLevelName(level);
  }
}

}  // namespace
}  // namespace memjit::codegen
