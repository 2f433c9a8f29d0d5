// `memjit run` against the real mlir-cpu-runner: each program in run/ is
// lowered at test time with mlir-opt (the pass pipeline MLIR's integration
// tests use), run by mlir-cpu-runner on the LLVM dialect with MLIR's runner
// utility libraries, and by `memjit run` on what mlir-translate makes of it:
// with the same --shared-libs, without them (memjit's own runner utilities),
// and as an object file. Standard output must match byte for byte, except
// for the heap addresses printMemref* prints ("base@ = 0x..."), which differ
// between any two runs; exit statuses must match too.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/mlir_tools.h"
#include "support/files.h"
#include "support/mlir.h"

namespace {

using memjit::test::mlirTool;
using memjit::test::readFile;
using memjit::test::tempPath;

constexpr const char* kPipeline =
    " -convert-vector-to-scf -convert-linalg-to-loops -expand-strided-metadata -lower-affine"
    " -convert-scf-to-cf -convert-vector-to-llvm -finalize-memref-to-llvm -convert-math-to-llvm"
    " -convert-math-to-libm -convert-arith-to-llvm -convert-func-to-llvm -convert-cf-to-llvm"
    " -reconcile-unrealized-casts";

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs a shell command line (all paths are ours, without spaces).
Outcome shell(const std::string& command) {
  const std::string out = tempPath("out.txt"), err = tempPath("err.txt");
  int raw = std::system((command + " >" + out + " 2>" + err).c_str());
  Outcome outcome;
  outcome.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
  outcome.out = readFile(out);
  outcome.err = readFile(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return outcome;
}

std::string maskAddresses(const std::string& text) {
  static const std::regex address("base@ = 0x[0-9a-f]+");
  return std::regex_replace(text, address, "base@ = <address>");
}

std::string missingRunnerTools() {
  if (std::string missing = memjit::test::missingMlirTools(); !missing.empty()) return missing;
  if (mlirTool(MEMJIT_MLIR_CPU_RUNNER).empty()) return "mlir-cpu-runner not found (MEMJIT_MLIR_CPU_RUNNER)";
  for (const char* library : {MEMJIT_MLIR_C_RUNNER_UTILS, MEMJIT_MLIR_RUNNER_UTILS})
    if (std::string(library).empty() || std::string(library).find("NOTFOUND") != std::string::npos ||
        !std::filesystem::exists(library))
      return "MLIR's runner utility libraries not found (MEMJIT_MLIR_C_RUNNER_UTILS, MEMJIT_MLIR_RUNNER_UTILS)";
  return "";
}

#if MEMJIT_REQUIRE_MLIR && MEMJIT_MLIR_VERSION_NUMBER < 20
#define MEMJIT_RUNNER_UNAVAILABLE() MEMJIT_MLIR_UNAVAILABLE()
#else
// A later LLVM's private MLIR (./dev.sh --private-mlir) brings no runner.
#define MEMJIT_RUNNER_UNAVAILABLE() GTEST_SKIP()
#endif

struct Case {
  const char* program;  // run/<program>.mlir
  const char* entry;
  const char* result;
  std::string flags;    // -O and LLVM options, the same for both runners
};

// What the case runs, for GoogleTest's output (else the struct's raw bytes).
void PrintTo(const Case& c, std::ostream* os) {
  *os << "run/" << c.program << ".mlir -e " << c.entry << " --entry-point-result=" << c.result;
  if (!c.flags.empty()) *os << " " << c.flags;
}

std::string caseName(const Case& c) {
  std::string name = std::string(c.program) + "_" + c.entry;
  for (char ch : c.flags)
    if (std::isalnum(static_cast<unsigned char>(ch))) name += ch;
  return name;
}

class RunConformance : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (std::string missing = missingRunnerTools(); !missing.empty()) {
      MEMJIT_RUNNER_UNAVAILABLE() << missing;
    }
    const Case& c = GetParam();
    const std::string source = std::string(MEMJIT_RUN_PROGRAMS) + "/" + c.program + ".mlir";
    lowered_ = tempPath(std::string(c.program) + ".llvm.mlir");
    ir_ = tempPath(std::string(c.program) + ".ll");
    Outcome lower = shell(std::string(MEMJIT_MLIR_OPT) + kPipeline + " " + source + " -o " + lowered_);
    ASSERT_EQ(lower.status, 0) << lower.err;
    Outcome translate = shell(std::string(MEMJIT_MLIR_TRANSLATE) + " --mlir-to-llvmir " + lowered_ + " -o " + ir_);
    ASSERT_EQ(translate.status, 0) << translate.err;
    sharedLibs_ = std::string("--shared-libs=") + MEMJIT_MLIR_C_RUNNER_UTILS + "," + MEMJIT_MLIR_RUNNER_UTILS;
    reference_ = shell(std::string(MEMJIT_MLIR_CPU_RUNNER) + " " + lowered_ + " -e " + c.entry +
                       " --entry-point-result=" + c.result + " " + sharedLibs_ + " " + c.flags);
    ASSERT_EQ(reference_.status, 0) << "mlir-cpu-runner failed: " << reference_.err;
    ASSERT_FALSE(reference_.out.empty());
  }
  void TearDown() override {
    for (const std::string& path : {lowered_, ir_, object_})
      if (!path.empty()) std::remove(path.c_str());
  }

