// Loops calling the vector math library get its widest variant's width
// (jit/vector_math_width.h), read back through the vectoriser's remarks: on an
// AVX-512 host a tanh or exp loop runs 16 f32 / 8 f64 lanes (libmvec's
// _ZGVeN16v_ / _ZGVeN8v_ variants) although LLVM prefers 256-bit vectors there;
// a loop's own hint, an exact sum and O1 are left alone.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/remarks.h"
#include "memjit/type_syntax.h"
#include "support/loop_remarks.h"

namespace memjit::jit {
namespace {

using codegen::FastMath;
using codegen::FunctionBuilder;
using codegen::LoopOptions;
using codegen::Value;

#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
const bool kHasAvx512Libmvec = __builtin_cpu_supports("avx512f");
#else
const bool kHasAvx512Libmvec = false;
#endif

using Body = std::function<Value(FunctionBuilder&, Value)>;

// out[i] = f(in[i]) over memref<?xT>.
void addMap(codegen::Module& m, const std::string& name, const std::string& element, const Body& f,
            FastMath fastMath = FastMath::None, LoopOptions loop = {}) {
  codegen::FunctionOptions options;
  options.noalias = true;
  options.fastMath = fastMath;
  auto type = parseFunctionType("(memref<?x" + element + ">, memref<?x" + element + ">) -> ()");
  ASSERT_TRUE(type.ok());
  FunctionBuilder b(m, name, *type, options);
  Value in = b.arg(0), out = b.arg(1);
  b.forLoop(b.index(0), b.dim(in, 0), b.index(1), loop, [&](Value i) { b.store(f(b, b.load(in, {i})), out, {i}); });
  b.ret();
  ASSERT_FALSE(b.finish());
}

// s = s + exp(x[i]): a call inside a loop carrying a float.
void addExpSum(codegen::Module& m, const std::string& name, FastMath fastMath) {
  codegen::FunctionOptions options;
  options.noalias = true;
  options.fastMath = fastMath;
  FunctionBuilder b(m, name, *parseFunctionType("(memref<?xf32>) -> f32"), options);
  Value x = b.arg(0);
  b.ret({b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.f32(0)}, [&](Value i, const std::vector<Value>& acc) {
    return std::vector<Value>{acc[0] + b.exp(b.load(x, {i}))};
  })[0]});
  ASSERT_FALSE(b.finish());
}

using test::findLoop;
using test::loopVerdicts;

unsigned widthOf(const std::vector<LoopVectorization>& loops, const std::string& kernel) {
  const LoopVectorization* loop = findLoop(loops, kernel);
  if (!loop) return 0;
  EXPECT_TRUE(loop->vectorized) << describe(*loop);
  return loop->width;
}

const Body kTanh = [](FunctionBuilder& b, Value x) { return 0.5f * x * (1.0f + b.tanh(0.79788456f * x)); };
const Body kExp = [](FunctionBuilder& b, Value x) { return b.exp(x); };
const Body kDouble = [](FunctionBuilder&, Value x) { return x + x; };

TEST(VectorMathWidth, MathLoopsTakeTheWidestVariant) {
  if (!kHasAvx512Libmvec) GTEST_SKIP() << "no AVX-512 libmvec variants on this host";
  codegen::Module m("widths");
  addMap(m, "plain", "f32", kDouble);
  addMap(m, "tanh_exact", "f32", kTanh);
  addMap(m, "tanh_fast", "f32", kTanh, FastMath::Fast);
  addMap(m, "exp_f64", "f64", kExp, FastMath::Fast);
  const auto loops = loopVerdicts(std::move(m));
  // memjit prefers 512-bit vectors on AVX-512 (jit/compile.cpp), loops with and without calls alike.
  EXPECT_EQ(widthOf(loops, "plain"), 16u);
  EXPECT_EQ(widthOf(loops, "tanh_exact"), 16u);
  EXPECT_EQ(widthOf(loops, "tanh_fast"), 16u);
  EXPECT_EQ(widthOf(loops, "exp_f64"), 8u);
}

TEST(VectorMathWidth, TheLoopsOwnHintWins) {
  if (!kHasAvx512Libmvec) GTEST_SKIP() << "no AVX-512 libmvec variants on this host";
  codegen::Module m("hinted");
  addMap(m, "four", "f32", kExp, FastMath::Fast, {.vectorWidth = 4});
  addMap(m, "scalar", "f32", kExp, FastMath::Fast, {.vectorWidth = 1});
  const auto loops = loopVerdicts(std::move(m));
  EXPECT_EQ(widthOf(loops, "four"), 4u);
  if (const LoopVectorization* scalar = findLoop(loops, "scalar")) {
    EXPECT_FALSE(scalar->vectorized) << describe(*scalar);
  }
}

TEST(VectorMathWidth, AnExactSumIsNotReassociated) {
  codegen::Module m("sums");
  addExpSum(m, "exact", FastMath::None);
  addExpSum(m, "reassoc", FastMath::Fast);
  const auto loops = loopVerdicts(std::move(m));
  if (const LoopVectorization* exact = findLoop(loops, "exact")) {
    EXPECT_FALSE(exact->vectorized) << describe(*exact);
  }
  if (kHasAvx512Libmvec) {
    EXPECT_EQ(widthOf(loops, "reassoc"), 16u);
  }
}

TEST(VectorMathWidth, NothingIsForcedBelowO2) {
  codegen::Module m("o1");
  addMap(m, "tanh", "f32", kTanh, FastMath::Fast);
  for (const LoopVectorization& loop : loopVerdicts(std::move(m), OptLevel::O1)) {
    EXPECT_FALSE(loop.vectorized) << describe(loop);
  }
}

}  // namespace
}  // namespace memjit::jit
