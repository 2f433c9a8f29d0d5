// jit/shift_amounts.h: a vector shift's constant lanes beyond the width are
// zeroed before code generation, so SelectionDAG's reading of them (zero)
// and vpsravq's (the sign bit) cannot disagree. The rewrite itself, and the
// SLP vectoriser's shape that x86 compiled wrongly (difftest seed 1000943:
// an ashr and an and of neighbouring lanes, blended), run at every level.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>

#include "jit/shift_amounts.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// io[4] = sext(i16 io[0]), io[5] = sext(i16 io[1]), io[6] = zext(i16 io[2]),
// io[7] = zext(i8 io[3]), as the SLP vectoriser leaves them: one ashr and
// one and over all four lanes, each with the other's constants in the lanes
// the blend drops (poison for the ashr: 65535 and 255 are beyond 63).
constexpr const char* kWidenIR = R"(
target triple = "x86_64-pc-linux-gnu"
define void @widen(ptr %io) #0 {
  %a = load <2 x i64>, ptr %io, align 8
  %pb = getelementptr inbounds i8, ptr %io, i64 16
  %b = load <2 x i64>, ptr %pb, align 8
  %s = shl <2 x i64> %a, <i64 48, i64 48>
  %bw = shufflevector <2 x i64> %b, <2 x i64> poison, <4 x i32> <i32 poison, i32 poison, i32 0, i32 1>
  %sw = shufflevector <2 x i64> %s, <2 x i64> poison, <4 x i32> <i32 0, i32 1, i32 poison, i32 poison>
  %v = shufflevector <4 x i64> %sw, <4 x i64> %bw, <4 x i32> <i32 0, i32 1, i32 6, i32 7>
  %sra = ashr exact <4 x i64> %v, <i64 48, i64 48, i64 65535, i64 255>
  %and = and <4 x i64> %v, <i64 poison, i64 poison, i64 65535, i64 255>
  %r = shufflevector <4 x i64> %sra, <4 x i64> %and, <4 x i32> <i32 0, i32 1, i32 6, i32 7>
  %first = extractelement <4 x i64> %sra, i64 0
  %p3 = getelementptr inbounds i8, ptr %io, i64 24
  store i64 %first, ptr %p3, align 8
  %p4 = getelementptr inbounds i8, ptr %io, i64 32
  store <4 x i64> %r, ptr %p4, align 8
  ret void
}
define <4 x i32> @amounts(<4 x i32> %x, <4 x i32> %n, i32 %y) {
  %in = shl <4 x i32> %x, <i32 0, i32 31, i32 5, i32 1>
  %out = lshr <4 x i32> %in, <i32 32, i32 31, i32 -1, i32 poison>
  %dyn = ashr <4 x i32> %out, %n
  %scalar = ashr i32 %y, 40
  %lane = insertelement <4 x i32> %dyn, i32 %scalar, i64 0
  ret <4 x i32> %lane
}
attributes #0 = { "target-cpu"="sapphirerapids" }
)";

std::string constantText(const llvm::Value* v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  v->printAsOperand(os, false);
  return s;
}

TEST(ShiftAmounts, LanesAtOrBeyondTheWidthBecomeZeroAndNothingElseChanges) {
  const test::ParsedIR module = test::parseIR(kWidenIR);
  EXPECT_EQ(zeroOutOfRangeShiftLanes(*module), 2);  // widen's ashr and amounts' lshr
  std::string amounts;
  for (llvm::Instruction& inst : module->getFunction("amounts")->getEntryBlock())
    if (inst.isShift()) amounts += constantText(inst.getOperand(1)) + "; ";
  EXPECT_EQ(amounts,
            "<i32 0, i32 31, i32 5, i32 1>; <i32 0, i32 31, i32 0, i32 poison>; %n; 40; ");  // a scalar's is left alone
  for (llvm::Instruction& inst : module->getFunction("widen")->getEntryBlock()) {
    if (inst.getOpcode() == llvm::Instruction::AShr) {
      EXPECT_EQ(constantText(inst.getOperand(1)), "<i64 48, i64 48, i64 0, i64 0>");
    }
  }
  EXPECT_EQ(zeroOutOfRangeShiftLanes(*module), 0);
}

TEST(ShiftAmounts, BlendedAshrAndMaskWidenNeighbouringLanesAtEveryLevel) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kWidenIR, {.optLevel = level});
    std::int64_t io[8] = {0xfc00, 0x7fff, 0x8001, static_cast<std::int64_t>(0xfffffffffffffffaULL), 0, 0, 0, 0};
    compiled.function<void(std::int64_t*)>("widen")(io);
    EXPECT_EQ(io[3], -1024) << optLevelName(level);
    EXPECT_EQ(io[4], -1024) << optLevelName(level);
    EXPECT_EQ(io[5], 0x7fff) << optLevelName(level);
    EXPECT_EQ(io[6], 0x8001) << optLevelName(level);
    EXPECT_EQ(io[7], 0xfa) << optLevelName(level);  // vpsravq by 255 gave -1 here
  }
}

}  // namespace
}  // namespace memjit::jit::detail
