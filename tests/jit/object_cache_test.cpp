// Tests of memjit::jit::ObjectCache and its use by the Jit: keys, hits that
// skip compilation, misses on any key change, corrupt disk entries, and a
// loaded module's code shared by a second add of the same module.
#include "memjit/jit/object_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/directory_cache.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "support/ir_snippets.h"
#include "support/jit.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::makeJit;

namespace {

std::filesystem::path freshDir(const std::string& name) {
  auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "cache" / name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::int64_t callConstant(const LoadedModule& mod, const std::string& name) {
  return test::valueOrFail(mod.function(name), name).cInterfaceAs<std::int64_t()>()();
}

}  // namespace

TEST(CacheKey, EveryPartChangesTheKey) {
  const CacheKeyParts base{.moduleBitcode = "bitcode",
                           .triple = "x86_64-pc-linux-gnu",
                           .cpu = "znver3",
                           .features = "+avx2",
                           .optLevel = 2,
                           .memjitVersion = "0.1.0",
                           .pipeline = "",
                           .llvmVersion = "19.1.7",
                           .vectorMath = true,
                           .codeModel = "default",
                           .relocationModel = "pic"};
  const std::string key = cacheKey(base);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key, cacheKey(base));
  auto changed = [&](auto mutate) {
    CacheKeyParts p = base;
    mutate(p);
    return cacheKey(p);
  };
  EXPECT_NE(key, changed([](auto& p) { p.moduleBitcode = "bitcodf"; }));
  EXPECT_NE(key, changed([](auto& p) { p.triple = "aarch64-linux-gnu"; }));
  EXPECT_NE(key, changed([](auto& p) { p.cpu = "skylake"; }));
  EXPECT_NE(key, changed([](auto& p) { p.features = "+avx2,+fma"; }));
  EXPECT_NE(key, changed([](auto& p) { p.features = "+avx2,-avx512f"; }));
  EXPECT_NE(key, changed([](auto& p) { p.optLevel = 3; }));
  EXPECT_NE(key, changed([](auto& p) { p.memjitVersion = "0.1.1"; }));
  EXPECT_NE(key, changed([](auto& p) { p.pipeline = "/codegen-O1"; }));
  EXPECT_NE(key, changed([](auto& p) { p.llvmVersion = "22.1.0"; }));
  EXPECT_NE(key, changed([](auto& p) { p.vectorMath = false; }));
  EXPECT_NE(key, changed([](auto& p) { p.codeModel = "large"; }));
  EXPECT_NE(key, changed([](auto& p) { p.relocationModel = "static"; }));
  EXPECT_NE(key, changed([](auto& p) { p.abiVersion = kObjectAbiVersion + 1; }));
  // Parts are length-prefixed: moving a byte across a boundary changes the key.
  EXPECT_NE(changed([](auto& p) { p.triple = "ab"; p.cpu = "c"; }),
            changed([](auto& p) { p.triple = "a"; p.cpu = "bc"; }));
}

namespace {

// The key of addSum's kernel built with `kernel` and added with `jit` options.
std::string sumKey(codegen::KernelOptions kernel, JitOptions options = {}, AddOptions add = {}) {
  options.cache = ObjectCache::inMemory();
  Jit jit = makeJit(options);
  codegen::Module module("sum");
  EXPECT_FALSE(codegen::addSum(module, "total", kernel));
  auto loaded = jit.add(std::move(module), add);
  EXPECT_TRUE(loaded.ok()) << loaded.error().message();
  return loaded.ok() ? loaded->cacheKey() : std::string();
}

}  // namespace

// What the Jit puts in the key, changed one option at a time: each gives
// another key. (The triple, CPU and features are the host's, so they are
// changed only at the level of cacheKey, above.)
TEST(CacheKey, EveryJitAndKernelOptionChangesTheJitsKey) {
  const std::string base = sumKey({});
  ASSERT_EQ(base.size(), 64u);
  EXPECT_EQ(base, sumKey({}));  // deterministic across Jits
  EXPECT_NE(base, sumKey({.fastMath = codegen::FastMath::Fast}));
  EXPECT_NE(base, sumKey({.fastMath = codegen::FastMath::Reassoc}));
  EXPECT_NE(base, sumKey({.checked = true}));
  EXPECT_NE(base, sumKey({.debugInfo = true}));
  EXPECT_NE(base, sumKey({.element = ElementType::F64}));
  EXPECT_NE(base, sumKey({}, {.optLevel = OptLevel::O3}));
  EXPECT_NE(base, sumKey({}, {}, {.optLevel = OptLevel::O1}));
  EXPECT_NE(base, sumKey({}, {}, {.codegenLevel = OptLevel::O0}));
  EXPECT_NE(base, sumKey({}, {}, {.runIRPasses = false}));
  EXPECT_NE(base, sumKey({}, {.vectorMath = false}));
  EXPECT_NE(base, sumKey({}, {.skipVectorEpilogue = false}));
  EXPECT_NE(base, sumKey({}, {.compileExpandedOnFirstUse = false}));
}

