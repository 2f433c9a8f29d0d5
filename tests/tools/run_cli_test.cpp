// `memjit run`, the mlir-cpu-runner drop-in, on hand-written LLVM IR (the
// comparison with the real runner is tests/conformance/run_test.cpp): result
// printing, flag spellings, constructors and destructors, object input, LLVM
// options, and one test per diagnostic.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_runner.h"
#include "support/files.h"

using memjit::test::runCli;

namespace {

// Entries of every result kind; a constructor and a destructor that print
// through libc's putchar around main, which prints "m".
constexpr const char* kProgram = R"(
declare i32 @putchar(i32)
@llvm.global_ctors = appending global [2 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 20, ptr @late, ptr null }, { i32, ptr, ptr } { i32 10, ptr @early, ptr null }]
@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 0, ptr @bye, ptr null }]
define void @early() {
  call i32 @putchar(i32 97)
  call i32 @putchar(i32 10)
  ret void
}
define void @late() {
  call i32 @putchar(i32 98)
  call i32 @putchar(i32 10)
  ret void
}
define void @bye() {
  call i32 @putchar(i32 122)
  call i32 @putchar(i32 10)
  ret void
}
define void @main() {
  call i32 @putchar(i32 109)
  call i32 @putchar(i32 10)
  ret void
}
define i32 @r_i32() {
  ret i32 -7
}
define i64 @r_i64() {
  ret i64 12345678901234
}
define float @r_f32() {
  ret float 8.0
}
define float @r_f32_default() {
  ret float 0x3FB99999A0000000
}
define i32 @takes(i32 %x) {
  ret i32 %x
}
)";

// llvm.matrix.multiply: only LLVM's LowerMatrixIntrinsics pass can compile it.
constexpr const char* kMatrix = R"(
declare <4 x float> @llvm.matrix.multiply.v4f32.v4f32.v4f32(<4 x float>, <4 x float>, i32, i32, i32)
define float @main() {
  %c = call <4 x float> @llvm.matrix.multiply.v4f32.v4f32.v4f32(<4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, <4 x float> <float 1.0, float 0.0, float 0.0, float 1.0>, i32 2, i32 2, i32 2)
  %e = extractelement <4 x float> %c, i32 3
  ret float %e
}
)";

class RunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = memjit::test::freshDir("tools/run_cli/" +
                                  std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    program_ = (dir_ / "p.ll").string();
    std::ofstream(program_) << kProgram;
  }
  std::filesystem::path dir_;
  std::string program_;
};

TEST_F(RunCli, PrintsEachResultKindLikeTheRunner) {
  auto i32 = runCli({"run", program_, "-e", "r_i32", "--entry-point-result=i32"});
  EXPECT_EQ(i32.status, 0) << i32.err;
  // The program's putchar output sits in C's stdout buffer (a file here) until
  // exit; the result goes out through llvm::outs() before that, as in
  // mlir-cpu-runner (whose output to a pipe or file has the same order).
  EXPECT_EQ(i32.out, "-7\na\nb\nz\n") << "constructors in priority order, then the destructor";
  auto i64 = runCli({"run", program_, "--e=r_i64", "-entry-point-result", "i64"});
  EXPECT_EQ(i64.out, "12345678901234\na\nb\nz\n") << i64.err;
  auto f32 = runCli({"run", program_, "--e", "r_f32", "--entry-point-result", "f32"});
  EXPECT_EQ(f32.out, "8.000000e+00\na\nb\nz\n") << f32.err;
  // -e defaults to main, --entry-point-result to f32, as in mlir-cpu-runner.
  auto defaults = runCli({"run", program_, "-e=r_f32_default"});
  EXPECT_EQ(defaults.out, "1.000000e-01\na\nb\nz\n") << defaults.err;
  auto main = runCli({"run", program_, "-entry-point-result=void", "-O2"});
  EXPECT_EQ(main.status, 0) << main.err;
  EXPECT_EQ(main.out, "a\nb\nm\nz\n");
  EXPECT_EQ(main.err, "");
}

TEST_F(RunCli, ReadsStandardInputWithoutAFile) {
  auto result = runCli({"run", "-e", "r_i32", "--entry-point-result=i32"}, kProgram);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "-7\na\nb\nz\n");
}

TEST_F(RunCli, RunsAnObjectFile) {
  const std::string object = (dir_ / "p.o").string();
  auto compiled = runCli({"compile", program_, "-o", object});
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  auto result = runCli({"run", object, "-e", "r_i64", "--entry-point-result=i64"});
  EXPECT_EQ(result.status, 0) << result.err;
  // An object's .init_array is not run (see jit::Program).
  EXPECT_EQ(result.out, "12345678901234\n");
}

