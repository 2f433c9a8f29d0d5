// Fast-math flags (fast_math.h) and loop hints: MLIR's spellings, where the
// flags land in the IR (function-wide, per region), and what they allow the
// optimiser: reductions vectorise with `reassoc` (and max with nnan + nsz),
// loops follow the hints. Results stay within the reordering's rounding.
#include "memjit/codegen/fast_math.h"

#include <gtest/gtest.h>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "elementwise.h"
#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "support/llvm_jit.h"

namespace memjit::codegen {
namespace {

std::string irText(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return os.str();
}
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(FastMath, MlirSpellingsRoundTrip) {
  EXPECT_EQ(toString(FastMath::None), "none");
  EXPECT_EQ(toString(FastMath::Fast), "fast");
  EXPECT_EQ(toString(FastMath::AllowContract | FastMath::Reassoc | FastMath::NoNaNs), "reassoc,nnan,contract");
  EXPECT_EQ(toString(FastMath::ApproxFunc | FastMath::AllowReciprocal | FastMath::NoSignedZeros | FastMath::NoInfs),
            "ninf,nsz,arcp,afn");
  for (unsigned bits = 0; bits <= 0x7f; ++bits) {
    auto flags = static_cast<FastMath>(bits);
    auto parsed = parseFastMath(toString(flags));
    ASSERT_TRUE(parsed.ok()) << toString(flags);
    EXPECT_EQ(*parsed, flags) << toString(flags);
  }
  auto spaced = parseFastMath("nnan, ninf");
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(*spaced, FastMath::NoNaNs | FastMath::NoInfs);
  auto bad = parseFastMath("reassoc,nan");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::ParseError);
  EXPECT_EQ(bad.error().offset(), 8u);
  EXPECT_NE(bad.error().message().find("'nan'"), std::string::npos) << bad.error().str();
  EXPECT_TRUE(has(FastMath::Fast, FastMath::Reassoc | FastMath::ApproxFunc));
  EXPECT_FALSE(has(FastMath::Reassoc, FastMath::Reassoc | FastMath::NoNaNs));
}

TEST(FastMath, FunctionWideFlagsReachEveryFloatOperationAndTheAttributes) {
  Module m("f");
  FunctionOptions options;
  options.fastMath = FastMath::Fast;
  FunctionBuilder b(m, "f", *parseFunctionType("(f32, f32) -> f32"), options);
  Value x = b.arg(0), y = b.arg(1);
  b.ret({b.exp(x * y + b.tanh(x)) / y});
  ASSERT_FALSE(b.finish());
  const std::string ir = irText(m.llvm());
  EXPECT_TRUE(contains(ir, "fmul fast float")) << ir;
  EXPECT_TRUE(contains(ir, "fadd fast float")) << ir;
  EXPECT_TRUE(contains(ir, "fdiv fast float")) << ir;
  EXPECT_TRUE(contains(ir, "call fast float @llvm.exp.f32")) << ir;
  EXPECT_TRUE(contains(ir, "call fast float @tanhf")) << ir;
  EXPECT_TRUE(contains(ir, "\"no-nans-fp-math\"=\"true\"")) << ir;
  EXPECT_TRUE(contains(ir, "\"unsafe-fp-math\"=\"true\"")) << ir;
}

TEST(FastMath, RegionFlagsApplyInsideTheRegionOnlyAndNest) {
  Module m("f");
  FunctionBuilder b(m, "f", *parseFunctionType("(f64, f64) -> (f64, f64, f64, f64)"));
  Value x = b.arg(0), y = b.arg(1);
  Value before = x + y, inner, outer, after;
  EXPECT_EQ(b.fastMath(), FastMath::None);
  b.withFastMath(FastMath::Reassoc, [&] {
    outer = x * y;
    b.withFastMath(b.fastMath() | FastMath::NoNaNs, [&] { inner = x - y; });
    EXPECT_EQ(b.fastMath(), FastMath::Reassoc);
  });
  after = x / y;
  EXPECT_EQ(b.fastMath(), FastMath::None);
  b.ret({before, outer, inner, after});
  ASSERT_FALSE(b.finish());
  const std::string ir = irText(m.llvm());
  EXPECT_TRUE(contains(ir, "fadd double")) << ir;
  EXPECT_TRUE(contains(ir, "fmul reassoc double")) << ir;
  EXPECT_TRUE(contains(ir, "fsub reassoc nnan double")) << ir;
  EXPECT_TRUE(contains(ir, "fdiv double")) << ir;
  EXPECT_FALSE(contains(ir, "no-nans-fp-math")) << ir;  // regions set no function attributes
}

// sum(x) carried through forLoop, with `flags` on the accumulation.
Module sumModule(FastMath flags, bool useMax) {
  Module m("sum");
  FunctionOptions options;
  options.noalias = true;
  FunctionBuilder b(m, "sum", *parseFunctionType("(memref<?xf32>) -> f32"), options);
  Value x = b.arg(0);
  auto r = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.f32(useMax ? -INFINITY : 0.0f)},
                     [&](Value i, const std::vector<Value>& acc) {
                       Value next;
                       b.withFastMath(flags, [&] {
                         next = useMax ? b.maxnumf(acc[0], b.load(x, {i})) : acc[0] + b.load(x, {i});
                       });
                       return std::vector<Value>{next};
                     });
  b.ret(r);
  EXPECT_FALSE(b.finish());
  return m;
}

