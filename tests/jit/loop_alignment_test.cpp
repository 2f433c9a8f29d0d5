// x86 code starts each hot loop on a 64-byte boundary (jit/compile.h,
// kLoopAlignment): a small loop body then sits in one cache line of the
// instruction fetch. Checked on the loaded code of two kernels: the back edge
// of each one's hot loop jumps to an address that is a multiple of 64.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>
#include <regex>
#include <string>

#include "jit/compile.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/target.h"
#include "support/jit.h"

namespace memjit::jit {
namespace {

struct Loop {
  std::uint64_t top;  // the address the back edge jumps to
  std::string body;   // the instructions from there to the back edge
};

// Every backward branch of `assembly` (LoadedModule's format: a header naming
// the load address, then "  <offset>:  <instruction>" lines), as a loop.
std::vector<Loop> loops(const std::string& assembly) {
  std::smatch header;
  if (!std::regex_search(assembly, header, std::regex(R"(bytes at 0x([0-9a-f]+))"))) return {};
  const std::uint64_t base = std::stoull(header[1].str(), nullptr, 16);
  const std::regex branch(R"(\n  ([0-9a-f]{4,}):  j[a-z]+\s+0x([0-9a-f]+))");
  std::vector<Loop> found;
  for (auto it = std::sregex_iterator(assembly.begin(), assembly.end(), branch); it != std::sregex_iterator(); ++it) {
    const std::uint64_t at = std::stoull((*it)[1].str(), nullptr, 16);
    const std::uint64_t target = std::stoull((*it)[2].str(), nullptr, 16);
    if (target >= at) continue;
    char label[32];
    std::snprintf(label, sizeof label, "\n  %04llx:  ", static_cast<unsigned long long>(target));
    const std::size_t from = assembly.find(label);
    const std::size_t to = static_cast<std::size_t>(it->position(0));
    found.push_back({base + target, from == std::string::npos || from > to ? "" : assembly.substr(from, to - from)});
  }
  return found;
}

// The loops that must be aligned: the naive matmul's inner loop (its only
// 22-byte loop, 1.4x slower across a 64-byte boundary on Zen 5) and the add's
// vector loop. Remainder loops are left to LLVM's block placement, which
// aligns only loops it expects to be hot.
TEST(LoopAlignment, HotInnermostLoopsStartOnTheBoundaryAtO2AndO3) {
  if (TargetSpec::host().triple.rfind("x86_64", 0) != 0) GTEST_SKIP() << "loops are aligned on x86 only";
  for (const OptLevel level : {OptLevel::O2, OptLevel::O3}) {
    codegen::Module m("kernels");
    ASSERT_FALSE(codegen::addMatmul(m, "matmul"));
    ASSERT_FALSE(codegen::addElementwiseAdd(m, "add"));
    Jit jit = test::makeJit({.optLevel = level, .compileExpandedOnFirstUse = false});
    LoadedModule loaded = test::valueOrFail(jit.add(std::move(m)), "add");
    // matmul: the innermost loop is the one holding the fma; add: the one adding packed floats.
    for (const auto& [name, marker] : {std::pair{"matmul", "fmadd"}, std::pair{"add", "addps"}}) {
      const std::string assembly = test::valueOrFail(loaded.assembly(name), name);
      const std::vector<Loop> found = loops(assembly);
      const Loop* hot = nullptr;
      for (const Loop& loop : found)
        if (loop.body.find(marker) != std::string::npos && (!hot || loop.body.size() < hot->body.size())) hot = &loop;
      ASSERT_NE(hot, nullptr) << name << " has no loop with " << marker << ":\n" << assembly;
      EXPECT_EQ(hot->top % detail::kLoopAlignment, 0u)
          << optLevelName(level) << " " << name << "'s loop starts at 0x" << std::hex << hot->top << ":\n"
          << assembly;
    }
  }
}

}  // namespace
}  // namespace memjit::jit
