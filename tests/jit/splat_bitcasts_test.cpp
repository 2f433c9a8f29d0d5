// jit/splat_bitcasts.h: a splat of a loaded f32, bitcast to i32 lanes and
// sign-extended, keeps its order with a store to the same address at every
// level (x86's SelectionDAG re-read the element after the store: difftest seed
// 2700000005206, through a gather whose lanes all read one element). The
// rewrite itself on parsed IR, and the shapes it repairs, run.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include "jit/splat_bitcasts.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// Each function reads p[0] (f32 bits), stores 1.0f there, and then writes the
// value read as i64s: o[0..n) from the vector, o[n] from the scalar. Every
// o[i] must be the old bits of p[0].
constexpr const char* kSplatIR = R"(
target triple = "x86_64-pc-linux-gnu"
define void @gather(ptr %p, ptr %o) {
  %g = getelementptr inbounds float, ptr %p, <2 x i64> zeroinitializer
  %v = call <2 x float> @llvm.masked.gather.v2f32.v2p0(<2 x ptr> %g, i32 4, <2 x i1> <i1 true, i1 true>, <2 x float> poison)
  store float 1.0, ptr %p, align 4
  %bc = bitcast <2 x float> %v to <2 x i32>
  %e = sext <2 x i32> %bc to <2 x i64>
  store <2 x i64> %e, ptr %o, align 8
  %l = extractelement <2 x i32> %bc, i64 0
  %le = sext i32 %l to i64
  %o2 = getelementptr inbounds i64, ptr %o, i64 2
  store i64 %le, ptr %o2, align 8
  ret void
}
define void @shuffle(ptr %p, ptr %o) {
  %l = load float, ptr %p, align 4
  %ins = insertelement <4 x float> poison, float %l, i64 0
  %v = shufflevector <4 x float> %ins, <4 x float> poison, <4 x i32> zeroinitializer
  store float 1.0, ptr %p, align 4
  %bc = bitcast <4 x float> %v to <4 x i32>
  %e = sext <4 x i32> %bc to <4 x i64>
  store <4 x i64> %e, ptr %o, align 8
  %li = bitcast float %l to i32
  %le = sext i32 %li to i64
  %o2 = getelementptr inbounds i64, ptr %o, i64 4
  store i64 %le, ptr %o2, align 8
  ret void
}
define void @elements(ptr %p, ptr %o) {
  %l = load float, ptr %p, align 4
  %ins = insertelement <2 x float> poison, float %l, i64 1
  %v = insertelement <2 x float> %ins, float %l, i64 0
  store float 1.0, ptr %p, align 4
  %bc = bitcast <2 x float> %v to <2 x i32>
  %e = sext <2 x i32> %bc to <2 x i64>
  store <2 x i64> %e, ptr %o, align 8
  %li = bitcast float %l to i32
  %le = sext i32 %li to i64
  %o2 = getelementptr inbounds i64, ptr %o, i64 2
  store i64 %le, ptr %o2, align 8
  ret void
}
define <2 x float> @masked(ptr %p, <2 x i1> %m) {
  %g = getelementptr inbounds float, ptr %p, <2 x i64> zeroinitializer
  %v = call <2 x float> @llvm.masked.gather.v2f32.v2p0(<2 x ptr> %g, i32 4, <2 x i1> %m, <2 x float> zeroinitializer)
  ret <2 x float> %v
}
define <2 x i32> @lanes(<2 x float> %x, float %y) {
  %ins = insertelement <2 x float> %x, float %y, i64 0
  %bc = bitcast <2 x float> %ins to <2 x i32>
  ret <2 x i32> %bc
}
define <2 x i32> @whole(ptr %p, <4 x float> %x) {
  %v = load <2 x float>, ptr %p, align 4
  %bc = bitcast <2 x float> %v to <2 x i32>
  %w = bitcast <4 x float> %x to <2 x i64>
  %s = shufflevector <4 x float> %x, <4 x float> poison, <2 x i32> <i32 1, i32 0>
  %t = bitcast <2 x float> %s to <2 x i32>
  %u = add <2 x i32> %bc, %t
  ret <2 x i32> %u
}
declare <2 x float> @llvm.masked.gather.v2f32.v2p0(<2 x ptr>, i32 immarg, <2 x i1>, <2 x float>)
)";

TEST(SplatBitcasts, GathersOfOneAddressAndBitcastsOfSplatsBecomeScalarAndNothingElseChanges) {
  const test::ParsedIR module = test::parseIR(kSplatIR);
  // gather: the gather and its bitcast; shuffle, elements and lanes: a bitcast each.
  EXPECT_EQ(splatBitcastsOfScalars(*module), 5);
  auto count = [&](const char* function, auto&& is) {
    int n = 0;
    for (llvm::BasicBlock& block : *module->getFunction(function))
      for (llvm::Instruction& inst : block) n += is(inst) ? 1 : 0;
    return n;
  };
  auto isGather = [](llvm::Instruction& inst) {
    auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
    return call && call->getIntrinsicID() == llvm::Intrinsic::masked_gather;
  };
  auto isVectorBitcast = [](llvm::Instruction& inst) {
    return llvm::isa<llvm::BitCastInst>(inst) && inst.getType()->isVectorTy();
  };
  EXPECT_EQ(count("gather", isGather), 0);
  EXPECT_EQ(count("gather", isVectorBitcast), 0);
  EXPECT_EQ(count("shuffle", isVectorBitcast), 0);
  EXPECT_EQ(count("elements", isVectorBitcast), 0);
  EXPECT_EQ(count("masked", isGather), 1);  // a mask that may be false keeps its gather
  EXPECT_EQ(count("lanes", isVectorBitcast), 1);  // %x's bitcast, below the lane inserted from %y
  // Bitcasts of a vector load, across lane counts, and of shuffles of whole vectors stay.
  EXPECT_EQ(count("whole", isVectorBitcast), 3);
  EXPECT_EQ(splatBitcastsOfScalars(*module), 0);
}

TEST(SplatBitcasts, TheValueReadBeforeAStoreIsTheOldOneInEveryLaneAtEveryLevel) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    test::CompiledIR compiled = test::compileIR(kSplatIR, {.optLevel = level});
    for (auto [name, lanes] : {std::pair{"gather", 2}, {"shuffle", 4}, {"elements", 2}}) {
      const auto f = compiled.function<void(float*, std::int64_t*)>(name);
      // A negative f32 (bits 0xc3000000, -128) sign-extends to a negative i64.
      float p = -128.0f;
      std::int64_t o[5] = {};
      f(&p, o);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(p), 0x3f800000u) << name;
      for (int i = 0; i <= lanes; ++i)
        EXPECT_EQ(o[i], static_cast<std::int32_t>(0xc3000000u)) << name << " lane " << i << " at " << optLevelName(level);
    }
  }
}

}  // namespace
}  // namespace memjit::jit::detail
