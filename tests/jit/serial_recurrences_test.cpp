// jit/serial_recurrences.h: a loop carrying one exact float chain, and the
// loops around it, are not runtime-unrolled at O2; a loop carrying two chains
// still is; a chain over widened halves is unrolled and its conversions
// SLP-vectorised. Results are the O0 compile's bits.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "memjit/jit/jit.h"
#include "support/expected.h"
#include "support/files.h"
#include "support/jit.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::valueOrFail;

namespace {

// dot: s = fma(a[i], b[i], s), one chain, inside a loop over rows of b.
// two: s = fma(a[i], b[i], s) and t = fma(b[i], b[i], t), two chains.
constexpr const char* kIR = R"(
define float @dot(ptr %a, ptr %b, i64 %rows, i64 %n) {
entry:
  br label %row
row:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  %total = phi float [ 0.0, %entry ], [ %total.next, %row.end ]
  %base = mul i64 %r, %n
  %brow = getelementptr float, ptr %b, i64 %base
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %row.end
loop:
  %i = phi i64 [ 0, %row ], [ %i.next, %loop ]
  %s = phi float [ 0.0, %row ], [ %s.next, %loop ]
  %pa = getelementptr float, ptr %a, i64 %i
  %pb = getelementptr float, ptr %brow, i64 %i
  %x = load float, ptr %pa, align 4
  %y = load float, ptr %pb, align 4
  %s.next = call float @llvm.fma.f32(float %x, float %y, float %s)
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %row.end
row.end:
  %sum = phi float [ 0.0, %row ], [ %s.next, %loop ]
  %total.next = fadd float %total, %sum
  %r.next = add nsw i64 %r, 1
  %rows.more = icmp slt i64 %r.next, %rows
  br i1 %rows.more, label %row, label %exit
exit:
  ret float %total.next
}
declare float @llvm.fma.f32(float, float, float)
)";

constexpr const char* kTwoChainsIR = R"(
define float @two(ptr %a, ptr %b, i64 %n) {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi float [ 0.0, %entry ], [ %s.next, %loop ]
  %t = phi float [ 0.0, %entry ], [ %t.next, %loop ]
  %pa = getelementptr float, ptr %a, i64 %i
  %pb = getelementptr float, ptr %b, i64 %i
  %x = load float, ptr %pa, align 4
  %y = load float, ptr %pb, align 4
  %s.next = call float @llvm.fma.f32(float %x, float %y, float %s)
  %t.next = call float @llvm.fma.f32(float %y, float %y, float %t)
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %rs = phi float [ 0.0, %entry ], [ %s.next, %loop ]
  %rt = phi float [ 0.0, %entry ], [ %t.next, %loop ]
  %r = fsub float %rs, %rt
  ret float %r
}
declare float @llvm.fma.f32(float, float, float)
)";

// `name`: s = s + T(a[i]) * T(b[i]) over f16 bits (i16 loads), in order, T float or double.
std::string halfDotIR(const std::string& name, const std::string& type) {
  std::string ir = R"(
define T @NAME(ptr %a, ptr %b, i64 %n) {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi T [ 0.0, %entry ], [ %s.next, %loop ]
  %pa = getelementptr i16, ptr %a, i64 %i
  %pb = getelementptr i16, ptr %b, i64 %i
  %xa = load i16, ptr %pa, align 2
  %xb = load i16, ptr %pb, align 2
  %ha = bitcast i16 %xa to half
  %hb = bitcast i16 %xb to half
  %fa = fpext half %ha to T
  %fb = fpext half %hb to T
  %p = fmul T %fa, %fb
  %s.next = fadd T %s, %p
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi T [ 0.0, %entry ], [ %s.next, %loop ]
  ret T %r
}
)";
  return std::regex_replace(std::regex_replace(ir, std::regex("NAME"), name), std::regex(R"(\bT\b)"), type);
}
const std::string kHalfDotIR = halfDotIR("half_dot", "float") + halfDotIR("half_dot64", "double");

std::string optimisedIR(const std::filesystem::path& dumps) {
  for (const auto& entry : std::filesystem::directory_iterator(dumps))
    if (entry.path().string().ends_with(".after.ll")) return test::readFile(entry.path());
  return {};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Values whose exact-order sum differs from any reordering: large and small
// magnitudes, -0, a denormal; a NaN in the last case.
std::vector<float> inputs(std::size_t size, bool withNaN) {
  std::vector<float> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = std::ldexp(static_cast<float>(int(i % 11) - 5), int(i % 29) - 14);
  if (size > 1) v[1] = -0.0f;
  if (size > 2) v[2] = std::numeric_limits<float>::denorm_min();
  if (withNaN && size > 3) v[3] = std::nanf("0x55");
  return v;
}

}  // namespace