TEST(ObjectCache, MemoryPutGetAndEviction) {
  auto cache = ObjectCache::inMemory(10);
  EXPECT_FALSE(cache->get("a").has_value());
  cache->put("a", "12345");
  cache->put("b", "67890");
  ASSERT_TRUE(cache->get("a").has_value());
  EXPECT_EQ(**cache->get("b"), "67890");
  cache->put("c", "abcde");  // over 10 bytes: the oldest ("a") goes
  EXPECT_FALSE(cache->get("a").has_value());
  EXPECT_TRUE(cache->get("c").has_value());
  auto stats = cache->stats();
  EXPECT_EQ(stats.stores, 3u);
  EXPECT_EQ(stats.misses, 2u);
}

TEST(ObjectCache, JitHitSkipsCompilationAndRunsTheSameCode) {
  auto cache = ObjectCache::inMemory();
  Jit first = makeJit({.cache = cache});
  auto cold = first.addIR(test::constantIR("k", 17), "m");
  ASSERT_TRUE(cold.ok());
  EXPECT_FALSE(cold->fromCache());
  EXPECT_EQ(cache->stats().stores, 1u);

  // A hit never runs the pipeline: with dumps on, no IR is written for it.
  auto dumps = freshDir("dumps");
  JitOptions options;
  options.cache = cache;
  options.dumpDirectory = dumps.string();
  auto second = Jit::create(options);
  ASSERT_TRUE(second.ok());
  auto warm = second->addIR(test::constantIR("k", 17), "m");
  ASSERT_TRUE(warm.ok());
  EXPECT_TRUE(warm->fromCache());
  EXPECT_EQ(warm->cacheKey(), cold->cacheKey());
  EXPECT_EQ(cache->stats().stores, 1u);
  EXPECT_EQ(callConstant(*warm, "k"), 17);
  int irDumps = 0, objectDumps = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dumps)) {
    const std::string name = entry.path().filename().string();
    irDumps += name.find(".ll") != std::string::npos;
    objectDumps += name.size() > 2 && name.substr(name.size() - 2) == ".o";
  }
  EXPECT_EQ(irDumps, 0);
  EXPECT_EQ(objectDumps, 1);  // the cached object is still dumped
}

TEST(ObjectCache, AnyChangeMisses) {
  auto cache = ObjectCache::inMemory();
  Jit o2 = makeJit({.optLevel = OptLevel::O2, .cache = cache});
  auto a = o2.addIR(test::constantIR("k", 1), "m");
  ASSERT_TRUE(a.ok());
  // Different IR.
  Jit o2b = makeJit({.optLevel = OptLevel::O2, .cache = cache});
  auto b = o2b.addIR(test::constantIR("k", 2), "m");
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->fromCache());
  EXPECT_EQ(callConstant(*b, "k"), 2);
  // Different optimisation level.
  Jit o3 = makeJit({.optLevel = OptLevel::O3, .cache = cache});
  auto c = o3.addIR(test::constantIR("k", 1), "m");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->fromCache());
  EXPECT_NE(c->cacheKey(), a->cacheKey());
  // Per-module override of the level also changes the key.
  Jit o2c = makeJit({.optLevel = OptLevel::O2, .cache = cache});
  auto d = o2c.addIR(test::constantIR("k", 1), "m", {.optLevel = OptLevel::O0});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->fromCache());
}

