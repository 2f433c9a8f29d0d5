// jit/dot_loop_alignment.cpp: a u8 x s8 sum of at least 1024 bytes gets a masked head up to the streamed
// operand's 64-byte boundary, a body of whole 128-byte trips and a masked tail; shorter sums run a copy of the
// original loop. The sums against C++ at every start offset within a cache line, at lengths around the
// thresholds and the copy's vector trips, over GEMV rows of every misalignment (with the unsigned or the signed
// operand streamed), strided and empty views, with sums that wrap past INT32_MIN, an induction and a second sum
// that continue after the loop; the disassembly shows the head and tail, and the copy's vpdpbusd loop.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/jit.h"

namespace memjit::codegen {
namespace {

using U8 = runtime::StridedMemRef<std::uint8_t, 1>;
using S8 = runtime::StridedMemRef<std::int8_t, 1>;
using I32 = runtime::StridedMemRef<std::int32_t, 1>;
template <typename T>
using M2 = runtime::StridedMemRef<T, 2>;

bool hostHas(const char* feature) {
  return jit::TargetSpec::host().features.find(std::string("+") + feature) != std::string::npos;
}

std::int32_t wrap(std::int64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }

// sum over i of ext(load a[...i]) * ext(load b[...i]), from `init`
Value dotLoop(FunctionBuilder& f, const Value& n, const Value& init, const std::function<Value(Value)>& a,
              const std::function<Value(Value)>& b) {
  auto sum = f.forLoop(f.index(0), n, f.index(1), {init}, [&](Value i, const std::vector<Value>& s) {
    return std::vector<Value>{s[0] + f.cast(a(i), ElementType::I32) * f.cast(b(i), ElementType::I32)};
  });
  return sum[0];
}

void addDot(Module& m, const std::string& name, const char* type) {
  FunctionBuilder f(m, name, *parseFunctionType(type));
  f.ret({dotLoop(f, f.dim(f.arg(0), 0), f.arg(2), [&](Value i) { return f.load(f.arg(0), {i}); },
                 [&](Value i) { return f.load(f.arg(1), {i}); })});
  ASSERT_FALSE(f.finish()) << f.error().str();
}

// y[r] = sum over c of A[r][c] * x[c]
void addGemv(Module& m, const std::string& name, const char* type) {
  FunctionBuilder f(m, name, *parseFunctionType(type));
  Value a = f.arg(0), x = f.arg(1), y = f.arg(2);
  f.forLoop(f.index(0), f.dim(a, 0), f.index(1), [&](Value r) {
    f.store(dotLoop(f, f.dim(a, 1), f.i32(0), [&](Value c) { return f.load(a, {r, c}); },
                    [&](Value c) { return f.load(x, {c}); }),
            y, {r});
  });
  ASSERT_FALSE(f.finish()) << f.error().str();
}

// The sum that also copies each unsigned byte: iterations with a side effect, which the pass must leave alone.
void addDotStoringBytes(Module& m) {
  FunctionBuilder f(m, "dot_stores",
                    *parseFunctionType("(memref<?xui8>, memref<?xsi8>, memref<?xi32>, i32) -> i32"));
  auto sum = f.forLoop(f.index(0), f.dim(f.arg(0), 0), f.index(1), {f.arg(3)}, [&](Value i, const std::vector<Value>& s) {
    Value a = f.cast(f.load(f.arg(0), {i}), ElementType::I32);
    f.store(a, f.arg(2), {i});
    return std::vector<Value>{s[0] + a * f.cast(f.load(f.arg(1), {i}), ElementType::I32)};
  });
  f.ret({sum[0]});
  ASSERT_FALSE(f.finish()) << f.error().str();
}

// The sum beside a counter stepping by 3 from 5, whose value after the loop is stored: an induction used after
// the loop, which the head advances, the aligned path recomputes and the short loops' copy carries itself.
void addDotCounting(Module& m) {
  FunctionBuilder f(m, "dot_counting", *parseFunctionType("(memref<?xui8>, memref<?xsi8>, memref<1xi32>) -> i32"));
  auto carried = f.forLoop(f.index(0), f.dim(f.arg(0), 0), f.index(1), {f.i32(0), f.i32(5)},
                           [&](Value i, const std::vector<Value>& s) {
                             Value product = f.cast(f.load(f.arg(0), {i}), ElementType::I32) *
                                             f.cast(f.load(f.arg(1), {i}), ElementType::I32);
                             return std::vector<Value>{s[0] + product, s[1] + f.i32(3)};
                           });
  f.store(carried[1], f.arg(2), {f.index(0)});
  f.ret({carried[0]});
  ASSERT_FALSE(f.finish()) << f.error().str();
}

// Two sums in a row over the same bytes, the second starting from the first's result (a phi of the first loop's
// exit, which the aligned path and the short copy both reach).
void addDotTwice(Module& m) {
  FunctionBuilder f(m, "dot_twice", *parseFunctionType("(memref<?xui8>, memref<?xsi8>, i32) -> i32"));
  const auto sum = [&](const Value& init) {
    return dotLoop(f, f.dim(f.arg(0), 0), init, [&](Value i) { return f.load(f.arg(0), {i}); },
                   [&](Value i) { return f.load(f.arg(1), {i}); });
  };
  f.ret({sum(sum(f.arg(2)))});
  ASSERT_FALSE(f.finish()) << f.error().str();
}

// Mostly 255 x -128 (so long sums wrap past INT32_MIN), every fourth pair random.
template <typename T>
std::vector<T> bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int r = static_cast<int>(rng() % 256);
    v[i] = static_cast<T>(i % 4 != 3 ? (std::is_signed_v<T> ? -128 : 255) : (std::is_signed_v<T> ? r - 128 : r));
  }
  return v;
}

