// Reassociable float reductions fill a 512-bit register on AVX-512 hosts
// (jit/wide_reductions.h), read back through the vectoriser's remarks; exact
// sums, a loop's own hint and O1 are left alone.
#include <gtest/gtest.h>

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

#if defined(__x86_64__)
const bool kHasAvx512 = __builtin_cpu_supports("avx512f");
#else
const bool kHasAvx512 = false;
#endif

// s = s + x[i] over memref<?xT>.
void addSum(codegen::Module& m, const std::string& name, const std::string& element, FastMath fastMath,
            LoopOptions loop = {}) {
  codegen::FunctionOptions options;
  options.noalias = true;
  options.fastMath = fastMath;
  auto type = parseFunctionType("(memref<?x" + element + ">) -> " + element);
  ASSERT_TRUE(type.ok());
  FunctionBuilder b(m, name, *type, options);
  Value x = b.arg(0);
  Value zero = element == "f32" ? b.f32(0) : b.f64(0);
  b.ret({b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {zero}, loop, [&](Value i, const std::vector<Value>& acc) {
    return std::vector<Value>{acc[0] + b.load(x, {i})};
  })[0]});
  ASSERT_FALSE(b.finish());
}

// m = max(m, x[i]) over memref<?xf32>: an intrinsic call (maxnum) that is one vector instruction.
void addMax(codegen::Module& m, const std::string& name, FastMath fastMath) {
  codegen::FunctionOptions options;
  options.noalias = true;
  options.fastMath = fastMath;
  FunctionBuilder b(m, name, *parseFunctionType("(memref<?xf32>) -> f32"), options);
  Value x = b.arg(0);
  b.ret({b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.f32(-1e30f)}, [&](Value i, const std::vector<Value>& acc) {
    return std::vector<Value>{b.max(acc[0], b.load(x, {i}))};
  })[0]});
  ASSERT_FALSE(b.finish());
}

using test::findLoop;
using test::loopVerdicts;

TEST(WideReductions, ReassociableSumsFillA512BitRegister) {
  if (!kHasAvx512) GTEST_SKIP() << "no AVX-512 on this host";
  codegen::Module m("sums");
  addSum(m, "f32", "f32", FastMath::Fast);
  addSum(m, "f64", "f64", FastMath::Reassoc);
  addSum(m, "exact", "f32", FastMath::None);
  addMax(m, "max", FastMath::Fast);
  const auto loops = loopVerdicts(std::move(m));
  const LoopVectorization* f32 = findLoop(loops, "f32");
  const LoopVectorization* f64 = findLoop(loops, "f64");
  const LoopVectorization* exact = findLoop(loops, "exact");
  ASSERT_TRUE(f32 && f64 && exact);
  EXPECT_TRUE(f32->vectorized && f32->width == 16) << describe(*f32);
  EXPECT_TRUE(f64->vectorized && f64->width == 8) << describe(*f64);
  EXPECT_FALSE(exact->vectorized) << describe(*exact);
  if (const LoopVectorization* max = findLoop(loops, "max")) {
    EXPECT_TRUE(max->vectorized && max->width == 16) << describe(*max);
  }
}

TEST(WideReductions, TheLoopsOwnHintWins) {
  codegen::Module m("hinted");
  addSum(m, "four", "f32", FastMath::Fast, {.vectorWidth = 4});
  const auto loops = loopVerdicts(std::move(m));
  if (const LoopVectorization* four = findLoop(loops, "four")) {
    EXPECT_TRUE(four->vectorized && four->width == 4) << describe(*four);
  }
}

TEST(WideReductions, NothingIsForcedBelowO2) {
  codegen::Module m("o1");
  addSum(m, "f32", "f32", FastMath::Fast);
  for (const LoopVectorization& loop : loopVerdicts(std::move(m), OptLevel::O1)) {
    EXPECT_FALSE(loop.vectorized) << describe(loop);
  }
}

}  // namespace
}  // namespace memjit::jit
