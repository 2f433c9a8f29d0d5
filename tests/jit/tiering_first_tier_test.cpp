// The O0 first tier's rewrites for FastISel (jit/first_tier_isel.h): lane
// masks as per-lane copies, prefetches dropped, scalar min/max as selects,
// scalar math intrinsics as calls,
// descriptor loads split into field loads.
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
#include <string_view>
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

// The scalar float intrinsics the first tier calls functions for or turns
// into selects, in f32 and f64: out[k] =
// op_k(a, b, c) for one (a, b, c).
constexpr const char* kScalarOps[] = {"fma", "maxnum", "minnum", "exp", "exp2", "log",
                                      "log2", "log10", "sin", "cos", "pow"};

std::string scalarMathIR() {
  std::string ir;
  for (const char* type : {"float", "double"}) {
    const std::string t = type, suffix = t == "float" ? "f32" : "f64";
    ir += "define void @math_" + suffix + "(ptr %in, ptr %out) {\n";
    ir += "  %a = load " + t + ", ptr %in\n";
    ir += "  %pb = getelementptr " + t + ", ptr %in, i64 1\n  %b = load " + t + ", ptr %pb\n";
    ir += "  %pc = getelementptr " + t + ", ptr %in, i64 2\n  %c = load " + t + ", ptr %pc\n";
    for (std::size_t k = 0; k < std::size(kScalarOps); ++k) {
      const std::string op = kScalarOps[k], arity = op == "fma" ? "3" : op == "maxnum" || op == "minnum" || op == "pow" ? "2" : "1";
      const std::string args = arity == "3" ? t + " %a, " + t + " %b, " + t + " %c"
                               : arity == "2" ? t + " %a, " + t + " %b"
                                              : t + " %a";
      const std::string r = "%r" + std::to_string(k);
      ir += "  " + r + " = call " + t + " @llvm." + op + "." + suffix + "(" + args + ")\n";
      ir += "  %p" + std::to_string(k) + " = getelementptr " + t + ", ptr %out, i64 " + std::to_string(k) + "\n";
      ir += "  store " + t + " " + r + ", ptr %p" + std::to_string(k) + "\n";
    }
    ir += "  ret void\n}\n";
  }
  return ir;
}

// (a, b, c) triples: zeros of both signs, NaNs (quiet and signalling),
// infinities, denormals, and an FMA whose unfused result differs (0 against -2^-46).
template <typename T>
std::vector<std::array<T, 3>> scalarCases() {
  using L = std::numeric_limits<T>;
  const T eps = L::epsilon();
  const T snan = L::signaling_NaN();
  return {{1 + eps, 1 - eps, -1},   {-0.0, 0.0, -0.0},       {0.0, -0.0, 0.0},          {L::quiet_NaN(), 2, 1},
          {3, L::quiet_NaN(), 1},   {snan, 1.5, 0},          {0.5, snan, 2},            {L::infinity(), 0, 1},
          {-L::infinity(), 2, 3},   {L::denorm_min(), 0.5, L::denorm_min()}, {-L::min(), 1e3, 7}, {0.75, -2.5, 1e-3}};
}

template <typename T>
std::vector<T> callScalarMath(void* fn, const std::array<T, 3>& abc) {
  std::vector<T> out(std::size(kScalarOps));
  test::callJit<void(const T*, T*)>(fn, abc.data(), out.data());
  return out;
}

// Bit for bit, but for what the semantics leave open: any NaN for a NaN, and
// either zero from maxnum/minnum of two zeros.
template <typename T>
void expectSameResults(const std::vector<T>& got, const std::vector<T>& want, const std::array<T, 3>& abc,
                       const char* what) {
  for (std::size_t k = 0; k < got.size(); ++k) {
    const std::string op = kScalarOps[k];
    if (std::isnan(want[k])) {
      EXPECT_TRUE(std::isnan(got[k])) << what << " " << op << "(" << abc[0] << ", " << abc[1] << ")";
      continue;
    }
    if ((op == "maxnum" || op == "minnum") && want[k] == 0 && got[k] == 0) continue;
    EXPECT_EQ(std::memcmp(&got[k], &want[k], sizeof(T)), 0)
        << what << " " << op << "(" << abc[0] << ", " << abc[1] << ", " << abc[2] << "): " << got[k] << " against "
        << want[k];
  }
}

