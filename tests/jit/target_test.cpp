// Code generation targets: the host as detected, the text form cache keys
// and messages use, and which triples this LLVM can generate code for.
#include "memjit/jit/target.h"

#include <gtest/gtest.h>

#include <string>

#include "memjit/codegen/vector_target.h"

namespace memjit::jit {
namespace {

TEST(Target, HostIsDetectedOnceAndComplete) {
  const TargetSpec& host = TargetSpec::host();
  EXPECT_EQ(&host, &TargetSpec::host());
  EXPECT_FALSE(host.triple.empty());
  EXPECT_FALSE(host.cpu.empty());
  // Every feature the CPU has, each as "+name" or "-name".
  ASSERT_FALSE(host.features.empty());
  std::size_t start = 0;
  while (start < host.features.size()) {
    std::size_t end = host.features.find(',', start);
    if (end == std::string::npos) end = host.features.size();
    const std::string feature = host.features.substr(start, end - start);
    ASSERT_GE(feature.size(), 2u) << host.features;
    EXPECT_TRUE(feature[0] == '+' || feature[0] == '-') << feature;
    start = end + 1;
  }
  // The kernel builder sizes vectors from the same features.
  EXPECT_EQ(codegen::VectorTarget::fromFeatures(host.triple, host.features).registerBits,
            codegen::VectorTarget::host().registerBits);
}

TEST(Target, StrJoinsTheThreePartsWithSlashes) {
  EXPECT_EQ((TargetSpec{"aarch64-linux-gnu", "neoverse-n1", "+sve,-neon"}).str(),
            "aarch64-linux-gnu/neoverse-n1/+sve,-neon");
  EXPECT_EQ(TargetSpec{}.str(), "//");
  // Different specs give different texts, so cache keys built from them differ.
  EXPECT_NE((TargetSpec{"x", "a", ""}).str(), (TargetSpec{"x", "", "a"}).str());
}

TEST(Target, EqualityComparesEveryPart) {
  TargetSpec a{"x86_64-pc-linux-gnu", "znver3", "+avx2"};
  EXPECT_EQ(a, (TargetSpec{"x86_64-pc-linux-gnu", "znver3", "+avx2"}));
  EXPECT_NE(a, (TargetSpec{"x86_64-pc-linux-gnu", "znver4", "+avx2"}));
  EXPECT_NE(a, (TargetSpec{"x86_64-pc-linux-gnu", "znver3", "+avx2,+fma"}));
  EXPECT_NE(a, (TargetSpec{"x86_64-unknown-linux-gnu", "znver3", "+avx2"}));
}

TEST(Target, CheckTargetKnowsTheBuiltTargets) {
  EXPECT_FALSE(checkTarget(TargetSpec::host()));
  // memjit's AOT tests cross-compile for AArch64: its LLVM has that target.
  EXPECT_FALSE(checkTarget({"aarch64-unknown-linux-gnu", "generic", ""}));
  // Only the triple decides: CPU and features are checked when code is generated.
  EXPECT_FALSE(checkTarget({TargetSpec::host().triple, "no-such-cpu", "+no-such-feature"}));
}

TEST(Target, CheckTargetNamesAnUnknownTriple) {
  for (const char* triple : {"nosuch-unknown-linux-gnu", ""}) {
    Error e = checkTarget({triple, "", ""});
    ASSERT_TRUE(e) << triple;
    EXPECT_EQ(e.code(), ErrorCode::Unsupported) << triple;
    EXPECT_EQ(e.message().rfind("no LLVM target for triple '" + std::string(triple) + "': ", 0), 0u) << e.str();
  }
}

}  // namespace
}  // namespace memjit::jit
