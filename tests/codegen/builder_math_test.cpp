// The math and float operations of the kernel builder on edge values (NaN,
// +-inf, -0, denormals, the largest finite values), each against the C++
// reference, unoptimised and at O3. Functions the builder lowers to libm (or
// to intrinsics LLVM lowers to libm) must match glibc's scalar results bit
// for bit; NaNs match any NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "elementwise.h"
#include "memjit/codegen/builder.h"

namespace memjit::codegen {
namespace {

using test::allPairs;
using test::BinaryOp;
using test::runBinary;

template <typename T>
std::vector<T> floatEdges() {
  using L = std::numeric_limits<T>;
  return {T(0),       T(-0.0),     T(1),         T(-1),         T(0.5),         T(-0.5),         T(2.5),
          T(-2.5),    T(3.7),      T(-3.7),      T(0.1),        T(100),         T(-100),         T(1e10),
          L::max(),   -L::max(),   L::min(),     L::denorm_min(), -L::denorm_min(), L::infinity(), -L::infinity(),
          L::quiet_NaN()};
}

template <typename T>
bool sameFloat(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
void check(const std::string& type, const char* name, const BinaryOp& op, const std::function<T(T, T)>& reference,
           bool unary = false) {
  std::vector<T> a, b;
  if (unary) {
    a = b = floatEdges<T>();
  } else {
    std::tie(a, b) = allPairs(floatEdges<T>());
  }
  for (bool optimize : {false, true}) {
    auto r = runBinary<T, T>(type, type, op, a, b, optimize);
    ASSERT_TRUE(r.ok()) << name << " " << type << ": " << r.error().str();
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(sameFloat((*r)[i], reference(a[i], b[i])))
          << name << "(" << a[i] << ", " << b[i] << ") on " << type << (optimize ? " at O3" : "") << ": got "
          << (*r)[i] << ", want " << reference(a[i], b[i]);
  }
}

// NaN-propagating minimum with -0 < +0 (IEEE 754-2019 minimum).
template <typename T>
T minimum(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename T>
T maximum(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <typename T>
void checkAllFloatOps(const std::string& type) {
  using B = FunctionBuilder;
#define UNARY(op, ref) \
  check<T>(type, #op, [](B& f, Value x, Value) { return f.op(x); }, [](T a, T) { return T(ref(a)); }, true)
  UNARY(sqrt, std::sqrt);
  UNARY(cbrt, std::cbrt);
  UNARY(exp, std::exp);
  UNARY(exp2, std::exp2);
  UNARY(expm1, std::expm1);
  UNARY(log, std::log);
  UNARY(log2, std::log2);
  UNARY(log10, std::log10);
  UNARY(log1p, std::log1p);
  UNARY(sin, std::sin);
  UNARY(cos, std::cos);
  UNARY(tan, std::tan);
  UNARY(asin, std::asin);
  UNARY(acos, std::acos);
  UNARY(atan, std::atan);
  UNARY(sinh, std::sinh);
  UNARY(cosh, std::cosh);
  UNARY(tanh, std::tanh);
  UNARY(erf, std::erf);
  UNARY(erfc, std::erfc);
  UNARY(floor, std::floor);
  UNARY(ceil, std::ceil);
  UNARY(round, std::round);
  UNARY(roundeven, std::nearbyint);  // the default rounding mode is to nearest even
  UNARY(trunc, std::trunc);
  UNARY(abs, std::fabs);
#undef UNARY
  check<T>(type, "rsqrt", [](B& f, Value x, Value) { return f.rsqrt(x); }, [](T a, T) { return T(1) / std::sqrt(a); },
           true);
  check<T>(type, "neg", [](B&, Value x, Value) { return -x; }, [](T a, T) { return -a; }, true);
#define BINARY(op, ref) \
  check<T>(type, #op, [](B& f, Value x, Value y) { return f.op(x, y); }, [](T a, T b) { return T(ref(a, b)); })
  BINARY(pow, std::pow);
  BINARY(atan2, std::atan2);
  BINARY(copysign, std::copysign);
  BINARY(minimumf, minimum<T>);
  BINARY(maximumf, maximum<T>);
  BINARY(rem, std::fmod);
#undef BINARY
  check<T>(type, "add", [](B&, Value x, Value y) { return x + y; }, [](T a, T b) { return a + b; });
  check<T>(type, "sub", [](B&, Value x, Value y) { return x - y; }, [](T a, T b) { return a - b; });
  check<T>(type, "mul", [](B&, Value x, Value y) { return x * y; }, [](T a, T b) { return a * b; });
  check<T>(type, "div", [](B&, Value x, Value y) { return x / y; }, [](T a, T b) { return a / b; });
  check<T>(type, "fma", [](B& f, Value x, Value y) { return f.fma(x, y, x); }, [](T a, T b) { return std::fma(a, b, a); });
  // minnum/maxnum may return either zero for (+0, -0): compare those as values.
  for (bool isMin : {true, false}) {
    std::vector<T> a, b;
    std::tie(a, b) = allPairs(floatEdges<T>());
    for (bool optimize : {false, true}) {
      auto r = runBinary<T, T>(
          type, type, [&](B& f, Value x, Value y) { return isMin ? f.minnumf(x, y) : f.maxnumf(x, y); }, a, b,
          optimize);
      ASSERT_TRUE(r.ok()) << r.error().str();
      for (std::size_t i = 0; i < a.size(); ++i) {
        T want = isMin ? std::fmin(a[i], b[i]) : std::fmax(a[i], b[i]);
        if (want == 0) EXPECT_EQ((*r)[i], 0) << a[i] << ", " << b[i];
        else EXPECT_TRUE(sameFloat((*r)[i], want)) << (isMin ? "minnumf(" : "maxnumf(") << a[i] << ", " << b[i] << ")";
      }
    }
  }
  // Comparisons are ordered (false with NaN) except !=, as C's.
  for (bool optimize : {false, true}) {
    std::vector<T> a, b;
    std::tie(a, b) = allPairs(floatEdges<T>());
    auto r = runBinary<T, std::uint8_t>(
        type, "i8",
        [](B& f, Value x, Value y) {
          auto bit = [&](Value c, int k) { return f.cast(c, ElementType::I8) << k; };
          return bit(x < y, 0) | bit(x <= y, 1) | bit(x > y, 2) | bit(x >= y, 3) | bit(x == y, 4) | bit(x != y, 5);
        },
        a, b, optimize);
    ASSERT_TRUE(r.ok()) << r.error().str();
    for (std::size_t i = 0; i < a.size(); ++i) {
      T x = a[i], y = b[i];
      int want = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 | (x != y) << 5;
      EXPECT_EQ((*r)[i], want) << x << " vs " << y;
    }
  }
}

TEST(BuilderMath, F32) { checkAllFloatOps<float>("f32"); }
TEST(BuilderMath, F64) { checkAllFloatOps<double>("f64"); }

TEST(BuilderMath, PowiMatchesRepeatedMultiplication) {
  std::vector<float> bases{2.0f, -1.5f, 0.5f, 0.0f, -0.0f, 10.0f, std::numeric_limits<float>::infinity()};
  for (std::int32_t n : {0, 1, 2, 3, 7, -1, -2, 31}) {
    auto r = runBinary<float, float>(
        "f32", "f32", [&](FunctionBuilder& f, Value x, Value) { return f.powi(x, n); }, bases, bases, false);
    ASSERT_TRUE(r.ok()) << r.error().str();
    for (std::size_t i = 0; i < bases.size(); ++i) {
      const float want = static_cast<float>(std::pow(static_cast<double>(bases[i]), n));
      if (std::isinf(want) || want == 0) EXPECT_TRUE(sameFloat((*r)[i], want)) << bases[i] << "^" << n;
      else EXPECT_NEAR((*r)[i], want, std::abs(want) * 1e-6) << bases[i] << "^" << n;
    }
  }
}

TEST(BuilderMath, LiteralsMixWithValuesExactly) {
  std::vector<float> x{1.5f, -2.0f, 0.25f};
  auto r = runBinary<float, float>(
      "f32", "f32", [](FunctionBuilder&, Value v, Value) { return (v * 2.0 + 1) / 4.0f - 0.5f; }, x, x, false);
  ASSERT_TRUE(r.ok()) << r.error().str();
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ((*r)[i], (x[i] * 2.0f + 1) / 4.0f - 0.5f);

  std::vector<std::int64_t> n{5, -5, 1LL << 60};
  auto s = runBinary<std::int64_t, std::int64_t>(
      "i64", "i64", [](FunctionBuilder&, Value v, Value) { return 3 - (v + 1) * 2 % 7; }, n, n, false);
  ASSERT_TRUE(s.ok()) << s.error().str();
  for (std::size_t i = 0; i < n.size(); ++i) EXPECT_EQ((*s)[i], 3 - (n[i] + 1) * 2 % 7);
}

TEST(BuilderMath, FloatConstantsRoundToNearestAndIntegersMustBeExact) {
  Module m("c");
  FunctionBuilder b(m, "c", *parseFunctionType("() -> (f32, f64, f32, f32)"));
  b.ret({b.constant(ElementType::F32, 0.1), b.constant(ElementType::F64, 0.1),
         b.constant(ElementType::F32, 16777216), b.constant(ElementType::F32, -std::numeric_limits<double>::infinity())});
  ASSERT_FALSE(b.finish());
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  struct R {
    float a;
    double b;
    float c, d;
  } r{};
  auto f = jit.function<void(R*)>("_mlir_ciface_c");
  ASSERT_TRUE(f.ok());
  (*f)(&r);
  EXPECT_EQ(r.a, 0.1f);
  EXPECT_EQ(r.b, 0.1);
  EXPECT_EQ(r.c, 16777216.0f);
  EXPECT_EQ(r.d, -std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace memjit::codegen
