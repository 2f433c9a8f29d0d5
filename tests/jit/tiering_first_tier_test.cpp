// The O0 first tier's rewrites for FastISel (jit/first_tier_isel.h): lane
// masks as per-lane copies, prefetches dropped, scalar min/max as selects,
// descriptor loads split into field loads, library math intrinsics as calls
// of the C library.
// Every result is compared with the tier-up's and with what the mask means,
// including masks whose lane indices wrap around 2^64.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/tiering.h"
#include "memjit/runtime/memref.h"
#include "support/expected.h"
#include "support/files.h"
#include "support/jit.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::valueOrFail;

namespace {

JitOptions firstTierOnly(const std::filesystem::path& dumps = {}) {
  JitOptions options;
  options.tiering.enabled = true;
  options.tiering.callThreshold = 1000000;  // the tier-up waits for requestTierUp
  options.dumpDirectory = dumps.string();
  return options;
}


// IR text added to a Jit that keeps it at the first tier, and that tier's IR.
struct FirstTier {
  Jit jit;
  LoadedModule mod;
  std::string ir;
};

FirstTier addAtFirstTier(const char* irText, const std::string& name) {
  const std::filesystem::path dumps = test::freshDir("tiering_first_tier/" + name);
  Jit jit = test::makeJit(firstTierOnly(dumps));
  LoadedModule mod = valueOrFail(jit.addIR(irText, name));
  EXPECT_EQ(currentTier(mod), Tier::First);
  std::string ir = test::firstTierDump(dumps);
  return {std::move(jit), std::move(mod), std::move(ir)};
}

// Compiles and swaps in the requested level now.
void tierUpNow(const LoadedModule& mod) {
  requestTierUp(mod);
  EXPECT_FALSE(waitForTierUp(mod));
  EXPECT_EQ(currentTier(mod), Tier::Optimised);
}

// Lane masks `splat(first) + <0..15> ult splat(bound)` on a load with a NaN
// passthrough, a load with a zero one, stores of both; a mask of every other
// index, which is no lane mask and stays as it is; the scalar min/max
// family; a prefetch.
constexpr const char* kLaneMaskIR = R"(
define void @lanes(ptr %dst, ptr %zeroed, ptr %src, ptr %minmax, i64 %first, i64 %bound) {
  call void @llvm.prefetch.p0(ptr %src, i32 0, i32 3, i32 1)
  %fi = insertelement <16 x i64> poison, i64 %first, i64 0
  %fs = shufflevector <16 x i64> %fi, <16 x i64> poison, <16 x i32> zeroinitializer
  %bi = insertelement <16 x i64> poison, i64 %bound, i64 0
  %bs = shufflevector <16 x i64> %bi, <16 x i64> poison, <16 x i32> zeroinitializer
  %lanes = add <16 x i64> <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7, i64 8, i64 9, i64 10, i64 11, i64 12, i64 13, i64 14, i64 15>, %fs
  %mask = icmp ult <16 x i64> %lanes, %bs
  %kept = call <16 x float> @llvm.masked.load.v16f32.p0(ptr %src, i32 4, <16 x i1> %mask, <16 x float> splat (float 0x7FF8024680000000))
  store <16 x float> %kept, ptr %dst, align 4
  %zero = call <16 x float> @llvm.masked.load.v16f32.p0(ptr %src, i32 4, <16 x i1> %mask, <16 x float> zeroinitializer)
  %z = getelementptr float, ptr %zeroed, i64 16
  call void @llvm.masked.store.v16f32.p0(<16 x float> %zero, ptr %zeroed, i32 4, <16 x i1> %mask)
  call void @llvm.masked.store.v16f32.p0(<16 x float> zeroinitializer, ptr %z, i32 4, <16 x i1> %mask)
  %even = add <16 x i64> %fs, <i64 0, i64 2, i64 4, i64 6, i64 8, i64 10, i64 12, i64 14, i64 16, i64 18, i64 20, i64 22, i64 24, i64 26, i64 28, i64 30>
  %evenMask = icmp ult <16 x i64> %even, %bs
  %strided = call <16 x float> @llvm.masked.load.v16f32.p0(ptr %src, i32 4, <16 x i1> %evenMask, <16 x float> zeroinitializer)
  %s = getelementptr float, ptr %zeroed, i64 32
  store <16 x float> %strided, ptr %s, align 4
  %smin = call i64 @llvm.smin.i64(i64 %first, i64 %bound)
  %smax = call i64 @llvm.smax.i64(i64 %first, i64 %bound)
  %umin = call i64 @llvm.umin.i64(i64 %first, i64 %bound)
  %umax = call i64 @llvm.umax.i64(i64 %first, i64 %bound)
  store i64 %smin, ptr %minmax, align 8
  %p1 = getelementptr i64, ptr %minmax, i64 1
  store i64 %smax, ptr %p1, align 8
  %p2 = getelementptr i64, ptr %minmax, i64 2
  store i64 %umin, ptr %p2, align 8
  %p3 = getelementptr i64, ptr %minmax, i64 3
  store i64 %umax, ptr %p3, align 8
  ret void
}
declare void @llvm.prefetch.p0(ptr, i32, i32, i32)
declare <16 x float> @llvm.masked.load.v16f32.p0(ptr, i32, <16 x i1>, <16 x float>)
declare void @llvm.masked.store.v16f32.p0(<16 x float>, ptr, i32, <16 x i1>)
declare i64 @llvm.smin.i64(i64, i64)
declare i64 @llvm.smax.i64(i64, i64)
declare i64 @llvm.umin.i64(i64, i64)
declare i64 @llvm.umax.i64(i64, i64)
)";

