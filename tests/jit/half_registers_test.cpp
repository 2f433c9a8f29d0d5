// jit/half_registers.h on IR that LLVM itself could not compile: a bitcast
// between bf16 and f16 compared with 0 (InstCombine made invalid IR of it, and
// the x86 back end aborted), and an i1 vector wider than a mask register used
// in another block (LLVM 19's back end aborted). Both found by the difftest.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include "jit/half_registers.h"
#include "memjit/jit/aot.h"
#include "support/files.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

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
  const test::ParsedIR module = test::parseIR(kBitcastCompareIR);
  fenceHalfBitcasts(*module);
  EXPECT_EQ(fencesIn(*module), 1);  // bf16 -> f16; i16 -> bf16 is not between halves
  fenceHalfBitcasts(*module);
  EXPECT_EQ(fencesIn(*module), 1);
  passHalvesAsBits(*module);
  EXPECT_EQ(fencesIn(*module), 0);
}

TEST(HalfRegisters, Bf16BitsComparedAsF16WithZeroAtEveryLevel) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kBitcastCompareIR, {.optLevel = level});
    const auto neZero = compiled.function<std::int32_t(std::uint16_t)>("bf16_bits_as_f16_ne_zero");
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
    AddOptions options;
    options.runIRPasses = false;
    test::CompiledIR compiled = test::compileIR(kWideMaskIR, {.optLevel = level}, options);
    EXPECT_TRUE(compiled.mod.symbol("wide_mask").ok()) << optLevelName(level);
  }
}

// What InstCombine left of fenceHalfBitcasts' fence over i16 -> f16 -> bf16:
// one bitcast from i16 under the fence (difftest seed 3600000000128, where the
// back end narrowed the fenced bf16 through f32 and a denormal came out 0).
constexpr const char* kFencedFromIntegerIR = R"(
target triple = "x86_64-pc-linux-gnu"
define void @fenced_from_integer(i16 %bits, ptr %o, ptr %n) {
  %b = bitcast i16 %bits to bfloat
  %f = call bfloat @llvm.arithmetic.fence.bf16(bfloat %b)
  %old = atomicrmw umin ptr %n, i32 7 acq_rel
  %i = bitcast bfloat %f to i16
  store i16 %i, ptr %o
  ret void
}
declare bfloat @llvm.arithmetic.fence.bf16(bfloat)
)";

TEST(HalfRegisters, FencesOverBitcastsFromIntegersAreDroppedAndTheBitsKept) {
  const test::ParsedIR module = test::parseIR(kFencedFromIntegerIR);
  passHalvesAsBits(*module);
  EXPECT_EQ(fencesIn(*module), 0);
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    AddOptions asOptimised;
    asOptimised.runIRPasses = false;
    test::CompiledIR compiled = test::compileIR(kFencedFromIntegerIR, {.optLevel = level}, asOptimised);
    const auto fenced = compiled.function<void(std::uint16_t, std::uint16_t*, std::uint32_t*)>("fenced_from_integer");
    for (std::uint16_t x : {std::uint16_t{0x0001}, std::uint16_t{0x807f}, std::uint16_t{0x7f81}}) {
      std::uint16_t o = 0;
      std::uint32_t n = 9;
      fenced(x, &o, &n);
      EXPECT_EQ(o, x) << optLevelName(level);
      EXPECT_EQ(n, 7u) << optLevelName(level);
    }
  }
}

// Lanes of half vector arithmetic whose other operand is the identity: x / 1,
// 1 * x, x + -0, x - 0 (LLVM 22's SLP vectoriser writes moved values so, difftest
// seed 3500000001958), beside lanes that are real arithmetic. o[0..8) takes the
// four results' lanes.
constexpr const char* kIdentityLanesIR = R"(
target triple = "x86_64-pc-linux-gnu"
define void @identity_lanes(i16 %bits, ptr %o) {
  %x = bitcast i16 %bits to bfloat
  %v0 = insertelement <2 x bfloat> poison, bfloat %x, i64 0
  %v = insertelement <2 x bfloat> %v0, bfloat %x, i64 1
  %d = insertelement <2 x bfloat> %v0, bfloat 0xR3F80, i64 1
  %q = fdiv <2 x bfloat> %v, %d
  %m = fmul <2 x bfloat> <bfloat 0xR3F80, bfloat 0xR4000>, %v
  %a = fadd <2 x bfloat> %v, <bfloat 0xR8000, bfloat 0xR4000>
  %s = fsub <2 x bfloat> %v, <bfloat 0xR0000, bfloat 0xR8000>
  store <2 x bfloat> %q, ptr %o
  %o2 = getelementptr bfloat, ptr %o, i64 2
  store <2 x bfloat> %m, ptr %o2
  %o4 = getelementptr bfloat, ptr %o, i64 4
  store <2 x bfloat> %a, ptr %o4
  %o6 = getelementptr bfloat, ptr %o, i64 6
  store <2 x bfloat> %s, ptr %o6
  ret void
}
)";