float runSum(Module m, std::vector<float>& data) {
  test::TestJit jit;
  EXPECT_FALSE(jit.add(std::move(m)));
  auto f = jit.function<float(test::Descriptor1D<float>*)>("_mlir_ciface_sum");
  EXPECT_TRUE(f.ok());
  auto d = test::describe(data);
  return (*f)(&d);
}

TEST(FastMath, ReassocLetsAFloatSumVectoriseAndExactStaysSerial) {
  std::vector<float> data(1003);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = 1.0f / static_cast<float>(i + 1);
  float serial = 0;
  for (float v : data) serial += v;

  Module exact = sumModule(FastMath::None, false);
  ASSERT_FALSE(test::optimizeForHost(exact));
  const std::string exactIR = irText(exact.llvm());
  EXPECT_FALSE(contains(exactIR, "vector.reduce.fadd")) << exactIR;
  EXPECT_EQ(runSum(std::move(exact), data), serial);  // bit for bit: the serial order

  Module fast = sumModule(FastMath::Reassoc, false);
  ASSERT_FALSE(test::optimizeForHost(fast));
  const std::string fastIR = irText(fast.llvm());
  EXPECT_TRUE(contains(fastIR, "vector.reduce.fadd")) << fastIR;
  EXPECT_NEAR(runSum(std::move(fast), data), serial, 1e-5f * serial);
}

TEST(FastMath, MaxReductionVectorisesWithNoNaNsAndNoSignedZeros) {
  std::vector<float> data(517);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::sin(static_cast<float>(i)) * 100;
  const float want = *std::max_element(data.begin(), data.end());
  Module m = sumModule(FastMath::NoNaNs | FastMath::NoSignedZeros, true);
  ASSERT_FALSE(test::optimizeForHost(m));
  const std::string ir = irText(m.llvm());
  EXPECT_TRUE(contains(ir, "vector.reduce.fmax")) << ir;
  EXPECT_EQ(runSum(std::move(m), data), want);  // max is exact in any order
}

// out[i] = a[i] * 2 with the given hints, optimised for the host.
std::string hintedLoopIR(const LoopOptions& hints) {
  Module m("h");
  FunctionOptions options;
  options.noalias = true;
  FunctionBuilder b(m, "h", *parseFunctionType("(memref<?xf32>, memref<?xf32>) -> ()"), options);
  Value a = b.arg(0), out = b.arg(1);
  b.forLoop(b.index(0), b.dim(a, 0), b.index(1), hints, [&](Value i) { b.store(b.load(a, {i}) * 2.0f, out, {i}); });
  b.ret();
  EXPECT_FALSE(b.finish());
  EXPECT_FALSE(test::optimizeForHost(m));
  // The kernel alone (the C interface may hold an inlined copy).
  std::string s;
  llvm::raw_string_ostream os(s);
  m.llvm().getFunction("h")->print(os);
  return os.str();
}

TEST(LoopHints, VectorWidthInterleaveAndUnrollSteerTheVectoriser) {
  const std::string four = hintedLoopIR({.vectorWidth = 4, .interleave = 1});
  EXPECT_TRUE(contains(four, "<4 x float>")) << four;
  EXPECT_FALSE(contains(four, "<8 x float>") || contains(four, "<16 x float>")) << four;

  const std::string scalar = hintedLoopIR({.vectorWidth = 1, .interleave = 1, .unroll = 1});
  EXPECT_FALSE(contains(scalar, "x float>")) << scalar;
  EXPECT_EQ(scalar.find("fmul float"), scalar.rfind("fmul float")) << "one multiply: not unrolled\n" << scalar;

  const std::string unrolled = hintedLoopIR({.vectorWidth = 1, .interleave = 1, .unroll = 4});
  std::size_t multiplies = 0;
  for (std::size_t p = unrolled.find("fmul float"); p != std::string::npos; p = unrolled.find("fmul float", p + 1))
    ++multiplies;
  EXPECT_GE(multiplies, 4u) << unrolled;
}

