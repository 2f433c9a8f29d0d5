// jit/half_registers.h on IR that LLVM itself could not compile: a bitcast
// between bf16 and f16 compared with 0 (InstCombine made invalid IR of it, and
// the x86 back end aborted), and an i1 vector wider than a mask register used
// in another block (LLVM 19's back end aborted). Both found by the difftest.
#include <gtest/gtest.h>

#include <cstdint>

#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>

#include "jit/half_registers.h"
#include "memjit/jit/jit.h"
#include "support/call_jit.h"

namespace memjit::jit::detail {
namespace {

// ne_zero keeps its bf16 argument (noinline), so the optimiser sees
// `fcmp une (bitcast bfloat %x to half), 0.0`, the shape it folds wrongly.
constexpr const char* kBitcastCompareIR = R"(
target triple = "x86_64-pc-linux-gnu"
define internal i32 @ne_zero(bfloat %x) #1 {
  %h = bitcast bfloat %x to half
  %c = fcmp une half %h, 0xH0000
  %r = zext i1 %c to i32
  ret i32 %r
}
define i32 @bf16_bits_as_f16_ne_zero(i16 %bits) #0 {
  %x = bitcast i16 %bits to bfloat
  %r = call i32 @ne_zero(bfloat %x)
  ret i32 %r
}
attributes #0 = { "target-cpu"="sapphirerapids" }
attributes #1 = { noinline "target-cpu"="sapphirerapids" }
)";

int fencesIn(const llvm::Module& module) {
  int n = 0;
  for (const llvm::Function& f : module)
    for (const llvm::BasicBlock& block : f)
      for (const llvm::Instruction& inst : block)
        if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
          n += call->getIntrinsicID() == llvm::Intrinsic::arithmetic_fence;
  return n;
}

TEST(HalfRegisters, BitcastsBetweenHalvesAreFencedOnceAndUnfencedForCodeGeneration) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  auto module = llvm::parseIR(llvm::MemoryBufferRef(kBitcastCompareIR, "cmp"), diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  fenceHalfBitcasts(*module);
  EXPECT_EQ(fencesIn(*module), 1);  // bf16 -> f16; i16 -> bf16 is not between halves
  fenceHalfBitcasts(*module);
  EXPECT_EQ(fencesIn(*module), 1);
  passHalvesAsBits(*module);
  EXPECT_EQ(fencesIn(*module), 0);
}

TEST(HalfRegisters, Bf16BitsComparedAsF16WithZeroAtEveryLevel) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    auto jit = Jit::create({.optLevel = level});
    ASSERT_TRUE(jit.ok()) << jit.error().str();
    auto mod = jit->addIR(kBitcastCompareIR, "cmp");
    ASSERT_TRUE(mod.ok()) << mod.error().str();
    auto fn = mod->symbol("bf16_bits_as_f16_ne_zero");
    ASSERT_TRUE(fn.ok()) << fn.error().str();
    const test::JitFunction<std::int32_t(std::uint16_t)> neZero(*fn);
    EXPECT_EQ(neZero(0x0000), 0) << optLevelName(level);
    EXPECT_EQ(neZero(0x8000), 0) << optLevelName(level);  // -0 as f16
    EXPECT_EQ(neZero(0x8001), 1) << optLevelName(level);  // the smallest f16 denormal, negative
    EXPECT_EQ(neZero(0x7e00), 1) << optLevelName(level);  // NaN: une is true
  }
}

// What llvm-reduce kept of difftest seed 276513692043006 after the optimiser:
// %8, a <128 x i1>, is used in if.end.i. Compiled as it is (no IR passes).
constexpr const char* kWideMaskIR = R"(
target triple = "x86_64-pc-linux-gnu"
define i64 @wide_mask(ptr %0, ptr %1, <2 x i64> %2, i1 %3, i64 %4, i64 %.unpack18.unpack23, ptr %.unpack12, ptr %.unpack26, i64 %.unpack28, i64 %.unpack30.unpack34, i64 %.unpack32.unpack37, i32 %5, i64 %6) #0 {
  %8 = bitcast <2 x i64> %2 to <128 x i1>
  %9 = extractelement <128 x i1> %8, i64 64
  br i1 %3, label %for.header.i.preheader, label %if.end.i

for.header.i.preheader:                           ; preds = %7
  %10 = cmpxchg ptr null, i32 0, i32 0 monotonic monotonic, align 4
  br label %if.end.i

if.end.i:                                         ; preds = %for.header.i.preheader, %7
  %11 = select i1 %9, i64 1, i64 0
  %12 = shufflevector <128 x i1> %8, <128 x i1> zeroinitializer, <3 x i32> <i32 64, i32 64, i32 64>
  %.splatinsert18.i = insertelement <3 x i64> zeroinitializer, i64 %.unpack18.unpack23, i64 0
  %13 = getelementptr float, ptr %.unpack12, <3 x i64> %.splatinsert18.i
  %14 = tail call <3 x float> @llvm.masked.gather.v3f32.v3p0(<3 x ptr> %13, i32 0, <3 x i1> %12, <3 x float> zeroinitializer)
  %15 = getelementptr i32, ptr %.unpack26, i64 %.unpack28
  %.splatinsert20.i = insertelement <6 x i64> zeroinitializer, i64 %.unpack30.unpack34, i64 0
  %16 = icmp ugt <6 x i64> %.splatinsert20.i, zeroinitializer
  %.splatinsert22.i = insertelement <6 x i64> zeroinitializer, i64 %.unpack32.unpack37, i64 0
  %17 = getelementptr i32, ptr %15, <6 x i64> %.splatinsert22.i
  %18 = tail call <6 x i32> @llvm.masked.gather.v6i32.v6p0(<6 x ptr> %17, i32 0, <6 x i1> %16, <6 x i32> zeroinitializer)
  %19 = extractelement <6 x i32> %18, i64 0
  %20 = udiv i32 %19, %5
  store i64 %4, ptr null, align 4
  store i64 0, ptr %0, align 4
  %bc = bitcast <3 x float> %14 to <3 x i32>
  %21 = shufflevector <3 x i32> %bc, <3 x i32> zeroinitializer, <2 x i32> <i32 0, i32 1>
  %22 = sext <2 x i32> %21 to <2 x i64>
  store <2 x i64> %22, ptr null, align 4
  store i64 %11, ptr null, align 4
  store i64 0, ptr %1, align 4
  store i64 %6, ptr null, align 4
  store <2 x i64> zeroinitializer, ptr %0, align 4
  %23 = sext i32 %20 to i64
  store i64 %23, ptr null, align 4
  ret i64 0
}

declare <3 x float> @llvm.masked.gather.v3f32.v3p0(<3 x ptr>, i32 immarg, <3 x i1>, <3 x float>)

declare <6 x i32> @llvm.masked.gather.v6i32.v6p0(<6 x ptr>, i32 immarg, <6 x i1>, <6 x i32>)
attributes #0 = { "target-cpu"="sapphirerapids" }
)";

TEST(HalfRegisters, WideMaskUsedInAnotherBlockCompiles) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O2, OptLevel::O3}) {
    auto jit = Jit::create({.optLevel = level});
    ASSERT_TRUE(jit.ok()) << jit.error().str();
    AddOptions options;
    options.runIRPasses = false;
    auto mod = jit->addIR(kWideMaskIR, "wide", options);
    ASSERT_TRUE(mod.ok()) << mod.error().str();
    EXPECT_TRUE(mod->symbol("wide_mask").ok()) << optLevelName(level);
  }
}

}  // namespace
}  // namespace memjit::jit::detail