using LanesFn = test::JitFunction<void(float*, float*, const float*, std::int64_t*, std::uint64_t, std::uint64_t)>;

struct LaneResults {
  std::vector<std::uint32_t> bits;
  std::vector<std::int64_t> minmax;
  bool operator==(const LaneResults&) const = default;
};

LaneResults callLanes(LanesFn fn, std::uint64_t first, std::uint64_t bound) {
  std::vector<float> src(16), dst(16), zeroed(48, -1.0f);
  for (int i = 0; i < 16; ++i) src[i] = std::ldexp(static_cast<float>(i) - 7.5f, i - 8);
  src[3] = -0.0f, src[4] = std::numeric_limits<float>::denorm_min(), src[5] = std::nanf("0x1234");
  LaneResults r{std::vector<std::uint32_t>(64), std::vector<std::int64_t>(4)};
  fn(dst.data(), zeroed.data(), src.data(), r.minmax.data(), first, bound);
  std::memcpy(r.bits.data(), dst.data(), 64);
  std::memcpy(r.bits.data() + 16, zeroed.data(), 192);
  // What the masks mean, lane by lane, in wrapping u64 arithmetic.
  LaneResults expected{std::vector<std::uint32_t>(64), std::vector<std::int64_t>(4)};
  for (std::uint64_t lane = 0; lane < 16; ++lane) {
    const bool active = first + lane < bound;
    const float nanPassthrough = std::bit_cast<float>(0x7fc01234u);
    const float kept = active ? src[lane] : nanPassthrough;
    const float zero = active ? src[lane] : 0.0f;
    std::memcpy(&expected.bits[lane], &kept, 4);
    expected.bits[16 + lane] = std::bit_cast<std::uint32_t>(active ? zero : -1.0f);
    expected.bits[32 + lane] = std::bit_cast<std::uint32_t>(active ? 0.0f : -1.0f);
    expected.bits[48 + lane] = std::bit_cast<std::uint32_t>(first + 2 * lane < bound ? src[lane] : 0.0f);
  }
  const auto sf = static_cast<std::int64_t>(first), sb = static_cast<std::int64_t>(bound);
  expected.minmax = {std::min(sf, sb), std::max(sf, sb), static_cast<std::int64_t>(std::min(first, bound)),
                     static_cast<std::int64_t>(std::max(first, bound))};
  EXPECT_EQ(r.bits, expected.bits) << "first " << first << " bound " << bound;
  EXPECT_EQ(r.minmax, expected.minmax) << "first " << first << " bound " << bound;
  return r;
}

}  // namespace

