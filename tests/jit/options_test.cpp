// The JIT engine's options: their names and defaults, that a Jit keeps the
// options it was made with, and what compileExpandedOnFirstUse changes.
#include "memjit/jit/options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "support/jit.h"

namespace memjit::jit {
namespace {

using memjit::test::makeJit;

TEST(Options, OptLevelNames) {
  EXPECT_STREQ(optLevelName(OptLevel::O0), "O0");
  EXPECT_STREQ(optLevelName(OptLevel::O1), "O1");
  EXPECT_STREQ(optLevelName(OptLevel::O2), "O2");
  EXPECT_STREQ(optLevelName(OptLevel::O3), "O3");
  EXPECT_STREQ(optLevelName(static_cast<OptLevel>(4)), "O?");  // no crash on a value out of the enum
}

TEST(Options, DefaultsOptimiseAtO2WithNothingExtra) {
  const JitOptions options;
  EXPECT_EQ(options.optLevel, OptLevel::O2);
  EXPECT_EQ(options.cache, nullptr);
  EXPECT_FALSE(options.gdbRegistration);
  EXPECT_FALSE(options.perfMap);
  EXPECT_FALSE(options.perfJitdump);
  EXPECT_FALSE(options.recoverFromLlvmCrashes);
  EXPECT_TRUE(options.vectorMath);
  EXPECT_TRUE(options.skipVectorEpilogue);
  EXPECT_TRUE(options.compileExpandedOnFirstUse);
  EXPECT_TRUE(options.dumpDirectory.empty());
}

TEST(Options, JitKeepsTheOptionsItWasMadeWith) {
  JitOptions options;
  options.optLevel = OptLevel::O0;
  options.vectorMath = false;
  options.compileExpandedOnFirstUse = false;
  Jit jit = makeJit(options);
  EXPECT_EQ(jit.options().optLevel, OptLevel::O0);
  EXPECT_FALSE(jit.options().vectorMath);
  EXPECT_FALSE(jit.options().compileExpandedOnFirstUse);
}

// The expanded entry `sum` is the same whether it is compiled with the
// module or when first looked up: named, found, and computing the sum.
void expectExpandedEntry(bool onFirstUse) {
  JitOptions options;
  options.compileExpandedOnFirstUse = onFirstUse;
  Jit jit = makeJit(options);
  codegen::Module m("sums");
  ASSERT_FALSE(codegen::addSum(m, "sum"));
  auto mod = jit.add(std::move(m));
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  // Either way the module names it and a lookup finds it.
  auto names = mod->symbolNames();
  EXPECT_TRUE(std::binary_search(names.begin(), names.end(), "sum"));
  auto f = mod->function("sum");
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_NE(f->expanded(), nullptr);
  auto address = mod->symbol("sum");
  ASSERT_TRUE(address.ok()) << address.error().message();
  EXPECT_EQ(*address, f->expanded());
  float data[] = {1.0f, 2.0f, 3.5f, -0.0f};
  auto sum = f->expandedAs<float(float*, float*, std::int64_t, std::int64_t, std::int64_t)>();
  EXPECT_EQ(sum(data, data, 0, 4, 1), 6.5f);
  // memref<?xf32> has the identity layout: the aligned pointer is indexed
  // with stride 1 whatever the descriptor's offset and stride say.
  EXPECT_EQ(sum(data, data + 1, 0, 2, 1), 5.5f);
}

TEST(Options, ExpandedEntryOnFirstUse) { expectExpandedEntry(true); }
TEST(Options, ExpandedEntryWithTheModule) { expectExpandedEntry(false); }

}  // namespace
}  // namespace memjit::jit
