// Nests that stream narrow rows into a row of accumulators are unrolled and
// jammed before vectorisation (jit/accumulator_jam.h): observed through the
// pass's "Jammed" remark, and checked bit for bit against the loop as written,
// since the jam must keep every y[c]'s sum in row order.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/remarks.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/call_jit.h"
#include "support/expected.h"
#include "support/jit.h"

namespace memjit::jit {
namespace {

using codegen::FunctionBuilder;
using codegen::LoopOptions;
using codegen::Value;

// y = x^T W, rows in order: for r { for c { y[c] = y[c] + x[r] * widen(W[r][c]) } }.
// `layout` is W's (", strided<...>" or empty for the identity layout).
void addGemv(codegen::Module& m, const std::string& name, const std::string& element, LoopOptions rows = {},
             const std::string& layout = "") {
  codegen::FunctionOptions options;
  options.noalias = true;
  auto type = parseFunctionType("(memref<?x?x" + element + layout + ">, memref<?xf32>, memref<?xf32>) -> ()");
  ASSERT_TRUE(type.ok());
  FunctionBuilder b(m, name, *type, options);
  Value w = b.arg(0), x = b.arg(1), y = b.arg(2), cols = b.dim(w, 1);
  b.forLoop(b.index(0), b.dim(w, 0), b.index(1), rows, [&](Value r) {
    Value xr = b.load(x, {r});
    b.forLoop(b.index(0), cols, b.index(1), [&](Value c) {
      b.store(b.load(y, {c}) + xr * b.cast(b.load(w, {r, c}), ElementType::F32), y, {c});
    });
  });
  b.ret();
  ASSERT_FALSE(b.finish());
}

LoadedModule load(Jit& jit, codegen::Module m) {
  return test::valueOrFail(jit.add(std::move(m), {.remarks = true}), "Jit::add");
}

std::vector<std::string> jammedFunctions(const LoadedModule& mod) {
  std::vector<std::string> names;
  for (const Remark& r : mod.remarks())
    if (r.pass == "memjit-jam" && r.name == "Jammed") names.push_back(r.function);
  return names;
}

bool jammed(const LoadedModule& mod, const std::string& kernel) {
  for (const std::string& f : jammedFunctions(mod))
    if (f == kernel || f == "_mlir_ciface_" + kernel) return true;
  return false;
}

std::uint16_t bf16Bits(float v) { return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v) >> 16); }
float fromBf16(std::uint16_t v) { return std::bit_cast<float>(static_cast<std::uint32_t>(v) << 16); }
std::uint16_t f16Bits(float v) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(v)); }
float fromF16(std::uint16_t v) { return static_cast<float>(std::bit_cast<_Float16>(v)); }
float fromI8(std::int8_t v) { return static_cast<float>(v); }

// One narrow element type: its kernel spelling, how it widens, and how to
// draw entries spanning its range with both signs (so the order of the
// additions decides the rounded sums), plus its edge values.
template <typename Raw>
struct Narrow {
  const char* name;
  float (*widen)(Raw);
  Raw (*draw)(std::mt19937&);
  std::vector<Raw> edges;
  // x[r] spans 2^-e .. 2^e: i8 entries need it for the sums to round.
  int xExponents = 0;
};

// A float of either sign with a mantissa in [1, 2) and an exponent in [lo, hi], as `toBits` rounds it.
template <std::uint16_t (*toBits)(float), int lo, int hi>
std::uint16_t drawFloat(std::mt19937& rng) {
  std::uniform_real_distribution<float> mantissa(1, 2);
  std::uniform_int_distribution<int> exponent(lo, hi), sign(0, 1);
  return toBits((sign(rng) ? -1.0f : 1.0f) * std::ldexp(mantissa(rng), exponent(rng)));
}

// Edges: -0, the smallest denormal, an infinity.
const Narrow<std::uint16_t> kBf16{"bf16", fromBf16, drawFloat<bf16Bits, -30, 30>, {0x8000, 0x0001, 0x7f80}};
const Narrow<std::uint16_t> kF16{"f16", fromF16, drawFloat<f16Bits, -14, 15>, {0x8000, 0x0001, 0xfc00}};
const Narrow<std::int8_t> kI8{"i8", fromI8,
                              [](std::mt19937& rng) {
                                return static_cast<std::int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
                              },
                              {std::numeric_limits<std::int8_t>::min(), std::numeric_limits<std::int8_t>::max(), 0},
                              20};

using Vector = runtime::StridedMemRef<float, 1>;

