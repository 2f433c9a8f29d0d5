// The integer operations of the kernel builder on edge values (0, +-1,
// INT_MIN, INT_MAX, values above 2^53, shift counts at and beyond the width,
// negative counts), each against a C++ reference, unoptimised and at O3.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "elementwise.h"
#include "memjit/codegen/builder.h"

namespace memjit::codegen {
namespace {

using test::allPairs;
using test::BinaryOp;
using test::runBinary;

template <typename T>
std::vector<T> edgeValues() {
  using L = std::numeric_limits<T>;
  constexpr int w = sizeof(T) * 8;
  std::vector<T> v{0, 1, 2, 3, 7, static_cast<T>(w - 1), static_cast<T>(w), static_cast<T>(w + 1),
                   static_cast<T>(2 * w), L::max(), static_cast<T>(L::max() - 1), L::min(),
                   static_cast<T>(L::min() + 1), static_cast<T>(0x5a5a5a5a5a5a5a5aULL)};
  if constexpr (std::is_signed_v<T>) v.insert(v.end(), {T(-1), T(-2), T(-7), T(-static_cast<T>(w))});
  else v.insert(v.end(), {static_cast<T>(-1), static_cast<T>(-7)});
  if constexpr (w == 64) v.insert(v.end(), {T((1ULL << 53) + 1), T(0xff51afd7ed558ccdULL), T(0xc4ceb9fe1a85ec53ULL)});
  return v;
}

template <typename T>
using Reference = std::function<T(T, T)>;

// Runs `op` over every pair `keep` accepts, unoptimised and at O3.
template <typename T>
void check(const std::string& type, const char* name, const BinaryOp& op, const Reference<T>& reference,
           const std::function<bool(T, T)>& keep = [](T, T) { return true; }) {
  auto [all, allB] = allPairs(edgeValues<T>());
  std::vector<T> a, b;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (keep(all[i], allB[i])) a.push_back(all[i]), b.push_back(allB[i]);
  for (bool optimize : {false, true}) {
    auto r = runBinary<T, T>(type, type, op, a, b, optimize);
    ASSERT_TRUE(r.ok()) << name << " " << type << ": " << r.error().str();
    for (std::size_t i = 0; i < a.size(); ++i)
      ASSERT_EQ(+(*r)[i], +reference(a[i], b[i]))
          << name << "(" << +a[i] << ", " << +b[i] << ") on " << type << (optimize ? " at O3" : "");
  }
}

template <typename T>
void checkAllIntegerOps(const std::string& type) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  constexpr unsigned w = sizeof(T) * 8;
  constexpr bool isSigned = std::is_signed_v<T>;
  auto wrap = [](U x) { return static_cast<T>(x); };
  auto noDivisionUB = [](T a, T b) {
    if (b == 0) return false;
    if constexpr (isSigned) return !(a == std::numeric_limits<T>::min() && b == T(-1));
    return true;
  };
  auto noSignedDivisionUB = [](T a, T b) {
    return b != 0 && !(static_cast<S>(a) == std::numeric_limits<S>::min() && static_cast<S>(b) == S(-1));
  };
  using B = FunctionBuilder;
  check<T>(type, "add", [](B&, Value x, Value y) { return x + y; }, [&](T a, T b) { return wrap(U(a) + U(b)); });
  check<T>(type, "sub", [](B&, Value x, Value y) { return x - y; }, [&](T a, T b) { return wrap(U(a) - U(b)); });
  // Through uint64: uint16 * uint16 would promote to int and could overflow.
  check<T>(type, "mul", [](B&, Value x, Value y) { return x * y; },
           [&](T a, T b) { return wrap(static_cast<U>(std::uint64_t{U(a)} * std::uint64_t{U(b)})); });
  check<T>(type, "div", [](B&, Value x, Value y) { return x / y; }, [](T a, T b) { return T(a / b); }, noDivisionUB);
  check<T>(type, "rem", [](B&, Value x, Value y) { return x % y; }, [](T a, T b) { return T(a % b); }, noDivisionUB);
  check<T>(type, "divsi", [](B& f, Value x, Value y) { return f.divsi(x, y); },
           [](T a, T b) { return T(S(a) / S(b)); }, noSignedDivisionUB);
  check<T>(type, "remsi", [](B& f, Value x, Value y) { return f.remsi(x, y); },
           [](T a, T b) { return T(S(a) % S(b)); }, noSignedDivisionUB);
  check<T>(type, "divui", [](B& f, Value x, Value y) { return f.divui(x, y); },
           [](T a, T b) { return T(U(a) / U(b)); }, [](T, T b) { return b != 0; });
  check<T>(type, "remui", [](B& f, Value x, Value y) { return f.remui(x, y); },
           [](T a, T b) { return T(U(a) % U(b)); }, [](T, T b) { return b != 0; });
  // Rounding divisions: the quotient truncated, then corrected by the remainder's sign.
  check<T>(type, "floordivsi", [](B& f, Value x, Value y) { return f.floordivsi(x, y); },
           [](T a, T b) {
             S q = S(a) / S(b), r = S(a) % S(b);
             return T(r != 0 && ((r < 0) != (S(b) < 0)) ? q - 1 : q);
           },
           noSignedDivisionUB);
  check<T>(type, "ceildivsi", [](B& f, Value x, Value y) { return f.ceildivsi(x, y); },
           [](T a, T b) {
             S q = S(a) / S(b), r = S(a) % S(b);
             return T(r != 0 && ((r < 0) == (S(b) < 0)) ? q + 1 : q);
           },
           noSignedDivisionUB);
  check<T>(type, "ceildivui", [](B& f, Value x, Value y) { return f.ceildivui(x, y); },
           [](T a, T b) { return T(U(a) / U(b) + (U(a) % U(b) != 0)); }, [](T, T b) { return b != 0; });
  check<T>(type, "mulhi", [](B& f, Value x, Value y) { return f.mulhi(x, y); },
           [](T a, T b) {
             if constexpr (w == 64) {
               using Wide = std::conditional_t<isSigned, __int128, unsigned __int128>;
               return T(static_cast<unsigned __int128>(Wide(a) * Wide(b)) >> 64);
             } else {
               using Wide = std::conditional_t<isSigned, std::int64_t, std::uint64_t>;
               return T(static_cast<std::uint64_t>(Wide(a) * Wide(b)) >> w);
             }
           });
  check<T>(type, "and", [](B&, Value x, Value y) { return x & y; }, [](T a, T b) { return T(a & b); });
  check<T>(type, "or", [](B&, Value x, Value y) { return x | y; }, [](T a, T b) { return T(a | b); });
  check<T>(type, "xor", [](B&, Value x, Value y) { return x ^ y; }, [](T a, T b) { return T(a ^ b); });
  check<T>(type, "not", [](B&, Value x, Value) { return ~x; }, [](T a, T) { return T(~a); });
  // Shifts: a count is read as unsigned; at or beyond the width, 0 or the sign fill.
  check<T>(type, "shl", [](B&, Value x, Value n) { return x << n; },
           [&](T a, T n) { return U(n) >= w ? T(0) : wrap(static_cast<U>(std::uint64_t{U(a)} << U(n))); });
  check<T>(type, "shrui", [](B& f, Value x, Value n) { return f.shrui(x, n); },
           [](T a, T n) { return U(n) >= w ? T(0) : T(U(a) >> U(n)); });
  check<T>(type, "shrsi", [](B& f, Value x, Value n) { return f.shrsi(x, n); },
           [](T a, T n) { return T(S(a) >> (U(n) >= w ? w - 1 : U(n))); });
  check<T>(type, "shr", [](B&, Value x, Value n) { return x >> n; },
           [](T a, T n) {
             if constexpr (isSigned) return T(a >> (U(n) >= w ? w - 1 : U(n)));
             return U(n) >= w ? T(0) : T(a >> n);
           });
  check<T>(type, "rotl", [](B& f, Value x, Value n) { return f.rotl(x, n); },
           [](T a, T n) { return T(std::rotl(U(a), static_cast<int>(U(n) % w))); });
  check<T>(type, "rotr", [](B& f, Value x, Value n) { return f.rotr(x, n); },
           [](T a, T n) { return T(std::rotr(U(a), static_cast<int>(U(n) % w))); });
  check<T>(type, "ctpop", [](B& f, Value x, Value) { return f.ctpop(x); }, [](T a, T) { return T(std::popcount(U(a))); });
  check<T>(type, "ctlz", [](B& f, Value x, Value) { return f.ctlz(x); }, [](T a, T) { return T(std::countl_zero(U(a))); });
  check<T>(type, "cttz", [](B& f, Value x, Value) { return f.cttz(x); }, [](T a, T) { return T(std::countr_zero(U(a))); });
  check<T>(type, "min", [](B& f, Value x, Value y) { return f.min(x, y); }, [](T a, T b) { return std::min(a, b); });
  check<T>(type, "max", [](B& f, Value x, Value y) { return f.max(x, y); }, [](T a, T b) { return std::max(a, b); });
  check<T>(type, "abs", [](B& f, Value x, Value) { return f.abs(x); },
           [&](T a, T) { return isSigned && a < 0 ? wrap(U(0) - U(a)) : a; });
  check<T>(type, "neg", [](B&, Value x, Value) { return -x; }, [&](T a, T) { return wrap(U(0) - U(a)); });
  check<T>(type, "select_cmp", [](B& f, Value x, Value y) { return f.select(x < y, x - y, y - x); },
           [&](T a, T b) { return a < b ? wrap(U(a) - U(b)) : wrap(U(b) - U(a)); });
}

TEST(BuilderIntegers, I8) { checkAllIntegerOps<std::int8_t>("i8"); }
TEST(BuilderIntegers, UI8) { checkAllIntegerOps<std::uint8_t>("ui8"); }
TEST(BuilderIntegers, SI16) { checkAllIntegerOps<std::int16_t>("si16"); }
TEST(BuilderIntegers, I32) { checkAllIntegerOps<std::int32_t>("i32"); }
TEST(BuilderIntegers, UI32) { checkAllIntegerOps<std::uint32_t>("ui32"); }
TEST(BuilderIntegers, I64) { checkAllIntegerOps<std::int64_t>("i64"); }
TEST(BuilderIntegers, UI64) { checkAllIntegerOps<std::uint64_t>("ui64"); }
TEST(BuilderIntegers, Index) { checkAllIntegerOps<std::int64_t>("index"); }

// i1 is unsigned wherever signedness matters: true is 1, so false < true,
// min is and, max is or, true / true = true, shr(true, true) = false, and it
// widens to 1 and 1.0. Ops that name their signedness read true as -1 (what
// MLIR's arith.divsi/shrsi/extsi lower to on i1).
TEST(BuilderIntegers, I1IsUnsignedUnlessTheOperationSaysSigned) {
  using B = FunctionBuilder;
  const std::vector<std::uint8_t> a{0, 0, 1, 1}, b{0, 1, 0, 1};
  struct Case {
    const char* name;
    test::BinaryOp op;
    std::vector<std::uint8_t> expected;  // for (0,0) (0,1) (1,0) (1,1)
    bool divides = false;                // defined only where b is true
  };
  const std::vector<Case> cases{
      {"lt", [](B&, Value x, Value y) { return x < y; }, {0, 1, 0, 0}},
      {"ge", [](B&, Value x, Value y) { return x >= y; }, {1, 0, 1, 1}},
      {"min", [](B& f, Value x, Value y) { return f.min(x, y); }, {0, 0, 0, 1}},
      {"max", [](B& f, Value x, Value y) { return f.max(x, y); }, {0, 1, 1, 1}},
      {"div", [](B&, Value x, Value y) { return x / y; }, {0, 0, 0, 1}, true},
      {"rem", [](B&, Value x, Value y) { return x % y; }, {0, 0, 0, 0}, true},
      {"shr", [](B&, Value x, Value y) { return x >> y; }, {0, 0, 1, 0}},
      {"shrsi", [](B& f, Value x, Value y) { return f.shrsi(x, y); }, {0, 0, 1, 1}},
      {"mulhi", [](B& f, Value x, Value y) { return f.mulhi(x, y); }, {0, 0, 0, 0}},
      {"abs", [](B& f, Value x, Value) { return f.abs(x); }, {0, 0, 1, 1}},
      {"neg", [](B&, Value x, Value) { return -x; }, {0, 0, 1, 1}},
  };
  for (const Case& c : cases) {
    std::vector<std::uint8_t> x, y, expected;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!c.divides || b[i]) x.push_back(a[i]), y.push_back(b[i]), expected.push_back(c.expected[i]);
    for (bool optimize : {false, true}) {
      auto r = runBinary<std::uint8_t, std::uint8_t>("i1", "i1", c.op, x, y, optimize);
      ASSERT_TRUE(r.ok()) << c.name << ": " << r.error().str();
      for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(+(*r)[i], +expected[i]) << c.name << "(" << +x[i] << ", " << +y[i] << ")" << (optimize ? " at O3" : "");
    }
  }
  // divsi(false, true) = 0; divsi(true, true) is -1 / -1, the overflow checked mode reports.
  auto q = runBinary<std::uint8_t, std::uint8_t>("i1", "i1", [](B& f, Value x, Value y) { return f.divsi(x, y); },
                                                 {0}, {1}, true);
  ASSERT_TRUE(q.ok()) << q.error().str();
  EXPECT_EQ(+(*q)[0], 0);
  for (bool optimize : {false, true}) {
    auto wide = runBinary<std::uint8_t, std::int64_t>(
        "i1", "i64", [](B& f, Value x, Value) { return f.cast(x, ElementType::I64); }, a, a, optimize);
    auto asFloat = runBinary<std::uint8_t, float>(
        "i1", "f32", [](B& f, Value x, Value) { return f.cast(x, ElementType::F32); }, a, a, optimize);
    ASSERT_TRUE(wide.ok() && asFloat.ok());
    EXPECT_EQ(*wide, (std::vector<std::int64_t>{0, 0, 1, 1}));
    EXPECT_EQ(*asFloat, (std::vector<float>{0, 0, 1, 1}));
  }
  // Float to i1 saturates as unsigned: 1.0 and 2.0 are true; 0.75, -1, NaN false.
  const std::vector<float> floats{1.0f, 2.0f, 0.75f, -1.0f, std::numeric_limits<float>::quiet_NaN(), -0.0f};
  for (bool optimize : {false, true}) {
    auto r = runBinary<float, std::uint8_t>(
        "f32", "i1", [](B& f, Value x, Value) { return f.cast(x, ElementType::I1); }, floats, floats, optimize);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(*r, (std::vector<std::uint8_t>{1, 1, 0, 0, 0, 0}));
  }
}