TEST(FirstTier, LaneMasksPrefetchesAndMinMaxKeepTheirMeaningIncludingWrappedLanes) {
  auto [jit, mod, ir] = addAtFirstTier(kLaneMaskIR, "lanes");
  ASSERT_EQ(currentTier(mod), Tier::First);
  EXPECT_NE(ir.find("@memjit.first_tier.copy_lanes.4"), std::string::npos) << ir;
  auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = ir.find(text); at != std::string::npos; at = ir.find(text, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("call <16 x float> @llvm.masked.load"), 1u) << ir;  // the every-other-index one
  EXPECT_EQ(count("call void @memjit.first_tier.copy_lanes.4("), 4u) << ir;
  EXPECT_EQ(ir.find("call void @llvm.masked.store"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("call void @llvm.prefetch"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("@llvm.smin.i64(i64 %"), std::string::npos) << ir;
  const LanesFn fn(valueOrFail(jit.lookupSymbol("lanes")));

  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t cases[][2] = {{0, 16},       {0, 5},       {3, 5},         {10, 5},         {0, 0},
                                    {max - 3, 5},  {max - 3, max}, {max, 1},     {max - 15, max}, {1ull << 63, 3},
                                    {17, 1u << 31}};
  std::vector<LaneResults> first;
  for (const auto& c : cases) first.push_back(callLanes(fn, c[0], c[1]));
  tierUpNow(mod);
  for (std::size_t i = 0; i < std::size(cases); ++i) EXPECT_EQ(callLanes(fn, cases[i][0], cases[i][1]), first[i]);
}

namespace {

using Mat = runtime::StridedMemRef<float, 2>;

codegen::Module sgemmModule() {
  codegen::Module m("sgemm");
  EXPECT_FALSE(codegen::addSgemm(m, "direct"));
  codegen::SgemmOptions packed;
  packed.directBytes = 0;  // always packs: the packing loops' masks too
  EXPECT_FALSE(codegen::addSgemm(m, "packed", packed));
  return m;
}

// C = A * B through both kernels on shapes with partial tiles everywhere; the
// outputs' bits, concatenated.
std::vector<std::uint32_t> runSgemm(const LoadedModule& mod) {
  std::vector<std::uint32_t> bits;
  for (const char* name : {"direct", "packed"}) {
    auto fn = valueOrFail(valueOrFail(mod.function(name)).as<void(Mat, Mat, Mat)>());
    for (const auto [M, K, N] : {std::array<std::int64_t, 3>{37, 29, 45}, {1, 1, 1}, {16, 3, 17}, {5, 0, 9}}) {
      std::vector<float> A(M * K), B(K * N), C(M * N, std::nanf(""));
      for (std::size_t i = 0; i < A.size(); ++i) A[i] = std::ldexp(static_cast<float>(int(i % 23) - 11), int(i % 7) - 3);
      for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(int(i % 13) - 6) * 0.375f;
      if (!A.empty()) A[0] = -0.0f;
      if (A.size() > 2) A[2] = std::numeric_limits<float>::denorm_min();
      if (B.size() > 1) B[1] = std::numeric_limits<float>::infinity();
      fn(runtime::makeView<float, 2>(A.data(), {M, K}), runtime::makeView<float, 2>(B.data(), {K, N}),
         runtime::makeView<float, 2>(C.data(), {M, N}));
      for (float v : C) bits.push_back(std::bit_cast<std::uint32_t>(v));
    }
  }
  return bits;
}

}  // namespace

TEST(FirstTier, SgemmGivesTheSameBitsInBothTiersAsADirectCompile) {
  Jit direct = test::makeJit();
  const std::vector<std::uint32_t> expected = runSgemm(valueOrFail(direct.add(sgemmModule())));

  const std::filesystem::path dumps = test::freshDir("tiering_first_tier/sgemm");
  Jit jit = test::makeJit(firstTierOnly(dumps));
  LoadedModule mod = valueOrFail(jit.add(sgemmModule()));
  ASSERT_EQ(currentTier(mod), Tier::First);
  // The kernels' blocked bodies are replaced with their first-tier bodies
  // (tiering_first_tier_bodies_test.cpp): no lane mask is left to rewrite.
  EXPECT_EQ(test::firstTierDump(dumps).find("call void @llvm.masked"), std::string::npos);
  EXPECT_EQ(runSgemm(mod), expected);
  tierUpNow(mod);
  EXPECT_EQ(runSgemm(mod), expected);
}

namespace {

// Descriptor-like struct loads: one whose fields are only extracted (split),
// read before a store that clobbers it; one that is stored whole and one
// volatile (both kept). An i32 field before an i64 one tests the layout.
constexpr const char* kAggregateIR = R"(
define void @fields(ptr %desc, ptr %out, ptr %copy) {
  %d = load { ptr, i32, i64, [2 x i64] }, ptr %desc, align 8
  store i64 -1, ptr %desc, align 8
  %p = extractvalue { ptr, i32, i64, [2 x i64] } %d, 0
  %i = extractvalue { ptr, i32, i64, [2 x i64] } %d, 1
  %j = extractvalue { ptr, i32, i64, [2 x i64] } %d, 2
  %s = extractvalue { ptr, i32, i64, [2 x i64] } %d, 3, 1
  store ptr %p, ptr %out, align 8
  %o1 = getelementptr i8, ptr %out, i64 8
  %wide = sext i32 %i to i64
  store i64 %wide, ptr %o1, align 8
  %o2 = getelementptr i8, ptr %out, i64 16
  store i64 %j, ptr %o2, align 8
  %o3 = getelementptr i8, ptr %out, i64 24
  store i64 %s, ptr %o3, align 8
  %t = getelementptr i8, ptr %desc, i64 16
  %w = load { i64, i64 }, ptr %t, align 8
  store { i64, i64 } %w, ptr %copy, align 8
  %v = load volatile { i64, i64 }, ptr %t, align 8
  %v1 = extractvalue { i64, i64 } %v, 1
  %o4 = getelementptr i8, ptr %out, i64 32
  store i64 %v1, ptr %o4, align 8
  ret void
}
)";

struct Descriptor {
  void* pointer;
  std::int32_t narrow;
  std::int64_t wide;
  std::int64_t sizes[2];
};

std::vector<std::int64_t> callFields(void* address) {
  Descriptor d{reinterpret_cast<void*>(std::uintptr_t{0x123456789abc}), std::numeric_limits<std::int32_t>::min(),
               (std::int64_t{1} << 53) + 1, {std::numeric_limits<std::int64_t>::min(), -1}};
  std::vector<std::int64_t> out(5, 0), copy(2, 0);
  test::callJit<void(Descriptor*, std::int64_t*, std::int64_t*)>(address, &d, out.data(), copy.data());
  out.insert(out.end(), copy.begin(), copy.end());
  out.push_back(reinterpret_cast<std::intptr_t>(d.pointer));  // clobbered after the load
  return out;
}

}  // namespace

TEST(FirstTier, AggregateLoadsWhoseFieldsAreExtractedBecomeFieldLoadsInPlace) {
  auto [jit, mod, ir] = addAtFirstTier(kAggregateIR, "aggregates");
  ASSERT_EQ(currentTier(mod), Tier::First);
  EXPECT_EQ(ir.find("load { ptr, i32"), std::string::npos) << ir;
  EXPECT_NE(ir.find("load { i64, i64 }"), std::string::npos) << ir;           // stored whole
  EXPECT_NE(ir.find("load volatile { i64, i64 }"), std::string::npos) << ir;  // volatile
  void* fn = valueOrFail(jit.lookupSymbol("fields"));
  const std::vector<std::int64_t> expected{0x123456789abc,
                                           std::numeric_limits<std::int32_t>::min(),
                                           (std::int64_t{1} << 53) + 1,
                                           -1,
                                           std::numeric_limits<std::int64_t>::min(),
                                           (std::int64_t{1} << 53) + 1,
                                           std::numeric_limits<std::int64_t>::min(),
                                           -1};
  EXPECT_EQ(callFields(fn), expected);
  tierUpNow(mod);
  EXPECT_EQ(callFields(fn), expected);
}

namespace {

// Scalar math intrinsics, f32 and f64, one with fast-math flags (its own
// helper); every result is stored.
constexpr const char* kScalarMathIR = R"(
define void @math(ptr %in, ptr %din, i32 %n, ptr %out, ptr %dout) {
  %a = load float, ptr %in, align 4
  %pb = getelementptr float, ptr %in, i64 1
  %b = load float, ptr %pb, align 4
  %pc = getelementptr float, ptr %in, i64 2
  %c = load float, ptr %pc, align 4
  %x = load double, ptr %din, align 8
  %py = getelementptr double, ptr %din, i64 1
  %y = load double, ptr %py, align 8
  %r0 = call float @llvm.fma.f32(float %a, float %b, float %c)
  %r1 = call float @llvm.maxnum.f32(float %a, float %b)
  %r2 = call float @llvm.minimum.f32(float %a, float %b)
  %r3 = call float @llvm.copysign.f32(float %a, float %b)
  %r4 = call float @llvm.floor.f32(float %a)
  %r5 = call float @llvm.fabs.f32(float %b)
  %r6 = call float @llvm.exp.f32(float %c)
  %r7 = call contract float @llvm.fma.f32(float %a, float %b, float %c)
  %r8 = call float @llvm.fma.f32(float %c, float %b, float %a)
  store float %r0, ptr %out, align 4
  %o1 = getelementptr float, ptr %out, i64 1
  store float %r1, ptr %o1, align 4
  %o2 = getelementptr float, ptr %out, i64 2
  store float %r2, ptr %o2, align 4
  %o3 = getelementptr float, ptr %out, i64 3
  store float %r3, ptr %o3, align 4
  %o4 = getelementptr float, ptr %out, i64 4
  store float %r4, ptr %o4, align 4
  %o5 = getelementptr float, ptr %out, i64 5
  store float %r5, ptr %o5, align 4
  %o6 = getelementptr float, ptr %out, i64 6
  store float %r6, ptr %o6, align 4
  %o7 = getelementptr float, ptr %out, i64 7
  store float %r7, ptr %o7, align 4
  %o8 = getelementptr float, ptr %out, i64 8
  store float %r8, ptr %o8, align 4
  %d0 = call double @llvm.powi.f64.i32(double %x, i32 %n)
  %d1 = call double @llvm.ldexp.f64.i32(double %x, i32 %n)
  %d2 = call double @llvm.maximum.f64(double %x, double %y)
  %d3 = call double @llvm.trunc.f64(double %y)
  %ax = call double @llvm.fabs.f64(double %x)
  %d4 = call double @llvm.pow.f64(double %ax, double %y)
  %d5 = call double @llvm.log.f64(double %ax)
  store double %d0, ptr %dout, align 8
  %q1 = getelementptr double, ptr %dout, i64 1
  store double %d1, ptr %q1, align 8
  %q2 = getelementptr double, ptr %dout, i64 2
  store double %d2, ptr %q2, align 8
  %q3 = getelementptr double, ptr %dout, i64 3
  store double %d3, ptr %q3, align 8
  %q4 = getelementptr double, ptr %dout, i64 4
  store double %d4, ptr %q4, align 8
  %q5 = getelementptr double, ptr %dout, i64 5
  store double %d5, ptr %q5, align 8
  ret void
}
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minimum.f32(float, float)
declare float @llvm.copysign.f32(float, float)
declare float @llvm.floor.f32(float)
declare float @llvm.fabs.f32(float)
declare float @llvm.exp.f32(float)
declare double @llvm.powi.f64.i32(double, i32)
declare double @llvm.ldexp.f64.i32(double, i32)
declare double @llvm.maximum.f64(double, double)
declare double @llvm.trunc.f64(double)
declare double @llvm.fabs.f64(double)
declare double @llvm.pow.f64(double, double)
declare double @llvm.log.f64(double)
)";

using MathFn = test::JitFunction<void(const float*, const double*, std::int32_t, float*, double*)>;

// The bits of every result for each triple of edge values.
std::vector<std::uint64_t> callMath(MathFn fn) {
  const float inf = std::numeric_limits<float>::infinity();
  const float edges[] = {-0.0f, 0.0f, std::numeric_limits<float>::denorm_min(), 1.0f, -1.5f, 0x1p100f,
                         -inf, inf, std::nanf("")};
  const std::int32_t exponents[] = {0, 3, -1075, 2000, std::numeric_limits<std::int32_t>::min()};
  std::vector<std::uint64_t> bits;
  for (float a : edges)
    for (float b : edges) {
      const float c = b == 1.0f ? -a : 0x1p-30f;
      const float in[3] = {a, b, c};
      const double din[2] = {static_cast<double>(a) * 3.0 + 0.5, static_cast<double>(b) * -2.75};
      const std::int32_t n = exponents[bits.size() % std::size(exponents)];
      float out[9];
      double dout[6];
      fn(in, din, n, out, dout);
      // What is exact is also compared with C++ (minimum: NaN propagates, -0 < +0).
      const auto f = [](float v) { return std::bit_cast<std::uint32_t>(v); };
      const float minimum = std::isnan(a) || std::isnan(b) ? std::nanf("")
                            : a == b                      ? (std::signbit(a) ? a : b)
                                                          : std::min(a, b);
      EXPECT_EQ(f(out[0]), f(std::fma(a, b, c))) << a << " " << b;
      EXPECT_EQ(f(out[7]), f(out[0])) << a << " " << b;
      EXPECT_EQ(f(out[8]), f(std::fma(c, b, a))) << a << " " << b;
      if (!std::isnan(minimum)) EXPECT_EQ(f(out[2]), f(minimum)) << a << " " << b;
      else EXPECT_TRUE(std::isnan(out[2]));
      EXPECT_EQ(f(out[3]), f(std::copysign(a, b)));
      EXPECT_EQ(f(out[4]), f(std::floor(a)));
      EXPECT_EQ(f(out[5]), f(std::fabs(b)));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(dout[1]), std::bit_cast<std::uint64_t>(std::ldexp(din[0], n)));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(dout[3]), std::bit_cast<std::uint64_t>(std::trunc(din[1])));
      // The C library's functions, which the first tier now calls by name.
      EXPECT_EQ(f(out[6]), f(std::exp(c)));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(dout[4]), std::bit_cast<std::uint64_t>(std::pow(std::fabs(din[0]), din[1])));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(dout[5]), std::bit_cast<std::uint64_t>(std::log(std::fabs(din[0]))));
      for (float v : out) bits.push_back(f(v));
      for (double v : dout) bits.push_back(std::bit_cast<std::uint64_t>(v));
    }
  return bits;
}

}  // namespace

