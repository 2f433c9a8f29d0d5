// LoadedModule, the handle to one module in a Jit: its functions (read
// from the metadata once and cached), its symbols, where its object came
// from, and an empty handle's answers.
#include "memjit/jit/loaded_module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "support/call_jit.h"
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
  EXPECT_EQ(test::callJit<std::int64_t()>(*mod->symbol("k")), 5);
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
  auto a = empty.assembly("f");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(a.error().message(), "empty module handle");
  EXPECT_TRUE(empty.remarks().empty());
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

codegen::Module saxpyModule(bool debugInfo = false) {
  codegen::Module m("saxpy");
  codegen::KernelOptions options;
  options.debugInfo = debugInfo;
  EXPECT_FALSE(codegen::addSaxpy(m, "axpy", options));
  return m;
}

// The vectorised saxpy loop: a packed float multiply-add or multiply on x86 (xmm at least).
bool hasPackedFloatArithmetic(const std::string& assembly) {
  for (const char* op : {"vfmadd", "vmulps", "mulps"})
    if (contains(assembly, op) && contains(assembly, "ps")) return true;
  return false;
}

TEST(LoadedModule, AssemblyShowsTheFunctionsInstructions) {
  Jit jit = makeJit({.optLevel = OptLevel::O2, .compileExpandedOnFirstUse = false});
  auto mod = jit.add(saxpyModule());
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  auto text = mod->assembly("axpy");
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(text->rfind("axpy:  # ", 0), 0u) << *text;
  EXPECT_TRUE(contains(*text, "\n  0000:  ")) << *text;
  EXPECT_TRUE(contains(*text, "ret")) << *text;
  EXPECT_TRUE(hasPackedFloatArithmetic(*text)) << *text;
  EXPECT_FALSE(contains(*text, ".byte")) << *text;  // every byte decoded
  // Every branch lands on an instruction of the function, printed at its offset.
  std::size_t branches = 0;
  for (std::size_t at = text->find(":  j"); at != std::string::npos; at = text->find(":  j", at + 1)) {
    const std::size_t target = text->find("0x", at);
    ASSERT_NE(target, std::string::npos);
    const std::size_t digits = text->find_first_not_of("0123456789abcdef", target + 2) - target - 2;
    const unsigned long offset = std::stoul(text->substr(target + 2, digits), nullptr, 16);
    char label[16];
    std::snprintf(label, sizeof label, "\n  %04lx:  ", offset);
    EXPECT_TRUE(contains(*text, label)) << "branch to " << label << " in:\n" << *text;
    ++branches;
  }
  EXPECT_GT(branches, 0u);  // the loop's back edge at least
  // The interface only unpacks descriptors and calls the kernel (a relocation naming it).
  auto wrapper = mod->assembly("_mlir_ciface_axpy");
  ASSERT_TRUE(wrapper.ok()) << wrapper.error().message();
  EXPECT_TRUE(contains(*wrapper, "call")) << *wrapper;
  EXPECT_TRUE(contains(*wrapper, "# axpy")) << *wrapper;
}

TEST(LoadedModule, AssemblyOfADeferredEntryShowsTheBodyItMovedTo) {
  Jit jit = makeJit({.optLevel = OptLevel::O2, .compileExpandedOnFirstUse = true});
  auto mod = jit.add(saxpyModule());
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  auto text = mod->assembly("axpy");
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(text->rfind("# 'axpy' is compiled on first use", 0), 0u) << *text;
  EXPECT_TRUE(contains(*text, "\n_mlir_ciface_axpy:  # ")) << *text;
  EXPECT_TRUE(hasPackedFloatArithmetic(*text)) << *text;
}

TEST(LoadedModule, AssemblyWorksForCachedAndLoadedObjects) {
  JitOptions options{.optLevel = OptLevel::O2, .cache = ObjectCache::inMemory(), .compileExpandedOnFirstUse = false};
  Jit jit = makeJit(options);
  auto compiled = jit.add(saxpyModule());
  auto cached = jit.add(saxpyModule());
  ASSERT_TRUE(compiled.ok() && cached.ok());
  ASSERT_TRUE(cached->fromCache());
  auto fresh = compiled->assembly("axpy"), again = cached->assembly("axpy");
  ASSERT_TRUE(fresh.ok() && again.ok());
  // The same code, loaded at another address (in the first line).
  EXPECT_EQ(fresh->substr(fresh->find('\n')), again->substr(again->find('\n')));

  auto object = options.cache->get(compiled->cacheKey());
  ASSERT_TRUE(object.has_value());
  auto loaded = jit.addObject(**object, "from_object");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  auto text = loaded->assembly("axpy");
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(text->substr(text->find('\n')), fresh->substr(fresh->find('\n')));
}

TEST(LoadedModule, AssemblyInterleavesSourceLinesWithDebugInfo) {
  Jit jit = makeJit({.optLevel = OptLevel::O2, .compileExpandedOnFirstUse = false});
  auto mod = jit.add(saxpyModule(/*debugInfo=*/true));
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  auto text = mod->assembly("axpy");
  ASSERT_TRUE(text.ok()) << text.error().message();
  // The kernel library's generator is the source: its lines appear with their text.
  EXPECT_TRUE(contains(*text, "\n; ")) << *text;
  EXPECT_TRUE(contains(*text, "kernels.cpp:")) << *text;
  EXPECT_TRUE(hasPackedFloatArithmetic(*text)) << *text;
  auto plain = jit.add(saxpyModule());
  ASSERT_TRUE(plain.ok());
  auto withoutLines = plain->assembly("axpy");
  ASSERT_TRUE(withoutLines.ok());
  EXPECT_FALSE(contains(*withoutLines, "\n; ")) << *withoutLines;
}

TEST(LoadedModule, AssemblyOfWhatIsNoFunctionIsNotFound) {
  Jit jit = makeJit({.compileExpandedOnFirstUse = false});
  auto mod = jit.add(saxpyModule());
  ASSERT_TRUE(mod.ok());
  auto missing = mod->assembly("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
  EXPECT_EQ(missing.error().message(), "module 'saxpy' defines no function 'nope'");
  auto data = mod->assembly("_memjit_type_axpy");  // a symbol, but data
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code(), ErrorCode::NotFound);
  EXPECT_EQ(data.error().message(), "module 'saxpy': the object defines no function '_memjit_type_axpy'");
}

}  // namespace
}  // namespace memjit::jit