template <typename T>
std::vector<std::vector<T>> scalarMathResults(void* fn) {
  std::vector<std::vector<T>> results;
  for (const auto& abc : scalarCases<T>()) results.push_back(callScalarMath<T>(fn, abc));
  return results;
}

template <typename T>
void expectAllSame(void* fn, const std::vector<std::vector<T>>& want, const char* what) {
  const auto cases = scalarCases<T>();
  for (std::size_t i = 0; i < cases.size(); ++i) expectSameResults(callScalarMath<T>(fn, cases[i]), want[i], cases[i], what);
}

}  // namespace

// What FastISel cannot select among the scalar float intrinsics becomes what
// the SelectionDAG would have made of it: the same bits as a direct O0 compile
// (and as the tier-up).
TEST(FirstTier, ScalarFmaMinMaxAndMathCallsGiveTheSelectionDagsResults) {
  const std::string ir = scalarMathIR();
  JitOptions o0;
  o0.optLevel = OptLevel::O0;
  Jit direct = test::makeJit(o0);
  LoadedModule reference = valueOrFail(direct.addIR(ir, "scalar_math_O0"));
  const auto want32 = scalarMathResults<float>(valueOrFail(direct.lookupSymbol("math_f32")));
  const auto want64 = scalarMathResults<double>(valueOrFail(direct.lookupSymbol("math_f64")));
  // The unfused product would give 0.
  ASSERT_EQ(want32[0][0], -std::ldexp(1.0f, -46));
  ASSERT_EQ(want64[0][0], -std::ldexp(1.0, -104));

  auto [jit, mod, firstIR] = addAtFirstTier(ir.c_str(), "scalar_math");
  ASSERT_EQ(currentTier(mod), Tier::First);
  for (const char* op : kScalarOps) {  // declared still, called no more
    for (const char* call : {"call float @llvm.", "call double @llvm."})
      EXPECT_EQ(firstIR.find(call + std::string(op) + "."), std::string::npos) << op;
  }
  EXPECT_NE(firstIR.find("call float @expf("), std::string::npos) << firstIR;
  EXPECT_NE(firstIR.find("call double @pow("), std::string::npos) << firstIR;
  EXPECT_NE(firstIR.find("call float @fmaf("), std::string::npos) << firstIR;
  EXPECT_NE(firstIR.find("call double @fma("), std::string::npos) << firstIR;
  void* f32 = valueOrFail(jit.lookupSymbol("math_f32"));
  void* f64 = valueOrFail(jit.lookupSymbol("math_f64"));
  expectAllSame<float>(f32, want32, "first tier");
  expectAllSame<double>(f64, want64, "first tier");
  tierUpNow(mod);
  expectAllSame<float>(f32, want32, "tier-up");
  expectAllSame<double>(f64, want64, "tier-up");
}

// A module with a function of its own named as the C library's keeps its
// intrinsic: the rewrite would call the module's function.
TEST(FirstTier, AMathIntrinsicStaysWhereTheModuleDefinesTheLibraryName) {
  constexpr const char* kOwnExpIR = R"(
define internal float @expf(float %x) {
  ret float 4.200000e+01
}
define float @both(float %x) {
  %e = call float @llvm.exp.f32(float %x)
  %own = call float @expf(float %x)
  %sum = fadd float %e, %own
  ret float %sum
}
declare float @llvm.exp.f32(float)
)";
  JitOptions o0;
  o0.optLevel = OptLevel::O0;
  Jit direct = test::makeJit(o0);
  LoadedModule reference = valueOrFail(direct.addIR(kOwnExpIR, "own_exp_O0"));
  const float want = test::callJit<float(float)>(valueOrFail(direct.lookupSymbol("both")), 1.0f);
  auto [jit, mod, ir] = addAtFirstTier(kOwnExpIR, "own_exp");
  ASSERT_EQ(currentTier(mod), Tier::First);
  EXPECT_NE(ir.find("call float @llvm.exp.f32(float %"), std::string::npos) << ir;
  EXPECT_EQ(test::callJit<float(float)>(valueOrFail(jit.lookupSymbol("both")), 1.0f), want);
}
