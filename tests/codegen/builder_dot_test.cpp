// FunctionBuilder::dot (builder.h, "dot-product accumulation") and the u8 x s8
// loop idiom: each kind at 4, 8, 16 and odd lane counts, compiled once for the
// host (VNNI and AVX512_BF16 instructions where it has them) and once with
// those features switched off for the function (the portable fallback), both
// against a C++ model of Intel's definition, bit for bit, on edge values
// (255 x -128, INT32 wrap-around, bf16 NaN payloads, infinities, denormals,
// -0). The disassembly shows which one ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "support/jit.h"
#include "support/views.h"

namespace memjit::codegen {
namespace {

using test::V1;
using test::view;

constexpr const char* kNoDotFeatures = "-avx512vnni,-avxvnni,-avx512bf16";

// The function and its C interface (into which the optimiser inlines it) compile without the dot-product features.
void withoutDotFeatures(FunctionBuilder& f) {
  f.function()->addFnAttr("target-features", kNoDotFeatures);
  llvm::Function* wrapper = f.function()->getParent()->getFunction("_mlir_ciface_" + f.function()->getName().str());
  ASSERT_NE(wrapper, nullptr);
  wrapper->addFnAttr("target-features", kNoDotFeatures);
}

bool hostHas(const char* feature) {
  const std::string& f = jit::TargetSpec::host().features;
  return f.find(std::string("+") + feature) != std::string::npos;
}

// (acc: memref<?xA>, a: memref<?xE>, b: memref<?xE>, out: memref<?xA>) -> (): out = dot(acc, a, b) over vectors
// of `lanes` accumulator lanes. `portable` switches the dot-product features off for the function.
void addDot(Module& m, const std::string& name, ElementType accType, ElementType aType, ElementType bType,
            unsigned group, std::uint32_t lanes, bool portable) {
  const MemRefType acc(accType, {kDynamic}), a(aType, {kDynamic}), b(bType, {kDynamic});
  FunctionBuilder f(m, name, FunctionType{{acc, a, b, acc}, {}});
  if (portable) withoutDotFeatures(f);
  f.forLoop(f.index(0), f.dim(f.arg(0), 0), f.index(lanes), [&](Value i) {
    Value x = f.vectorLoad(f.arg(1), {i * group}, lanes * group);
    Value y = f.vectorLoad(f.arg(2), {i * group}, lanes * group);
    f.vectorStore(f.dot(f.vectorLoad(f.arg(0), {i}, lanes), x, y), f.arg(3), {i});
  });
  ASSERT_FALSE(f.finish()) << f.error().str();
}

std::int32_t wrap(std::int64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }

// --- C++ models of Intel's definitions ---

std::vector<std::int32_t> modelU8S8(const std::vector<std::int32_t>& acc, const std::vector<std::uint8_t>& a,
                                    const std::vector<std::int8_t>& b) {
  std::vector<std::int32_t> out(acc.size());
  for (std::size_t j = 0; j < acc.size(); ++j) {
    std::int64_t s = acc[j];
    for (int k = 0; k < 4; ++k) s += std::int64_t{a[4 * j + k]} * b[4 * j + k];
    out[j] = wrap(s);
  }
  return out;
}

std::vector<std::int32_t> modelS16(const std::vector<std::int32_t>& acc, const std::vector<std::int16_t>& a,
                                   const std::vector<std::int16_t>& b) {
  std::vector<std::int32_t> out(acc.size());
  for (std::size_t j = 0; j < acc.size(); ++j)
    out[j] = wrap(std::int64_t{acc[j]} + std::int64_t{a[2 * j]} * b[2 * j] + std::int64_t{a[2 * j + 1]} * b[2 * j + 1]);
  return out;
}

std::uint32_t flushed(std::uint32_t bits) { return (bits & 0x7f800000u) == 0 ? bits & 0x80000000u : bits; }
bool isNaN(std::uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }
std::uint32_t fmaStep(std::uint32_t t, std::uint16_t x16, std::uint16_t y16) {
  const std::uint32_t x = flushed(std::uint32_t{x16} << 16), y = flushed(std::uint32_t{y16} << 16);
  const std::uint32_t r = std::bit_cast<std::uint32_t>(
      std::fma(std::bit_cast<float>(x), std::bit_cast<float>(y), std::bit_cast<float>(t)));
  if (!isNaN(r)) return flushed(r);
  if (isNaN(x)) return x | 0x00400000u;
  if (isNaN(y)) return y | 0x00400000u;
  if (isNaN(t)) return t | 0x00400000u;
  return 0xffc00000u;
}
std::vector<std::uint32_t> modelBF16(const std::vector<std::uint32_t>& acc, const std::vector<std::uint16_t>& a,
                                     const std::vector<std::uint16_t>& b) {
  std::vector<std::uint32_t> out(acc.size());
  for (std::size_t j = 0; j < acc.size(); ++j)
    out[j] = fmaStep(fmaStep(flushed(acc[j]), a[2 * j + 1], b[2 * j + 1]), a[2 * j], b[2 * j]);
  return out;
}

// Edge values first, then random ones; n of them.
template <typename T>
std::vector<T> values(const std::vector<T>& edges, std::size_t n, std::mt19937& rng, std::size_t rotate) {
  std::vector<T> v(n);
  std::uniform_int_distribution<std::uint64_t> any;
  for (std::size_t i = 0; i < n; ++i)
    v[i] = (i % 3 != 2) ? edges[(i + rotate) % edges.size()] : static_cast<T>(any(rng));
  return v;
}

class DotTest : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(DotTest, U8S8MatchesIntelsDefinitionOnHostAndFallback) {
  const std::uint32_t lanes = GetParam();
  Module m("dot_u8s8");
  addDot(m, "hw", ElementType::I32, ElementType::UI8, ElementType::SI8, 4, lanes, false);
  addDot(m, "fb", ElementType::I32, ElementType::UI8, ElementType::SI8, 4, lanes, true);
  auto c = test::compileModule(std::move(m));
  std::mt19937 rng(lanes);
  const std::size_t n = 48 * lanes;
  auto acc = values<std::int32_t>({INT32_MAX, INT32_MIN, -1, 0, 1, INT32_MAX - 100000, INT32_MIN + 100000}, n, rng, 0);
  auto a = values<std::uint8_t>({255, 255, 0, 1, 128, 127}, 4 * n, rng, 0);
  auto b = values<std::int8_t>({-128, -128, 127, -1, 0, 1, -128}, 4 * n, rng, 0);
  acc[0] = INT32_MIN;  // four 255 x -128 products wrap it to INT32_MAX - 130559
  std::fill(a.begin(), a.begin() + 4, 255);
  std::fill(b.begin(), b.begin() + 4, -128);
  const auto expected = modelU8S8(acc, a, b);
  EXPECT_EQ(expected[0], INT32_MAX - 130559);
  for (const char* name : {"hw", "fb"}) {
    std::vector<std::int32_t> out(n);
    auto va = view(acc), vout = view(out);
    auto vx = view(a);
    auto vy = view(b);
    c.get<void(V1<std::int32_t>*, V1<std::uint8_t>*, V1<std::int8_t>*, V1<std::int32_t>*)>(name)(&va, &vx, &vy, &vout);
    EXPECT_EQ(out, expected) << name << " at " << lanes << " lanes";
  }
  auto hw = c.mod->assembly("hw"), fb = c.mod->assembly("fb");
  ASSERT_TRUE(hw && fb);
  EXPECT_EQ(fb->find("vpdpbusd"), std::string::npos);
  const bool instruction = lanes == 16 ? hostHas("avx512vnni") : (lanes == 4 || lanes == 8) && hostHas("avxvnni");
  if (instruction) {
    EXPECT_NE(hw->find("vpdpbusd"), std::string::npos) << *hw;
  }
}

TEST_P(DotTest, S16MatchesIntelsDefinitionOnHostAndFallback) {
  const std::uint32_t lanes = GetParam();
  Module m("dot_s16");
  addDot(m, "hw", ElementType::I32, ElementType::I16, ElementType::I16, 2, lanes, false);
  addDot(m, "fb", ElementType::SI32, ElementType::SI16, ElementType::SI16, 2, lanes, true);
  auto c = test::compileModule(std::move(m));
  std::mt19937 rng(lanes + 1);
  const std::size_t n = 48 * lanes;
  auto acc = values<std::int32_t>({INT32_MAX, INT32_MIN, -1, 0, 1, 7}, n, rng, 0);
  auto a = values<std::int16_t>({-32768, -32768, 32767, -1, 0, 1}, 2 * n, rng, 0);
  auto b = values<std::int16_t>({-32768, -32768, -32768, 32767, -1, 1, 0}, 2 * n, rng, 0);
  const auto expected = modelS16(acc, a, b);
  for (const char* name : {"hw", "fb"}) {
    std::vector<std::int32_t> out(n);
    auto va = view(acc), vout = view(out);
    auto vx = view(a), vy = view(b);
    c.get<void(V1<std::int32_t>*, V1<std::int16_t>*, V1<std::int16_t>*, V1<std::int32_t>*)>(name)(&va, &vx, &vy, &vout);
    EXPECT_EQ(out, expected) << name << " at " << lanes << " lanes";
  }
  auto fb = c.mod->assembly("fb");
  ASSERT_TRUE(fb);
  EXPECT_EQ(fb->find("vpdpwssd"), std::string::npos);
}

TEST_P(DotTest, BF16MatchesIntelsDefinitionOnHostAndFallback) {
  const std::uint32_t lanes = GetParam();
  Module m("dot_bf16");
  addDot(m, "hw", ElementType::F32, ElementType::BF16, ElementType::BF16, 2, lanes, false);
  addDot(m, "fb", ElementType::F32, ElementType::BF16, ElementType::BF16, 2, lanes, true);
  auto c = test::compileModule(std::move(m));
  std::mt19937 rng(lanes + 2);
  const std::size_t n = 200 * lanes;
  // Zeros of both signs, denormals (read as zero), the smallest normal, one, the largest, infinities, quiet and
  // signalling NaNs with payloads, and values whose products under- or overflow f32.
  auto acc = values<std::uint32_t>({0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x00800000u, 0x80800000u,
                                    0x3f800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc12345u,
                                    0xff812345u, 0x03800000u, 0x00801234u},
                                   n, rng, 0);
  const std::vector<std::uint16_t> edges = {0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x8080, 0x3f80, 0xbf80, 0x7f7f,
                                            0xff7f, 0x7f80, 0xff80, 0x7fc1, 0x7f81, 0xffa0, 0x1f00, 0x9f00, 0x6ebd,
                                            0x1780, 0x4049};
  auto a = values<std::uint16_t>(edges, 2 * n, rng, 0);
  auto b = values<std::uint16_t>(edges, 2 * n, rng, 7);
  const auto expected = modelBF16(acc, a, b);
  for (const char* name : {"hw", "fb"}) {
    std::vector<std::uint32_t> out(n);
    auto va = view(acc), vout = view(out);
    auto vx = view(a), vy = view(b);
    c.get<void(V1<std::uint32_t>*, V1<std::uint16_t>*, V1<std::uint16_t>*, V1<std::uint32_t>*)>(name)(&va, &vx, &vy,
                                                                                                     &vout);
    std::size_t mismatches = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (out[j] != expected[j] && ++mismatches <= 5)
        ADD_FAILURE() << name << " lane " << j << ": acc " << std::hex << acc[j] << " a " << a[2 * j + 1] << ","
                      << a[2 * j] << " b " << b[2 * j + 1] << "," << b[2 * j] << " gives " << out[j] << ", Intel's "
                      << expected[j];
  }
  auto hw = c.mod->assembly("hw"), fb = c.mod->assembly("fb");
  ASSERT_TRUE(hw && fb);
  EXPECT_EQ(fb->find("vdpbf16ps"), std::string::npos);
  // The instruction where it computes the definition: on Intel's CPUs (see TheInstructionIsUsedOnIntelCpusOnly).
  const bool intel = jit::TargetSpec::host().cpu.find("rapids") != std::string::npos ||
                     jit::TargetSpec::host().cpu == "cooperlake";
  if (hostHas("avx512bf16") && intel && (lanes == 4 || lanes == 8 || lanes == 16)) {
    EXPECT_NE(hw->find("vdpbf16ps"), std::string::npos) << *hw;
  }
}

INSTANTIATE_TEST_SUITE_P(Lanes, DotTest, ::testing::Values(1u, 3u, 4u, 8u, 16u, 32u));

// Next to the smallest normal: -2^-126 plus a product of about 2^-151 is -2^-126 by the definition (each step
// rounds, then flushes a denormal result); AMD Zen 5's vdpbf16ps gives +0 (difftest seed 6400000000853). On the
// host, whatever it is, the op follows the definition.
TEST(DotBF16, NextToTheSmallestNormalFollowsTheDefinition) {
  Module m("dot_bf16_edge");
  addDot(m, "hw", ElementType::F32, ElementType::BF16, ElementType::BF16, 2, 16, false);
  auto c = test::compileModule(std::move(m));
  // Lane j: acc -2^-126 (or +2^-126), pair 1 = (1.03125 * 2^-25) * (2^-126 or 1.5 * 2^-126), pair 0 = 0 * 0 or
  // the same product again.
  std::vector<std::uint32_t> acc(16), out(16);
  std::vector<std::uint16_t> a(32), b(32);
  for (std::size_t j = 0; j < 16; ++j) {
    acc[j] = j % 2 ? 0x00800000u : 0x80800000u;
    a[2 * j + 1] = 0x3304;
    b[2 * j + 1] = j % 4 < 2 ? 0x0080 : 0x00c0;
    a[2 * j] = j % 8 < 4 ? 0 : 0x3304;
    b[2 * j] = j % 8 < 4 ? 0 : 0x0080;
  }
  auto va = view(acc), vout = view(out);
  auto vx = view(a), vy = view(b);
  c.get<void(V1<std::uint32_t>*, V1<std::uint16_t>*, V1<std::uint16_t>*, V1<std::uint32_t>*)>("hw")(&va, &vx, &vy,
                                                                                                   &vout);
  const auto expected = modelBF16(acc, a, b);
  for (std::size_t j = 0; j < 16; ++j)
    EXPECT_EQ(out[j], expected[j]) << "lane " << j << ": acc " << std::hex << acc[j] << " a " << a[2 * j + 1] << ","
                                   << a[2 * j] << " b " << b[2 * j + 1] << "," << b[2 * j];
  EXPECT_EQ(expected[0], 0x80800000u);  // the seed's lane
}

// The instruction is used on the CPUs whose vdpbf16ps computes the definition (Intel's) and not on AMD's.
TEST(DotBF16, TheInstructionIsUsedOnIntelCpusOnly) {
  for (const auto& [cpu, instruction] :
       {std::pair{"sapphirerapids", true}, std::pair{"graniterapids", true}, std::pair{"znver4", false},
        std::pair{"znver5", false}}) {
    Module m("dot_bf16_cpu");
    addDot(m, "k", ElementType::F32, ElementType::BF16, ElementType::BF16, 2, 16, false);
    for (const char* name : {"k", "_mlir_ciface_k"}) m.llvm().getFunction(name)->addFnAttr("target-cpu", cpu);
    auto c = test::compileModule(std::move(m));  // compiled, never called: the host may lack the CPU's features
    ASSERT_TRUE(c.mod);
    auto assembly = c.mod->assembly("k");
    ASSERT_TRUE(assembly) << assembly.error().str();
    EXPECT_EQ(assembly->find("vdpbf16ps") != std::string::npos, instruction) << cpu << ":\n" << *assembly;
  }
}

// The scalar loop `acc += i32(a[i]) * i32(b[i])` over ui8 and si8 (what g++ compiles to vpdpbusd).
void addScalarDot(Module& m, const std::string& name, bool portable) {
  const MemRefType u8(ElementType::UI8, {kDynamic}), s8(ElementType::SI8, {kDynamic});
  FunctionBuilder f(m, name, FunctionType{{u8, s8, ElementType::I32}, {ElementType::I32}});
  if (portable) withoutDotFeatures(f);
  auto sum = f.forLoop(f.index(0), f.dim(f.arg(0), 0), f.index(1), {f.arg(2)}, [&](Value i, const std::vector<Value>& s) {
    Value x = f.cast(f.load(f.arg(0), {i}), ElementType::I32);  // zero-extends: ui8
    Value y = f.cast(f.load(f.arg(1), {i}), ElementType::I32);  // sign-extends: si8
    return std::vector<Value>{s[0] + x * y};
  });
  f.ret({sum[0]});
  ASSERT_FALSE(f.finish()) << f.error().str();
}

TEST(DotLoopIdiom, ScalarU8S8LoopUsesVpdpbusdAndWrapsAsTheScalarSum) {
  Module m("dot_loop");
  addScalarDot(m, "dot", false);
  addScalarDot(m, "dot_portable", true);
  auto c = test::compileModule(std::move(m));
  std::mt19937 rng(7);
  for (std::size_t n : {0, 1, 3, 63, 64, 65, 255, 256, 1000, 4099, 70001}) {
    for (std::int32_t init : {0, INT32_MIN + 3, INT32_MAX - 3}) {
      std::vector<std::uint8_t> a(n);
      std::vector<std::int8_t> b(n);
      std::uniform_int_distribution<int> byte(0, 255);
      for (std::size_t i = 0; i < n; ++i) {
        const bool edge = i % 4 != 3;  // mostly 255 x -128: the sum wraps past INT32_MIN
        a[i] = edge ? 255 : static_cast<std::uint8_t>(byte(rng));
        b[i] = edge ? -128 : static_cast<std::int8_t>(byte(rng) - 128);
      }
      std::int64_t expected = init;
      for (std::size_t i = 0; i < n; ++i) expected += std::int64_t{a[i]} * b[i];
      auto va = view(a);
      auto vb = view(b);
      for (const char* name : {"dot", "dot_portable"})
        EXPECT_EQ(c.get<std::int32_t(V1<std::uint8_t>*, V1<std::int8_t>*, std::int32_t)>(name)(&va, &vb, init),
                  wrap(expected))
            << name << " n=" << n << " init=" << init;
    }
  }
  auto hw = c.mod->assembly("dot"), fb = c.mod->assembly("dot_portable");
  ASSERT_TRUE(hw && fb);
  EXPECT_EQ(fb->find("vpdpbusd"), std::string::npos);
  if (hostHas("avx512vnni") || hostHas("avxvnni")) {
    EXPECT_NE(hw->find("vpdpbusd"), std::string::npos) << *hw;
  }
  // With AVX512-VNNI, 64 bytes per instruction (as g++), not the 32 of LLVM's preferred width on this CPU.
  if (hostHas("avx512vnni")) {
    bool zmm = false;
    std::istringstream lines(*hw);
    for (std::string line; std::getline(lines, line);)
      zmm |= line.find("vpdpbusd") != std::string::npos && line.find("zmm") != std::string::npos;
    EXPECT_TRUE(zmm) << *hw;
  }
}

TEST(DotErrors, OperandTypesAndLanesAreNamed) {
  struct Case {
    VectorType acc, a, b;
    std::string message;
  };
  const std::string kinds =
      "needs (vector<Nxi32>, vector<4Nxui8>, vector<4Nxsi8>), (vector<Nxi32>, vector<2Nxi16>, vector<2Nxi16>) or "
      "(vector<Nxf32>, vector<2Nxbf16>, vector<2Nxbf16>)";
  const std::vector<Case> cases = {
      {{ElementType::I32, 4}, {ElementType::SI8, 16}, {ElementType::SI8, 16},
       "operation 'dot' on (vector<4xi32>, vector<16xsi8>, vector<16xsi8>): " + kinds},
      {{ElementType::I32, 4}, {ElementType::UI8, 8}, {ElementType::SI8, 8},
       "operation 'dot' on (vector<4xi32>, vector<8xui8>, vector<8xsi8>): a and b need 4 lanes per lane of the "
       "accumulator"},
      {{ElementType::F32, 4}, {ElementType::BF16, 8}, {ElementType::BF16, 16},
       "operation 'dot' on (vector<4xf32>, vector<8xbf16>, vector<16xbf16>): a and b need 2 lanes per lane of the "
       "accumulator"},
      {{ElementType::F32, 4}, {ElementType::F16, 8}, {ElementType::F16, 8},
       "operation 'dot' on (vector<4xf32>, vector<8xf16>, vector<8xf16>): " + kinds},
  };
  for (const Case& k : cases) {
    Module m("dot_errors");
    FunctionBuilder f(m, "f", FunctionType{{}, {}});
    const auto zero = [&](const VectorType& t) { return f.splat(f.constant(t.element, 0), t.lanes); };
    EXPECT_FALSE(f.dot(zero(k.acc), zero(k.a), zero(k.b)).valid());
    Error e = f.finish();
    EXPECT_EQ(e.code(), ErrorCode::TypeMismatch);
    EXPECT_NE(e.str().find(k.message), std::string::npos) << e.str();
  }
  Module m("dot_scalar");
  FunctionBuilder f(m, "f", FunctionType{{}, {}});
  EXPECT_FALSE(f.dot(f.i32(0), f.splat(f.constant(ElementType::UI8, 1), 4), f.splat(f.constant(ElementType::SI8, 1), 4))
                   .valid());
  Error e = f.finish();
  EXPECT_EQ(e.code(), ErrorCode::TypeMismatch);
  EXPECT_NE(e.str().find("operation 'dot' on (i32, vector<4xui8>, vector<4xsi8>): needs three vectors"),
            std::string::npos)
      << e.str();
}

}  // namespace
}  // namespace memjit::codegen