// The murmur3 64-bit finaliser, written with literal constants above 2^63:
// the constants must reach the code exactly (they once went through double).
TEST(BuilderIntegers, MurmurFinaliserConstantsAreExact) {
  auto fmix = [](std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
  };
  std::vector<std::uint64_t> keys{0, 1, 2, 0xffffffffffffffffULL, 0x8000000000000000ULL, 123456789, (1ULL << 53) + 1};
  for (const char* type : {"ui64", "i64"}) {
    auto r = runBinary<std::uint64_t, std::uint64_t>(
        type, type,
        [&](FunctionBuilder& f, Value k, Value) {
          k = k ^ (k >> 33);
          k = k * f.constant(k.type() == Type(ElementType::UI64) ? ElementType::UI64 : ElementType::I64,
                             0xff51afd7ed558ccdULL);
          k = f.xori(k, f.shrui(k, f.constantLike(k, 33)));
          k = k * 0xc4ceb9fe1a85ec53ULL;
          return k ^ f.shrui(k, f.constantLike(k, 33));
        },
        keys, keys, false);
    ASSERT_TRUE(r.ok()) << r.error().str();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      // ui64's >> is logical; i64's is arithmetic: the first step differs for keys >= 2^63.
      std::uint64_t k = keys[i];
      std::uint64_t expected =
          std::string(type) == "ui64" ? fmix(k)
                                      : [&] {
                                          k ^= static_cast<std::uint64_t>(static_cast<std::int64_t>(k) >> 33);
                                          k *= 0xff51afd7ed558ccdULL;
                                          k ^= k >> 33;
                                          k *= 0xc4ceb9fe1a85ec53ULL;
                                          return k ^ (k >> 33);
                                        }();
      EXPECT_EQ((*r)[i], expected) << type << " key " << keys[i];
    }
  }
}

