// Tiered compilation (memjit/jit/tiering.h): the same bits before and after
// the tier-up through the same handles, thresholds, calls from several
// threads during the swap, unloading mid-tier-up, and the object cache.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <limits>
#include <thread>
#include <tuple>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/jit/tiering.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/expect_error.h"
#include "support/expected.h"
#include "support/files.h"
#include "support/jit.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::runtime::makeView;
using memjit::runtime::StridedMemRef;
using memjit::test::valueOrFail;

namespace {

using Vec = StridedMemRef<float, 1>;
using Mat = StridedMemRef<float, 2>;

// Edge values: NaN (with a payload), infinities, -0, denormals, the extremes.
std::vector<float> edgeFloats(std::size_t n) {
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::bit_cast<float>(0x7fc01234u),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           -0.0f,
                           0.0f,
                           std::numeric_limits<float>::denorm_min(),
                           -std::numeric_limits<float>::denorm_min(),
                           std::numeric_limits<float>::min() / 3,
                           std::numeric_limits<float>::max(),
                           -std::numeric_limits<float>::max(),
                           16777217.0f};
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = i < std::size(special) ? special[i] : std::ldexp(static_cast<float>(i % 97) - 48.5f, int(i % 13) - 6);
  return v;
}

std::vector<std::uint32_t> bitsOf(const std::vector<float>& v) {
  std::vector<std::uint32_t> bits(v.size());
  std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
  return bits;
}

// out[i] = in[i] * in[i] + in[i] in i32, wrapping (INT_MIN and INT_MAX included).
Error addWrappingKernel(codegen::Module& m) {
  codegen::FunctionBuilder b(m, "mix", *parseFunctionType("(memref<?xi32>, memref<?xi32>) -> ()"));
  codegen::Value in = b.arg(0), out = b.arg(1);
  b.forLoop(b.index(0), b.dim(out, 0), b.index(1), [&](codegen::Value i) {
    codegen::Value x = b.load(in, {i});
    b.store(x * x + x, out, {i});
  });
  return b.finish();
}

codegen::Module kernelModule() {
  codegen::Module m("kernels");
  EXPECT_FALSE(codegen::addElementwiseAdd(m, "add"));
  EXPECT_FALSE(codegen::addSaxpy(m, "saxpy"));
  EXPECT_FALSE(codegen::addMatmul(m, "matmul"));
  EXPECT_FALSE(addWrappingKernel(m));
  return m;
}

