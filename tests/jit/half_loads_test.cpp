// jit/half_loads.h: a scalar f16 or bf16 loaded only to be widened is loaded
// into a vector register instead of through a general-purpose one. The
// rewrite on parsed IR (what it takes and what it leaves), then end to end:
// every bit pattern widened, and exact (in-order) dot products, at every level.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include "jit/compile.h"
#include "jit/half_loads.h"
#include "jit/llvm_compat.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/target.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// The shapes passHalvesAsBits leaves: halves loaded as i16 and bitcast, f16
// widened by fpext, bf16 by widenToF32's shift. %a (f16) and %b (bf16) are
// widened right after their loads; %c has a store between, %d a second use,
// %e its widening in another block, %v is volatile, %w a vector.
constexpr const char* kWideningsIR = R"(
target triple = "x86_64-pc-linux-gnu"
define float @f(ptr %p, ptr %q, ptr %o) {
entry:
  %a.bits = load i16, ptr %p, align 2
  %a.half = bitcast i16 %a.bits to half
  %a = fpext half %a.half to float
  %b.bits = load i16, ptr %q, align 2
  %b.bf = bitcast i16 %b.bits to bfloat
  %b.again = bitcast bfloat %b.bf to i16
  %b.zext = zext i16 %b.again to i32
  %b.shl = shl i32 %b.zext, 16
  %b = bitcast i32 %b.shl to float
  %c.bits = load i16, ptr %p, align 2
  store i16 0, ptr %o, align 2
  %c.half = bitcast i16 %c.bits to half
  %c = fpext half %c.half to double
  %d.bits = load i16, ptr %q, align 2
  %d.half = bitcast i16 %d.bits to half
  %d = fpext half %d.half to float
  store i16 %d.bits, ptr %o, align 2
  %e.bits = load i16, ptr %p, align 2
  %v.bits = load volatile i16, ptr %q, align 2
  %v.half = bitcast i16 %v.bits to half
  %v = fpext half %v.half to float
  %w.bits = load <4 x i16>, ptr %q, align 8
  %w.half = bitcast <4 x i16> %w.bits to <4 x half>
  %w = fpext <4 x half> %w.half to <4 x float>
  %w0 = extractelement <4 x float> %w, i64 0
  %s1 = fadd float %a, %b
  %c32 = fptrunc double %c to float
  %s2 = fadd float %s1, %c32
  %s3 = fadd float %s2, %d
  %s4 = fadd float %s3, %v
  %s5 = fadd float %s4, %w0
  br label %next
next:
  %e.half = bitcast i16 %e.bits to half
  %e = fpext half %e.half to float
  %r = fadd float %s5, %e
  ret float %r
}
)";

const llvm::Instruction* named(const llvm::Function& f, const char* name) {
  for (const llvm::BasicBlock& block : f)
    for (const llvm::Instruction& inst : block)
      if (inst.getName() == name) return &inst;
  return nullptr;
}

std::unique_ptr<llvm::TargetMachine> machineFor(const char* triple, const char* cpu) {
  return test::valueOrFail(createTargetMachine({triple, cpu, ""}, OptLevel::O2), cpu);
}

// The widened value reads lane `lane` of an insertelement of the load into a
// zero vector.
void expectVectorLaneOf(const llvm::Value* widened, const llvm::Instruction* load, unsigned lane) {
  auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(widened);
  ASSERT_NE(extract, nullptr);
  auto* cast = llvm::dyn_cast<llvm::BitCastInst>(extract->getVectorOperand());
  ASSERT_NE(cast, nullptr);
  auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(cast->getOperand(0));
  ASSERT_NE(insert, nullptr);
  EXPECT_EQ(insert->getOperand(1), load);
  EXPECT_TRUE(llvm::cast<llvm::Constant>(insert->getOperand(0))->isNullValue());
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(insert->getOperand(2))->getZExtValue(), lane);
}

