// JitOptions::compileExpandedOnFirstUse: a codegen module's body moves into
// `_mlir_ciface_<name>` and `<name>` is a stub compiled on first lookup. Both
// entries must keep their ABI and compute the same thing, whichever is used.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/runtime/memref.h"
#include "support/files.h"
#include "support/jit.h"

using namespace memjit;
using namespace memjit::jit;

namespace {

using Vec = runtime::StridedMemRef<float, 1>;
using AddCInterface = void(Vec*, Vec*, Vec*);
using AddExpanded = void(float*, float*, std::int64_t, std::int64_t, std::int64_t, float*, float*, std::int64_t,
                         std::int64_t, std::int64_t, float*, float*, std::int64_t, std::int64_t, std::int64_t);

Vec view(std::vector<float>& v) { return {v.data(), v.data(), 0, {std::int64_t(v.size())}, {1}}; }

std::string afterIR(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().find("after.ll") != std::string::npos) return test::readFile(entry.path());
  return {};
}

Jit makeJit(bool deferred, const std::filesystem::path& dumps = {}) {
  return test::makeJit({.compileExpandedOnFirstUse = deferred, .dumpDirectory = dumps.string()});
}

// The elementwise add kernel as `add` in a module of its own.
Expected<LoadedModule> addKernel(Jit& jit, const std::string& moduleName) {
  codegen::Module m(moduleName);
  MEMJIT_TRY(codegen::addElementwiseAdd(m, "add"));
  return jit.add(std::move(m));
}

TEST(DeferredEntries, BodyMovesIntoTheInterfaceAndBothEntriesComputeTheSame) {
  auto dir = test::freshDir("jit/deferred_dumps");
  Jit jit = makeJit(true, dir);
  auto loaded = addKernel(jit, "deferred_add");
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  const std::string ir = afterIR(dir);
  EXPECT_NE(ir.find("define void @_mlir_ciface_add("), std::string::npos) << ir;
  EXPECT_EQ(ir.find("define void @add("), std::string::npos) << ir;
  // The inlined body kept its buffers apart: no run-time alias checks.
  EXPECT_EQ(ir.find("memcheck"), std::string::npos) << ir;
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << ir;

  auto fn = loaded->function("add");
  ASSERT_TRUE(fn.ok()) << fn.error().str();
  std::vector<float> a(100), b(100), viaInterface(100, -1), viaExpanded(100, -1);
  for (int i = 0; i < 100; ++i) a[i] = float(i), b[i] = float(3 * i + 1);
  Vec va = view(a), vb = view(b), vc = view(viaInterface);
  fn->cInterfaceAs<AddCInterface>()(&va, &vb, &vc);
  ASSERT_NE(fn->expanded(), nullptr);
  fn->expandedAs<AddExpanded>()(a.data(), a.data(), 0, 100, 1, b.data(), b.data(), 0, 100, 1, viaExpanded.data(),
                                viaExpanded.data(), 0, 100, 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(viaInterface[i], float(4 * i + 1)) << i;
  EXPECT_EQ(viaExpanded, viaInterface);
}

TEST(DeferredEntries, StubsReachEveryLookupAndGoWithTheirModule) {
  Jit jit = makeJit(true);
  auto loaded = addKernel(jit, "deferred_lookups");
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  auto names = loaded->symbolNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "add"), names.end());
  auto bySymbol = loaded->symbol("add");
  auto byJit = jit.lookupSymbol("add");
  auto fn = jit.lookup("add");
  ASSERT_TRUE(bySymbol.ok() && byJit.ok() && fn.ok());
  EXPECT_NE(*bySymbol, nullptr);
  EXPECT_EQ(*bySymbol, *byJit);
  EXPECT_EQ(fn->expanded(), *bySymbol);

  ASSERT_FALSE(jit.remove(*loaded));
  fn = Function();
  EXPECT_FALSE(jit.lookupSymbol("add").ok());
  // The names are free again: the same module loads a second time.
  auto reloaded = addKernel(jit, "deferred_lookups");
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().str();
  EXPECT_TRUE(reloaded->symbol("add").ok());
}