// A pointer `offset` bytes past a 64-byte boundary inside `storage`.
template <typename T>
T* at(std::vector<T>& storage, std::size_t offset) {
  const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
  return reinterpret_cast<T*>(((base + 63) & ~std::uintptr_t{63}) + offset);
}

class DotLoopAlignment : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Module m("dot_alignment");
    addDot(m, "dot", "(memref<?xui8>, memref<?xsi8>, i32) -> i32");
    addDot(m, "dot_strided", "(memref<?xui8, strided<[?], offset: ?>>, memref<?xsi8, strided<[?], offset: ?>>, i32) -> i32");
    addGemv(m, "gemv", "(memref<?x?xui8>, memref<?xsi8>, memref<?xi32>) -> ()");
    addGemv(m, "gemv_signed_rows", "(memref<?x?xsi8>, memref<?xui8>, memref<?xi32>) -> ()");
    addDotStoringBytes(m);
    addDotCounting(m);
    addDotTwice(m);
    compiled = new test::CompiledModule(test::compileModule(std::move(m)));
  }
  static void TearDownTestSuite() { delete compiled; }
  static test::CompiledModule* compiled;
};
test::CompiledModule* DotLoopAlignment::compiled = nullptr;

TEST_F(DotLoopAlignment, SumsAtEveryOffsetAndLengthAsTheScalarLoop) {
  auto dot = compiled->get<std::int32_t(U8*, S8*, std::int32_t)>("dot");
  const std::size_t longest = 4099;
  auto a = bytes<std::uint8_t>(longest + 128, 1);
  auto b = bytes<std::int8_t>(longest + 128, 2);
  for (std::size_t offset = 0; offset < 64; ++offset)
    for (std::int64_t n : {0, 1, 63, 64, 127, 128, 129, 255, 256, 257, 383, 384, 511, 896, 1000, 1022, 1023, 1024,
                           1025, 1087, 1088, 1151, 1152, 1153, 4099})
      for (std::int32_t init : {0, INT32_MIN + 3}) {
        // a and b at different offsets: only the streamed one (a) is brought to a boundary.
        std::uint8_t* pa = at(a, offset);
        std::int8_t* pb = at(b, (offset * 7) % 64);
        std::int64_t want = init;
        for (std::int64_t i = 0; i < n; ++i) want += std::int64_t{pa[i]} * pb[i];
        U8 va{pa, pa, 0, {n}, {1}};
        S8 vb{pb, pb, 0, {n}, {1}};
        ASSERT_EQ(dot(&va, &vb, init), wrap(want)) << "offset " << offset << " n " << n << " init " << init;
      }
}