TEST(HalfLoads, WideningsRightAfterTheirLoadReadAVectorLane) {
  const test::ParsedIR module = test::parseIR(kWideningsIR);
  const auto machine = machineFor("x86_64-pc-linux-gnu", "znver4");  // F16C, no AVX512-FP16
  EXPECT_EQ(widenHalfLoadsInVectorRegisters(*module, *machine), 2);
  EXPECT_TRUE(test::verifies(*module));
  const llvm::Function& f = *module->getFunction("f");
  // f16: the fpext stays, its operand is lane 0 as a half.
  const llvm::Instruction* a = named(f, "a");
  ASSERT_NE(a, nullptr);
  expectVectorLaneOf(a->getOperand(0), named(f, "a.bits"), 0);
  EXPECT_EQ(named(f, "a.half"), nullptr);
  // bf16: the float is lane 0 of the vector holding the bits in lane 1.
  const llvm::Instruction* b = named(f, "b");
  ASSERT_NE(b, nullptr);
  expectVectorLaneOf(b, named(f, "b.bits"), 1);
  for (const char* gone : {"b.bf", "b.again", "b.zext", "b.shl"}) EXPECT_EQ(named(f, gone), nullptr) << gone;
  // Left alone.
  for (const char* kept : {"c.half", "d.half", "e.half", "v.half", "w.half"}) EXPECT_NE(named(f, kept), nullptr) << kept;
  EXPECT_EQ(widenHalfLoadsInVectorRegisters(*module, *machine), 0);
}

TEST(HalfLoads, F16IsLeftToAvx512Fp16AndOtherTargetsAreUntouched) {
  {
    const test::ParsedIR module = test::parseIR(kWideningsIR);
    EXPECT_EQ(widenHalfLoadsInVectorRegisters(*module, *machineFor("x86_64-pc-linux-gnu", "sapphirerapids")), 1);
    EXPECT_NE(named(*module->getFunction("f"), "a.half"), nullptr);  // vmovsh loads it into a vector register
    EXPECT_EQ(named(*module->getFunction("f"), "b.shl"), nullptr);
  }
  {
    // SSE2 only: no F16C for f16 (a libcall widens it); bf16's pinsrw is SSE2.
    const test::ParsedIR module = test::parseIR(kWideningsIR);
    EXPECT_EQ(widenHalfLoadsInVectorRegisters(*module, *machineFor("x86_64-pc-linux-gnu", "x86-64")), 1);
    EXPECT_NE(named(*module->getFunction("f"), "a.half"), nullptr);
  }
  {
    const test::ParsedIR module = test::parseIR(kWideningsIR);
    llvm_compat::setTargetTriple(*module, llvm::Triple("aarch64-unknown-linux-gnu"));
    EXPECT_EQ(widenHalfLoadsInVectorRegisters(*module, *machineFor("aarch64-unknown-linux-gnu", "generic")), 0);
  }
}

// ---- end to end ----

// Each element widened on its own (a call per element, so nothing vectorises);
// below, an in-order dot product for f16 and bf16 (dotIR).
constexpr const char* kKernelsIR = R"(
define float @widen_f16(ptr %p) {
  %h = load half, ptr %p, align 2
  %w = fpext half %h to float
  ret float %w
}
define double @widen_f16_to_f64(ptr %p) {
  %h = load half, ptr %p, align 2
  %w = fpext half %h to double
  ret double %w
}
define float @widen_bf16(ptr %p) {
  %h = load bfloat, ptr %p, align 2
  %w = fpext bfloat %h to float
  ret float %w
}
)";

