// jit/strength_reduction.h: which functions' loops LoopStrengthReduce has
// nothing to do for (their addresses step by a legal x86 scale of an
// induction variable), on parsed IR. The gate that skips LSR in them is tested
// against the real code generator in large_functions_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "jit/strength_reduction.h"
#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// One loop over i (step `ivStep`) loading a float from `address` (an
// expression of %a, %i and %n) and storing it to %b[i] as a double.
std::string loopOver(const std::string& address, int ivStep = 1, const std::string& loaded = "float") {
  return R"(
define void @f(ptr %a, ptr %b, ptr %idx, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
)" + address + R"(
  %x = load )" + loaded + R"(, ptr %p, align 4
  %pb = getelementptr double, ptr %b, i64 %i
  store double 1.0, ptr %pb, align 8
  %next = add nuw nsw i64 %i, )" + std::to_string(ivStep) + R"(
  %done = icmp uge i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)";
}

constexpr const char* kX86 = "target triple = \"x86_64-pc-linux-gnu\"\n";

bool needsNone(const std::string& ir) {
  const test::ParsedIR module = test::parseIR(ir);
  return loopsNeedNoStrengthReduction(*module->getFunction("f"));
}

TEST(StrengthReduction, ScaledIndexAddressesNeedNone) {
  // Floats and doubles at i: scales 4 and 8.
  EXPECT_TRUE(needsNone(kX86 + loopOver("  %p = getelementptr float, ptr %a, i64 %i")));
  // Every other float: scale 8.
  EXPECT_TRUE(needsNone(kX86 + loopOver("  %j = shl nuw nsw i64 %i, 1\n  %p = getelementptr float, ptr %a, i64 %j")));
  // A vector loop: 16 floats a step, the induction variable 16 a step.
  EXPECT_TRUE(needsNone(kX86 + loopOver("  %p = getelementptr float, ptr %a, i64 %i", 16, "<16 x float>")));
  // The same address every iteration.
  EXPECT_TRUE(needsNone(kX86 + loopOver("  %p = getelementptr float, ptr %a, i64 %n")));
}

TEST(StrengthReduction, StridesNoAddressingModeScalesNeedIt) {
  // Every third float: 12 bytes a step, no x86 scale.
  EXPECT_TRUE(!needsNone(kX86 + loopOver("  %j = mul nuw nsw i64 %i, 3\n  %p = getelementptr float, ptr %a, i64 %j")));
  // A column: a run-time stride.
  EXPECT_TRUE(!needsNone(kX86 + loopOver("  %j = mul nuw nsw i64 %i, %n\n  %p = getelementptr float, ptr %a, i64 %j")));
  // A gather through loaded indices: SCEV cannot describe the address.
  EXPECT_TRUE(!needsNone(kX86 + loopOver("  %pi = getelementptr i64, ptr %idx, i64 %i\n"
                                         "  %k = load i64, ptr %pi, align 8\n"
                                         "  %p = getelementptr float, ptr %a, i64 %k")));
}

TEST(StrengthReduction, PointerInductionVariablesNeedNone) {
  EXPECT_TRUE(needsNone(std::string(kX86) + R"(
define void @f(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = phi ptr [ %a, %entry ], [ %q, %loop ]
  store float 0.0, ptr %p, align 4
  %q = getelementptr i8, ptr %p, i64 48
  %next = add nuw nsw i64 %i, 1
  %done = icmp uge i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)"));
}

// Only innermost loops count: an outer loop walking rows (a run-time stride)
// around an inner one walking a row needs none.
TEST(StrengthReduction, OnlyInnermostLoopsCount) {
  EXPECT_TRUE(needsNone(std::string(kX86) + R"(
define void @f(ptr %a, i64 %rows, i64 %cols) {
entry:
  br label %outer
outer:
  %r = phi i64 [ 0, %entry ], [ %rnext, %latch ]
  %rowStart = mul nuw nsw i64 %r, %cols
  %row = getelementptr float, ptr %a, i64 %rowStart
  store float 1.0, ptr %row, align 4
  br label %inner
inner:
  %c = phi i64 [ 0, %outer ], [ %cnext, %inner ]
  %p = getelementptr float, ptr %row, i64 %c
  store float 0.0, ptr %p, align 4
  %cnext = add nuw nsw i64 %c, 1
  %cdone = icmp uge i64 %cnext, %cols
  br i1 %cdone, label %latch, label %inner
latch:
  %rnext = add nuw nsw i64 %r, 1
  %rdone = icmp uge i64 %rnext, %rows
  br i1 %rdone, label %exit, label %outer
exit:
  ret void
}
)"));
}

// A call that may touch memory (here an opaque one) is not an address the
// test can read: LSR stays. So do targets other than x86-64, whose addressing
// was not measured.
TEST(StrengthReduction, UnknownCallsAndOtherTargetsKeepIt) {
  EXPECT_FALSE(needsNone(kX86 + loopOver("  %p = getelementptr float, ptr %a, i64 %i\n  call void @g(ptr %p)") +
                         "declare void @g(ptr)\n"));
  EXPECT_FALSE(needsNone("target triple = \"aarch64-unknown-linux-gnu\"\n" +
                         loopOver("  %p = getelementptr float, ptr %a, i64 %i")));
  EXPECT_FALSE(needsNone(loopOver("  %p = getelementptr float, ptr %a, i64 %i")));  // no triple
}

TEST(StrengthReduction, FunctionsWithoutLoopsNeedNone) {
  EXPECT_TRUE(needsNone(std::string(kX86) + "define void @f(ptr %a) {\n  store float 0.0, ptr %a\n  ret void\n}\n"));
}

}  // namespace
}  // namespace memjit::jit::detail