TEST(ObjectCache, DiskHitAcrossCachesAndCorruptEntriesAreRecompiled) {
  auto dir = freshDir("disk");
  std::string key;
  {
    auto cache = ObjectCache::onDisk(dir.string());
    ASSERT_TRUE(cache.ok());
    Jit jit = makeJit({.cache = *cache});
    auto mod = jit.addIR(test::constantIR("k", 5), "m");
    ASSERT_TRUE(mod.ok());
    key = mod->cacheKey();
    ASSERT_TRUE(std::filesystem::exists((*cache)->pathFor(key)));
  }
  auto load = [&]() {
    auto cache = ObjectCache::onDisk(dir.string());  // fresh memory layer
    EXPECT_TRUE(cache.ok());
    Jit jit = makeJit({.cache = *cache});
    auto mod = jit.addIR(test::constantIR("k", 5), "m");
    EXPECT_TRUE(mod.ok());
    EXPECT_EQ(callConstant(*mod, "k"), 5);
    return std::make_pair(mod->fromCache(), (*cache)->stats());
  };
  auto [hit, stats] = load();
  EXPECT_TRUE(hit);
  EXPECT_EQ(stats.corrupt, 0u);

  const auto path = dir / (key + ".mjo");
  const auto size = std::filesystem::file_size(path);
  // Truncated: detected by the size check, recompiled, and rewritten.
  std::filesystem::resize_file(path, size - 7);
  auto [hit2, stats2] = load();
  EXPECT_FALSE(hit2);
  EXPECT_EQ(stats2.corrupt, 1u);
  EXPECT_EQ(std::filesystem::file_size(path), size);

  // One flipped byte in the payload: detected by the checksum.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 20));
    char c;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(size - 20));
    c = static_cast<char>(c ^ 0x5a);
    f.write(&c, 1);
  }
  auto [hit3, stats3] = load();
  EXPECT_FALSE(hit3);
  EXPECT_EQ(stats3.corrupt, 1u);

  // Garbage with the wrong magic.
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << "not an object at all";
  }
  auto [hit4, stats4] = load();
  EXPECT_FALSE(hit4);
  EXPECT_EQ(stats4.corrupt, 1u);
  auto [hit5, stats5] = load();
  EXPECT_TRUE(hit5);
}

TEST(ObjectCache, MemoryLayerCanBeClearedToReachTheDisk) {
  auto dir = freshDir("clear");
  auto cache = ObjectCache::onDisk(dir.string());
  ASSERT_TRUE(cache.ok());
  (*cache)->put("k1", "payload");
  (*cache)->clearMemory();
  auto got = (*cache)->get("k1");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(**got, "payload");
  // An entry stored under another key's name is rejected (the key is in the header).
  std::filesystem::copy_file((*cache)->pathFor("k1"), (*cache)->pathFor("k2"));
  EXPECT_FALSE((*cache)->get("k2").has_value());
  EXPECT_EQ((*cache)->stats().corrupt, 1u);
}

namespace {

// A counter in a mutable global: two modules made from this IR must not share it.
std::string counterIR(const std::string& name) {
  return "@count = internal global i64 0\n"
         "define i64 @" + name + "() {\n  %v = load i64, ptr @count\n  %n = add i64 %v, 1\n"
         "  store i64 %n, ptr @count\n  ret i64 %n\n}\n" +
         "define i64 @_mlir_ciface_" + name + "() {\n  %r = call i64 @" + name + "()\n  ret i64 %r\n}\n" +
         test::metadataIR(name, "() -> i64");
}

// `i64 <name>()` returning the external `i64 k()`.
std::string callsK(const std::string& name) {
  return "declare i64 @k()\ndefine i64 @" + name + "() {\n  %r = call i64 @k()\n  ret i64 %r\n}\n" +
         "define i64 @_mlir_ciface_" + name + "() {\n  %r = call i64 @" + name + "()\n  ret i64 %r\n}\n" +
         test::metadataIR(name, "() -> i64");
}

LoadedModule addSum(Jit& jit, const std::string& moduleName, AddOptions options = {}) {
  codegen::Module module(moduleName);
  EXPECT_FALSE(codegen::addSum(module, "total"));
  return test::valueOrFail(jit.add(std::move(module), options), "add");
}

float callSum(const LoadedModule& mod, std::vector<float> values) {
  auto total = test::valueOrFail(mod.function("total"), "total").as<float(runtime::StridedMemRef<float, 1>)>();
  EXPECT_TRUE(total.ok());
  return (*total)(runtime::makeView(values));
}

}  // namespace

