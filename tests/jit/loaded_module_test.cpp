// LoadedModule, the handle to one module in a Jit: its functions (read
// from the metadata once and cached), its symbols, where its object came
// from, and an empty handle's answers.
#include "memjit/jit/loaded_module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "support/files.h"
#include "support/ir_snippets.h"
#include "support/jit.h"

namespace memjit::jit {
namespace {

using memjit::test::makeJit;

TEST(LoadedModule, FunctionsAreReadOnceAndNamedInOrder) {
  Jit jit = makeJit();
  codegen::Module m("kernels");
  ASSERT_FALSE(codegen::addSum(m, "total"));
  ASSERT_FALSE(codegen::addSaxpy(m, "axpy"));
  auto mod = jit.add(std::move(m));
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  EXPECT_TRUE(mod->valid());
  EXPECT_EQ(mod->name(), "kernels");
  EXPECT_EQ(mod->functionNames(), (std::vector<std::string>{"axpy", "total"}));

  auto first = mod->function("total");
  auto again = mod->function("total");
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(first->keepAlive(), again->keepAlive());  // the same record, not a second reading
  EXPECT_EQ(first->name(), "total");

  auto missing = mod->function("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
}

TEST(LoadedModule, SymbolsIncludeEntriesAndMetadata) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::constantIR("k", 5), "consts");
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  auto names = mod->symbolNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* symbol : {"k", "_mlir_ciface_k", "_memjit_type_k"}) {
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), symbol)) << symbol;
    auto address = mod->symbol(symbol);
    ASSERT_TRUE(address.ok()) << symbol << ": " << address.error().message();
    EXPECT_NE(*address, nullptr);
  }
  EXPECT_STREQ(static_cast<const char*>(*mod->symbol("_memjit_type_k")), "() -> i64");
  EXPECT_EQ(reinterpret_cast<std::int64_t (*)()>(*mod->symbol("k"))(), 5);
  auto missing = mod->symbol("printf");  // resolvable by the module, defined by the process
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
  EXPECT_EQ(missing.error().message(), "module 'consts' defines no symbol 'printf'");
}

TEST(LoadedModule, CacheOriginAndKey) {
  Jit uncached = makeJit();
  auto plain = uncached.addIR(test::constantIR("k", 1), "m");
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_FALSE(plain->fromCache());
  EXPECT_EQ(plain->cacheKey(), "");

  auto cache = ObjectCache::onDisk(test::freshDir("jit/loaded_module/cache").string());
  ASSERT_TRUE(cache.ok()) << cache.error().message();
  JitOptions options;
  options.cache = *cache;
  Jit first = makeJit(options), second = makeJit(options);
  auto compiled = first.addIR(test::constantIR("k", 1), "m");
  auto fetched = second.addIR(test::constantIR("k", 1), "m");
  ASSERT_TRUE(compiled.ok() && fetched.ok());
  EXPECT_FALSE(compiled->fromCache());
  EXPECT_TRUE(fetched->fromCache());
  EXPECT_FALSE(compiled->cacheKey().empty());
  EXPECT_EQ(compiled->cacheKey(), fetched->cacheKey());
}

TEST(LoadedModule, EmptyHandleAnswersEmpty) {
  const LoadedModule empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_EQ(empty.name(), "");
  EXPECT_TRUE(empty.functionNames().empty());
  EXPECT_TRUE(empty.symbolNames().empty());
  EXPECT_FALSE(empty.fromCache());
  EXPECT_EQ(empty.cacheKey(), "");
  EXPECT_EQ(empty.state(), nullptr);
  auto f = empty.function("f");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(f.error().message(), "empty module handle");
  auto s = empty.symbol("f");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "empty module handle");
}

}  // namespace
}  // namespace memjit::jit
