// jit/minmax_reductions.h: a loop with minnum/maxnum reductions of f32 and
// f64, which LLVM 22's vectoriser made invalid IR of (an `fcmp uno` of a float
// and a double vector; `opt-22 -O2` on this IR fails its verifier, and the x86
// back end aborted with "Cannot emit physreg copy instruction"). Found by the
// difftest (seed 3000000000296).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "memjit/jit/jit.h"
#include "support/call_jit.h"

namespace memjit::jit {
namespace {

constexpr const char* kMixedReductionsIR = R"(
target triple = "x86_64-pc-linux-gnu"
define void @min_max_reductions(ptr %f, ptr %d, i64 %n, ptr %out) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %fmin = phi float [ 0x7FF0000000000000, %entry ], [ %fmin.next, %loop ]
  %fmax = phi float [ 0xFFF0000000000000, %entry ], [ %fmax.next, %loop ]
  %dmin = phi double [ 0x7FF0000000000000, %entry ], [ %dmin.next, %loop ]
  %pf = getelementptr float, ptr %f, i64 %i
  %xf = load float, ptr %pf
  %pd = getelementptr double, ptr %d, i64 %i
  %xd = load double, ptr %pd
  %fmin.next = call float @llvm.minnum.f32(float %fmin, float %xf)
  %fmax.next = call float @llvm.maxnum.f32(float %fmax, float %xf)
  %dmin.next = call double @llvm.minnum.f64(double %dmin, double %xd)
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  store float %fmin.next, ptr %out
  %o1 = getelementptr float, ptr %out, i64 1
  store float %fmax.next, ptr %o1
  %o2 = getelementptr double, ptr %out, i64 1
  store double %dmin.next, ptr %o2
  ret void
}
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare double @llvm.minnum.f64(double, double)
attributes #0 = { "target-cpu"="sapphirerapids" }
)";

struct Results {
  float minF, maxF;
  double minD;
};

// minnum/maxnum: a quiet NaN operand yields the other one.
Results reference(const std::vector<float>& f, const std::vector<double>& d) {
  Results r{std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
            std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i < f.size(); ++i) {
    r.minF = std::fmin(r.minF, f[i]);
    r.maxF = std::fmax(r.maxF, f[i]);
    r.minD = std::fmin(r.minD, d[i]);
  }
  return r;
}

TEST(MinMaxReductions, F32AndF64ReductionsInOneLoopCompileAndAgree) {
  const float nanF = std::numeric_limits<float>::quiet_NaN();
  const double nanD = std::numeric_limits<double>::quiet_NaN();
  std::vector<float> f(100);
  std::vector<double> d(100);
  for (std::size_t i = 0; i < f.size(); ++i) {
    f[i] = static_cast<float>((static_cast<int>(i) * 37) % 101) - 50.5f;
    d[i] = static_cast<double>((static_cast<int>(i) * 53) % 97) * -0.25 + 7.0;
  }
  // NaNs early, in a vector body's middle lane and in the tail, and -0 / +0.
  f[3] = nanF, f[42] = nanF, f[99] = nanF, d[5] = nanD, d[60] = nanD, f[10] = -0.0f, d[11] = 0.0;
  for (OptLevel level : {OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    auto jit = Jit::create({.optLevel = level});
    ASSERT_TRUE(jit.ok()) << jit.error().str();
    auto mod = jit->addIR(kMixedReductionsIR, "mixed");
    ASSERT_TRUE(mod.ok()) << mod.error().str();
    auto fn = mod->symbol("min_max_reductions");
    ASSERT_TRUE(fn.ok()) << fn.error().str();
    const test::JitFunction<void(const float*, const double*, std::int64_t, void*)> run(*fn);
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{64}, std::size_t{100}}) {
      const std::vector<float> fs(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(n));
      const std::vector<double> ds(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(n));
      Results got{};
      run(fs.data(), ds.data(), static_cast<std::int64_t>(n), &got);
      const Results want = reference(fs, ds);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(got.minF), std::bit_cast<std::uint32_t>(want.minF)) << optLevelName(level) << " n=" << n;
      EXPECT_EQ(std::bit_cast<std::uint32_t>(got.maxF), std::bit_cast<std::uint32_t>(want.maxF)) << optLevelName(level) << " n=" << n;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(got.minD), std::bit_cast<std::uint64_t>(want.minD)) << optLevelName(level) << " n=" << n;
    }
  }
}

}  // namespace
}  // namespace memjit::jit