TEST(ObjectCache, ASecondAddOfALoadedModuleSharesItsCodeUntilBothAreRemoved) {
  auto cache = ObjectCache::inMemory();
  Jit jit = makeJit({.cache = cache});
  LoadedModule first = addSum(jit, "sums");
  EXPECT_FALSE(first.fromCache());
  LoadedModule second = addSum(jit, "sums");
  EXPECT_TRUE(second.fromCache());
  EXPECT_TRUE(second.compileStats().cacheHit);
  EXPECT_EQ(second.compileStats().link.count(), 0);  // nothing linked: the code is first's
  EXPECT_EQ(second.name(), "sums");
  EXPECT_EQ(second.cacheKey(), first.cacheKey());
  EXPECT_EQ(second.compileStats().codeBytes, first.compileStats().codeBytes);
  EXPECT_EQ(test::valueOrFail(second.function("total"), "total").cInterface(),
            test::valueOrFail(first.function("total"), "total").cInterface());
  EXPECT_EQ(jit.moduleCount(), 2u);
  // The expanded entry is compiled on first use, once, for both.
  EXPECT_EQ(test::valueOrFail(second.symbol("total"), "total"), test::valueOrFail(first.symbol("total"), "total"));

  ASSERT_FALSE(jit.remove(first));
  EXPECT_EQ(callSum(second, {1.5f, 2.5f, -1.0f}), 3.0f);  // first's code stays while second uses it
  LoadedModule third = addSum(jit, "sums");        // still shared: the code is alive
  EXPECT_EQ(third.compileStats().link.count(), 0);
  ASSERT_FALSE(jit.remove(second));
  ASSERT_FALSE(jit.remove(third));
  LoadedModule fourth = addSum(jit, "sums");  // all gone: linked again from the cached object
  EXPECT_TRUE(fourth.fromCache());
  EXPECT_GT(fourth.compileStats().link.count(), 0);
  EXPECT_EQ(callSum(fourth, {2.0f, 3.0f}), 5.0f);
}

TEST(ObjectCache, ModulesWithWritableGlobalsOrLinksOfTheirOwnAreNeverShared) {
  auto cache = ObjectCache::inMemory();
  Jit jit = makeJit({.cache = cache});
  LoadedModule a = test::valueOrFail(jit.addIR(counterIR("tick"), "counter"), "addIR");
  LoadedModule b = test::valueOrFail(jit.addIR(counterIR("tick"), "counter"), "addIR");
  EXPECT_TRUE(b.fromCache());                     // the object is cached ...
  EXPECT_GT(b.compileStats().link.count(), 0);    // ... but linked again: b has a counter of its own
  EXPECT_EQ(callConstant(a, "tick"), 1);
  EXPECT_EQ(callConstant(a, "tick"), 2);
  EXPECT_EQ(callConstant(b, "tick"), 1);

  LoadedModule plain = test::valueOrFail(jit.addIR(test::constantIR("k", 3), "three"), "addIR");
  LoadedModule linked =
      test::valueOrFail(jit.addIR(test::constantIR("k", 3), "three", {.runnerUtilities = true}), "addIR");
  EXPECT_TRUE(linked.fromCache());
  EXPECT_GT(linked.compileStats().link.count(), 0);  // other symbol tables: its own link
  LoadedModule user =
      test::valueOrFail(jit.addIR(callsK("user"), "user", {.linkAgainst = {plain}}), "addIR");
  LoadedModule user2 =
      test::valueOrFail(jit.addIR(callsK("user"), "user", {.linkAgainst = {linked}}), "addIR");
  EXPECT_GT(user2.compileStats().link.count(), 0);
  EXPECT_EQ(callConstant(user2, "user"), 3);
}