TEST(HalfRegisters, IdentityLanesOfHalfVectorArithmeticKeepTheOperandsBitsAtEveryLevel) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    AddOptions asWritten;
    asWritten.runIRPasses = false;  // the shape the vectoriser made, into code generation
    test::CompiledIR compiled = test::compileIR(kIdentityLanesIR, {.optLevel = level}, asWritten);
    const auto lanes = compiled.function<void(std::uint16_t, std::uint16_t*)>("identity_lanes");
    for (std::uint16_t x : {std::uint16_t{0x007f}, std::uint16_t{0x8001}, std::uint16_t{0x7f81}, std::uint16_t{0x3fc0}}) {
      std::uint16_t o[8] = {};
      lanes(x, o);
      const std::string at = std::string(optLevelName(level)) + " x=" + std::to_string(x);
      EXPECT_EQ(o[1], x) << at << " x / 1";
      EXPECT_EQ(o[2], x) << at << " 1 * x";
      EXPECT_EQ(o[4], x) << at << " x + -0";
      EXPECT_EQ(o[6], x) << at << " x - 0";
      if (x == 0x3fc0) {  // 1.5: the arithmetic lanes are still computed
        EXPECT_EQ(o[0], 0x3f80) << at << " x / x";
        EXPECT_EQ(o[3], 0x4040) << at << " 2 * x";
        EXPECT_EQ(o[5], 0x4060) << at << " x + 2";
        EXPECT_EQ(o[7], 0x3fc0) << at << " x - -0";
      }
    }
  }
}

// A bf16 phi stored after a scalar i64 division or a count of leading zeros,
// both of which CodeGenPrepare may split the block at (difftest seed
// 3200000001199: a bf16 denormal came out as -0 ahead of time at O2, where
// bypassSlowDivision branched to a 32-bit division). The atomic keeps the phi
// from becoming a select; store_after_* take the bf16 as its bits, so the test
// can pass them from C++, and %c = 0 takes them into the phi.
constexpr const char* kSplitIR = R"(
target triple = "x86_64-pc-linux-gnu"
define i64 @after_division(bfloat %x, i1 %c, i64 %a, i64 %b, ptr %o, ptr %n) noinline {
entry:
  br i1 %c, label %then, label %join
then:
  %old = atomicrmw add ptr %n, i32 1 monotonic
  br label %join
join:
  %p = phi bfloat [ %x, %entry ], [ 0xR8009, %then ]
  %q = sdiv i64 %a, %b
  %i = bitcast bfloat %p to i16
  store i16 %i, ptr %o
  ret i64 %q
}
define i32 @after_count(bfloat %x, i1 %c, i32 %a, ptr %o, ptr %n) noinline {
entry:
  br i1 %c, label %then, label %join
then:
  %old = atomicrmw add ptr %n, i32 1 monotonic
  br label %join
join:
  %p = phi bfloat [ %x, %entry ], [ 0xR8009, %then ]
  %z = call i32 @llvm.ctlz.i32(i32 %a, i1 false)
  %i = bitcast bfloat %p to i16
  store i16 %i, ptr %o
  ret i32 %z
}
define i64 @store_after_division(i16 %bits, i64 %a, i64 %b, ptr %o) {
  %n = alloca i32
  %x = bitcast i16 %bits to bfloat
  %q = call i64 @after_division(bfloat %x, i1 0, i64 %a, i64 %b, ptr %o, ptr %n)
  ret i64 %q
}
define i32 @store_after_count(i16 %bits, i32 %a, ptr %o) {
  %n = alloca i32
  %x = bitcast i16 %bits to bfloat
  %z = call i32 @after_count(bfloat %x, i1 0, i32 %a, ptr %o, ptr %n)
  ret i32 %z
}
declare i32 @llvm.ctlz.i32(i32, i1)
)";

