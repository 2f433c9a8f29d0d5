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
void addGemv(codegen::Module& m, const std::string& name, const std::string& element, LoopOptions rows = {}) {
  codegen::FunctionOptions options;
  options.noalias = true;
  auto type = parseFunctionType("(memref<?x?x" + element + ">, memref<?xf32>, memref<?xf32>) -> ()");
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

using Matrix = runtime::StridedMemRef<std::uint16_t, 2>;
using Vector = runtime::StridedMemRef<float, 1>;

// W's entries span 2^-30 .. 2^30 with both signs (so the order of the
// additions decides the rounded sums), plus -0, a denormal and an infinity in
// the first row; x is bf16-representable, so every product is exact in f32 and
// the reference below means the same with or without fma contraction.
struct Problem {
  std::int64_t rows, cols;
  std::vector<std::uint16_t> w;
  std::vector<float> x;
  Problem(std::int64_t r, std::int64_t c) : rows(r), cols(c), w(r * c), x(r) {
    std::mt19937 rng(static_cast<unsigned>(r * 1000 + c));
    std::uniform_real_distribution<float> mantissa(1, 2);
    std::uniform_int_distribution<int> exponent(-30, 30), sign(0, 1);
    for (auto& v : w) v = bf16Bits((sign(rng) ? -1.0f : 1.0f) * std::ldexp(mantissa(rng), exponent(rng)));
    for (auto& v : x) v = fromBf16(bf16Bits((sign(rng) ? -1.0f : 1.0f) * mantissa(rng)));
    if (r > 0 && c > 2) {
      w[0] = 0x8000;  // -0
      w[1] = 0x0001;  // the smallest denormal
      w[2] = 0x7f80;  // +inf
    }
  }
  // The loop as written: row after row, each addition rounded.
  std::vector<float> inOrder() const {
    std::vector<float> y(cols, 0.0f);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) y[c] = y[c] + x[r] * fromBf16(w[r * cols + c]);
    return y;
  }
  // What a jam that summed four rows before adding them to y would give.
  std::vector<float> fourRowsFirst() const {
    std::vector<float> y(cols, 0.0f);
    std::int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
      for (std::int64_t c = 0; c < cols; ++c) {
        float part = 0;
        for (std::int64_t k = 0; k < 4; ++k) part = part + x[r + k] * fromBf16(w[(r + k) * cols + c]);
        y[c] = y[c] + part;
      }
    for (; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) y[c] = y[c] + x[r] * fromBf16(w[r * cols + c]);
    return y;
  }
  std::vector<float> run(const test::JitFunction<void(Matrix*, Vector*, Vector*)>& gemv) {
    std::vector<float> y(cols, 0.0f);
    Matrix a{w.data(), w.data(), 0, {rows, cols}, {cols, 1}};
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

TEST(AccumulatorJam, ABf16GemvIsJammedAndKeepsEverySumInRowOrder) {
  Jit jit = test::makeJit({.optLevel = OptLevel::O3});
  codegen::Module m("gemv");
  addGemv(m, "gemv", "bf16");
  LoadedModule mod = load(jit, std::move(m));
  EXPECT_TRUE(jammed(mod, "gemv"));
  const test::JitFunction<void(Matrix*, Vector*, Vector*)> gemv(
      test::valueOrFail(mod.symbol("_mlir_ciface_gemv"), "symbol"));
  bool orderMatters = false;
  // Row counts around the jam factor (the remainder rows), columns around the vector widths.
  for (std::int64_t rows : {0, 1, 3, 4, 5, 8, 13, 64})
    for (std::int64_t cols : {1, 3, 16, 33, 100}) {
      Problem p(rows, cols);
      const std::vector<float> want = p.inOrder();
      EXPECT_EQ(bits(p.run(gemv)), bits(want)) << rows << "x" << cols;
      orderMatters |= bits(p.fourRowsFirst()) != bits(want);
    }
  // The data can tell a reordered sum from the written one.
  EXPECT_TRUE(orderMatters);
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
  Jit jit = test::makeJit({.optLevel = OptLevel::O3});
  codegen::Module m("hinted");
  addGemv(m, "kept", "bf16", {.unroll = 1});
  addGemv(m, "two", "bf16", {.unroll = 2});
  LoadedModule mod = load(jit, std::move(m));
  EXPECT_TRUE(jammedFunctions(mod).empty());
}

TEST(AccumulatorJam, NothingIsJammedBelowO2) {
  Jit jit = test::makeJit({.optLevel = OptLevel::O1});
  codegen::Module m("o1");
  addGemv(m, "gemv", "bf16");
  LoadedModule mod = load(jit, std::move(m));
  EXPECT_TRUE(jammedFunctions(mod).empty());
  const test::JitFunction<void(Matrix*, Vector*, Vector*)> gemv(
      test::valueOrFail(mod.symbol("_mlir_ciface_gemv"), "symbol"));
  Problem p(7, 19);
  EXPECT_EQ(bits(p.run(gemv)), bits(p.inOrder()));
}

}  // namespace
}  // namespace memjit::jit