// An in-order dot product over `type` (half or bfloat), named dot_<name>.
std::string dotIR(const std::string& name, const std::string& type) {
  std::string ir = R"(
define float @dot_NAME(ptr noalias %x, ptr noalias %y, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds TYPE, ptr %x, i64 %i
  %py = getelementptr inbounds TYPE, ptr %y, i64 %i
  %a = load TYPE, ptr %px, align 2
  %b = load TYPE, ptr %py, align 2
  %fa = fpext TYPE %a to float
  %fb = fpext TYPE %b to float
  %m = fmul float %fa, %fb
  %acc.next = fadd float %acc, %m
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  ret float %r
}
)";
  for (auto [from, to] : {std::pair<std::string, std::string>{"NAME", name}, {"TYPE", type}})
    for (std::size_t at = ir.find(from); at != std::string::npos; at = ir.find(from, at + to.size()))
      ir.replace(at, from.size(), to);
  return ir;
}

const std::string kKernels = std::string(kKernelsIR) + dotIR("f16", "half") + dotIR("bf16", "bfloat");

float f16Value(std::uint16_t bits) { return static_cast<float>(std::bit_cast<_Float16>(bits)); }
float bf16Value(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }
bool isNaN16(std::uint16_t bits) { return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0; }

TEST(HalfLoads, EveryHalfWidensToItsValueAtEveryLevel) {
  for (const OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kKernels, {.optLevel = level});
    const auto f16 = compiled.function<float(const std::uint16_t*)>("widen_f16");
    const auto f16to64 = compiled.function<double(const std::uint16_t*)>("widen_f16_to_f64");
    const auto bf16 = compiled.function<float(const std::uint16_t*)>("widen_bf16");
    int wrong = 0;
    for (std::uint32_t b = 0; b <= 0xffff && wrong < 5; ++b) {
      const std::uint16_t bits = static_cast<std::uint16_t>(b);
      // bf16 widens exactly (its signalling NaNs too); an f16 NaN keeps its
      // sign and payload (F16C sets the quiet bit, as the libcall does).
      const std::uint32_t got = std::bit_cast<std::uint32_t>(bf16(&bits));
      if (got != static_cast<std::uint32_t>(bits) << 16) {
        ADD_FAILURE() << optLevelName(level) << " bf16 0x" << std::hex << bits << " -> 0x" << got;
        ++wrong;
      }
      const float wide = f16(&bits);
      const double wider = f16to64(&bits);
      if (isNaN16(bits)) {
        const std::uint32_t expected = (bits & 0x8000u) << 16 | 0x7fc00000u | (bits & 0x03ffu) << 13;
        if (std::bit_cast<std::uint32_t>(wide) != expected || !std::isnan(wider)) {
          ADD_FAILURE() << optLevelName(level) << " f16 NaN 0x" << std::hex << bits << " -> 0x"
                        << std::bit_cast<std::uint32_t>(wide);
          ++wrong;
        }
      } else if (std::bit_cast<std::uint32_t>(wide) != std::bit_cast<std::uint32_t>(f16Value(bits)) ||
                 std::bit_cast<std::uint64_t>(wider) != std::bit_cast<std::uint64_t>(double{f16Value(bits)})) {
        ADD_FAILURE() << optLevelName(level) << " f16 0x" << std::hex << bits << " -> 0x"
                      << std::bit_cast<std::uint32_t>(wide);
        ++wrong;
      }
    }
  }
}