// The phi's value, used after the instruction that may split its block, is taken as bits before it.
TEST(HalfRegisters, HalvesUsedAfterAScalarDivisionOrZeroCountCrossItAsBits) {
  const test::ParsedIR module = test::parseIR(kSplitIR);
  passHalvesAsBits(*module);
  for (const char* name : {"after_division", "after_count"}) {
    // After the split, the half the store's bits come from is made from frozen bits taken before it.
    const llvm::BasicBlock& join = module->getFunction(name)->back();
    const llvm::Instruction* split = nullptr;
    const llvm::Value* stored = nullptr;
    for (const llvm::Instruction& inst : join) {
      if (!split && (inst.isIntDivRem() || llvm::isa<llvm::IntrinsicInst>(inst))) split = &inst;
      if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) stored = store->getValueOperand();
    }
    ASSERT_NE(split, nullptr) << name;
    const auto* fromBits = llvm::dyn_cast_or_null<llvm::BitCastInst>(
        llvm::isa<llvm::BitCastInst>(stored) ? llvm::cast<llvm::BitCastInst>(stored)->getOperand(0) : nullptr);
    ASSERT_NE(fromBits, nullptr) << name;
    const auto* frozen = llvm::dyn_cast<llvm::FreezeInst>(fromBits->getOperand(0));
    ASSERT_NE(frozen, nullptr) << name;
    EXPECT_TRUE(frozen->comesBefore(split)) << name;
    EXPECT_TRUE(fromBits->getParent() == split->getParent() && split->comesBefore(fromBits)) << name;
  }
}

void expectBitsKept(test::CompiledIR& compiled, const std::string& at) {
  const auto division = compiled.function<std::int64_t(std::uint16_t, std::int64_t, std::int64_t, std::uint16_t*)>(
      "store_after_division");
  const auto count = compiled.function<std::int32_t(std::uint16_t, std::int32_t, std::uint16_t*)>("store_after_count");
  // A bf16 denormal, the smallest negative one and a signalling NaN: what vcvtneps2bf16 would flush or quiet.
  for (std::uint16_t x : {std::uint16_t{0x8009}, std::uint16_t{0x0001}, std::uint16_t{0x7f81}}) {
    std::uint16_t o = 0;
    EXPECT_EQ(division(x, 1000, 7, &o), 142) << at;
    EXPECT_EQ(o, x) << at << " after the division";
    o = 0;
    EXPECT_EQ(count(x, 1, &o), 31) << at;
    EXPECT_EQ(o, x) << at << " after the count";
  }
}

TEST(HalfRegisters, Bf16BitsStoredAfterADivisionAreKeptAtEveryLevelAndAheadOfTime) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kSplitIR, {.optLevel = level});
    expectBitsKept(compiled, std::string(optLevelName(level)));
  }
  // Ahead of time (where the division's branch was seen), the object loaded back.
  const std::filesystem::path object =
      std::filesystem::temp_directory_path() / ("memjit-half-registers-" + std::to_string(::getpid()) + ".o");
  const test::ParsedIR module = test::parseIR(kSplitIR);
  ASSERT_FALSE(compileAhead(*module, {.object = object.string()}, {.optLevel = OptLevel::O2}));
  const std::string bytes = test::readFile(object);
  std::filesystem::remove(object);
  test::CompiledIR loaded{std::make_unique<Jit>(test::makeJit()), {}};
  loaded.mod = test::valueOrFail(loaded.jit->addObject(bytes, "split"), "addObject");
  expectBitsKept(loaded, "aot-O2");
}