// x is bf16-representable, so every product with a bf16, f16 or i8 entry is
// exact in f32 and the reference below means the same with or without fma
// contraction. W may be strided: `colStride` apart within a row, rows padded
// to `rowStride`, starting `offset` elements into its buffer.
template <typename Raw>
struct Problem {
  using Matrix = runtime::StridedMemRef<Raw, 2>;
  const Narrow<Raw>& type;
  std::int64_t rows, cols, colStride, rowStride, offset;
  std::vector<Raw> w;
  std::vector<float> x;
  Problem(const Narrow<Raw>& t, std::int64_t r, std::int64_t c, std::int64_t colStep = 1, std::int64_t padding = 0,
          std::int64_t start = 0)
      : type(t), rows(r), cols(c), colStride(colStep), rowStride(c * colStep + padding), offset(start),
        w(start + r * rowStride + 1), x(r) {
    std::mt19937 rng(static_cast<unsigned>(r * 1000 + c));
    std::uniform_real_distribution<float> mantissa(1, 2);
    std::uniform_int_distribution<int> sign(0, 1), exponent(-t.xExponents, t.xExponents);
    // Entries outside the matrix too: a kernel reading them would show.
    for (auto& v : w) v = t.draw(rng);
    for (auto& v : x) v = fromBf16(bf16Bits((sign(rng) ? -1.0f : 1.0f) * std::ldexp(mantissa(rng), exponent(rng))));
    for (std::size_t i = 0; r > 0 && static_cast<std::int64_t>(i) < c && i < t.edges.size(); ++i) at(0, i) = t.edges[i];
  }
  Raw& at(std::int64_t r, std::int64_t c) { return w[offset + r * rowStride + c * colStride]; }
  float widened(std::int64_t r, std::int64_t c) const { return type.widen(w[offset + r * rowStride + c * colStride]); }
  // The loop as written: row after row, each addition rounded.
  std::vector<float> inOrder() const {
    std::vector<float> y(cols, 0.0f);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) y[c] = y[c] + x[r] * widened(r, c);
    return y;
  }
  // What a jam that summed four rows before adding them to y would give.
  std::vector<float> fourRowsFirst() const {
    std::vector<float> y(cols, 0.0f);
    std::int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
      for (std::int64_t c = 0; c < cols; ++c) {
        float part = 0;
        for (std::int64_t k = 0; k < 4; ++k) part = part + x[r + k] * widened(r + k, c);
        y[c] = y[c] + part;
      }
    for (; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) y[c] = y[c] + x[r] * widened(r, c);
    return y;
  }
  std::vector<float> run(const test::JitFunction<void(Matrix*, Vector*, Vector*)>& gemv) {
    std::vector<float> y(cols, 0.0f);
    Matrix a{w.data(), w.data(), offset, {rows, cols}, {rowStride, colStride}};
    Vector xv{x.data(), x.data(), 0, {rows}, {1}}, yv{y.data(), y.data(), 0, {cols}, {1}};
    gemv(&a, &xv, &yv);
    return y;
  }
};

std::vector<std::uint32_t> bits(const std::vector<float>& v) {
  std::vector<std::uint32_t> out;
  for (float f : v) out.push_back(std::bit_cast<std::uint32_t>(f));
  return out;
}

// Compiles the GEMV over `type` at `level` (W strided when `strided`), expects
// it jammed, and compares it bit for bit with the loop as written at row
// counts around the jam factor (the remainder rows) and column counts around
// the vector widths, zero rows and zero columns included.
template <typename Raw>
void expectJammedInRowOrder(const Narrow<Raw>& type, OptLevel level, bool strided) {
  SCOPED_TRACE(std::string(type.name) + (level == OptLevel::O2 ? " O2" : " O3") + (strided ? " strided" : ""));
  Jit jit = test::makeJit({.optLevel = level});
  codegen::Module m("gemv");
  addGemv(m, "gemv", type.name, {}, strided ? ", strided<[?, ?], offset: ?>" : "");
  LoadedModule mod = load(jit, std::move(m));
  EXPECT_TRUE(jammed(mod, "gemv"));
  const test::JitFunction<void(typename Problem<Raw>::Matrix*, Vector*, Vector*)> gemv(
      test::valueOrFail(mod.symbol("_mlir_ciface_gemv"), "symbol"));
  bool orderMatters = false;
  for (std::int64_t rows : {0, 1, 3, 4, 5, 8, 13, 64})
    for (std::int64_t cols : {0, 1, 3, 16, 33, 100}) {
      Problem<Raw> p = strided ? Problem<Raw>(type, rows, cols, 2, 3, 5) : Problem<Raw>(type, rows, cols);
      const std::vector<float> want = p.inOrder();
      EXPECT_EQ(bits(p.run(gemv)), bits(want)) << rows << "x" << cols;
      orderMatters |= bits(p.fourRowsFirst()) != bits(want);
    }
  // The data can tell a reordered sum from the written one.
  EXPECT_TRUE(orderMatters);
}

TEST(AccumulatorJam, ABf16GemvIsJammedAndKeepsEverySumInRowOrder) {
  for (OptLevel level : {OptLevel::O2, OptLevel::O3}) expectJammedInRowOrder(kBf16, level, false);
}

