// jit/slp_extensions.h: LLVM 19's SLP vectoriser stored poison for a reused
// lane of mixed sext and `zext nneg` stores (difftest seed 6500000001004);
// memjit turns each `zext nneg` into the equal sext just before SLP runs.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include <llvm/IR/Instructions.h>

#include "jit/slp_extensions.h"
#include "memjit/jit/jit.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// The reduced reproducer (docs/debugging.md): p[0], p[1] and p[3] get
// max(x, -1)'s bits sign-extended, p[2] max(x, 1)'s zero-extended.
constexpr const char* kMixedExtensionsIR = R"(
define void @f(float %x, ptr %p) {
  %a = call float @llvm.maxnum.f32(float %x, float -1.000000e+00)
  %b = call float @llvm.maxnum.f32(float %x, float 1.000000e+00)
  %ai = bitcast float %a to i32
  %a64 = sext i32 %ai to i64
  store i64 %a64, ptr %p, align 4
  %p1 = getelementptr inbounds i64, ptr %p, i64 1
  store i64 %a64, ptr %p1, align 4
  %bi = bitcast float %b to i32
  %b64 = zext nneg i32 %bi to i64
  %p2 = getelementptr inbounds i64, ptr %p, i64 2
  store i64 %b64, ptr %p2, align 4
  %p3 = getelementptr inbounds i64, ptr %p, i64 3
  store i64 %a64, ptr %p3, align 4
  ret void
}
declare float @llvm.maxnum.f32(float, float)
)";

TEST(SlpExtensions, EveryNonNegativeZeroExtensionBecomesASignExtension) {
  const test::ParsedIR module = test::parseIR(R"(
define i64 @g(i32 %x, i16 %y) {
  %a = zext nneg i32 %x to i64
  %b = zext i16 %y to i64
  %c = sext i32 %x to i64
  %s = add i64 %a, %b
  %t = add i64 %s, %c
  ret i64 %t
}
)");
  llvm::Function& g = *module->getFunction("g");
  EXPECT_EQ(signExtendNonNegativeZeroExtensions(g), 1);
  EXPECT_TRUE(test::verifies(*module));
  int sexts = 0, zexts = 0;
  for (const llvm::Instruction& inst : g.getEntryBlock()) {
    sexts += llvm::isa<llvm::SExtInst>(inst);
    if (const auto* zext = llvm::dyn_cast<llvm::ZExtInst>(&inst)) {
      ++zexts;
      EXPECT_FALSE(zext->hasNonNeg());  // a zext without nneg may see a negative operand: kept
    }
  }
  EXPECT_EQ(sexts, 2);
  EXPECT_EQ(zexts, 1);
  EXPECT_EQ(g.getEntryBlock().front().getName(), "a");  // the replacement keeps the name
}

TEST(SlpExtensions, ReusedLanesOfMixedExtensionsAreStoredAtEveryLevel) {
  for (const OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kMixedExtensionsIR, {.optLevel = level});
    const auto f = compiled.function<void(float, std::int64_t*)>("f");
    for (const float x : {0.5f, -3.0f, 7.0f}) {
      std::int64_t p[4] = {-1, -1, -1, -1};
      f(x, p);
      const auto a = static_cast<std::int64_t>(std::bit_cast<std::int32_t>(x > -1.0f ? x : -1.0f));
      const auto b = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(x > 1.0f ? x : 1.0f));
      EXPECT_EQ(p[0], a) << optLevelName(level) << " x=" << x;
      EXPECT_EQ(p[1], a) << optLevelName(level) << " x=" << x;
      EXPECT_EQ(p[2], b) << optLevelName(level) << " x=" << x;
      EXPECT_EQ(p[3], a) << optLevelName(level) << " x=" << x;
    }
  }
}

}  // namespace
}  // namespace memjit::jit::detail