// The x86 back end takes the sign of a bf16 narrowed from f32 to be known zero
// (LLVM 19 and 22): each function's sign bit came out 0 at O1-O3 without the
// asm that hides the narrowed bits, directly, through an i16 select (as
// movesAsBits makes of a half select: difftest seed 5000000008719) and in the
// next block (as valuesAsBits carries it).
constexpr const char* kNarrowedSignIR = R"(
target triple = "x86_64-pc-linux-gnu"
define i16 @sign_of_narrowed(float %a) {
  %b = fptrunc float %a to bfloat
  %i = bitcast bfloat %b to i16
  %s = and i16 %i, -32768
  ret i16 %s
}
define i16 @sign_of_sum(i16 %x, i16 %y) {
  %a = bitcast i16 %x to bfloat
  %b = bitcast i16 %y to bfloat
  %c = fadd bfloat %a, %b
  %i = bitcast bfloat %c to i16
  %s = and i16 %i, -32768
  ret i16 %s
}
define i16 @copysign_inf_of_minimum(i16 %x) {
  %b = bitcast i16 %x to bfloat
  %m = call bfloat @llvm.minimum.bf16(bfloat %b, bfloat 0xRFF80)
  %i = bitcast bfloat %m to i16
  %s = and i16 %i, -32768
  %r = or i16 %s, 32640
  ret i16 %r
}
define i16 @sign_after_select(i32 %c, float %a) {
  %b = fptrunc float %a to bfloat
  %nan = icmp ne i32 %c, 0
  %v = select i1 %nan, bfloat 0xR7FC0, bfloat %b
  %i = bitcast bfloat %v to i16
  %s = and i16 %i, -32768
  ret i16 %s
}
define i16 @sign_in_next_block(i32 %c, float %a, ptr %n) {
entry:
  %b = fptrunc float %a to bfloat
  %t = icmp ne i32 %c, 0
  br i1 %t, label %then, label %join
then:
  %old = atomicrmw add ptr %n, i32 1 monotonic
  br label %join
join:
  %i = bitcast bfloat %b to i16
  %s = and i16 %i, -32768
  ret i16 %s
}
declare bfloat @llvm.minimum.bf16(bfloat, bfloat)
)";

TEST(HalfRegisters, SignOfANarrowedBf16IsKeptAtEveryLevel) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    const std::string at(optLevelName(level));
    test::CompiledIR compiled = test::compileIR(kNarrowedSignIR, {.optLevel = level});
    const auto narrowed = compiled.function<std::uint16_t(float)>("sign_of_narrowed");
    const auto sum = compiled.function<std::uint16_t(std::uint16_t, std::uint16_t)>("sign_of_sum");
    const auto minimum = compiled.function<std::uint16_t(std::uint16_t)>("copysign_inf_of_minimum");
    const auto selected = compiled.function<std::uint16_t(std::int32_t, float)>("sign_after_select");
    const auto nextBlock = compiled.function<std::uint16_t(std::int32_t, float, std::int32_t*)>("sign_in_next_block");
    std::int32_t n = 0;
    for (float a : {-1.5f, -0.0f, -INFINITY, -1e-40f, -3.0e38f}) {
      EXPECT_EQ(narrowed(a), 0x8000) << at << " " << a;
      EXPECT_EQ(selected(0, a), 0x8000) << at << " " << a;
      EXPECT_EQ(selected(1, a), 0) << at << " " << a;  // the positive NaN
      EXPECT_EQ(nextBlock(0, a, &n), 0x8000) << at << " " << a;
      EXPECT_EQ(nextBlock(1, a, &n), 0x8000) << at << " " << a;
    }
    EXPECT_EQ(narrowed(2.0f), 0) << at;
    EXPECT_EQ(sum(0xbf80, 0xc000), 0x8000) << at;  // -1 + -2
    EXPECT_EQ(sum(0x3f80, 0xc000), 0x8000) << at;  // 1 + -2
    EXPECT_EQ(sum(0x3f80, 0x4000), 0) << at;
    // minimum(x, -inf) is -inf unless x is NaN; the sign of a NaN result is x's.
    EXPECT_EQ(minimum(0x55a2), 0xff80) << at;
    EXPECT_EQ(minimum(0x0001), 0xff80) << at;
    EXPECT_EQ(n, 5) << at;
  }
}


