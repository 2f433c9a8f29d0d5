// JitOptions::perfJitdump without perf: the dump a Jit writes has a header
// perf inject accepts (no flag bits LLVM left unset) and, for a module with
// debug info, line-table records naming the generator's lines.
// (jit.perf_debug_info runs perf itself, where the kernel lets it.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/type_syntax.h"
#include "support/files.h"

using namespace memjit;

namespace {

// What the test reads of a jitdump (perf's jitdump-specification.txt).
struct Dump {
  std::uint32_t magic = 0;
  std::uint64_t flags = ~std::uint64_t{0};
  std::vector<std::string> loadedNames;                       // JIT_CODE_LOAD records
  std::vector<std::pair<std::string, unsigned>> debugLines;  // JIT_CODE_DEBUG_INFO entries
};

template <typename T>
T read(const std::string& bytes, std::size_t at) {
  T value{};
  if (at + sizeof(T) <= bytes.size()) std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

Dump parse(const std::string& bytes) {
  Dump dump;
  dump.magic = read<std::uint32_t>(bytes, 0);
  dump.flags = read<std::uint64_t>(bytes, 32);
  std::size_t at = read<std::uint32_t>(bytes, 8);  // the header's total_size
  while (at + 16 <= bytes.size()) {
    const auto id = read<std::uint32_t>(bytes, at);
    const auto size = read<std::uint32_t>(bytes, at + 4);
    if (size < 16 || at + size > bytes.size()) break;
    if (id == 0) {  // load: prefix, pid, tid, vma, code_addr, code_size, code_index, name
      dump.loadedNames.emplace_back(bytes.c_str() + at + 56);
    } else if (id == 2) {  // debug info: prefix, code_addr, nr_entry, entries
      const auto entries = read<std::uint64_t>(bytes, at + 24);
      std::size_t e = at + 32;
      for (std::uint64_t i = 0; i < entries && e + 16 < at + size; ++i) {
        const auto line = read<std::uint32_t>(bytes, e + 8);
        std::string name(bytes.c_str() + e + 16);
        e += 16 + name.size() + 1;
        dump.debugLines.emplace_back(std::move(name), line);
      }
    }
    at += size;
  }
  return dump;
}

}  // namespace

TEST(PerfJitdump, HeaderIsValidAndLineTablesNameTheGenerator) {
  const auto home = test::freshDir("jit/perf_jitdump");
  ::setenv("JITDUMPDIR", home.c_str(), 1);
  ::unsetenv("JITDUMP_USE_ARCH_TIMESTAMP");
  codegen::Module module("traced");
  codegen::FunctionOptions options;
  options.debugInfo = true;
  unsigned storeLine = 0;
  {
    codegen::FunctionBuilder b(module, "twice", *parseFunctionType("(memref<?xf32>) -> ()"), options);
    codegen::Value x = b.arg(0);
    b.forLoop(b.index(0), b.dim(x, 0), b.index(1), [&](codegen::Value i) {
      storeLine = __LINE__ + 1;
      b.store(b.load(x, {i}) * 2.0f, x, {i});
    });
    b.ret();
    ASSERT_FALSE(b.finish());
  }
  auto jit = jit::Jit::create({.perfJitdump = true});
  ASSERT_TRUE(jit) << jit.error().str();
  auto loaded = jit->add(std::move(module));
  ASSERT_TRUE(loaded) << loaded.error().str();
  auto fn = loaded->function("twice");
  ASSERT_TRUE(fn) << fn.error().str();
  ASSERT_NE(fn->cInterface(), nullptr);

  std::vector<std::filesystem::path> dumps;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(home))
    if (entry.path().extension() == ".dump") dumps.push_back(entry.path());
  ASSERT_EQ(dumps.size(), 1u) << "expected one jitdump under " << home;
  const Dump dump = parse(test::readFile(dumps[0]));
  EXPECT_EQ(dump.magic, 0x4A695444u);
  // CLOCK_MONOTONIC timestamps, nothing else: what `perf inject --jit` accepts.
  EXPECT_EQ(dump.flags, 0u);
  EXPECT_NE(std::find(dump.loadedNames.begin(), dump.loadedNames.end(), "_mlir_ciface_twice"),
            dump.loadedNames.end());
  bool storeFound = false;
  for (const auto& [file, line] : dump.debugLines)
    if (file.ends_with("perf_jitdump_test.cpp") && line == storeLine) storeFound = true;
  EXPECT_TRUE(storeFound) << dump.debugLines.size() << " line entries, none at perf_jitdump_test.cpp:" << storeLine;
}
