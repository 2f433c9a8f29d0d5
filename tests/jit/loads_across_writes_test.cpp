// jit/loads_across_writes.h: the uses of a scalar load that come after a write
// in its block take a freeze of it, so the x86 back end cannot read the
// address again for them (difftest seed 179466727052886, whose printed program
// in tests/difftest/regressions_test.cpp runs the repaired shape end to end).
// The rewrite itself on parsed IR.
#include <gtest/gtest.h>

#include <llvm/IR/Instructions.h>

#include "jit/loads_across_writes.h"
#include "memjit/jit/jit.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// %x is used before the compare-exchange, by it, and after it; %y (a vector),
// %z (no write after it) and %h (a bf16: frozen, x86 would flush it) are left
// alone; %w is used after a plain store and in another block.
constexpr const char* kLoadsIR = R"(
target triple = "x86_64-pc-linux-gnu"
define float @f(ptr %p, ptr %q) {
entry:
  %x = load float, ptr %p, align 4
  %y = load <4 x float>, ptr %q, align 16
  %before = fadd float %x, 1.0
  %bits = bitcast float %x to i32
  %c = cmpxchg ptr %p, i32 %bits, i32 0 acq_rel acquire, align 4
  %after = call float @llvm.fabs.f32(float %x)
  %lane = extractelement <4 x float> %y, i64 0
  %w = load float, ptr %q, align 4
  store float %after, ptr %q, align 4
  %z = load float, ptr %p, align 4
  %sum = fadd float %w, %z
  %sum2 = fadd float %sum, %lane
  %h = load bfloat, ptr %q, align 2
  store i32 7, ptr %p, align 4
  %hw = fpext bfloat %h to float
  %sum3 = fadd float %sum2, %hw
  br label %next
next:
  %again = fadd float %w, %before
  %r = fadd float %again, %sum3
  ret float %r
}
declare float @llvm.fabs.f32(float)
)";

const llvm::Instruction& named(const llvm::Function& f, const char* name) {
  for (const llvm::BasicBlock& block : f)
    for (const llvm::Instruction& inst : block)
      if (inst.getName() == name) return inst;
  ADD_FAILURE() << "no instruction named " << name;
  return f.getEntryBlock().front();
}

TEST(LoadsAcrossWrites, UsesAfterAWriteInTheBlockTakeAFreezeRightAfterTheLoad) {
  const test::ParsedIR module = test::parseIR(kLoadsIR);
  EXPECT_EQ(freezeLoadsUsedAfterWrites(*module), 2);  // %x and %w
  EXPECT_TRUE(test::verifies(*module));
  const llvm::Function& f = *module->getFunction("f");
  const llvm::Instruction& x = named(f, "x");
  const llvm::Instruction& w = named(f, "w");
  auto* xFrozen = llvm::dyn_cast<llvm::FreezeInst>(x.getNextNode());
  ASSERT_NE(xFrozen, nullptr);
  EXPECT_EQ(xFrozen->getOperand(0), &x);
  auto* wFrozen = llvm::dyn_cast<llvm::FreezeInst>(w.getNextNode());
  ASSERT_NE(wFrozen, nullptr);
  // Before the write and the write's own operand: the load itself.
  EXPECT_EQ(named(f, "before").getOperand(0), &x);
  EXPECT_EQ(named(f, "bits").getOperand(0), &x);
  // After it: the frozen value.
  EXPECT_EQ(named(f, "after").getOperand(0), xFrozen);
  EXPECT_EQ(named(f, "sum").getOperand(0), wFrozen);
  // No write between %z and its use; a vector load; a use in another block.
  EXPECT_EQ(named(f, "sum").getOperand(1), &named(f, "z"));
  EXPECT_EQ(named(f, "lane").getOperand(0), &named(f, "y"));
  EXPECT_EQ(named(f, "again").getOperand(0), &w);
  EXPECT_EQ(named(f, "hw").getOperand(0), &named(f, "h"));
  // Once is enough: a second run finds the frozen uses and leaves them.
  EXPECT_EQ(freezeLoadsUsedAfterWrites(*module), 0);
}

// The stackmaps boundSchedulingRegions puts in long blocks write nothing:
// a load used after one is not frozen (freezing the loads of a 100K-operation
// body doubled its code generation), and a real store after it still counts.
constexpr const char* kStackmapIR = R"(
target triple = "x86_64-pc-linux-gnu"
define float @f(ptr %p, ptr %q) {
  %x = load float, ptr %p, align 4
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 0, i32 0)
  %a = fadd float %x, 1.0
  store float %a, ptr %q, align 4
  %b = fadd float %x, 2.0
  ret float %b
}
declare void @llvm.experimental.stackmap(i64, i32, ...)
)";

TEST(LoadsAcrossWrites, SchedulingBoundariesAreNotWrites) {
  const test::ParsedIR module = test::parseIR(kStackmapIR);
  EXPECT_EQ(freezeLoadsUsedAfterWrites(*module), 1);
  EXPECT_TRUE(test::verifies(*module));
  const llvm::Function& f = *module->getFunction("f");
  const llvm::Instruction& x = named(f, "x");
  EXPECT_EQ(named(f, "a").getOperand(0), &x);  // after the stackmap only
  auto* frozen = llvm::dyn_cast<llvm::FreezeInst>(x.getNextNode());
  ASSERT_NE(frozen, nullptr);
  EXPECT_EQ(named(f, "b").getOperand(0), frozen);  // after the store
}

// The x86 back end's bug itself, reduced to one load, one compare-exchange and
// one splat (the IR of a report for LLVM; llc-19 and llc-22 at -O0 to -O3 with
// AVX select `fabs(v)`'s splat as a broadcast load from %p placed after `lock
// cmpxchg`, so every lane reads the exchanged 0). Through memjit, at every
// level, the lanes hold |v|: without freezeLoadsUsedAfterWrites they hold 0.
constexpr const char* kReducedReproducerIR = R"(
define void @f(ptr %p, ptr %out) {
  %v = load float, ptr %p, align 4
  %v.bits = bitcast float %v to i32
  %pair = cmpxchg ptr %p, i32 %v.bits, i32 0 seq_cst seq_cst, align 4
  %abs = call float @llvm.fabs.f32(float %v)
  %ins = insertelement <4 x float> poison, float %abs, i64 0
  %splat = shufflevector <4 x float> %ins, <4 x float> poison, <4 x i32> zeroinitializer
  store <4 x float> %splat, ptr %out, align 16
  ret void
}
declare float @llvm.fabs.f32(float)
)";

TEST(LoadsAcrossWrites, TheReducedBackEndReproducerKeepsTheLoadedValueAtEveryLevel) {
  for (const OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    Jit jit = test::makeJit({.optLevel = level});
    LoadedModule loaded = test::valueOrFail(jit.addIR(kReducedReproducerIR, "reproducer"), "addIR");
    auto* f = reinterpret_cast<void (*)(float*, float*)>(test::valueOrFail(loaded.symbol("f"), "f"));
    float element = -3.5f;
    alignas(16) float lanes[4] = {-1.0f, -1.0f, -1.0f, -1.0f};
    f(&element, lanes);
    EXPECT_EQ(element, 0.0f) << optLevelName(level);  // the exchange happened
    for (float lane : lanes) EXPECT_EQ(lane, 3.5f) << optLevelName(level);
  }
}

}  // namespace
}  // namespace memjit::jit::detail