// A loop calling a math function is not interleaved unless the user asks:
// the vector calls clobber every vector register.
TEST(LoopHints, LoopsCallingMathFunctionsAreNotInterleavedByDefault) {
  auto loopIR = [](bool callExp, LoopOptions hints) {
    Module m("h");
    FunctionBuilder b(m, "h", *parseFunctionType("(memref<?xf32>) -> ()"));
    Value a = b.arg(0);
    b.forLoop(b.index(0), b.dim(a, 0), b.index(1), hints, [&](Value i) {
      Value x = b.load(a, {i});
      b.store(callExp ? b.exp(x) : x * x, a, {i});
    });
    b.ret();
    EXPECT_FALSE(b.finish());
    return irText(m.llvm());
  };
  EXPECT_TRUE(contains(loopIR(true, {}), "!\"llvm.loop.interleave.count\", i32 1}"));
  EXPECT_FALSE(contains(loopIR(false, {}), "llvm.loop.interleave.count"));
  EXPECT_TRUE(contains(loopIR(true, {.interleave = 4}), "!\"llvm.loop.interleave.count\", i32 4}"));
}

// A width hint would let LLVM reassociate the loop's float operations, so an
// exact float sum keeps its order (the hint is dropped); with reassoc it vectorises at that width.
TEST(LoopHints, AWidthDoesNotReassociateAnExactSum) {
  auto sumIR = [](FastMath fastMath) {
    Module m("s");
    FunctionOptions options;
    options.fastMath = fastMath;
    FunctionBuilder b(m, "s", *parseFunctionType("(memref<?xf32>) -> f32"), options);
    Value x = b.arg(0);
    Value sum = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.f32(0)}, LoopOptions{.vectorWidth = 8},
                          [&](Value i, const std::vector<Value>& acc) {
                            return std::vector<Value>{acc[0] + b.load(x, {i})};
                          })[0];
    b.ret({sum});
    EXPECT_FALSE(b.finish());
    EXPECT_FALSE(test::optimizeForHost(m));
    std::string s;
    llvm::raw_string_ostream os(s);
    m.llvm().getFunction("s")->print(os);
    return os.str();
  };
  const std::string exact = sumIR(FastMath::None);
  EXPECT_FALSE(contains(exact, "x float>")) << exact;
  const std::string reassoc = sumIR(FastMath::Reassoc);
  EXPECT_TRUE(contains(reassoc, "<8 x float>")) << reassoc;
}

TEST(LoopHints, HintedLoopsComputeTheSame) {
  for (LoopOptions hints : {LoopOptions{}, LoopOptions{.vectorWidth = 1}, LoopOptions{.vectorWidth = 8, .interleave = 4},
                            LoopOptions{.unroll = 3}}) {
    std::vector<std::int32_t> a(37), expected(37);
    std::iota(a.begin(), a.end(), -18);
    for (std::size_t i = 0; i < a.size(); ++i) expected[i] = a[i] * a[i] - 3;
    Module m("h");
    FunctionBuilder b(m, "h", *parseFunctionType("(memref<?xi32>, memref<?xi32>) -> ()"));
    Value x = b.arg(0), out = b.arg(1);
    b.forLoop(b.index(0), b.dim(x, 0), b.index(1), hints, [&](Value i) {
      Value v = b.load(x, {i});
      b.store(v * v - 3, out, {i});
    });
    b.ret();
    ASSERT_FALSE(b.finish());
    ASSERT_FALSE(test::optimizeForHost(m));
    test::TestJit jit;
    ASSERT_FALSE(jit.add(std::move(m)));
    auto f = jit.function<void(test::Descriptor1D<std::int32_t>*, test::Descriptor1D<std::int32_t>*)>("_mlir_ciface_h");
    ASSERT_TRUE(f.ok());
    std::vector<std::int32_t> result(a.size());
    auto da = test::describe(a), dr = test::describe(result);
    (*f)(&da, &dr);
    EXPECT_EQ(result, expected) << hints.vectorWidth << " " << hints.interleave << " " << hints.unroll;
  }
}

}  // namespace
}  // namespace memjit::codegen
