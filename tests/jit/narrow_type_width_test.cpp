// Loops that widen or narrow elements get the target's full vector width by
// default (jit/narrow_type_width.h), read back through the vectoriser's
// remarks: a bf16 -> f32 loop twice as wide as an f32 one, an i8 -> i32 loop
// four times, and a loop's own width hint still wins.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/remarks.h"
#include "memjit/type_syntax.h"
#include "support/jit.h"

namespace memjit::jit {
namespace {

using codegen::FunctionBuilder;
using codegen::LoopOptions;
using codegen::Value;

// y[i] = y[i] + a * convert(x[i]), the inner loop of an axpy-form GEMV.
void addAxpy(codegen::Module& m, const std::string& name, const std::string& from, const std::string& to,
             LoopOptions loop = {}) {
  codegen::FunctionOptions options;
  options.noalias = true;
  auto type = parseFunctionType("(" + to + ", memref<?x" + from + ">, memref<?x" + to + ">) -> ()");
  ASSERT_TRUE(type.ok());
  FunctionBuilder b(m, name, *type, options);
  Value a = b.arg(0), x = b.arg(1), y = b.arg(2);
  const ElementType wide = elementOf(type->inputs[0]);
  b.forLoop(b.index(0), b.dim(y, 0), b.index(1), loop,
            [&](Value i) { b.store(b.load(y, {i}) + a * b.cast(b.load(x, {i}), wide), y, {i}); });
  b.ret();
  ASSERT_FALSE(b.finish());
}

unsigned widthOf(const std::vector<LoopVectorization>& loops, const std::string& kernel) {
  for (const LoopVectorization& loop : loops)
    if (loop.function == kernel || loop.function == "_mlir_ciface_" + kernel) {
      EXPECT_TRUE(loop.vectorized) << describe(loop);
      return loop.width;
    }
  ADD_FAILURE() << "no verdict on " << kernel;
  return 0;
}

std::vector<LoopVectorization> compile(codegen::Module m, OptLevel level = OptLevel::O3) {
  Jit jit = test::makeJit({.optLevel = level});
  auto mod = jit.add(std::move(m), {.remarks = true});
  EXPECT_TRUE(mod.ok()) << mod.error().message();
  return mod.ok() ? loopVectorization(mod->remarks()) : std::vector<LoopVectorization>{};
}

TEST(NarrowTypeWidth, ConvertingLoopsFillTheVectorWithTheirNarrowestElement) {
  codegen::Module m("widths");
  addAxpy(m, "f32", "f32", "f32");
  addAxpy(m, "bf16", "bf16", "f32");
  addAxpy(m, "f16", "f16", "f32");
  addAxpy(m, "i8", "i8", "i32");
  addAxpy(m, "i16", "i16", "i32");
  const auto loops = compile(std::move(m));
  // LLVM fills the preferred register with f32 lanes; the narrow loops with their narrow lanes.
  const unsigned f32 = widthOf(loops, "f32");
  ASSERT_GE(f32, 4u);
  EXPECT_EQ(widthOf(loops, "bf16"), 2 * f32);
  EXPECT_EQ(widthOf(loops, "f16"), 2 * f32);
  EXPECT_EQ(widthOf(loops, "i8"), 4 * f32);
  EXPECT_EQ(widthOf(loops, "i16"), 2 * f32);
}

TEST(NarrowTypeWidth, NarrowingStoresCountToo) {
  codegen::Module m("narrowing");
  addAxpy(m, "f32", "f32", "f32");
  // f32 in, bf16 out: y[i] = y[i] + a * x[i] computed in bf16 after a truncation of x.
  addAxpy(m, "to_bf16", "f32", "bf16");
  const auto loops = compile(std::move(m));
  EXPECT_EQ(widthOf(loops, "to_bf16"), 2 * widthOf(loops, "f32"));
}

// f16 products summed into an f32: the exact sum must stay in order (a width
// hint would let LLVM reassociate it), the reassoc one gets the full width.
void addDot(codegen::Module& m, const std::string& name, codegen::FastMath fastMath) {
  codegen::FunctionOptions options;
  options.noalias = true;
  options.fastMath = fastMath;
  FunctionBuilder b(m, name, *parseFunctionType("(memref<?xf16>, memref<?xf16>) -> f32"), options);
  Value x = b.arg(0), y = b.arg(1);
  Value sum = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.f32(0)}, [&](Value i, const std::vector<Value>& acc) {
    Value product = b.cast(b.load(x, {i}), ElementType::F32) * b.cast(b.load(y, {i}), ElementType::F32);
    return std::vector<Value>{acc[0] + product};
  })[0];
  b.ret({sum});
  ASSERT_FALSE(b.finish());
}

TEST(NarrowTypeWidth, AnExactFloatSumIsNotReassociated) {
  codegen::Module m("dots");
  addAxpy(m, "f32", "f32", "f32");
  addDot(m, "exact", codegen::FastMath::None);
  addDot(m, "reassoc", codegen::FastMath::Reassoc);
  const auto loops = compile(std::move(m));
  bool sawExact = false;
  for (const LoopVectorization& loop : loops)
    if (loop.function.find("exact") != std::string::npos) {
      sawExact = true;
      EXPECT_FALSE(loop.vectorized) << describe(loop);
      EXPECT_NE(loop.reason.find("floating-point"), std::string::npos) << describe(loop);
    }
  EXPECT_TRUE(sawExact);
  EXPECT_EQ(widthOf(loops, "reassoc"), 2 * widthOf(loops, "f32"));
}

TEST(NarrowTypeWidth, TheLoopsOwnHintWins) {
  codegen::Module m("hinted");
  addAxpy(m, "four", "bf16", "f32", {.vectorWidth = 4});
  addAxpy(m, "scalar", "bf16", "f32", {.vectorWidth = 1});
  const auto loops = compile(std::move(m));
  EXPECT_EQ(widthOf(loops, "four"), 4u);
  for (const LoopVectorization& loop : loops) {
    if (loop.function.find("scalar") != std::string::npos) {
      EXPECT_FALSE(loop.vectorized) << describe(loop);
    }
  }
}

TEST(NarrowTypeWidth, NothingIsForcedBelowO2) {
  codegen::Module m("o1");
  addAxpy(m, "bf16", "bf16", "f32");
  for (const LoopVectorization& loop : compile(std::move(m), OptLevel::O1)) {
    EXPECT_FALSE(loop.vectorized) << describe(loop);
  }
}

}  // namespace
}  // namespace memjit::jit