TEST(SerialRecurrences, AnExactChainLoopAndTheLoopAroundItAreNotRuntimeUnrolled) {
  const std::filesystem::path dumps = test::freshDir("serial_recurrences/dot");
  JitOptions options;
  options.dumpDirectory = dumps.string();
  Jit optimised = test::makeJit(options);
  LoadedModule o2 = valueOrFail(optimised.addIR(kIR, "dot"));
  const std::string ir = optimisedIR(dumps);
  EXPECT_EQ(count(ir, "call float @llvm.fma.f32("), 1u) << ir;  // one copy of the chain: not unrolled
  EXPECT_GE(count(ir, "!\"llvm.loop.unroll.runtime.disable\""), 1u) << ir;

  JitOptions o0Options;
  o0Options.optLevel = OptLevel::O0;
  Jit direct = test::makeJit(o0Options);
  LoadedModule o0 = valueOrFail(direct.addIR(kIR, "dot"));
  using Dot = test::JitFunction<float(const float*, const float*, std::int64_t, std::int64_t)>;
  const Dot fast(valueOrFail(optimised.lookupSymbol("dot")));
  const Dot slow(valueOrFail(direct.lookupSymbol("dot")));
  for (const std::int64_t n : {0, 1, 3, 7, 8, 9, 100, 1001})
    for (const bool withNaN : {false, true}) {
      const std::vector<float> a = inputs(static_cast<std::size_t>(n), withNaN);
      const std::vector<float> b = inputs(static_cast<std::size_t>(3 * n), false);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(fast(a.data(), b.data(), 3, n)),
                std::bit_cast<std::uint32_t>(slow(a.data(), b.data(), 3, n)))
          << "n " << n << (withNaN ? " with NaN" : "");
    }
}

TEST(SerialRecurrences, TwoChainsInOneLoopAreLeftToLLVM) {
  const std::filesystem::path dumps = test::freshDir("serial_recurrences/two");
  JitOptions options;
  options.dumpDirectory = dumps.string();
  Jit jit = test::makeJit(options);
  LoadedModule mod = valueOrFail(jit.addIR(kTwoChainsIR, "two"));
  const std::string ir = optimisedIR(dumps);
  EXPECT_EQ(ir.find("llvm.loop.unroll.runtime.disable"), std::string::npos) << ir;
  const test::JitFunction<float(const float*, const float*, std::int64_t)> two(valueOrFail(jit.lookupSymbol("two")));
  const std::vector<float> a = inputs(37, false), b = inputs(37, true);
  EXPECT_TRUE(std::isnan(two(a.data(), b.data(), 37)));
  const std::vector<float> c = inputs(37, false);
  float s = 0.0f, t = 0.0f;
  for (std::size_t i = 0; i < 37; ++i) s = std::fma(a[i], c[i], s), t = std::fma(c[i], c[i], t);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(two(a.data(), c.data(), 37)), std::bit_cast<std::uint32_t>(s - t));
}

// f16 bits whose in-order products and sums round differently in any other
// order: every exponent, both signs, -0, denormals, infinities of both signs
// (so some sums are NaN) and NaNs with payloads, in a fixed pseudo-random mix.
std::vector<std::uint16_t> halfInputs(std::size_t size, unsigned seed, bool specials) {
  std::vector<std::uint16_t> v(size);
  std::uint32_t x = seed * 2654435761u + 1;
  for (std::size_t i = 0; i < size; ++i) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    v[i] = static_cast<std::uint16_t>(x);
    if (!specials && (v[i] & 0x7c00) == 0x7c00) v[i] &= 0xbfff;  // finite: exponent 15 instead of 31
  }
  if (size > 1) v[1] = 0x8000;  // -0
  if (size > 2) v[2] = 0x0001;  // the smallest denormal
  return v;
}

TEST(SerialRecurrences, AChainOverWidenedHalvesIsUnrolledAndItsConversionsVectorised) {
  const std::filesystem::path dumps = test::freshDir("serial_recurrences/half_dot");
  JitOptions options;
  options.dumpDirectory = dumps.string();
  Jit optimised = test::makeJit(options);
  LoadedModule o2 = valueOrFail(optimised.addIR(kHalfDotIR, "half_dot"));
  const std::string ir = optimisedIR(dumps);
  // The conversions run as vectors (x86-64 with F16C, AArch64: both convert
  // halves in vector registers); the adds stay scalar, in order.
  EXPECT_NE(ir.find("fpext <"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("reassoc"), std::string::npos) << ir;

  JitOptions o0Options;
  o0Options.optLevel = OptLevel::O0;
  Jit direct = test::makeJit(o0Options);
  LoadedModule o0 = valueOrFail(direct.addIR(kHalfDotIR, "half_dot"));
  using Dot = test::JitFunction<float(const std::uint16_t*, const std::uint16_t*, std::int64_t)>;
  using Dot64 = test::JitFunction<double(const std::uint16_t*, const std::uint16_t*, std::int64_t)>;
  const Dot fast(valueOrFail(optimised.lookupSymbol("half_dot"))), slow(valueOrFail(direct.lookupSymbol("half_dot")));
  const Dot64 fast64(valueOrFail(optimised.lookupSymbol("half_dot64")));
  const Dot64 slow64(valueOrFail(direct.lookupSymbol("half_dot64")));
  unsigned seed = 1;
  for (const std::int64_t n : {0, 1, 2, 7, 8, 9, 15, 16, 17, 100, 1001, 4099})
    for (const bool specials : {false, true}) {
      const auto a = halfInputs(static_cast<std::size_t>(n), seed++, specials);
      const auto b = halfInputs(static_cast<std::size_t>(n), seed++, specials);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(fast(a.data(), b.data(), n)),
                std::bit_cast<std::uint32_t>(slow(a.data(), b.data(), n)))
          << "n " << n << (specials ? " with infinities and NaNs" : "");
      EXPECT_EQ(std::bit_cast<std::uint64_t>(fast64(a.data(), b.data(), n)),
                std::bit_cast<std::uint64_t>(slow64(a.data(), b.data(), n)))
          << "f64, n " << n << (specials ? " with infinities and NaNs" : "");
    }
}