TEST(DeferredEntries, ResultsComeBackThroughTheStub) {
  Jit jit = makeJit(true);
  codegen::Module m("deferred_copy");
  ASSERT_FALSE(codegen::addScaledCopy(m, "scaled"));
  auto loaded = jit.add(std::move(m));
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  auto fn = loaded->function("scaled");
  ASSERT_TRUE(fn.ok()) << fn.error().str();
  std::vector<float> x{1, 2, 3, 4, 5};
  using Expanded = Vec(float*, float*, std::int64_t, std::int64_t, std::int64_t, float);
  ASSERT_NE(fn->expanded(), nullptr);
  Vec out = fn->expandedAs<Expanded>()(x.data(), x.data(), 0, 5, 1, 2.0f);
  ASSERT_EQ(out.sizes[0], 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out.data[out.offset + i * out.strides[0]], 2.0f * x[i]) << i;
  std::free(out.basePtr);
}

TEST(DeferredEntries, FunctionsUsedElsewhereStayAsTheyAre) {
  auto dir = test::freshDir("jit/deferred_used_elsewhere");
  Jit jit = makeJit(true, dir);
  codegen::Module m("deferred_used");
  ASSERT_FALSE(codegen::addElementwiseAdd(m, "add"));
  // A second use of the expanded function (an address table) keeps it whole.
  llvm::Module& module = m.llvm();
  new llvm::GlobalVariable(module, llvm::PointerType::get(module.getContext(), 0), true,
                           llvm::GlobalValue::ExternalLinkage, module.getFunction("add"), "add_table");
  auto loaded = jit.add(std::move(m));
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  EXPECT_NE(afterIR(dir).find("define void @add("), std::string::npos);
  auto table = loaded->symbol("add_table");
  auto fn = loaded->function("add");
  ASSERT_TRUE(table.ok() && fn.ok());
  EXPECT_EQ(*static_cast<void**>(*table), fn->expanded());
}

TEST(DeferredEntries, OffKeepsMlirsLayout) {
  auto dir = test::freshDir("jit/deferred_off");
  Jit jit = makeJit(false, dir);
  auto loaded = addKernel(jit, "eager_add");
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  const std::string ir = afterIR(dir);
  EXPECT_NE(ir.find("define void @add("), std::string::npos) << ir;
  EXPECT_NE(ir.find("call void @add("), std::string::npos) << ir;
}

// A cache hit tells the deferred entries from the cached object instead of
// inlining again: the stub still works, and a function the object defines
// (used elsewhere, so never deferred) stays the object's.
TEST(DeferredEntries, ACacheHitDefersWhatTheCachedObjectDeferred) {
  auto cache = ObjectCache::inMemory();
  auto usedElsewhere = [](const std::string& name) {
    codegen::Module m(name);
    EXPECT_FALSE(codegen::addElementwiseAdd(m, "add"));
    llvm::Module& module = m.llvm();
    new llvm::GlobalVariable(module, llvm::PointerType::get(module.getContext(), 0), true,
                             llvm::GlobalValue::ExternalLinkage, module.getFunction("add"), "add_table");
    return m;
  };
  for (int round = 0; round < 2; ++round) {
    // A Jit per round: the second one's adds are cache hits, not shared twins.
    Jit jit = test::makeJit({.cache = cache, .compileExpandedOnFirstUse = true});
    auto deferred = addKernel(jit, "deferred_hit");
    auto kept = jit.add(usedElsewhere("deferred_hit_kept"));
    ASSERT_TRUE(deferred.ok() && kept.ok());
    EXPECT_EQ(deferred->fromCache(), round == 1);
    EXPECT_EQ(kept->fromCache(), round == 1);
    auto fn = deferred->function("add");
    ASSERT_TRUE(fn.ok()) << fn.error().str();
    const float tiny = std::numeric_limits<float>::denorm_min();
    std::vector<float> a{1, -0.0f, 3e38f, tiny}, b{2, 0.0f, 3e38f, tiny}, c(4, -1);
    ASSERT_NE(fn->expanded(), nullptr);
    fn->expandedAs<AddExpanded>()(a.data(), a.data(), 0, 4, 1, b.data(), b.data(), 0, 4, 1, c.data(), c.data(), 0, 4,
                                  1);
    EXPECT_EQ(c, (std::vector<float>{3, 0.0f, std::numeric_limits<float>::infinity(), 2 * tiny}));
    auto table = kept->symbol("add_table");
    auto keptFn = kept->function("add");
    ASSERT_TRUE(table.ok() && keptFn.ok());
    EXPECT_EQ(*static_cast<void**>(*table), keptFn->expanded());
  }
  EXPECT_EQ(cache->stats().hits, 2u);
}

}  // namespace