TEST(ObjectCache, EveryOptionThatChangesTheObjectChangesTheKey) {
  auto cache = ObjectCache::inMemory();
  auto keyFor = [&](JitOptions jitOptions, AddOptions addOptions, bool viaBuilder) {
    jitOptions.cache = cache;
    Jit jit = makeJit(jitOptions);
    LoadedModule mod = viaBuilder ? addSum(jit, "m", addOptions)
                                  : test::valueOrFail(jit.addIR(test::constantIR("k", 1), "m", addOptions), "addIR");
    return std::make_pair(mod.cacheKey(), mod.fromCache());
  };
  for (bool viaBuilder : {false, true}) {
    const auto [base, baseHit] = keyFor({}, {}, viaBuilder);
    EXPECT_EQ(keyFor({}, {}, viaBuilder).first, base);
    std::vector<std::pair<const char*, std::pair<JitOptions, AddOptions>>> changes = {
        {"optLevel", {{.optLevel = OptLevel::O3}, {}}},
        {"AddOptions::optLevel", {{}, {.optLevel = OptLevel::O1}}},
        {"codegenLevel", {{}, {.codegenLevel = OptLevel::O0}}},
        {"runIRPasses", {{}, {.runIRPasses = false}}},
        {"vectorMath", {{.vectorMath = false}, {}}},
        {"skipVectorEpilogue", {{.skipVectorEpilogue = false}, {}}},
    };
    if (viaBuilder) changes.push_back({"compileExpandedOnFirstUse", {{.compileExpandedOnFirstUse = false}, {}}});
    for (const auto& [what, options] : changes) {
      const auto [key, hit] = keyFor(options.first, options.second, viaBuilder);
      EXPECT_NE(key, base) << what;
      EXPECT_FALSE(hit) << what;
    }
  }
}

TEST(ObjectCache, AHitUnderAStructuralDigestSkipsVerifyingButAMissVerifies) {
  auto cache = ObjectCache::inMemory();
  Jit first = makeJit({.cache = cache});
  LoadedModule cold = addSum(first, "sums");
  EXPECT_FALSE(cold.fromCache());
  EXPECT_GT(cold.compileStats().verify.count(), 0);
  Jit second = makeJit({.cache = cache});  // another Jit: a cache hit, not a shared twin
  LoadedModule warm = addSum(second, "sums");
  EXPECT_TRUE(warm.fromCache());
  EXPECT_GT(warm.compileStats().link.count(), 0);
  EXPECT_EQ(warm.compileStats().verify.count(), 0);
  EXPECT_EQ(cache->stats().hits, 1u) << "one lookup per add, not one before and one after verifying";
  EXPECT_EQ(cache->stats().misses, 1u);
  EXPECT_EQ(callSum(warm, {1, 2, 3.5f}), 6.5f);
}

TEST(ObjectCache, AnInvalidModuleIsRejectedWithACacheToo) {
  // The key is computed before verifying (so that a shared hit skips it);
  // a module the verifier rejects must still be an error, not a crash.
  auto cache = ObjectCache::inMemory();
  Jit jit = makeJit({.cache = cache});
  LoadedModule valid = test::valueOrFail(jit.addIR(test::constantIR("k", 1), "m"), "addIR");
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("m", *context);
  auto* type = llvm::FunctionType::get(llvm::Type::getInt64Ty(*context), false);
  auto* function = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "k", *module);
  llvm::BasicBlock::Create(*context, "entry", function);  // no terminator
  auto added = jit.add(std::move(context), std::move(module));
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().code(), ErrorCode::CompileError);
  EXPECT_NE(added.error().message().find("invalid module 'm'"), std::string::npos) << added.error().message();
  EXPECT_EQ(callConstant(valid, "k"), 1);
}

TEST(ObjectCache, ThreadsAddingAndRemovingTheSameModuleShareCodeSafely) {
  // Twins come and go on several threads: a module is shared while its
  // owner is being removed, and every call runs live code.
  auto cache = ObjectCache::inMemory();
  Jit jit = makeJit({.cache = cache});
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0}, failed{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        codegen::Module module("sums");
        if (codegen::addSum(module, "total")) {
          ++failed;
          return;
        }
        auto loaded = jit.add(std::move(module));
        if (!loaded) {
          ++failed;
          return;
        }
        auto total = loaded->function("total");
        if (!total) {
          ++failed;
          return;
        }
        auto typed = total->as<float(runtime::StridedMemRef<float, 1>)>();
        std::vector<float> values{float(t), float(i), 0.5f};
        if (!typed || (*typed)(runtime::makeView(values)) != float(t) + float(i) + 0.5f) ++wrong;
        if (jit.remove(*loaded)) ++failed;
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(jit.moduleCount(), 0u);
}