// Every kernel of kernelModule on edge inputs, through the typed invokers
// and (for add) the dynamic one; the outputs' bits, concatenated.
std::vector<std::uint32_t> runAll(const LoadedModule& mod) {
  const std::size_t n = 67;  // a vector body and a remainder
  std::vector<float> a = edgeFloats(n), b(n), out(n), dynamicOut(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = a[(i * 7) % n];
  auto add = valueOrFail(valueOrFail(mod.function("add")).as<void(Vec, Vec, Vec)>());
  add(makeView<float>(a), makeView<float>(b), makeView<float>(out));
  std::vector<std::uint32_t> result = bitsOf(out);

  Function addFn = valueOrFail(mod.function("add"));
  auto dyn = addFn.invoke({runtime::Buffer::fromMemRef(makeView<float>(a)),
                           runtime::Buffer::fromMemRef(makeView<float>(b)),
                           runtime::Buffer::fromMemRef(makeView<float>(dynamicOut))});
  EXPECT_TRUE(dyn) << dyn.error().str();
  for (std::uint32_t bits : bitsOf(dynamicOut)) result.push_back(bits);

  std::vector<float> y = b;
  auto saxpy = valueOrFail(valueOrFail(mod.function("saxpy")).as<void(float, Vec, Vec)>());
  saxpy(-1.5f, makeView<float>(a), makeView<float>(y));
  for (std::uint32_t bits : bitsOf(y)) result.push_back(bits);

  const std::int64_t M = 5, K = 13, N = 19;
  std::vector<float> A = edgeFloats(M * K), B(K * N), C(M * N);
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(int(i % 11) - 5) * 0.375f;
  A[0] = 1.0f;  // keep some rows NaN-free so the products carry information
  auto matmul = valueOrFail(valueOrFail(mod.function("matmul")).as<void(Mat, Mat, Mat)>());
  matmul(makeView<float, 2>(A.data(), {M, K}), makeView<float, 2>(B.data(), {K, N}),
         makeView<float, 2>(C.data(), {M, N}));
  for (std::uint32_t bits : bitsOf(C)) result.push_back(bits);

  std::vector<std::int32_t> in(n), iout(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::int32_t>(i * 2654435761u);
  in[0] = INT_MIN, in[1] = INT_MAX, in[2] = -1, in[3] = 46341;  // 46341^2 overflows
  auto mix = valueOrFail(
      valueOrFail(mod.function("mix")).as<void(StridedMemRef<std::int32_t, 1>, StridedMemRef<std::int32_t, 1>)>());
  mix(makeView<std::int32_t>(in), makeView<std::int32_t>(iout));
  for (std::int32_t v : iout) result.push_back(static_cast<std::uint32_t>(v));
  return result;
}

JitOptions tiered(std::uint32_t callThreshold = 0) {
  JitOptions options;
  options.tiering.enabled = true;
  options.tiering.callThreshold = callThreshold;
  return options;
}

}  // namespace

TEST(Tiering, SameBitsInBothTiersAndAsADirectCompileThroughTheSameHandles) {
  Jit direct = test::makeJit();
  const std::vector<std::uint32_t> expected = runAll(valueOrFail(direct.add(kernelModule())));

  Jit jit = test::makeJit(tiered(/*callThreshold=*/1000000));
  LoadedModule mod = valueOrFail(jit.add(kernelModule()));
  EXPECT_EQ(currentTier(mod), Tier::First);
  Function add = valueOrFail(mod.function("add"));
  void* const stub = add.cInterface();
  EXPECT_EQ(runAll(mod), expected);
  EXPECT_EQ(currentTier(mod), Tier::First);  // far below the threshold

  requestTierUp(mod);
  ASSERT_FALSE(waitForTierUp(mod));
  EXPECT_EQ(currentTier(mod), Tier::Optimised);
  EXPECT_EQ(add.cInterface(), stub);
  EXPECT_EQ(valueOrFail(jit.lookup("add")).cInterface(), stub);
  EXPECT_EQ(runAll(mod), expected);
}

TEST(Tiering, ExportsTheModulesNamesOnly) {
  Jit jit = test::makeJit(tiered(1000000));
  LoadedModule mod = valueOrFail(jit.add(kernelModule()));
  for (const std::string& name : mod.symbolNames()) EXPECT_EQ(name.find(".memjit."), std::string::npos) << name;
  EXPECT_EQ(valueOrFail(mod.symbol("_mlir_ciface_add")), valueOrFail(mod.function("add")).cInterface());
  EXPECT_EQ(mod.functionNames(), (std::vector<std::string>{"add", "matmul", "mix", "saxpy"}));
}

TEST(Tiering, TheExpandedEntryAndLinkingModulesGoThroughTheStubs) {
  Jit jit = test::makeJit(tiered(1000000));
  LoadedModule mod = valueOrFail(jit.add(kernelModule()));
  Function saxpy = valueOrFail(mod.function("saxpy"));
  using Expanded = void(float, float*, float*, std::int64_t, std::int64_t, std::int64_t, float*, float*,
                        std::int64_t, std::int64_t, std::int64_t);
  std::vector<float> x{1, 2, 3}, y{10, 20, 30};
  auto call = [&] { saxpy.expandedAs<Expanded>()(2.0f, x.data(), x.data(), 0, 3, 1, y.data(), y.data(), 0, 3, 1); };
  call();
  requestTierUp(mod);
  ASSERT_FALSE(waitForTierUp(mod));
  call();
  EXPECT_EQ(y, (std::vector<float>{14, 28, 42}));
}

TEST(Tiering, TheCallThresholdStartsTheTierUp) {
  Jit jit = test::makeJit(tiered(/*callThreshold=*/3));
  LoadedModule mod = valueOrFail(jit.add(kernelModule()));
  auto add = valueOrFail(valueOrFail(mod.function("add")).as<void(Vec, Vec, Vec)>());
  std::vector<float> a{1, 2}, b{3, 4}, out(2);
  add(makeView<float>(a), makeView<float>(b), makeView<float>(out));
  add(makeView<float>(a), makeView<float>(b), makeView<float>(out));
  EXPECT_EQ(currentTier(mod), Tier::First);  // the request is made by the third call's code
  add(makeView<float>(a), makeView<float>(b), makeView<float>(out));
  ASSERT_FALSE(waitForTierUp(mod));
  EXPECT_EQ(currentTier(mod), Tier::Optimised);
  add(makeView<float>(a), makeView<float>(b), makeView<float>(out));
  EXPECT_EQ(out, (std::vector<float>{4, 6}));
}

TEST(Tiering, ModulesThatCannotOrNeedNotTierAreCompiledDirectly) {
  Jit jit = test::makeJit(tiered());
  LoadedModule perModuleOff = valueOrFail(jit.add(kernelModule(), {.tiered = false}));
  EXPECT_EQ(currentTier(perModuleOff), Tier::Optimised);
  LoadedModule atO0 = valueOrFail(jit.add(kernelModule(), {.optLevel = OptLevel::O0}));
  EXPECT_EQ(currentTier(atO0), Tier::Optimised);
  // A writable global would have one copy per tier.
  LoadedModule stateful = valueOrFail(jit.addIR(
      "@counter = global i64 0\n"
      "define i64 @bump() {\n  %v = load i64, ptr @counter\n  %n = add i64 %v, 1\n"
      "  store i64 %n, ptr @counter\n  ret i64 %n\n}\n",
      "stateful"));
  EXPECT_EQ(currentTier(stateful), Tier::Optimised);
  ASSERT_FALSE(waitForTierUp(stateful));

  Jit off = test::makeJit();
  LoadedModule perModuleOn = valueOrFail(off.add(kernelModule(), {.tiered = true}));
  ASSERT_FALSE(waitForTierUp(perModuleOn));
  EXPECT_EQ(currentTier(perModuleOn), Tier::Optimised);
}

TEST(Tiering, WaitingOnAnEmptyHandleIsAnError) {
  test::expectErrorMessage(waitForTierUp(LoadedModule()), ErrorCode::InvalidArgument, "waitForTierUp: empty module handle");
  EXPECT_EQ(currentTier(LoadedModule()), Tier::Optimised);
  requestTierUp(LoadedModule());  // nothing to do
  EXPECT_STREQ(tierName(Tier::FirstTierOnly), "FirstTierOnly");
}

TEST(Tiering, CallsFromSeveralThreadsDuringTheTierUpSeeTheSameBits) {
  Jit direct = test::makeJit();
  const std::vector<std::uint32_t> expected = runAll(valueOrFail(direct.add(kernelModule())));
  for (int round = 0; round < 3; ++round) {
    Jit jit = test::makeJit(tiered(/*callThreshold=*/round == 0 ? 0 : 50));
    LoadedModule mod = valueOrFail(jit.add(kernelModule()));
    std::atomic<int> mismatches{0}, optimisedCalls{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        // Until well after the swap, so that calls run in both tiers.
        for (int i = 0; i < 100000 && optimisedCalls.load() < 200; ++i) {
          const bool before = currentTier(mod) == Tier::Optimised;
          if (runAll(mod) != expected) ++mismatches;
          if (before) ++optimisedCalls;
        }
      });
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(mismatches.load(), 0);
    ASSERT_FALSE(waitForTierUp(mod));
    EXPECT_EQ(currentTier(mod), Tier::Optimised);
  }
}

