// Reassociable float reductions and streaming map loops fill a 512-bit
// register on AVX-512 hosts whose CPU is on jit/compile.cpp's list
// (prefer-vector-width=512; Skylake-X's family keeps LLVM's tuning), read back through the
// vectoriser's remarks; exact sums, a loop's own hint and O1 are left alone,
// and a widened map loop gives the scalar loop's bits.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Target/TargetMachine.h>

#include "jit/compile.h"
#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/remarks.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/call_jit.h"
#include "support/expected.h"
#include "support/loop_remarks.h"

namespace memjit::jit {
namespace {

using codegen::FastMath;
using codegen::FunctionBuilder;
using codegen::LoopOptions;
using codegen::Value;

// Whether the host gets the 512-bit preference (an AVX-512 CPU on compile.cpp's list).
const bool kWideHost = detail::prefers512BitVectors(TargetSpec::host().cpu, TargetSpec::host().features);

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

// out[i] = (x[i] + y[i]) * x[i] over memref<?xT>: a map loop (softmax's
// scaling, saxpy); the add comes first, so nothing can contract into an FMA.
void addMap(codegen::Module& m, const std::string& name, const std::string& element, FastMath fastMath,
            LoopOptions loop = {}) {
  codegen::FunctionOptions options;
  options.noalias = true;
  options.fastMath = fastMath;
  const std::string memref = "memref<?x" + element + ">";
  auto type = parseFunctionType("(" + memref + ", " + memref + ", " + memref + ") -> ()");
  ASSERT_TRUE(type.ok());
  FunctionBuilder b(m, name, *type, options);
  Value x = b.arg(0), y = b.arg(1), out = b.arg(2);
  b.forLoop(b.index(0), b.dim(x, 0), b.index(1), loop, [&](Value i) {
    Value xi = b.load(x, {i});
    b.store((xi + b.load(y, {i})) * xi, out, {i});
  });
  b.ret();
  ASSERT_FALSE(b.finish());
}

using test::findLoop;
using test::loopVerdicts;

TEST(WideReductions, ReassociableSumsFillA512BitRegister) {
  if (!kWideHost) GTEST_SKIP() << "the host CPU keeps LLVM's own vector width (" << TargetSpec::host().cpu << ")";
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

TEST(WideReductions, MapLoopsFillA512BitRegisterExactOrNot) {
  if (!kWideHost) GTEST_SKIP() << "the host CPU keeps LLVM's own vector width (" << TargetSpec::host().cpu << ")";
  codegen::Module m("maps");
  addMap(m, "exact", "f32", FastMath::None);
  addMap(m, "fast", "f32", FastMath::Fast);
  addMap(m, "f64", "f64", FastMath::None);
  const auto loops = loopVerdicts(std::move(m));
  const LoopVectorization* exact = findLoop(loops, "exact");
  const LoopVectorization* fast = findLoop(loops, "fast");
  const LoopVectorization* f64 = findLoop(loops, "f64");
  ASSERT_TRUE(exact && fast && f64);
  EXPECT_TRUE(exact->vectorized && exact->width == 16) << describe(*exact);
  EXPECT_TRUE(fast->vectorized && fast->width == 16) << describe(*fast);
  EXPECT_TRUE(f64->vectorized && f64->width == 8) << describe(*f64);
}

std::vector<std::uint32_t> bits(const std::vector<float>& v) {
  std::vector<std::uint32_t> out;
  for (float f : v) out.push_back(std::bit_cast<std::uint32_t>(f));
  return out;
}

TEST(WideReductions, AWidenedMapLoopGivesTheScalarLoopsBits) {
  using Vector = runtime::StridedMemRef<float, 1>;
  Jit engine = test::makeJit({.optLevel = OptLevel::O3});
  codegen::Module m("exact_map");
  addMap(m, "map", "f32", FastMath::None);
  LoadedModule mod = test::valueOrFail(engine.add(std::move(m)), "Jit::add");
  const test::JitFunction<void(Vector*, Vector*, Vector*)> map(
      test::valueOrFail(mod.symbol("_mlir_ciface_map"), "symbol"));
  using limits = std::numeric_limits<float>;
  const std::vector<float> edges{limits::quiet_NaN(), -0.0f, 0.0f, limits::infinity(), -limits::infinity(),
                                 limits::denorm_min(), -1e-40f, limits::min(), limits::max(), -limits::max(),
                                 1.0f, -3.5f, 16777217.0f, 1e-20f, 0.1f, -7e37f, 3e38f};
  // Lengths around the 16-lane width and its remainder (memref<?xf32> is unit-stride by its type).
  const std::int64_t stride = 1;
  for (std::int64_t n : {0, 1, 15, 16, 17, 33, 100, 289}) {
      std::vector<float> x(static_cast<std::size_t>(n * stride)), y(x.size()), out(x.size(), 42.0f);
      for (std::size_t k = 0; k < x.size(); ++k) {
        x[k] = edges[k % edges.size()];
        y[k] = edges[(k * 7 + 3) % edges.size()];
      }
      std::vector<float> want = out;
      for (std::int64_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i * stride);
        volatile float sum = x[k] + y[k];  // volatile: no FMA in the reference either
        want[k] = sum * x[k];
      }
      Vector xv{x.data(), x.data(), 0, {n}, {stride}}, yv{y.data(), y.data(), 0, {n}, {stride}},
          ov{out.data(), out.data(), 0, {n}, {stride}};
      map(&xv, &yv, &ov);
      EXPECT_EQ(bits(out), bits(want)) << "n " << n;
    }
}

TEST(WideReductions, TheLoopsOwnHintWins) {
  codegen::Module m("hinted");
  addSum(m, "four", "f32", FastMath::Fast, {.vectorWidth = 4});
  addMap(m, "map_four", "f32", FastMath::None, {.vectorWidth = 4});
  const auto loops = loopVerdicts(std::move(m));
  if (const LoopVectorization* four = findLoop(loops, "four")) {
    EXPECT_TRUE(four->vectorized && four->width == 4) << describe(*four);
  }
  if (const LoopVectorization* mapFour = findLoop(loops, "map_four")) {
    EXPECT_TRUE(mapFour->vectorized && mapFour->width == 4) << describe(*mapFour);
  }
}

TEST(WideReductions, NothingIsForcedBelowO2) {
  codegen::Module m("o1");
  addSum(m, "f32", "f32", FastMath::Fast);
  addMap(m, "map", "f32", FastMath::None);
  for (const LoopVectorization& loop : loopVerdicts(std::move(m), OptLevel::O1)) {
    EXPECT_FALSE(loop.vectorized) << describe(loop);
  }
}

// The 512-bit preference follows the CPU, not only +avx512f: Skylake-X's
// family keeps LLVM's 256-bit tuning (512-bit instructions slow its clock).
TEST(PreferVectorWidth, FollowsTheCpuNotOnlyAvx512) {
  const std::string avx512 = "+avx2,+fma,+avx512f,+avx512bw,+avx512dq,+avx512vl";
  for (const char* cpu : {"sapphirerapids", "emeraldrapids", "graniterapids", "graniterapids-d", "icelake-server",
                          "icelake-client", "tigerlake", "rocketlake", "znver4", "znver5"}) {
    EXPECT_TRUE(detail::prefers512BitVectors(cpu, avx512)) << cpu;
    EXPECT_FALSE(detail::prefers512BitVectors(cpu, "+avx2,+fma,-avx512f")) << cpu << " without AVX-512";
  }
  for (const char* cpu : {"skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "knl", "knm", "generic",
                          "x86-64-v4", "", "sapphirerapids2"})
    EXPECT_FALSE(detail::prefers512BitVectors(cpu, avx512)) << cpu;
}

constexpr const char* kTwoFunctionsIR = R"(
define void @plain() { ret void }
define void @own() #0 { ret void }
attributes #0 = { "prefer-vector-width"="128" }
)";

// What prepareModule leaves on each function of a module compiled for `cpu`.
std::vector<std::string> preferredWidths(const std::string& cpu) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(kTwoFunctionsIR, diagnostic, context);
  if (!module) return {"unparsed: " + diagnostic.getMessage().str()};
  const TargetSpec spec{"x86_64-unknown-linux-gnu", cpu, "+avx2,+fma,+avx512f,+avx512bw,+avx512dq,+avx512vl"};
  auto machine = test::valueOrFail(detail::createTargetMachine(spec, OptLevel::O2), "createTargetMachine");
  detail::prepareModule(*module, *machine);
  std::vector<std::string> widths;
  for (const char* name : {"plain", "own"}) {
    const llvm::Function* f = module->getFunction(name);
    widths.push_back(f->hasFnAttribute("prefer-vector-width")
                         ? f->getFnAttribute("prefer-vector-width").getValueAsString().str()
                         : "none");
    EXPECT_EQ(f->getFnAttribute("target-cpu").getValueAsString(), cpu) << name;
  }
  return widths;
}

TEST(PreferVectorWidth, SkylakeAvx512KeepsItsOwnTuningAndAFunctionsAttributeWins) {
  EXPECT_EQ(preferredWidths("skylake-avx512"), (std::vector<std::string>{"none", "128"}));
  EXPECT_EQ(preferredWidths("cascadelake"), (std::vector<std::string>{"none", "128"}));
  EXPECT_EQ(preferredWidths("sapphirerapids"), (std::vector<std::string>{"512", "128"}));
  EXPECT_EQ(preferredWidths("znver4"), (std::vector<std::string>{"512", "128"}));
}

}  // namespace
}  // namespace memjit::jit