TEST(BuilderIntegers, ConstantsOfEveryIntegerTypeAreExactAtTheirLimits) {
  Module m("c");
  FunctionBuilder b(m, "c", *parseFunctionType("() -> (i8, ui8, si16, i32, ui32, si64, ui64, i64, index, i1)"));
  b.ret({b.constant(ElementType::I8, 255), b.constant(ElementType::UI8, 255u), b.constant(ElementType::SI16, -32768),
         b.constant(ElementType::I32, 0xffffffffu), b.constant(ElementType::UI32, 4294967295.0),
         b.constant(ElementType::SI64, INT64_MIN), b.constant(ElementType::UI64, UINT64_MAX),
         b.constant(ElementType::I64, -9007199254740993LL), b.constant(ElementType::Index, 9007199254740993LL),
         b.constant(ElementType::I1, true)});
  ASSERT_FALSE(b.finish());
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  struct R {
    std::int8_t i8;
    std::uint8_t u8;
    std::int16_t s16;
    std::int32_t i32;
    std::uint32_t u32;
    std::int64_t s64;
    std::uint64_t u64;
    std::int64_t i64, index;
    bool i1;
  } r{};
  auto f = jit.function<void(R*)>("_mlir_ciface_c");
  ASSERT_TRUE(f.ok());
  (*f)(&r);
  EXPECT_EQ(r.i8, -1);
  EXPECT_EQ(r.u8, 255);
  EXPECT_EQ(r.s16, -32768);
  EXPECT_EQ(r.i32, -1);
  EXPECT_EQ(r.u32, 4294967295u);
  EXPECT_EQ(r.s64, INT64_MIN);
  EXPECT_EQ(r.u64, UINT64_MAX);
  EXPECT_EQ(r.i64, -9007199254740993LL);
  EXPECT_EQ(r.index, 9007199254740993LL);
  EXPECT_TRUE(r.i1);
}

TEST(BuilderIntegers, BitcastReinterpretsBitsBetweenTypesOfOneWidth) {
  std::vector<std::uint32_t> bits{0x3f800000u, 0x80000000u, 0x7fc00001u, 0x00000001u, 0xff800000u};
  auto r = runBinary<std::uint32_t, std::uint32_t>(
      "ui32", "ui32",
      [](FunctionBuilder& f, Value x, Value) {
        Value asFloat = f.bitcast(x, ElementType::F32);
        return f.bitcast(f.bitcast(f.abs(asFloat), ElementType::I32), ElementType::UI32);
      },
      bits, bits, true);
  ASSERT_TRUE(r.ok()) << r.error().str();
  for (std::size_t i = 0; i < bits.size(); ++i) EXPECT_EQ((*r)[i], bits[i] & 0x7fffffffu) << bits[i];
}

}  // namespace
}  // namespace memjit::codegen