// A bf16 compared in a loop with a loop-carried bf16 and with 0 (scalar and
// 4-lane), as the builder emits it before memjit's passes (`fcmp` on bfloat),
// and widened to f32 and f64 as a cast or the builder's math on halves does.
constexpr const char* kBf16CompareLoopIR = R"(
target triple = "x86_64-pc-linux-gnu"
define i64 @count_equal(i16 %gbits, i16 %xbits, i64 %n) #0 {
entry:
  %g = bitcast i16 %gbits to bfloat
  %x0 = bitcast i16 %xbits to bfloat
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %count = phi i64 [ 0, %entry ], [ %count2, %loop ]
  %x = phi bfloat [ %x0, %entry ], [ %g, %loop ]
  %eq = fcmp oeq bfloat %g, %x
  %zero = fcmp oeq bfloat %g, 0xR0000
  %gv = insertelement <4 x bfloat> poison, bfloat %g, i64 0
  %gs = shufflevector <4 x bfloat> %gv, <4 x bfloat> poison, <4 x i32> zeroinitializer
  %lt = fcmp olt <4 x bfloat> %gs, <bfloat 0xR0000, bfloat 0xR8000, bfloat 0xR0001, bfloat 0xR807E>
  %ltbits = bitcast <4 x i1> %lt to i4
  %ltn = zext i4 %ltbits to i64
  %e = zext i1 %eq to i64
  %z = zext i1 %zero to i64
  %ez = shl i64 %z, 8
  %ltshift = shl i64 %ltn, 16
  %step = or i64 %e, %ez
  %step1 = or i64 %step, %ltshift
  %gf = fpext bfloat %g to float
  %gd = fpext bfloat %x to double
  %fzero = fcmp oeq float %gf, 0.0
  %dneg = fcmp olt double %gd, 0.0
  %fz = zext i1 %fzero to i64
  %dn = zext i1 %dneg to i64
  %fzs = shl i64 %fz, 24
  %dns = shl i64 %dn, 25
  %casts = or i64 %fzs, %dns
  %step2 = or i64 %step1, %casts
  %count1 = mul i64 %count, 3
  %count2 = add i64 %count1, %step2
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret i64 %count2
}
attributes #0 = { "target-cpu"="sapphirerapids" }
)";

// The code generator sees no bf16 value where a compare, arithmetic or an
// extension widens one: a bf16 held in an f32 register may be narrowed through
// vcvtneps2bf16, which flushes denormals (widenToF32 in half_registers.cpp).
TEST(HalfRegisters, Bf16CompareAndExtensionsWidenFromTheBitsAndKeepDenormalsAtEveryLevel) {
  const test::ParsedIR module = test::parseIR(kBf16CompareLoopIR);
  passHalvesAsBits(*module);
  EXPECT_TRUE(test::verifies(*module));
  for (const llvm::Function& f : *module)
    for (const llvm::BasicBlock& block : f)
      for (const llvm::Instruction& inst : block)
        if (auto* ext = llvm::dyn_cast<llvm::FPExtInst>(&inst)) {
          EXPECT_FALSE(ext->getSrcTy()->getScalarType()->isBFloatTy()) << "a bf16 widened by fpext in " << f.getName().str();
        }
  // The model: each iteration count = 3 * count + step, step = (g == x) | (g == 0) << 8 | (g < {0, -0, min, -0x7e}) << 16
  // | (float(g) == 0) << 24 | (double(x) < 0) << 25, x being the second argument in the first iteration and g after.
  auto expected = [](std::uint16_t g, std::uint16_t x, int n) {
    auto value = [](std::uint16_t bits) {
      std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
      float f;
      std::memcpy(&f, &wide, sizeof f);
      return f;
    };
    const float gv = value(g), lanes[4] = {value(0x0000), value(0x8000), value(0x0001), value(0x807e)};
    std::uint64_t count = 0;
    for (int i = 0; i < n; ++i) {
      const float xv = value(i == 0 ? x : g);
      std::uint64_t step = (gv == xv) | std::uint64_t{gv == 0.0f} << 8;
      for (int k = 0; k < 4; ++k) step |= std::uint64_t{gv < lanes[k]} << (16 + k);
      step |= std::uint64_t{gv == 0.0f} << 24 | std::uint64_t{static_cast<double>(xv) < 0.0} << 25;
      count = count * 3 + step;
    }
    return count;
  };
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kBf16CompareLoopIR, {.optLevel = level});
    const auto count = compiled.function<std::uint64_t(std::uint16_t, std::uint16_t, std::int64_t)>("count_equal");
    for (std::uint16_t g : {0x807f, 0x0001, 0x8001, 0x0000, 0x8000, 0x7fc0, 0x3f80})
      for (std::uint16_t x : {g, static_cast<std::uint16_t>(0x8000), static_cast<std::uint16_t>(0x0000)})
        EXPECT_EQ(count(g, x, 3), expected(g, x, 3)) << optLevelName(level) << " g=0x" << std::hex << g << " x=0x" << x;
  }
}

}  // namespace
}  // namespace memjit::jit::detail
