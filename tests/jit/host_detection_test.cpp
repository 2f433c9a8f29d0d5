// Tests of jit/host_detection.h and jit/data_layout.h: what a fresh process
// with a disk cache skips (asking the CPU, building a TargetMachine) must give
// exactly what doing it would give.
#include "jit/host_detection.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <llvm/Target/TargetMachine.h>

#include "jit/compile.h"
#include "jit/data_layout.h"
#include "support/files.h"

namespace memjit::jit::detail {
namespace {

std::filesystem::path onlyMemo(const std::filesystem::path& dir) {
  std::filesystem::path found;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().rfind("host-", 0) == 0) found = entry.path(), ++count;
  EXPECT_EQ(count, 1) << "one memo per fingerprint";
  return found;
}

void overwrite(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

TEST(HostDetection, TheFingerprintIsStableAndLeavesOutTheApicId) {
  auto first = hostFingerprint();
#if defined(__x86_64__) && defined(__GLIBC__)
  ASSERT_TRUE(first.has_value());
  EXPECT_NE(first->find("leaf 0 "), std::string::npos) << *first;
#endif
  EXPECT_EQ(first, hostFingerprint());
}

TEST(HostDetection, TheDirectoryRemembersLLVMsAnswer) {
  if (!hostFingerprint()) GTEST_SKIP() << "no cpuid fingerprint on this platform";
  const auto dir = test::freshDir("host_detection/remembers");
  const TargetSpec detected = detectHost();
  EXPECT_EQ(hostThroughDirectory(dir.string()), detected);
  const auto memo = onlyMemo(dir);
  EXPECT_NE(test::readFile(memo).find(detected.features), std::string::npos);
  EXPECT_EQ(hostThroughDirectory(dir.string()), detected);
  EXPECT_EQ(detected, TargetSpec::host());
}

TEST(HostDetection, AWellFormedEntryIsReadInsteadOfAskingTheCpu) {
  if (!hostFingerprint()) GTEST_SKIP() << "no cpuid fingerprint on this platform";
  const auto dir = test::freshDir("host_detection/read");
  (void)hostThroughDirectory(dir.string());
  const auto memo = onlyMemo(dir);
  std::string text = test::readFile(memo);
  // Replace the CPU line (the fourth) with another valid name: the answer
  // must come from the file, which proves the CPU was not asked.
  std::size_t line = 0;
  for (int i = 0; i < 3; ++i) line = text.find('\n', line) + 1;
  text.replace(line, text.find('\n', line) - line, "x86-64");
  overwrite(memo, text);
  EXPECT_EQ(hostThroughDirectory(dir.string()).cpu, "x86-64");
}

TEST(HostDetection, DamagedEntriesAreDetectedAgainAndReplaced) {
  if (!hostFingerprint()) GTEST_SKIP() << "no cpuid fingerprint on this platform";
  const auto dir = test::freshDir("host_detection/damaged");
  const TargetSpec detected = detectHost();
  (void)hostThroughDirectory(dir.string());
  const auto memo = onlyMemo(dir);
  const std::string good = test::readFile(memo);
  const std::string damaged[] = {
      "",                                                    // empty
      good.substr(0, good.size() / 2),                       // truncated
      "memjit-host 0" + good.substr(good.find('\n')),        // another format
      good + "extra\n",                                      // a line too many
      good.substr(0, good.size() - 4),                       // no end line
      good.substr(0, good.find("\n+") + 1) + "+avx512f;rm -rf /\nend\n",  // features not LLVM's
  };
  for (const std::string& text : damaged) {
    overwrite(memo, text);
    EXPECT_EQ(hostThroughDirectory(dir.string()), detected) << text;
    EXPECT_EQ(test::readFile(memo), good) << "the damaged entry is replaced";
  }
}

TEST(HostDetection, AnUnwritableDirectoryOnlyCostsTheDetection) {
  const TargetSpec detected = detectHost();
  EXPECT_EQ(hostThroughDirectory("/proc/memjit-no-such-directory"), detected);
}

// dataLayoutFor answers without a TargetMachine where it can: it must be the
// machine's answer, for the host and for cross targets.
TEST(DataLayout, EqualsTheTargetMachinesLayout) {
  initializeAllTargets();
  const TargetSpec targets[] = {
      TargetSpec::host(),
      {"x86_64-unknown-linux-gnu", "generic", ""},
      {"x86_64-pc-linux-gnu", "znver4", "+avx512f"},
      {"aarch64-unknown-linux-gnu", "generic", ""},
      {"x86_64-pc-windows-msvc", "generic", ""},
  };
  for (const TargetSpec& spec : targets) {
    auto machine = createTargetMachine(spec, OptLevel::O2);
    ASSERT_TRUE(machine.ok()) << spec.str() << ": " << machine.error().str();
    auto layout = dataLayoutFor(spec);
    ASSERT_TRUE(layout.ok()) << spec.str();
    EXPECT_EQ(layout->getStringRepresentation(), (*machine)->createDataLayout().getStringRepresentation())
        << spec.str();
  }
}

}  // namespace
}  // namespace memjit::jit::detail