// At O2 the inner loop's zero-trip guard is still inside the row loop: the
// jam versions the nest on it (jit/inner_loop_guard.h); zero columns take the
// copy as written.
TEST(AccumulatorJam, F16AndI8GemvsAreJammedAtO2) {
  expectJammedInRowOrder(kF16, OptLevel::O2, false);
  expectJammedInRowOrder(kI8, OptLevel::O2, false);
}

TEST(AccumulatorJam, AStridedMatrixIsJammedAtO2) {
  expectJammedInRowOrder(kBf16, OptLevel::O2, true);
  expectJammedInRowOrder(kI8, OptLevel::O2, true);
}

TEST(AccumulatorJam, OnlyNestsThatConvertNarrowElementsAreJammed) {
  Jit jit = test::makeJit({.optLevel = OptLevel::O3});
  codegen::Module m("kinds");
  addGemv(m, "f32", "f32");
  addGemv(m, "f16", "f16");
  LoadedModule mod = load(jit, std::move(m));
  EXPECT_FALSE(jammed(mod, "f32"));
  EXPECT_TRUE(jammed(mod, "f16"));
}

TEST(AccumulatorJam, AnUnrollHintOnTheRowLoopWins) {
  Jit jit = test::makeJit({.optLevel = OptLevel::O2});
  codegen::Module m("hinted");
  addGemv(m, "kept", "bf16", {.unroll = 1});
  addGemv(m, "two", "bf16", {.unroll = 2});
  LoadedModule mod = load(jit, std::move(m));
  EXPECT_TRUE(jammedFunctions(mod).empty());
}

// A candidate whose jam would be wrong: each row also reads y[cols-1-c],
// which the row before writes later in its pass over y (for c < cols/2). The jam versions the nest on
// the guard, LLVM's dependence check refuses it, and the nest as written is
// all that remains.
TEST(AccumulatorJam, ANestTheJamRefusesAtO2RunsAsWritten) {
  Jit jit = test::makeJit({.optLevel = OptLevel::O2});
  codegen::Module m("refused");
  codegen::FunctionOptions options;
  options.noalias = true;
  auto type = parseFunctionType("(memref<?x?xbf16>, memref<?xf32>, memref<?xf32>) -> ()");
  ASSERT_TRUE(type.ok());
  FunctionBuilder b(m, "shifted", *type, options);
  Value w = b.arg(0), x = b.arg(1), y = b.arg(2), cols = b.dim(w, 1);
  b.forLoop(b.index(0), b.dim(w, 0), b.index(1), [&](Value r) {
    Value xr = b.load(x, {r});
    b.forLoop(b.index(0), cols, b.index(1), [&](Value c) {
      Value mirror = b.load(y, {cols - b.index(1) - c});
      b.store(b.load(y, {c}) + xr * b.cast(b.load(w, {r, c}), ElementType::F32) + b.f32(0.25f) * mirror, y, {c});
    });
  });
  b.ret();
  ASSERT_FALSE(b.finish());
  LoadedModule mod = load(jit, std::move(m));
  EXPECT_TRUE(jammedFunctions(mod).empty());
  const test::JitFunction<void(Problem<std::uint16_t>::Matrix*, Vector*, Vector*)> shifted(
      test::valueOrFail(mod.symbol("_mlir_ciface_shifted"), "symbol"));
  for (std::int64_t rows : {0, 5, 13})
    for (std::int64_t cols : {0, 1, 33}) {
      Problem<std::uint16_t> p(kBf16, rows, cols);
      std::vector<float> got(cols, 1.0f), want = got;
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c)
          want[c] = want[c] + p.x[r] * p.widened(r, c) + 0.25f * want[cols - 1 - c];
      Problem<std::uint16_t>::Matrix a{p.w.data(), p.w.data(), 0, {rows, cols}, {cols, 1}};
      Vector xv{p.x.data(), p.x.data(), 0, {rows}, {1}}, yv{got.data(), got.data(), 0, {cols}, {1}};
      shifted(&a, &xv, &yv);
      EXPECT_EQ(bits(got), bits(want)) << rows << "x" << cols;
    }
}

TEST(AccumulatorJam, NothingIsJammedBelowO2) {
  Jit jit = test::makeJit({.optLevel = OptLevel::O1});
  codegen::Module m("o1");
  addGemv(m, "gemv", "bf16");
  LoadedModule mod = load(jit, std::move(m));
  EXPECT_TRUE(jammedFunctions(mod).empty());
  const test::JitFunction<void(Problem<std::uint16_t>::Matrix*, Vector*, Vector*)> gemv(
      test::valueOrFail(mod.symbol("_mlir_ciface_gemv"), "symbol"));
  Problem<std::uint16_t> p(kBf16, 7, 19);
  EXPECT_EQ(bits(p.run(gemv)), bits(p.inOrder()));
}

}  // namespace
}  // namespace memjit::jit
