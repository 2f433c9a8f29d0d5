// Tests of memjit/jit/compile_stats.h: LoadedModule::compileStats() after a
// compile, a cache hit, an object add and without IR passes, and
// AotOptions::stats. Only which phases ran is checked, never how long they took.
#include "memjit/jit/compile_stats.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/cache_backend.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "support/expected.h"
#include "support/ir_snippets.h"
#include "support/jit.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::makeJit;
using memjit::test::valueOrFail;
using std::chrono::nanoseconds;

namespace {

nanoseconds sumOfPhases(const CompileStats& s) {
  return s.verify + s.prepare + s.cacheLookup + s.optimize + s.codegen + s.link;
}

void expectNoNegativePhase(const CompileStats& s) {
  for (nanoseconds phase : {s.verify, s.prepare, s.cacheLookup, s.optimize, s.codegen, s.link, s.total})
    EXPECT_GE(phase.count(), 0);
  EXPECT_GE(s.total, sumOfPhases(s));
}

// A local layer that answers every lookup with a miss after `delay`: the
// lookup's time is then known to dominate it.
class SlowMissingBackend final : public CacheBackend {
 public:
  explicit SlowMissingBackend(std::chrono::milliseconds delay) : delay_(delay) {}
  std::string location() const override { return "slow:"; }
  Expected<std::optional<std::string>> get(const std::string&) override {
    std::this_thread::sleep_for(delay_);
    return std::optional<std::string>{};
  }
  Error put(const std::string&, std::string_view) override { return Error::success(); }
  Error remove(const std::string&) override { return Error::success(); }
  Expected<std::vector<CacheEntryInfo>> list(bool) override { return std::vector<CacheEntryInfo>{}; }
  Expected<PruneResult> prune(std::uint64_t) override { return PruneResult{}; }
  Error clear() override { return Error::success(); }
  std::uint64_t corruptEntries() const override { return 0; }

 private:
  std::chrono::milliseconds delay_;
};

}  // namespace

TEST(CompileStats, ACompiledModuleHasEveryPhaseButTheCache) {
  Jit jit = makeJit();
  LoadedModule mod = valueOrFail(jit.addIR(test::addKernelIR(), "m"), "addIR");
  const CompileStats& s = mod.compileStats();
  expectNoNegativePhase(s);
  EXPECT_FALSE(s.cacheHit);
  EXPECT_GT(s.verify.count(), 0);
  EXPECT_GT(s.optimize.count(), 0);
  EXPECT_GT(s.codegen.count(), 0);
  EXPECT_GT(s.link.count(), 0);
  EXPECT_EQ(s.cacheLookup.count(), 0);  // no cache
  EXPECT_GT(s.codeBytes, 0u);
  EXPECT_GT(s.objectBytes, s.codeBytes);  // an ELF file has headers and symbols besides code
}

TEST(CompileStats, ACacheHitSkipsOptimisationAndCodeGeneration) {
  auto cache = ObjectCache::inMemory();
  Jit jit = makeJit({.cache = cache});
  LoadedModule cold = valueOrFail(jit.addIR(test::addKernelIR("add_cached"), "m"), "cold add");
  EXPECT_FALSE(cold.compileStats().cacheHit);
  EXPECT_GT(cold.compileStats().cacheLookup.count(), 0);
  EXPECT_GT(cold.compileStats().codegen.count(), 0);

  Jit other = makeJit({.cache = cache});  // the same IR and module name: the same key
  LoadedModule warm = valueOrFail(other.addIR(test::addKernelIR("add_cached"), "m"), "warm add");
  const CompileStats& s = warm.compileStats();
  expectNoNegativePhase(s);
  EXPECT_TRUE(s.cacheHit);
  EXPECT_TRUE(warm.fromCache());
  EXPECT_GT(s.cacheLookup.count(), 0);
  EXPECT_EQ(s.optimize.count(), 0);
  EXPECT_EQ(s.codegen.count(), 0);
  EXPECT_GT(s.link.count(), 0);
  // The same object, so the same sizes.
  EXPECT_EQ(s.objectBytes, cold.compileStats().objectBytes);
  EXPECT_EQ(s.codeBytes, cold.compileStats().codeBytes);
}

