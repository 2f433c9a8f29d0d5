// jit/float_results.h: a function's f32 and f64 results that LLVM's x86-64
// convention would return on the x87 stack (after two in xmm registers) reach
// the module's callers with their bits, a signalling NaN included, at every
// level (difftest seed 2700000002178: quieted at O0). The rewrite on parsed IR,
// and the values through the calls, run.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>

#include "jit/float_results.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// three() returns (f64 5.25, bf16 1.0, f32 signalling NaN 0xffab1761, f64
// signalling NaN); two() two floats (xmm0 and xmm1: left alone); @call writes
// three()'s members' bits to o[0..4) and two()'s to o[4..6).
constexpr const char* kResultsIR = R"(
target triple = "x86_64-pc-linux-gnu"
define { double, bfloat, float, double } @three(i32 %k) noinline {
  %f = bitcast i32 %k to float
  %r0 = insertvalue { double, bfloat, float, double } { double 5.25, bfloat 1.0, float undef, double undef }, float %f, 2
  %r1 = insertvalue { double, bfloat, float, double } %r0, double 0x7FF0000000000001, 3
  ret { double, bfloat, float, double } %r1
}
define { float, float } @two(i32 %k) noinline {
  %f = bitcast i32 %k to float
  %r = insertvalue { float, float } { float 2.0, float undef }, float %f, 1
  ret { float, float } %r
}
define void @call(ptr %o, i32 %k) {
  %t = call { double, bfloat, float, double } @three(i32 %k)
  %a = extractvalue { double, bfloat, float, double } %t, 0
  %b = extractvalue { double, bfloat, float, double } %t, 1
  %c = extractvalue { double, bfloat, float, double } %t, 2
  %d = extractvalue { double, bfloat, float, double } %t, 3
  %ai = bitcast double %a to i64
  %bi = bitcast bfloat %b to i16
  %ci = bitcast float %c to i32
  %di = bitcast double %d to i64
  %bx = zext i16 %bi to i64
  %cx = zext i32 %ci to i64
  store i64 %ai, ptr %o
  %o1 = getelementptr i64, ptr %o, i64 1
  store i64 %bx, ptr %o1
  %o2 = getelementptr i64, ptr %o, i64 2
  store i64 %cx, ptr %o2
  %o3 = getelementptr i64, ptr %o, i64 3
  store i64 %di, ptr %o3
  %w = call { float, float } @two(i32 %k)
  %w0 = extractvalue { float, float } %w, 0
  %w1 = extractvalue { float, float } %w, 1
  %w0i = bitcast float %w0 to i32
  %w1i = bitcast float %w1 to i32
  %w0x = zext i32 %w0i to i64
  %w1x = zext i32 %w1i to i64
  %o4 = getelementptr i64, ptr %o, i64 4
  store i64 %w0x, ptr %o4
  %o5 = getelementptr i64, ptr %o, i64 5
  store i64 %w1x, ptr %o5
  ret void
}
)";

TEST(FloatResults, OnlyResultsThatWouldUseTheX87StackAndAreCalledInTheModuleAreRewritten) {
  const test::ParsedIR module = test::parseIR(kResultsIR);
  EXPECT_EQ(returnFloatsAsBitsToCallers(*module), 1);
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
  // The exported function keeps its type and now calls the internal one, as @call does.
  llvm::Function* three = module->getFunction("three");
  ASSERT_NE(three, nullptr);
  EXPECT_EQ(three->getReturnType()->getStructNumElements(), 4u);
  EXPECT_TRUE(three->getReturnType()->getStructElementType(2)->isFloatTy());
  llvm::Function* bits = module->getFunction("three.memjit.bits");
  ASSERT_NE(bits, nullptr);
  EXPECT_TRUE(bits->hasInternalLinkage());
  EXPECT_TRUE(bits->getReturnType()->getStructElementType(0)->isDoubleTy());
  EXPECT_TRUE(bits->getReturnType()->getStructElementType(1)->isBFloatTy());
  EXPECT_TRUE(bits->getReturnType()->getStructElementType(2)->isIntegerTy(32));
  EXPECT_TRUE(bits->getReturnType()->getStructElementType(3)->isIntegerTy(64));
  int callsToBits = 0;
  for (llvm::User* user : bits->users()) callsToBits += llvm::isa<llvm::CallInst>(user) ? 1 : 0;
  EXPECT_EQ(callsToBits, 2);
  EXPECT_EQ(three->getNumUses(), 0u);
  EXPECT_EQ(module->getFunction("two.memjit.bits"), nullptr);
  EXPECT_EQ(returnFloatsAsBitsToCallers(*module), 0);
}

TEST(FloatResults, SignallingNaNResultsKeepTheirBitsThroughCallsAtEveryLevel) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kResultsIR, {.optLevel = level});
    std::uint64_t o[6] = {};
    compiled.function<void(std::uint64_t*, std::uint32_t)>("call")(o, 0xffab1761u);
    const std::string at = optLevelName(level);
    EXPECT_EQ(o[0], 0x4015000000000000u) << at;  // 5.25
    EXPECT_EQ(o[1], 0x3f80u) << at;
    EXPECT_EQ(o[2], 0xffab1761u) << at;  // was 0xffeb1761 at O0 through the x87 stack
    EXPECT_EQ(o[3], 0x7ff0000000000001u) << at;
    EXPECT_EQ(o[4], 0x40000000u) << at;
    EXPECT_EQ(o[5], 0xffab1761u) << at;
  }
}

}  // namespace
}  // namespace memjit::jit::detail