TEST_F(DotLoopAlignment, StridedViewsSumAsTheScalarLoop) {
  auto dot = compiled->get<std::int32_t(U8*, S8*, std::int32_t)>("dot_strided");
  auto a = bytes<std::uint8_t>(3 * 3000 + 64, 3);
  auto b = bytes<std::int8_t>(3 * 3000 + 64, 4);
  for (std::int64_t stride : {1, 3, -1})
    for (std::int64_t n : {0, 5, 256, 1023, 1024, 1100, 3000})
      for (std::int64_t offset : {0, 17}) {
        const std::int64_t first = stride < 0 ? offset + n - 1 : offset;  // the element index 0 maps to
        U8 va{a.data(), a.data(), first, {n}, {stride}};
        S8 vb{b.data(), b.data(), first, {n}, {stride}};
        std::int64_t want = 7;
        for (std::int64_t i = 0; i < n; ++i) want += std::int64_t{a[first + i * stride]} * b[first + i * stride];
        ASSERT_EQ(dot(&va, &vb, 7), wrap(want)) << "stride " << stride << " n " << n << " offset " << offset;
      }
}

TEST_F(DotLoopAlignment, GemvRowsOfEveryMisalignment) {
  // 1100-byte rows: row r starts (r * 1100) % 64 bytes past a boundary, 16 different offsets; rows of 1023 bytes
  // and less run the original loop's copy (200: one vector trip and a scalar remainder; 256: two trips).
  for (std::int64_t cols : {1100, 1024, 1023, 256, 200, 0}) {
    const std::int64_t rows = 37;
    auto matrixU = bytes<std::uint8_t>(rows * cols + 64, 5);
    auto matrixS = bytes<std::int8_t>(rows * cols + 64, 6);
    auto vecU = bytes<std::uint8_t>(cols + 64, 7);
    auto vecS = bytes<std::int8_t>(cols + 64, 8);
    std::uint8_t* au = at(matrixU, 16);
    std::int8_t* as = at(matrixS, 48);
    std::uint8_t* xu = at(vecU, 0);
    std::int8_t* xs = at(vecS, 16);
    std::vector<std::int32_t> y(rows, 12345), want(rows), wantSignedRows(rows);
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t s = 0, t = 0;
      for (std::int64_t c = 0; c < cols; ++c) {
        s += std::int64_t{au[r * cols + c]} * xs[c];
        t += std::int64_t{as[r * cols + c]} * xu[c];
      }
      want[r] = wrap(s);
      wantSignedRows[r] = wrap(t);
    }
    M2<std::uint8_t> mu{au, au, 0, {rows, cols}, {cols, 1}};
    M2<std::int8_t> ms{as, as, 0, {rows, cols}, {cols, 1}};
    S8 vxs{xs, xs, 0, {cols}, {1}};
    U8 vxu{xu, xu, 0, {cols}, {1}};
    I32 vy{y.data(), y.data(), 0, {rows}, {1}};
    compiled->get<void(M2<std::uint8_t>*, S8*, I32*)>("gemv")(&mu, &vxs, &vy);
    EXPECT_EQ(y, want) << "cols " << cols;
    compiled->get<void(M2<std::int8_t>*, U8*, I32*)>("gemv_signed_rows")(&ms, &vxu, &vy);
    EXPECT_EQ(y, wantSignedRows) << "cols " << cols;
  }
}

TEST_F(DotLoopAlignment, LoopsWithSideEffectsKeepEveryIteration) {
  auto dot = compiled->get<std::int32_t(U8*, S8*, I32*, std::int32_t)>("dot_stores");
  for (std::int64_t n : {0, 1024, 2000}) {
    auto a = bytes<std::uint8_t>(n + 64, 9);
    auto b = bytes<std::int8_t>(n + 64, 10);
    std::uint8_t* pa = at(a, 16);
    std::vector<std::int32_t> copies(n, -1);
    std::int64_t want = 0;
    for (std::int64_t i = 0; i < n; ++i) want += std::int64_t{pa[i]} * b[i];
    U8 va{pa, pa, 0, {n}, {1}};
    S8 vb{b.data(), b.data(), 0, {n}, {1}};
    I32 vc{copies.data(), copies.data(), 0, {n}, {1}};
    ASSERT_EQ(dot(&va, &vb, &vc, 0), wrap(want)) << n;
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(copies[i], pa[i]) << i;
  }
}

