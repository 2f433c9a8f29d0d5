// jit/machine_pool.h: the process's TargetMachines are leased per level, so
// the code a level makes does not depend on what the process compiled before
// (an O2 machine that had first built its subtarget at O0 made O2 code
// without the X86 back end's O2-only division bypass).
#include <gtest/gtest.h>

#include <string>

#include <llvm/IR/Module.h>

#include "jit/llvm_compat.h"
#include "jit/machine_pool.h"
#include "support/expected.h"
#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// A 64-bit division: from O2 on, X86TargetLowering lets CodeGenPrepare branch
// to a 32-bit division when both operands fit, on CPUs tuned for it.
constexpr const char* kDivisionIR = R"(
define i64 @divide(i64 %a, i64 %b) {
  %q = sdiv i64 %a, %b
  ret i64 %q
}
)";

std::string emit(MachinePool& pool, OptLevel level) {
  auto lease = test::valueOrFail(pool.acquire(level), "acquire");
  const test::ParsedIR module = test::parseIR(kDivisionIR);
  module->setDataLayout((*lease).createDataLayout());
  llvm_compat::setTargetTriple(*module, (*lease).getTargetTriple());
  return test::valueOrFail(lease.emitObject(*module), "emitObject");
}

TEST(MachinePool, ALevelMakesTheSameCodeWhateverTheProcessCompiledBefore) {
  for (OptLevel level : {OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    MachinePool first(TargetSpec::host());
    const std::string alone = emit(first, level);
    MachinePool after(TargetSpec::host());
    (void)emit(after, OptLevel::O0);
    (void)emit(after, level == OptLevel::O3 ? OptLevel::O2 : OptLevel::O3);
    EXPECT_EQ(emit(after, level), alone) << optLevelName(level);
  }
}

TEST(MachinePool, LeasesOfALevelReuseItsMachinesAndLevelsDoNotShare) {
  MachinePool pool(TargetSpec::host());
  {
    auto lease = test::valueOrFail(pool.acquire(OptLevel::O2), "acquire");
    EXPECT_EQ(pool.idle(OptLevel::O2), 0u);
  }
  EXPECT_EQ(pool.idle(OptLevel::O2), 1u);
  { auto again = test::valueOrFail(pool.acquire(OptLevel::O2), "acquire"); }
  EXPECT_EQ(pool.created(), 1u);
  {
    auto o0 = test::valueOrFail(pool.acquire(OptLevel::O0), "acquire");
    auto o2 = test::valueOrFail(pool.acquire(OptLevel::O2), "acquire");
    EXPECT_EQ(pool.created(), 2u);  // the idle O2 machine, and a new one for O0
    auto second = test::valueOrFail(pool.acquire(OptLevel::O2), "acquire");
    EXPECT_EQ(pool.created(), 3u);  // two O2 compilations at once
  }
  EXPECT_EQ(pool.idle(OptLevel::O0), 1u);
  EXPECT_EQ(pool.idle(OptLevel::O2), 2u);
  EXPECT_EQ(pool.idle(OptLevel::O1), 0u);
}

}  // namespace
}  // namespace memjit::jit::detail