TEST_F(RunCli, ForwardsLlvmOptions) {
  const std::string matrix = (dir_ / "m.ll").string();
  std::ofstream(matrix) << kMatrix;
  auto result = runCli({"run", matrix, "-O0", "-enable-matrix", "-matrix-default-layout=row-major"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "4.000000e+00\n");
}

// ---- diagnostics: one line on stderr naming the file or entry, non-zero exit

void expectOneLine(const memjit::test::CliResult& result, int status, const std::string& text) {
  EXPECT_EQ(result.status, status);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find(text), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "one line: " << result.err;
  EXPECT_EQ(result.err.rfind("memjit run: ", 0), 0u) << result.err;
}

TEST_F(RunCli, MissingFile) {
  expectOneLine(runCli({"run", (dir_ / "nope.ll").string()}), 1, "cannot read '" + (dir_ / "nope.ll").string() + "'");
}

TEST_F(RunCli, NotIR) {
  const std::string bad = (dir_ / "bad.ll").string();
  std::ofstream(bad) << "this is not IR\n";
  expectOneLine(runCli({"run", bad}), 1, "'" + bad + "' is neither LLVM IR nor an object file");
}

TEST_F(RunCli, MissingEntry) {
  expectOneLine(runCli({"run", program_, "-e", "nope"}), 1, "'" + program_ + "': entry point 'nope' not found");
}

TEST_F(RunCli, WrongResultType) {
  expectOneLine(runCli({"run", program_, "-e", "r_i32", "--entry-point-result=i64"}), 1,
                "entry point 'r_i32' returns i32, not i64 (--entry-point-result=i64)");
  expectOneLine(runCli({"run", program_, "-e", "r_i32"}), 1,
                "entry point 'r_i32' returns i32, not f32 (--entry-point-result=f32, the default)");
}

TEST_F(RunCli, EntryWithArguments) {
  expectOneLine(runCli({"run", program_, "-e", "takes", "--entry-point-result=i32"}), 1,
                "entry point 'takes' takes arguments (i32); it must take none");
}

TEST_F(RunCli, BadResultKind) {
  expectOneLine(runCli({"run", program_, "--entry-point-result=f64"}), 2,
                "--entry-point-result='f64' is not one of void, i32, i64, f32");
}

TEST_F(RunCli, FlagWithoutValue) { expectOneLine(runCli({"run", program_, "-e"}), 2, "-e needs a value"); }

TEST_F(RunCli, TwoInputs) {
  expectOneLine(runCli({"run", program_, program_}), 2, "more than one input file");
}

TEST_F(RunCli, UnknownOption) {
  expectOneLine(runCli({"run", program_, "--no-such-option"}), 2,
                "not an option of memjit run, and LLVM says: Unknown command line argument '--no-such-option'");
}

// Calling a function with arguments moved to `memjit call`: its flags here
// say so instead of going to LLVM (which would call them unknown).
TEST_F(RunCli, FlagsOfMemjitCall) {
  for (const char* flag : {"--arg", "--arg=3", "-arg", "--signature", "--out=r.npy", "--print", "--no-print",
                           "--print-results", "--benchmark", "--benchmark=3", "--warmup=2"}) {
    SCOPED_TRACE(flag);
    const std::string spelled = std::string(flag).substr(0, std::string(flag).find('='));
    expectOneLine(runCli({"run", program_, flag, "x"}), 2,
                  spelled + " is an option of memjit call, not of memjit run (which runs an entry without arguments, "
                            "like mlir-cpu-runner): memjit call FILE -e ENTRY --arg VALUE... calls a function");
  }
}

TEST_F(RunCli, Help) {
  auto help = runCli({"run", "--help"});
  EXPECT_EQ(help.status, 0) << help.err;
  EXPECT_EQ(help.out.rfind("usage: memjit run <file.ll|file.bc|file.o> [options] [LLVM options]\n", 0), 0u) << help.out;
  for (const char* line : {"\n  -e ENTRY ", "\n  --entry-point-result void|i32|i64|f32\n", "\n  --shared-libs A.so,B.so ",
                           "\n  -O0, -O1, -O2, -O3 ", "\n  --help, -h ", "see memjit call --help"})
    EXPECT_NE(help.out.find(line), std::string::npos) << "missing '" << line << "' in\n" << help.out;
  EXPECT_EQ(help.out.find("--arg"), std::string::npos) << "call's flag, not run's: " << help.out;
  EXPECT_EQ(runCli({"run", "-h"}).out, help.out);
}

TEST_F(RunCli, MissingSharedLibrary) {
  const std::string library = (dir_ / "libnope.so").string();
  expectOneLine(runCli({"run", program_, "--shared-libs=" + library, "--entry-point-result=void"}), 1,
                "shared library '" + library + "' does not exist");
}

TEST_F(RunCli, SharedLibraryThatIsNoLibrary) {
  const std::string library = (dir_ / "libtext.so").string();
  std::ofstream(library) << "not a library\n";
  expectOneLine(runCli({"run", program_, "--shared-libs=" + library, "--entry-point-result=void"}), 1,
                "cannot load shared library '" + library + "'");
}

TEST_F(RunCli, UndefinedSymbol) {
  const std::string undefined = (dir_ / "u.ll").string();
  std::ofstream(undefined) << "declare void @no_such_function()\ndefine void @main() {\n  call void "
                              "@no_such_function()\n  ret void\n}\n";
  expectOneLine(runCli({"run", undefined, "--entry-point-result=void"}), 1,
                "cannot link module '" + undefined + "': undefined symbol 'no_such_function'");
}

TEST_F(RunCli, LlvmCannotCompile) {
  const std::string matrix = (dir_ / "m.ll").string();
  std::ofstream(matrix) << kMatrix;
  // Without the matrix lowering LLVM's code generator gives up: one line, not an abort.
  expectOneLine(runCli({"run", matrix}), 1, "while compiling module '" + matrix + "'");
}

}  // namespace