TEST(FirstTier, LibraryMathIntrinsicsBecomeCallsOfTheCLibraryWithTheSameBits) {
  auto [jit, mod, ir] = addAtFirstTier(kScalarMathIR, "math");
  ASSERT_EQ(currentTier(mod), Tier::First);
  auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = ir.find(text); at != std::string::npos; at = ir.find(text, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("call float @fmaf("), 2u) << ir;
  EXPECT_EQ(count("call contract float @llvm.fma.f32("), 1u) << ir;  // its flag would be lost
  EXPECT_EQ(count("call float @llvm.fma.f32("), 0u) << ir;
  EXPECT_EQ(count("call float @expf("), 1u) << ir;
  EXPECT_EQ(count("call double @pow("), 1u) << ir;
  EXPECT_EQ(count("call double @log("), 1u) << ir;
  // What O0 selects inline stays an intrinsic.
  for (const char* kept : {"call float @llvm.maxnum.f32(", "call float @llvm.copysign.f32(",
                           "call double @llvm.powi.f64.i32(", "call double @llvm.trunc.f64("})
    EXPECT_EQ(count(kept), 1u) << kept << "\n" << ir;
  const MathFn fn(valueOrFail(jit.lookupSymbol("math")));
  const std::vector<std::uint64_t> first = callMath(fn);
  tierUpNow(mod);
  EXPECT_EQ(callMath(fn), first);
}