// A module the structural digest does not cover (an alias) is keyed by its
// bitcode's hash: the key and the lookup are timed once each (a timer around
// both, beside the lookup's own, counted a slow lookup twice, and the phases
// then added up to more than the add).
TEST(CompileStats, ASlowLookupIsCountedOnce) {
  constexpr std::chrono::milliseconds kDelay{60};
  ObjectCacheOptions layers;
  layers.maxMemoryBytes = 0;
  layers.local = std::make_shared<SlowMissingBackend>(kDelay);
  Jit jit = makeJit({.cache = ObjectCache::create(layers)});
  LoadedModule mod = valueOrFail(jit.addIR(test::constantIR("k", 7) + "@k_alias = alias i64 (), ptr @k\n", "m"), "addIR");
  const CompileStats& s = mod.compileStats();
  expectNoNegativePhase(s);
  EXPECT_GE(s.cacheLookup, kDelay);
}

TEST(CompileStats, WithoutIRPassesOptimiseIsZero) {
  Jit jit = makeJit();
  AddOptions options;
  options.runIRPasses = false;
  LoadedModule mod = valueOrFail(jit.addIR(test::constantIR("k", 7), "m", options), "addIR");
  EXPECT_EQ(mod.compileStats().optimize.count(), 0);
  EXPECT_GT(mod.compileStats().codegen.count(), 0);
}

TEST(CompileStats, AnAddedObjectOnlyLinks) {
  auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "compile_stats";
  std::filesystem::create_directories(dir);
  codegen::Module module("objects");
  ASSERT_FALSE(codegen::addElementwiseAdd(module, "add"));
  const std::string path = (dir / "add.o").string();
  CompileStats aot;
  AotOptions options;
  options.stats = &aot;
  Error e = compileAhead(module, {.object = path}, options);
  ASSERT_FALSE(e) << e.str();
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  Jit jit = makeJit();
  LoadedModule mod = valueOrFail(jit.addObject(bytes, "objects"), "addObject");
  const CompileStats& s = mod.compileStats();
  expectNoNegativePhase(s);
  EXPECT_EQ(sumOfPhases(s), s.link);
  EXPECT_GT(s.link.count(), 0);
  EXPECT_FALSE(s.cacheHit);
  EXPECT_EQ(s.objectBytes, bytes.size());
  EXPECT_GT(s.codeBytes, 0u);
}

TEST(CompileStats, AheadOfTimeRecordsItsPhasesWhenAsked) {
  auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "compile_stats";
  std::filesystem::create_directories(dir);
  codegen::Module module("aot");
  ASSERT_FALSE(codegen::addElementwiseAdd(module, "add"));
  CompileStats s;
  s.cacheHit = true;  // stale values are reset
  s.link = nanoseconds(123);
  AotOptions options;
  options.stats = &s;
  Error e = compileAhead(module, {.object = (dir / "aot.o").string()}, options);
  ASSERT_FALSE(e) << e.str();
  expectNoNegativePhase(s);
  EXPECT_FALSE(s.cacheHit);
  EXPECT_EQ(s.link.count(), 0);
  EXPECT_GT(s.verify.count(), 0);
  EXPECT_GT(s.optimize.count(), 0);
  EXPECT_GT(s.codegen.count(), 0);
  EXPECT_EQ(s.objectBytes, std::filesystem::file_size(dir / "aot.o"));
}

TEST(CompileStats, AnEmptyHandleHasNone) {
  const CompileStats& s = LoadedModule().compileStats();
  EXPECT_EQ(s.total.count(), 0);
  EXPECT_EQ(s.objectBytes, 0u);
  EXPECT_FALSE(s.cacheHit);
}