// Products of widened halves are exact in f32, so the in-order sum is one
// value: denormals, -0, infinities and a NaN at the end included.
TEST(HalfLoads, ExactDotProductsSumInOrderAtEveryLevel) {
  const std::vector<std::uint16_t> f16x = {0x0001, 0x8001, 0x03ff, 0x3c00, 0xbc00, 0x7bff, 0x0000, 0x8000, 0x3555,
                                           0x4248, 0xfbff, 0x0200, 0x1234, 0x7c00, 0x0401, 0x7e01};
  const std::vector<std::uint16_t> f16y = {0x3c00, 0x0001, 0x4000, 0x8001, 0x3c01, 0x3c00, 0x8000, 0x8000, 0x3555,
                                           0xc248, 0x3c00, 0x0002, 0x4321, 0x3c00, 0x0401, 0x3c00};
  const std::vector<std::uint16_t> bfx = {0x0001, 0x8001, 0x007f, 0x3f80, 0xbf80, 0x7f7f, 0x0000, 0x8000, 0x3eab,
                                          0x4049, 0xff7f, 0x0040, 0x1234, 0x7f80, 0x0081, 0x7fc1};
  const std::vector<std::uint16_t> bfy = {0x3f80, 0x4000, 0x4000, 0x8001, 0x3f81, 0x3f80, 0x8000, 0x8000, 0x3eab,
                                          0xc049, 0x3f80, 0x0002, 0x4321, 0x3f80, 0x4f00, 0x3f80};
  for (const OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kKernels, {.optLevel = level});
    const auto dotF16 = compiled.function<float(const std::uint16_t*, const std::uint16_t*, std::int64_t)>("dot_f16");
    const auto dotBf16 = compiled.function<float(const std::uint16_t*, const std::uint16_t*, std::int64_t)>("dot_bf16");
    // Every prefix: the sums before the infinities and the NaN are finite.
    for (std::size_t n = 0; n <= f16x.size(); ++n) {
      float f16Sum = 0, bf16Sum = 0;
      for (std::size_t i = 0; i < n; ++i) {
        f16Sum += f16Value(f16x[i]) * f16Value(f16y[i]);
        bf16Sum += bf16Value(bfx[i]) * bf16Value(bfy[i]);
      }
      const float f16Got = dotF16(f16x.data(), f16y.data(), static_cast<std::int64_t>(n));
      const float bf16Got = dotBf16(bfx.data(), bfy.data(), static_cast<std::int64_t>(n));
      if (std::isnan(f16Sum)) {
        EXPECT_TRUE(std::isnan(f16Got)) << optLevelName(level) << " n=" << n;
      } else {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(f16Got), std::bit_cast<std::uint32_t>(f16Sum))
            << optLevelName(level) << " n=" << n << ": " << f16Got << " against " << f16Sum;
      }
      if (std::isnan(bf16Sum)) {
        EXPECT_TRUE(std::isnan(bf16Got)) << optLevelName(level) << " n=" << n;
      } else {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(bf16Got), std::bit_cast<std::uint32_t>(bf16Sum))
            << optLevelName(level) << " n=" << n << ": " << bf16Got << " against " << bf16Sum;
      }
    }
  }
}

// What the rewrite is for: at O2 the dot products' loops widen without a
// move from a general-purpose register (`vmovd %e..` / `movd %e..`).
TEST(HalfLoads, OptimisedDotProductsNeverMoveHalvesThroughGeneralPurposeRegisters) {
  const TargetSpec& host = TargetSpec::host();
  if (host.triple.rfind("x86_64", 0) != 0) GTEST_SKIP() << "x86-64 only";
  test::CompiledIR compiled = test::compileIR(kKernels, {.optLevel = OptLevel::O2});
  const std::regex fromGeneralRegister(R"(\bv?movd\s+%(e|r)[a-z0-9]+,\s*%xmm)");
  std::vector<const char*> names{"dot_bf16"};
  const bool f16c = host.features.find("+f16c") != std::string::npos;
  const bool fp16 = host.features.find("+avx512fp16") != std::string::npos;
  if (f16c && !fp16) names.push_back("dot_f16");
  for (const char* name : names) {
    const std::string assembly = test::valueOrFail(compiled.mod.assembly(name), name);
    EXPECT_FALSE(std::regex_search(assembly, fromGeneralRegister)) << name << ":\n" << assembly;
    EXPECT_TRUE(assembly.find("pinsrw") != std::string::npos || assembly.find("pbroadcastw") != std::string::npos)
        << name << ":\n" << assembly;
  }
}

}  // namespace
}  // namespace memjit::jit::detail
