// Tests of JitOptions/AotOptions::recoverFromLlvmCrashes: LLVM's
// report_fatal_error and crash signals inside a compile become CompileError,
// the engine stays usable, other threads are unaffected; without the option
// the process still ends (LLVM's default, which memjit keeps).
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/SourceMgr.h>

#include "jit/crash_recovery.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/aot_command.h"
#include "memjit/jit/jit.h"
#include "support/call_jit.h"
#include "support/files.h"
#include "support/ir_snippets.h"
#include "support/jit.h"

#include "support/leaks.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::acceptingLeaks;

namespace {


// x86-64's instruction selector cannot lower an AArch64 intrinsic: LLVM 19
// calls report_fatal_error("Cannot select: intrinsic %llvm.aarch64.get.fpcr")
// (llc-19 prints "LLVM ERROR" for it and aborts).
std::string unselectableIR(const std::string& name) {
  return "declare i64 @llvm.aarch64.get.fpcr()\n"
         "define i64 @" + name + "() {\n"
         "  %v = call i64 @llvm.aarch64.get.fpcr()\n"
         "  ret i64 %v\n"
         "}\n";
}
constexpr const char* kLlvmMessage = "LLVM ERROR: Cannot select: intrinsic %llvm.aarch64.get.fpcr";

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

Jit makeJit(bool recover) { return test::makeJit({.recoverFromLlvmCrashes = recover}); }

std::int64_t callConstant(Jit& jit, const std::string& name, long value) {
  auto mod = jit.addIR(test::constantIR(name, value), name);
  EXPECT_TRUE(mod.ok()) << (mod.ok() ? "" : mod.error().str());
  if (!mod.ok()) return -1;
  auto address = mod->symbol(name);
  EXPECT_TRUE(address.ok());
  return test::callJit<std::int64_t()>(*address);
}

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext& context, const std::string& ir,
                                    const std::string& name) {
  llvm::SMDiagnostic diagnostic;
  auto module = llvm::parseIR(llvm::MemoryBufferRef(ir, name), diagnostic, context);
  EXPECT_TRUE(module != nullptr) << diagnostic.getMessage().str();
  return module;
}

}  // namespace

// ---- the recovery scope itself ------------------------------------------

TEST(CrashRecovery, ReportFatalErrorBecomesCompileError) {
  bool crashed = false;
  Error e = acceptingLeaks([&] {
    return detail::runRecoveringFromCrashes(
        "m", []() -> Error { llvm::report_fatal_error("boom from a pass"); }, crashed);
  });
  EXPECT_TRUE(crashed);
  EXPECT_EQ(e.code(), ErrorCode::CompileError);
  EXPECT_TRUE(contains(e.message(), "LLVM ERROR: boom from a pass")) << e.str();
  EXPECT_TRUE(contains(e.message(), "while compiling module 'm'")) << e.str();
}

TEST(CrashRecovery, FatalErrorWithoutCrashDiagnosticIsRecoveredToo) {
  // gen_crash_diag = false makes LLVM exit(1) rather than abort(): no signal
  // to catch, only the fatal error handler can stop it.
  bool crashed = false;
  Error e = acceptingLeaks([&] {
    return detail::runRecoveringFromCrashes(
        "quiet", []() -> Error { llvm::report_fatal_error("exit path", false); }, crashed);
  });
  EXPECT_TRUE(crashed);
  EXPECT_TRUE(contains(e.message(), "LLVM ERROR: exit path")) << e.str();
}

TEST(CrashRecovery, CrashSignalBecomesCompileError) {
  bool crashed = false;
  Error e = acceptingLeaks([&] {
    return detail::runRecoveringFromCrashes(
        "sig", []() -> Error { std::raise(SIGILL); return Error::success(); }, crashed);
  });
  EXPECT_TRUE(crashed);
  EXPECT_EQ(e.code(), ErrorCode::CompileError);
  EXPECT_TRUE(contains(e.message(), "signal " + std::to_string(SIGILL) + " (SIGILL)")) << e.str();
  EXPECT_TRUE(contains(e.message(), "module 'sig'")) << e.str();
}

TEST(CrashRecovery, OrdinaryResultsPassThrough) {
  bool crashed = true;
  Error ok = detail::runRecoveringFromCrashes("a", [] { return Error::success(); }, crashed);
  EXPECT_FALSE(ok);
  EXPECT_FALSE(crashed);
  Error bad = detail::runRecoveringFromCrashes(
      "b", [] { return Error(ErrorCode::Unsupported, "not this"); }, crashed);
  EXPECT_FALSE(crashed);
  EXPECT_EQ(bad.code(), ErrorCode::Unsupported);
  EXPECT_EQ(bad.message(), "not this");
}

// ---- Jit ------------------------------------------------------------------

TEST(JitCrashRecovery, CannotSelectBecomesCompileErrorAndTheJitStaysUsable) {
  Jit jit = makeJit(true);
  auto bad = acceptingLeaks([&] { return jit.addIR(unselectableIR("fpcr"), "unselectable"); });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::CompileError);
  EXPECT_TRUE(contains(bad.error().message(), kLlvmMessage)) << bad.error().str();
  EXPECT_TRUE(contains(bad.error().message(), "module 'unselectable'")) << bad.error().str();
  EXPECT_EQ(jit.moduleCount(), 0u);
  EXPECT_FALSE(jit.lookupSymbol("fpcr").ok());

  EXPECT_EQ(callConstant(jit, "seven", 7), 7);
  EXPECT_EQ(jit.moduleCount(), 1u);
}