  Outcome memjitRun(const std::string& input, const std::string& extra) const {
    const Case& c = GetParam();
    // -e and --entry-point-result in the spellings MLIR's tests use, alternated with the other ones.
    return shell(std::string(MEMJIT_CLI) + " run " + input + " -e " + c.entry + " --entry-point-result=" +
                 c.result + " " + extra + " " + c.flags);
  }
  void expectSameAsMlir(const Outcome& memjit) const {
    EXPECT_EQ(memjit.status, reference_.status) << memjit.err;
    EXPECT_EQ(memjit.err, "");
    EXPECT_EQ(maskAddresses(memjit.out), maskAddresses(reference_.out));
  }

  std::string lowered_, ir_, object_, sharedLibs_;
  Outcome reference_;
};

// One test per case runs every variant: each case costs an mlir-opt, an
// mlir-translate and a runner process, and ctest runs each test in a process.
TEST_P(RunConformance, SameStdoutAsMlirCpuRunner) {
  const Case& c = GetParam();
  {
    SCOPED_TRACE("memjit run with MLIR's runner utility libraries");
    expectSameAsMlir(memjitRun(ir_, sharedLibs_));
  }
  {
    SCOPED_TRACE("memjit run with its own runner utilities");
    expectSameAsMlir(memjitRun(ir_, ""));
  }
  // An object file: llc compiles at -O2 whatever the flags say and has no
  // matrix lowering; an object's .init_array is not run (see jit::Program).
  const std::string program = c.program;
  if (c.flags.find("-enable-matrix") != std::string::npos || program == "globals") return;
  object_ = tempPath(program + ".o");
  Outcome llc = shell(std::string(MEMJIT_LLC) + " -O2 -filetype=obj -relocation-model=pic " + ir_ + " -o " + object_);
  ASSERT_EQ(llc.status, 0) << llc.err;
  SCOPED_TRACE("memjit run on the object llc made");
  Outcome memjit = memjitRun(object_, sharedLibs_);
  EXPECT_EQ(memjit.status, reference_.status) << memjit.err;
  if (program != "libcall_capture") {
    EXPECT_EQ(maskAddresses(memjit.out), maskAddresses(reference_.out));
  }
}

const std::string kMatrixFlags = "-O0 -enable-matrix -matrix-allow-contract -matrix-default-layout=row-major";

INSTANTIATE_TEST_SUITE_P(
    Programs, RunConformance,
    ::testing::Values(Case{"print_types", "main", "void", ""}, Case{"print_types", "main", "void", "-O3"},
                      Case{"strided_copy", "main", "void", ""}, Case{"strided_copy", "main", "void", "-O2"},
                      Case{"calls", "main", "void", ""}, Case{"calls", "main", "void", "-O1"},
                      Case{"calls", "answer_i32", "i32", ""}, Case{"calls", "answer_i64", "i64", "-O2"},
                      Case{"calls", "answer_f32", "f32", ""}, Case{"globals", "main", "void", ""},
                      Case{"globals", "main", "void", "-O2"}, Case{"math_vector", "main", "void", ""},
                      Case{"math_vector", "main", "void", "-O2"}, Case{"matrix", "main", "void", kMatrixFlags},
                      Case{"libcall_capture", "main", "f32", ""}, Case{"libcall_capture", "main", "f32", "-O2"}),
    [](const ::testing::TestParamInfo<Case>& info) { return caseName(info.param); });

}  // namespace