TEST_F(DotLoopAlignment, InductionsUsedAfterTheLoopHaveTheirLastValue) {
  auto dot = compiled->get<std::int32_t(U8*, S8*, I32*)>("dot_counting");
  auto a = bytes<std::uint8_t>(2000 + 128, 11);
  auto b = bytes<std::int8_t>(2000 + 128, 12);
  for (std::size_t offset : {0, 1, 33, 63})
    for (std::int64_t n : {0, 1, 255, 256, 1023, 1024, 1025, 2000}) {
      std::uint8_t* pa = at(a, offset);
      std::int8_t* pb = at(b, 5);
      std::int64_t want = 0;
      for (std::int64_t i = 0; i < n; ++i) want += std::int64_t{pa[i]} * pb[i];
      std::int32_t counter = -1;
      U8 va{pa, pa, 0, {n}, {1}};
      S8 vb{pb, pb, 0, {n}, {1}};
      I32 vc{&counter, &counter, 0, {1}, {1}};
      ASSERT_EQ(dot(&va, &vb, &vc), wrap(want)) << "offset " << offset << " n " << n;
      ASSERT_EQ(counter, 5 + 3 * n) << "offset " << offset << " n " << n;
    }
}

TEST_F(DotLoopAlignment, ASecondSumStartsFromTheFirst) {
  auto dot = compiled->get<std::int32_t(U8*, S8*, std::int32_t)>("dot_twice");
  auto a = bytes<std::uint8_t>(2000 + 128, 13);
  auto b = bytes<std::int8_t>(2000 + 128, 14);
  for (std::size_t offset : {0, 7, 63})
    for (std::int64_t n : {0, 1, 200, 1023, 1024, 1500, 2000}) {
      std::uint8_t* pa = at(a, offset);
      std::int8_t* pb = at(b, 40);
      std::int64_t once = 0;
      for (std::int64_t i = 0; i < n; ++i) once += std::int64_t{pa[i]} * pb[i];
      U8 va{pa, pa, 0, {n}, {1}};
      S8 vb{pb, pb, 0, {n}, {1}};
      ASSERT_EQ(dot(&va, &vb, INT32_MAX), wrap(std::int64_t{INT32_MAX} + 2 * once)) << "offset " << offset << " n " << n;
    }
}

std::size_t count(const std::string& text, const std::regex& pattern) {
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), pattern), {}));
}

// Head (one masked vpdpbusd), body (two, unmasked loads) and tail (two masked), and the short loops' copy (two,
// unmasked): seven vpdpbusd and six masked byte loads in the dot and the GEMVs; none where iterations store. An
// unrolled copy would have no vpdpbusd of its own (the products stay widened) or more than two.
TEST_F(DotLoopAlignment, HeadAndTailAreMaskedVpdpbusd) {
  if (!hostHas("avx512vnni") || !hostHas("avx512bw")) GTEST_SKIP() << "needs AVX512-VNNI and AVX512-BW";
  const std::regex maskedBytes(R"(vmovdqu8[^\n]*\{%k[1-7]\} ?\{z\})"), dot("vpdpbusd");
  for (const char* name : {"dot", "gemv", "gemv_signed_rows", "dot_counting"}) {
    auto text = compiled->mod->assembly(name);
    ASSERT_TRUE(text) << text.error().str();
    EXPECT_EQ(count(*text, maskedBytes), 6u) << name << "\n" << *text;  // 2 in the head, 4 in the tail
    EXPECT_EQ(count(*text, dot), 7u) << name << "\n" << *text;
  }
  auto twice = compiled->mod->assembly("dot_twice");  // both sums split and copied
  ASSERT_TRUE(twice) << twice.error().str();
  EXPECT_EQ(count(*twice, maskedBytes), 12u) << *twice;
  EXPECT_EQ(count(*twice, dot), 14u) << *twice;
  auto stores = compiled->mod->assembly("dot_stores");
  ASSERT_TRUE(stores) << stores.error().str();
  EXPECT_EQ(count(*stores, maskedBytes), 0u) << *stores;
}

}  // namespace
}  // namespace memjit::codegen
