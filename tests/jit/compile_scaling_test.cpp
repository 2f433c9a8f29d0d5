// The generated kernels of bench/scaling_kernels.h (bench_compile_scaling's)
// at 10K builder operations give bit-identical results at O0 and O2: whatever
// keeps large functions' compile time in check must not change what they compute.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "scaling_kernels.h"
#include "support/expected.h"
#include "support/jit.h"

using namespace memjit;
using memjit::bench::ScalingShape;
using runtime::StridedMemRef;

namespace {

constexpr std::size_t kOps = 10000;

// `out` after running the shape's kernel compiled at `level` on fixed inputs.
std::vector<float> run(ScalingShape shape, jit::OptLevel level) {
  codegen::Module module("scaling");
  Error e = bench::addScalingKernel(module, "kernel", shape, kOps);
  EXPECT_FALSE(e) << e.str();
  jit::Jit jit = test::makeJit({.optLevel = level});
  jit::LoadedModule loaded = test::valueOrFail(jit.add(std::move(module)), "add");
  jit::Function fn = test::valueOrFail(loaded.function("kernel"), "kernel");
  std::vector<float> in(bench::scalingInputSize(shape)), out(bench::scalingOutputSize(shape));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 7) * 0.375f - 1.0f;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(i % 5) * 0.25f;
  auto inView = runtime::makeView(in), outView = runtime::makeView(out);
  fn.cInterfaceAs<void(StridedMemRef<float, 1>*, StridedMemRef<float, 1>*)>()(&inView, &outView);
  return out;
}

class CompileScaling : public ::testing::TestWithParam<ScalingShape> {};

}  // namespace

TEST_P(CompileScaling, O2GivesTheBitsOfO0) {
  const std::vector<float> o0 = run(GetParam(), jit::OptLevel::O0);
  const std::vector<float> o2 = run(GetParam(), jit::OptLevel::O2);
  ASSERT_EQ(o0.size(), o2.size());
  EXPECT_EQ(std::memcmp(o0.data(), o2.data(), o0.size() * sizeof(float)), 0);
  // The kernel did write every element (the inputs are no fixed point of it).
  std::size_t changed = 0;
  for (std::size_t i = 0; i < o0.size(); ++i) changed += o0[i] != static_cast<float>(i % 5) * 0.25f;
  EXPECT_EQ(changed, o0.size());
}

INSTANTIATE_TEST_SUITE_P(Shapes, CompileScaling,
                         ::testing::Values(ScalingShape::Body, ScalingShape::Loops, ScalingShape::Nest),
                         [](const auto& info) { return std::string(bench::scalingShapeName(info.param)); });