// Two directories stand in for a machine's directory and the fleet's store:
// the layering, not the store, is under test (redis_cache_test.cpp uses a real server).
TEST(ObjectCache, ARemoteHitFillsTheLocalBackendAndTheMemoryLayer) {
  auto fleet = test::valueOrFail(DirectoryCache::open(freshDir("fleet-remote").string()), "remote");
  auto machineA = test::valueOrFail(DirectoryCache::open(freshDir("fleet-a").string()), "a");
  auto machineB = test::valueOrFail(DirectoryCache::open(freshDir("fleet-b").string()), "b");
  std::string key;
  {
    auto cache = ObjectCache::create({.local = machineA, .remote = fleet});
    Jit jit = makeJit({.cache = cache});
    LoadedModule compiled = test::valueOrFail(jit.addIR(test::constantIR("k", 41), "m"), "add");
    EXPECT_FALSE(compiled.fromCache());
    key = compiled.cacheKey();
    const CacheStats stats = cache->stats();
    EXPECT_EQ(stats.stores, 1u);
    EXPECT_EQ(stats.remoteCalls, 2u);  // the miss and the publication
    EXPECT_GT(stats.bytesWritten, 0u);
  }
  auto cache = ObjectCache::create({.local = machineB, .remote = fleet});
  Jit jit = makeJit({.cache = cache});
  LoadedModule fetched = test::valueOrFail(jit.addIR(test::constantIR("k", 41), "m"), "add");
  EXPECT_TRUE(fetched.fromCache());
  EXPECT_EQ(callConstant(fetched, "k"), 41);
  EXPECT_TRUE(std::filesystem::exists(machineB->pathFor(key)));  // filled on the remote hit
  CacheStats stats = cache->stats();
  EXPECT_EQ(stats.remoteHits, 1u);
  EXPECT_EQ(stats.localHits, 0u);
  EXPECT_EQ(stats.stores, 0u);
  cache->clearMemory();
  ASSERT_TRUE(cache->get(key).has_value());
  EXPECT_EQ(cache->stats().localHits, 1u);
  ASSERT_TRUE(cache->get(key).has_value());
  EXPECT_EQ(cache->stats().memoryHits, 1u);
  EXPECT_EQ(cache->stats().remoteCalls, 1u);
}

TEST(ObjectCache, ACorruptRemoteEntryIsAMissAndIsReplaced) {
  auto fleet = test::valueOrFail(DirectoryCache::open(freshDir("corrupt-remote").string()), "remote");
  auto cache = ObjectCache::create({.maxMemoryBytes = 0, .remote = fleet});
  cache->put("k", "an object");
  std::filesystem::resize_file(fleet->pathFor("k"), std::filesystem::file_size(fleet->pathFor("k")) - 1);
  EXPECT_FALSE(cache->get("k").has_value());
  EXPECT_EQ(cache->stats().corrupt, 1u);
  EXPECT_FALSE(std::filesystem::exists(fleet->pathFor("k")));
  cache->put("k", "an object");
  EXPECT_EQ(**cache->get("k"), "an object");
}

namespace {

// A remote store whose batch lookups fail, or answer the wrong number of keys.
class BrokenBatchBackend final : public CacheBackend {
 public:
  explicit BrokenBatchBackend(bool wrongCount) : wrongCount_(wrongCount) {}
  std::string location() const override { return "broken"; }
  Expected<std::optional<std::string>> get(const std::string&) override { return std::optional<std::string>(); }
  Expected<std::vector<std::optional<std::string>>> getMany(const std::vector<std::string>& keys) override {
    if (wrongCount_) return std::vector<std::optional<std::string>>(keys.size() + 1, std::string("object"));
    return Error(ErrorCode::IoError, "the store is down");
  }
  Error put(const std::string&, std::string_view) override { return Error::success(); }
  Error remove(const std::string&) override { return Error::success(); }
  Expected<std::vector<CacheEntryInfo>> list(bool) override { return std::vector<CacheEntryInfo>(); }
  Expected<PruneResult> prune(std::uint64_t) override { return PruneResult(); }
  Error clear() override { return Error::success(); }
  std::uint64_t corruptEntries() const override { return 0; }

 private:
  bool wrongCount_;
};

}  // namespace