TEST(Tiering, UnloadingOrDroppingTheJitMidTierUpIsSafe) {
  for (int i = 0; i < 20; ++i) {
    auto jit = std::make_unique<Jit>(test::makeJit(tiered()));
    LoadedModule mod = valueOrFail(jit->add(kernelModule()));
    Function add = valueOrFail(mod.function("add"));
    auto typed = valueOrFail(add.as<void(Vec, Vec, Vec)>());
    std::vector<float> a{1, -0.0f}, b{2, -0.0f}, out(2);
    typed(makeView<float>(a), makeView<float>(b), makeView<float>(out));
    ASSERT_FALSE(jit->remove(mod));
    if (i % 2) jit.reset();  // the Jit's last owners are now the handles (and the worker's job)
    // Removed, yet the handles keep both tiers loaded and may still be swapped.
    typed(makeView<float>(a), makeView<float>(b), makeView<float>(out));
    EXPECT_EQ(out[0], 3.0f);
    EXPECT_TRUE(std::signbit(out[1]));
  }
  // Modules whose handles all go at once, while the worker may be compiling them.
  Jit jit = test::makeJit(tiered());
  for (int i = 0; i < 20; ++i) {
    LoadedModule mod = valueOrFail(jit.add(kernelModule()));
    ASSERT_FALSE(jit.remove(mod));
  }
  EXPECT_EQ(jit.moduleCount(), 0u);
}

