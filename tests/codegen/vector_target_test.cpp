// What explicit vector code and register-blocked kernels size themselves
// from: register width and count from a triple and feature string, and the
// lanes of each element type in one register.
#include "memjit/codegen/vector_target.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "memjit/codegen/builder.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

TEST(VectorTarget, X86FromFeatures) {
  const char* x86 = "x86_64-unknown-linux-gnu";
  VectorTarget sse = VectorTarget::fromFeatures(x86, "+sse2,+sse4.2");
  EXPECT_EQ(sse.registerBits, 128u);
  EXPECT_EQ(sse.registers, 16u);
  EXPECT_FALSE(sse.fma);

  VectorTarget avx2 = VectorTarget::fromFeatures(x86, "+sse2,+avx,+avx2,+fma,-avx512f");
  EXPECT_EQ(avx2.registerBits, 256u);
  EXPECT_EQ(avx2.registers, 16u);
  EXPECT_TRUE(avx2.fma);

  VectorTarget avx512 = VectorTarget::fromFeatures(x86, "+avx,+avx512f");
  EXPECT_EQ(avx512.registerBits, 512u);
  EXPECT_EQ(avx512.registers, 32u);
  EXPECT_TRUE(avx512.fma);  // AVX-512F has FMA whether or not "+fma" is listed
}

TEST(VectorTarget, LaterFeatureWinsAndNamesMatchWhole) {
  const char* x86 = "x86_64-pc-linux-gnu";
  // "-avx512f" after "+avx512f" turns it off, as LLVM reads feature strings.
  EXPECT_EQ(VectorTarget::fromFeatures(x86, "+avx,+avx512f,-avx512f").registerBits, 256u);
  EXPECT_EQ(VectorTarget::fromFeatures(x86, "-avx,+avx").registerBits, 256u);
  // "+avx512fp16" is not "+avx512f", "+avxvnni" not "+avx".
  EXPECT_EQ(VectorTarget::fromFeatures(x86, "+avx512fp16").registerBits, 128u);
  EXPECT_EQ(VectorTarget::fromFeatures(x86, "+avxvnni").registerBits, 128u);
  EXPECT_FALSE(VectorTarget::fromFeatures(x86, "+fma4").fma);
  EXPECT_EQ(VectorTarget::fromFeatures(x86, "").registerBits, 128u);
  EXPECT_EQ(VectorTarget::fromFeatures(x86, ",,+avx,").registerBits, 256u);
}

TEST(VectorTarget, OtherArchitectures) {
  VectorTarget neon = VectorTarget::fromFeatures("aarch64-unknown-linux-gnu", "+neon");
  EXPECT_EQ(neon.registerBits, 128u);
  EXPECT_EQ(neon.registers, 32u);
  EXPECT_TRUE(neon.fma);
  // x86 feature names mean nothing elsewhere; an unknown target gets the defaults.
  VectorTarget riscv = VectorTarget::fromFeatures("riscv64-unknown-linux-gnu", "+avx512f");
  EXPECT_EQ(riscv.registerBits, 128u);
  EXPECT_EQ(riscv.registers, 16u);
  EXPECT_FALSE(riscv.fma);
  EXPECT_EQ(VectorTarget::fromFeatures("", "").registerBits, 128u);
}

TEST(VectorTarget, LanesPerElementType) {
  VectorTarget avx512{.registerBits = 512, .registers = 32, .fma = true};
  EXPECT_EQ(avx512.lanes(ElementType::F32), 16u);
  EXPECT_EQ(avx512.lanes(ElementType::F64), 8u);
  EXPECT_EQ(avx512.lanes(ElementType::BF16), 32u);
  EXPECT_EQ(avx512.lanes(ElementType::UI8), 64u);
  EXPECT_EQ(avx512.lanes(ElementType::I1), 64u);  // an i1 lane takes a byte, not a bit
  EXPECT_EQ(avx512.lanes(ElementType::Index), 8u);
  EXPECT_EQ(avx512.lanes(ElementType::ComplexF64), 4u);
  VectorTarget sse;
  EXPECT_EQ(sse.lanes(ElementType::F32), 4u);
  EXPECT_EQ(sse.lanes(ElementType::I16), 8u);
  // An element as wide as the register, or wider, still gets one lane.
  EXPECT_EQ(sse.lanes(ElementType::ComplexF64), 1u);
  EXPECT_EQ(VectorTarget{.registerBits = 64}.lanes(ElementType::ComplexF64), 1u);
  EXPECT_EQ(VectorTarget{.registerBits = 0}.lanes(ElementType::F32), 1u);
}

TEST(VectorTarget, HostIsStableAndWhatTheBuilderUses) {
  const VectorTarget& host = VectorTarget::host();
  EXPECT_EQ(&host, &VectorTarget::host());  // detected once
  EXPECT_TRUE(host.registerBits == 128 || host.registerBits == 256 || host.registerBits == 512) << host.registerBits;
  Module m("lanes");
  FunctionBuilder b(m, "f", memjit::test::functionType("() -> ()"));
  for (ElementType t : {ElementType::F32, ElementType::F64, ElementType::I8, ElementType::I1, ElementType::F16})
    EXPECT_EQ(b.nativeLanes(t), host.lanes(t)) << static_cast<int>(t);
  b.ret();
  EXPECT_FALSE(b.finish());
}

// The L2 size sizes cache blocks: a feature string cannot say it (1 MiB
// assumed); the host reports what the OS does when it is plausible.
TEST(VectorTarget, L2BytesFromTheOsOnTheHostOnly) {
  EXPECT_EQ(VectorTarget::fromFeatures("x86_64-unknown-linux-gnu", "+avx512f").l2Bytes, 1024 * 1024);
  const long os = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const bool plausible = os >= 256 * 1024 && os <= 16 * 1024 * 1024;
  EXPECT_EQ(VectorTarget::host().l2Bytes, plausible ? os : 1024 * 1024) << "sysconf says " << os;
}

}  // namespace
}  // namespace memjit::codegen