TEST(ObjectCache, GetManyAsksEachLayerOnlyForWhatTheLayersBeforeItMissed) {
  auto fleet = test::valueOrFail(DirectoryCache::open(freshDir("many-remote").string()), "remote");
  auto machine = test::valueOrFail(DirectoryCache::open(freshDir("many-local").string()), "local");
  auto cache = ObjectCache::create({.local = machine, .remote = fleet});
  cache->put("in-memory", "M");  // every layer
  ASSERT_FALSE(machine->put("local-only", "L"));
  ASSERT_FALSE(fleet->put("remote-a", "A"));
  ASSERT_FALSE(fleet->put("remote-b", std::string("\0B", 2)));
  const auto before = cache->stats();
  auto answers = cache->getMany({"remote-a", "nowhere", "local-only", "in-memory", "remote-b"});
  ASSERT_EQ(answers.size(), 5u);
  ASSERT_TRUE(answers[0] && answers[2] && answers[3] && answers[4]);
  EXPECT_EQ(*answers[0], "A");
  EXPECT_EQ(answers[1], nullptr);
  EXPECT_EQ(*answers[2], "L");
  EXPECT_EQ(*answers[3], "M");
  EXPECT_EQ(*answers[4], std::string("\0B", 2));
  const CacheStats stats = cache->stats();
  EXPECT_EQ(stats.memoryHits, 1u);
  EXPECT_EQ(stats.localHits, 1u);
  EXPECT_EQ(stats.remoteHits, 2u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.remoteCalls - before.remoteCalls, 1u) << "one remote call for the batch";
  EXPECT_EQ(stats.bytesRead, 1u + 1u + 2u);  // L, A, \0B: the memory hit is no read
  // The remote hits were copied to this machine's directory and to memory.
  EXPECT_EQ(test::valueOrFail(machine->get("remote-a"), "local"), "A");
  EXPECT_EQ(*cache->getMany({"remote-b"})[0], std::string("\0B", 2));
  EXPECT_EQ(cache->stats().memoryHits, 2u);
  EXPECT_TRUE(cache->getMany({}).empty());
}

TEST(ObjectCache, AFailedOrMalformedBatchFromTheRemoteIsAllMisses) {
  for (bool wrongCount : {false, true}) {
    auto cache = ObjectCache::create({.remote = std::make_shared<BrokenBatchBackend>(wrongCount)});
    auto answers = cache->getMany({"a", "b"});
    ASSERT_EQ(answers.size(), 2u);
    EXPECT_EQ(answers[0], nullptr);
    EXPECT_EQ(answers[1], nullptr);
    const CacheStats stats = cache->stats();
    EXPECT_EQ(stats.misses, 2u);
    EXPECT_EQ(stats.remoteErrors, 1u);
    EXPECT_EQ(stats.remoteCalls, 1u);
  }
}

// A replica adding its kernels with addAll: one remote call answers the
// batch; hits load without compiling, the miss is compiled and published.
TEST(ObjectCache, AddAllAsksTheCacheOnceForTheBatch) {
  auto fleet = test::valueOrFail(DirectoryCache::open(freshDir("addall-remote").string()), "remote");
  auto batch = [](std::initializer_list<const char*> names) {
    std::vector<codegen::Module> modules;
    for (const char* name : names) {
      codegen::Module module(name);
      EXPECT_FALSE(codegen::addSum(module, "total"));
      modules.push_back(std::move(module));
    }
    return modules;
  };
  {
    Jit first = makeJit({.cache = ObjectCache::create({.remote = fleet})});
    auto compiled = first.addAll(batch({"k0", "k1"}));
    ASSERT_TRUE(compiled.ok()) << compiled.error().str();
    EXPECT_FALSE((*compiled)[0].fromCache() || (*compiled)[1].fromCache());
  }
  auto cache = ObjectCache::create({.remote = fleet});
  Jit replica = makeJit({.cache = cache});
  auto loaded = replica.addAll(batch({"k0", "k2", "k1"}));
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  EXPECT_TRUE((*loaded)[0].fromCache());
  EXPECT_FALSE((*loaded)[1].fromCache());
  EXPECT_TRUE((*loaded)[2].fromCache());
  for (const LoadedModule& mod : *loaded) {
    EXPECT_EQ(callSum(mod, {1, 2, 3.5f}), 6.5f);
    EXPECT_EQ(mod.compileStats().verify.count() == 0, mod.fromCache()) << mod.name();
  }
  const CacheStats stats = cache->stats();
  EXPECT_EQ(stats.remoteHits, 2u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.stores, 1u);
  EXPECT_EQ(stats.remoteCalls, 2u);  // the batch's lookup and k2's publication
  // The keys are add()'s: a module added alone afterwards hits what the batch published.
  Jit another = makeJit({.cache = ObjectCache::create({.remote = fleet})});
  LoadedModule single = addSum(another, "k2");
  EXPECT_TRUE(single.fromCache());
  EXPECT_EQ(single.cacheKey(), (*loaded)[1].cacheKey());
}