TEST(Tiering, TheCacheHoldsTheOptimisedObjectAndAHitSkipsTiering) {
  auto cache = ObjectCache::inMemory();
  JitOptions options = tiered(1000000);
  options.cache = cache;
  Jit jit = test::makeJit(options);
  LoadedModule first = valueOrFail(jit.add(kernelModule()));
  EXPECT_FALSE(first.fromCache());
  EXPECT_EQ(currentTier(first), Tier::First);
  EXPECT_FALSE(cache->get(first.cacheKey()));  // the first tier is not cached
  requestTierUp(first);
  ASSERT_FALSE(waitForTierUp(first));
  EXPECT_TRUE(cache->get(first.cacheKey()));

  LoadedModule second = valueOrFail(jit.add(kernelModule()));
  EXPECT_TRUE(second.fromCache());
  EXPECT_EQ(currentTier(second), Tier::Optimised);
  EXPECT_EQ(runAll(second), runAll(first));

  // A direct O2 compile in another Jit finds the same object under the same key.
  JitOptions plain;
  plain.cache = cache;
  Jit direct = test::makeJit(plain);
  LoadedModule third = valueOrFail(direct.add(kernelModule()));
  EXPECT_TRUE(third.fromCache());
  EXPECT_EQ(third.cacheKey(), first.cacheKey());
}

namespace {

// (memref<?xi64>, f64) -> (i64, f64): the wrapping sum of the elements and
// the last element times the scalar; a loop, two results and a temporary.
codegen::Module resultsModule(bool debugInfo) {
  codegen::Module m(debugInfo ? "results_debug" : "results");
  codegen::FunctionOptions options;
  options.debugInfo = debugInfo;
  codegen::FunctionBuilder b(m, "sum", *parseFunctionType("(memref<?xi64>, f64) -> (i64, f64)"), options);
  codegen::Value in = b.arg(0), scale = b.arg(1);
  codegen::Value n = b.dim(in, 0);
  auto sum = b.forLoop(b.index(0), n, b.index(1), {b.i64(0)},
                       [&](codegen::Value i, const std::vector<codegen::Value>& acc) {
                         return std::vector<codegen::Value>{acc[0] + b.load(in, {i})};
                       });
  codegen::Value last = b.load(in, {n - b.index(1)});
  b.ret({sum[0], b.cast(last, ElementType::F64) * scale});
  EXPECT_FALSE(b.finish());
  return m;
}

}  // namespace

