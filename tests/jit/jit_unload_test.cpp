// Unloading: compiling, calling and removing many modules must not make
// resident memory keep growing.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "memjit/jit/jit.h"
#include "support/ir_snippets.h"

using namespace memjit;
using namespace memjit::jit;

namespace {

long residentKiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

bool sanitizerBuild() {
  const char* v = std::getenv("MEMJIT_SANITIZER_BUILD");
  return v && std::string(v) == "1";
}

}  // namespace

TEST(JitUnload, TenThousandModulesDoNotGrowResidentMemory) {
  // Under AddressSanitizer every compile is several times slower and freed
  // memory sits in ASan's quarantine (so RSS grows by design); there the test
  // runs fewer modules and leaves leak detection to LeakSanitizer.
  const bool sanitized = sanitizerBuild();
  const int total = sanitized ? 400 : 10000;
  auto created = Jit::create({.optLevel = OptLevel::O0});
  ASSERT_TRUE(created.ok());
  Jit jit = std::move(*created);
  long afterWarmup = 0;
  for (int i = 0; i < total; ++i) {
    // The same symbol name every time: a leftover definition would be a duplicate.
    auto mod = jit.addIR(test::constantIR("tiny", i), "tiny" + std::to_string(i));
    ASSERT_TRUE(mod.ok()) << i << ": " << mod.error().str();
    auto f = mod->function("tiny");
    ASSERT_TRUE(f.ok());
    ASSERT_EQ(f->cInterfaceAs<std::int64_t()>()(), i);
    ASSERT_FALSE(jit.remove(*mod));
    if (i == total / 4) afterWarmup = residentKiB();
  }
  EXPECT_EQ(jit.moduleCount(), 0u);
  const long growth = residentKiB() - afterWarmup;
  RecordProperty("rss_growth_kib", static_cast<int>(growth));
  std::printf("resident memory after %d of %d modules: +%ld KiB\n", total * 3 / 4, total, growth);
  // Each leaked module would keep at least a page of code and one of data
  // (8 KiB): 7,500 leaks would be ~60 MiB. Allow allocator noise.
  if (!sanitized) {
    EXPECT_LT(growth, 16 * 1024) << "resident memory grew by " << growth << " KiB";
  }
}