TEST(JitCrashRecovery, RepeatedCrashesAtEveryLevel) {
  Jit jit = makeJit(true);
  const OptLevel levels[] = {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3};
  int i = 0;
  for (OptLevel level : levels) {
    const std::string name = "bad" + std::to_string(i);
    auto bad = acceptingLeaks(
        [&] { return jit.addIR(unselectableIR(name), name, AddOptions{.optLevel = level}); });
    ASSERT_FALSE(bad.ok()) << optLevelName(level);
    EXPECT_TRUE(contains(bad.error().message(), kLlvmMessage)) << bad.error().str();
    // The machine the crash left broken is not handed to the next compile.
    EXPECT_EQ(callConstant(jit, "good" + std::to_string(i), 40 + i), 40 + i);
    ++i;
  }
}

TEST(JitCrashRecovery, OtherThreadsKeepCompiling) {
  std::atomic<bool> stop{false};
  std::atomic<int> good{0}, failed{0};
  // The other thread runs without the option: it is outside any recovery
  // scope and must see neither the handler nor the signal handlers.
  std::thread other([&] {
    Jit jit = makeJit(false);
    for (int i = 0; !stop.load() || i < 3; ++i) {
      const std::string name = "other" + std::to_string(i);
      if (callConstant(jit, name, i) == i) ++good; else ++failed;
    }
  });
  Jit jit = makeJit(true);
  for (int i = 0; i < 4; ++i) {
    const std::string name = "crash" + std::to_string(i);
    auto bad = acceptingLeaks([&] { return jit.addIR(unselectableIR(name), name); });
    ASSERT_FALSE(bad.ok());
    EXPECT_TRUE(contains(bad.error().message(), kLlvmMessage)) << bad.error().str();
  }
  stop = true;
  other.join();
  EXPECT_GE(good.load(), 3);
  EXPECT_EQ(failed.load(), 0);
}

// ---- AOT ------------------------------------------------------------------

TEST(AotCrashRecovery, SameErrorAndNoObjectWritten) {
  auto dir = test::freshDir("jit/crash_recovery/aot");
  llvm::LLVMContext context;
  auto module = parse(context, unselectableIR("fpcr"), "unselectable");
  ASSERT_TRUE(module);
  AotOutputs outputs;
  outputs.object = (dir / "bad.o").string();
  outputs.assembly = (dir / "bad.s").string();
  AotOptions options;
  options.recoverFromLlvmCrashes = true;
  Error e = acceptingLeaks([&] { return compileAhead(*module, outputs, options); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::CompileError);
  EXPECT_TRUE(contains(e.message(), kLlvmMessage)) << e.str();
  EXPECT_TRUE(contains(e.message(), "module 'unselectable'")) << e.str();
  EXPECT_FALSE(std::filesystem::exists(outputs.object));
  EXPECT_FALSE(std::filesystem::exists(outputs.assembly));
  // The caller's module was not the one that crashed: it is still intact
  // (verifiable, unoptimised) and is destroyed normally at the end.
  EXPECT_NE(module->getFunction("fpcr"), nullptr);
  EXPECT_FALSE(module->getFunction("fpcr")->hasFnAttribute("target-cpu"));

  // The next compile in the same process works.
  auto good = parse(context, test::constantIR("seven", 7), "good");
  ASSERT_TRUE(good);
  outputs = AotOutputs{.object = (dir / "good.o").string()};
  Error ok = compileAhead(*good, outputs, options);
  EXPECT_FALSE(ok) << ok.str();
  EXPECT_GT(std::filesystem::file_size(outputs.object), 0u);
}

TEST(AotCrashRecovery, CommandLineFlag) {
  auto plain = parseAotCommand({"in.ll", "-o", "x.o"});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->options.recoverFromLlvmCrashes);
  auto recover = parseAotCommand({"in.ll", "-o", "x.o", "--recover"});
  ASSERT_TRUE(recover.ok());
  EXPECT_TRUE(recover->options.recoverFromLlvmCrashes);
}

// ---- without the option: the documented default -------------------------

#ifndef MEMJIT_TEST_ASAN
TEST(JitCrashRecoveryDeathTest, WithoutTheOptionLlvmEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Jit jit = makeJit(false);
        (void)jit.addIR(unselectableIR("fpcr"), "unselectable");
      },
      "LLVM ERROR: Cannot select: intrinsic %llvm.aarch64.get.fpcr");
}

TEST(JitCrashRecoveryDeathTest, OnceRecoveryWasUsedOtherCompilesStillEndTheProcess) {
  // memjit's process-wide handler forwards to LLVM's behaviour outside a scope.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Jit recovering = makeJit(true);
        if (recovering.addIR(unselectableIR("first"), "first").ok()) std::abort();
        Jit plain = makeJit(false);
        (void)plain.addIR(unselectableIR("second"), "second");
        std::fprintf(stderr, "still alive\n");
      },
      "LLVM ERROR: Cannot select");
}
#endif