// The first tier moves each expanded entry's body into its C interface
// (jit/deferred_entries.h, spliceDeferredEntries; with debug info it inlines
// it): results come back through both tiers, the expanded entry's stub and
// the typed invoker alike, on values that wrap and above 2^53.
TEST(Tiering, ResultsComeBackThroughTheFirstTiersMovedBodiesAndTheTierUp) {
  for (bool debugInfo : {false, true}) {
    SCOPED_TRACE(debugInfo ? "debug info" : "no debug info");
    Jit jit = test::makeJit(tiered(1000000));
    LoadedModule mod = valueOrFail(jit.add(resultsModule(debugInfo)));
    ASSERT_EQ(currentTier(mod), Tier::First);
    Function sum = valueOrFail(mod.function("sum"));
    auto typed = valueOrFail(sum.as<std::tuple<std::int64_t, double>(StridedMemRef<std::int64_t, 1>, double)>());
    std::vector<std::int64_t> values{INT64_MAX, 1, (std::int64_t{1} << 53) + 1, -3, INT64_MIN + 7};
    const std::int64_t wrapped = static_cast<std::int64_t>(
        static_cast<std::uint64_t>(INT64_MAX) + 1 + (std::uint64_t{1} << 53) + 1 - 3 + static_cast<std::uint64_t>(INT64_MIN + 7));
    const double scaled = static_cast<double>(INT64_MIN + 7) * -0.5;
    // {i64, f64} comes back in rax and xmm0, as C returns this struct.
    struct Pair {
      std::int64_t sum;
      double scaled;
    };
    using Expanded = Pair(std::int64_t*, std::int64_t*, std::int64_t, std::int64_t, std::int64_t, double);
    for (int tier = 0; tier < 2; ++tier) {
      EXPECT_EQ(typed(makeView<std::int64_t>(values), -0.5), std::make_tuple(wrapped, scaled)) << "tier " << tier;
      Expanded* expanded = sum.expandedAs<Expanded>();
      const Pair got = expanded(values.data(), values.data(), 0, 5, 1, -0.5);
      EXPECT_EQ(got.sum, wrapped) << "tier " << tier;
      EXPECT_EQ(got.scaled, scaled) << "tier " << tier;
      if (tier == 0) {
        requestTierUp(mod);
        ASSERT_FALSE(waitForTierUp(mod));
      }
    }
  }
}

// The tier-up compiles what a direct add compiles: the first tier's changes
// (renaming, call counting, bodies moved rather than inlined) stay in the
// first tier's copy, so the optimised IR is the direct compile's, line for line.
TEST(Tiering, TheTierUpOptimisesWhatADirectAddOptimises) {
  auto optimisedIn = [](const std::filesystem::path& dir, bool tierUp) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.ends_with(".after.ll") && (name.find(".tier-up.") != std::string::npos) == tierUp)
        return test::readFile(entry.path());
    }
    return std::string();
  };
  const std::filesystem::path directDumps = test::freshDir("jit/tiering_optimised_direct");
  const std::filesystem::path tieredDumps = test::freshDir("jit/tiering_optimised_tiered");
  JitOptions directOptions;
  directOptions.dumpDirectory = directDumps.string();
  Jit direct = test::makeJit(directOptions);
  LoadedModule directMod = valueOrFail(direct.add(kernelModule()));
  JitOptions tieredOptions = tiered(1000000);
  tieredOptions.dumpDirectory = tieredDumps.string();
  Jit jit = test::makeJit(tieredOptions);
  LoadedModule mod = valueOrFail(jit.add(kernelModule()));
  requestTierUp(mod);
  ASSERT_FALSE(waitForTierUp(mod));
  const std::string directIR = optimisedIn(directDumps, false), tierUpIR = optimisedIn(tieredDumps, true);
  ASSERT_FALSE(directIR.empty());
  ASSERT_FALSE(tierUpIR.empty());
  EXPECT_EQ(directIR, tierUpIR);
}
