// `memjit compile`: IR written by mlir-translate to an object, a header
// and embedded metadata; then a C++ program links the object and calls it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/cli_runner.h"
#include "support/files.h"
#include "support/mlir.h"
#include "support/mlir_locations.h"
#include "support/mlir_tools.h"

using memjit::test::readFile;
using memjit::test::runCli;

namespace {

std::filesystem::path freshDir(const std::string& name) { return memjit::test::freshDir("tools/jit_cli/" + name); }

constexpr const char* kMlir = R"(
func.func @scale(%x: f32) -> f32 attributes {llvm.emit_c_interface} {
  %c = arith.constant 2.5 : f32
  %r = arith.mulf %x, %c : f32
  return %r : f32
}
func.func @first(%m: memref<?xf32>) -> f32 attributes {llvm.emit_c_interface} {
  %c1 = arith.constant 1 : index
  %v = memref.load %m[%c1] : memref<?xf32>
  return %v : f32
}
)";

// Lowers kMlir with the real MLIR tools (of LLVM's version) into dir/k.ll.
// Call only when missingMlirTools() is empty: a failure here is a failure.
std::filesystem::path lowerWithMlir(const std::filesystem::path& dir) {
  auto ir = memjit::test::lowerWithMlir(kMlir);
  if (!ir) {
    ADD_FAILURE() << ir.error().str();
    return {};
  }
  std::ofstream(dir / "k.ll") << *ir;
  return dir / "k.ll";
}

}  // namespace

TEST(CompileCli, MlirOutputBecomesASelfDescribingObjectAndHeader) {
  auto dir = freshDir("mlir");
  if (auto missing = memjit::test::missingMlirTools(); !missing.empty())
    MEMJIT_MLIR_UNAVAILABLE() << missing;
  auto ll = lowerWithMlir(dir);
  ASSERT_FALSE(ll.empty());
  auto r = runCli({"compile", ll.string(), "-o", (dir / "k.o").string(), "--header",
                   (dir / "k.h").string(), "--namespace", "mk", "--signature", "scale=(f32) -> f32",
                   "--signature", "first=(memref<?xf32>) -> f32"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("scale : (f32) -> f32"), std::string::npos) << r.out;
  const std::string header = readFile(dir / "k.h");
  EXPECT_NE(header.find("float _mlir_ciface_first(memjit::runtime::StridedMemRef<float, 1>* arg0)"),
            std::string::npos) << header;
  EXPECT_NE(readFile(dir / "k.o").find("_memjit_type_first"), std::string::npos);

  // A plain C++ program links the object and calls through the header.
  std::ofstream(dir / "main.cpp") << R"(#include "k.h"
#include <cstring>
int main() {
  float data[3] = {1.0f, 7.0f, 9.0f};
  memjit::runtime::StridedMemRef<float, 1> m{data, data, 0, {3}, {1}};
  if (mk::scale(2.0f) != 5.0f) return 1;
  if (mk::first(m) != 7.0f) return 2;  // the by-value wrapper
  if (_mlir_ciface_first(&m) != 7.0f) return 4;  // the raw C interface
  const mk::FunctionInfo* info = mk::findFunction("first");
  if (!info || std::strcmp(info->type, "(memref<?xf32>) -> f32") != 0) return 3;
  return 0;
}
)";
  const std::string build = "c++ -std=c++20 -I" + std::string(MEMJIT_SOURCE_DIR) + "/include -I" +
                            dir.string() + " " + (dir / "main.cpp").string() + " " +
                            (dir / "k.o").string() + " -o " + (dir / "main").string() + " 2> " +
                            (dir / "build.txt").string();
  ASSERT_EQ(std::system(build.c_str()), 0) << readFile(dir / "build.txt");
  EXPECT_EQ(std::system((dir / "main").c_str()), 0);
}

TEST(CompileCli, NamesCInterfacesWithoutMetadata) {
  auto dir = freshDir("note");
  if (auto missing = memjit::test::missingMlirTools(); !missing.empty())
    MEMJIT_MLIR_UNAVAILABLE() << missing;
  auto ll = lowerWithMlir(dir);
  ASSERT_FALSE(ll.empty());
  auto r = runCli({"compile", ll.string(), "-o", (dir / "k.o").string(), "--signature", "scale=(f32) -> f32"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("note: _mlir_ciface_first has no signature metadata"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("note: _mlir_ciface_scale"), std::string::npos) << r.out;
}

// IR that carries debug info (here MLIR's locations) keeps it through
// memjit's pipeline: the object's line table names the .mlir file and its lines.
TEST(CompileCli, KeepsTheDebugInfoOfItsInput) {
  auto dir = freshDir("debug_info");
  if (auto missing = memjit::test::missingMlirTools(); !missing.empty())
    MEMJIT_MLIR_UNAVAILABLE() << missing;
  auto ll = memjit::test::lowerWithLocations(dir);
  ASSERT_FALSE(ll.empty());
  ASSERT_NE(readFile(ll).find("!DICompileUnit"), std::string::npos) << "MLIR emitted no debug info";
  auto r = runCli({"compile", ll.string(), "-O2", "-o", (dir / "k.o").string(), "--emit-ll",
                   (dir / "optimised.ll").string(), "--signature", "scale=(memref<?xf32>, f32) -> ()"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(readFile(dir / "optimised.ll").find("located.mlir"), std::string::npos);
  const std::string dump = memjit::test::debugLine(MEMJIT_LLVM_DWARFDUMP, dir / "k.o");
  EXPECT_NE(dump.find("located.mlir"), std::string::npos) << dump;
  EXPECT_EQ(memjit::test::lineTableLines(dump).count(memjit::test::kLocatedMulfLine), 1u)
      << "no row for located.mlir:" << memjit::test::kLocatedMulfLine << "\n" << dump;
}

TEST(CompileCli, WritesEveryOutputKindAndCrossCompiles) {
  auto dir = freshDir("kinds");
  std::ofstream(dir / "k.ll") << "define i64 @seven() {\n  ret i64 7\n}\n";
  auto r = runCli({"compile", (dir / "k.ll").string(), "-O0", "--target", "aarch64-unknown-linux-gnu",
                   "-o", (dir / "k.o").string(), "--emit-asm", (dir / "k.s").string(), "--emit-ll",
                   (dir / "o.ll").string(), "--emit-bc", (dir / "k.bc").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("aarch64-unknown-linux-gnu"), std::string::npos);
  EXPECT_NE(readFile(dir / "k.s").find("seven:"), std::string::npos);
  EXPECT_NE(readFile(dir / "o.ll").find("aarch64"), std::string::npos);
  EXPECT_EQ(readFile(dir / "k.bc").substr(0, 2), "BC");
  // Bitcode is accepted as input too.
  r = runCli({"compile", (dir / "k.bc").string(), "-o", (dir / "again.o").string()});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(CompileCli, Errors) {
  auto dir = freshDir("errors");
  std::ofstream(dir / "k.ll") << "define i64 @seven() {\n  ret i64 7\n}\n";
  const std::string in = (dir / "k.ll").string(), out = (dir / "k.o").string();

  auto r = runCli({"compile", "-o", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("expected exactly one input file"), std::string::npos) << r.err;

  r = runCli({"compile", in, "--bogus", "-o", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown option '--bogus'"), std::string::npos) << r.err;

  r = runCli({"compile", in});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nothing to write"), std::string::npos) << r.err;

  r = runCli({"compile", (dir / "missing.ll").string(), "-o", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing.ll"), std::string::npos) << r.err;

  r = runCli({"compile", in, "-o", out, "--signature", "seven=(f32 -> i64"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--signature seven"), std::string::npos) << r.err;

  r = runCli({"compile", in, "-o", out, "--signature", "eight=() -> i64"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("defines no function 'eight'"), std::string::npos) << r.err;

  r = runCli({"compile", in, "-o", out, "--signature", "noequals"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("NAME='<function type>'"), std::string::npos) << r.err;

  r = runCli({"compile", in, "-o", out, "--target", "nosuch-arch-none"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("nosuch-arch-none"), std::string::npos) << r.err;

  r = runCli({"compile", in, "-o", "/proc/no/such/dir/k.o"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cannot write object file"), std::string::npos) << r.err;
}

// --time-phases: where compileAhead's time went, one line per phase, and the object's size.
TEST(CompileCli, TimePhasesPrintsEachPhaseAndTheObjectSize) {
  auto dir = freshDir("time_phases");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "k.ll") << "define i64 @seven() {\n  ret i64 7\n}\n";
  auto r = runCli({"compile", (dir / "k.ll").string(), "-o", (dir / "k.o").string(), "--time-phases"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* phase : {"\nphases:\n", "\n  read ", "\n  verify ", "\n  prepare ", "\n  optimize ", "\n  codegen ",
                            "\n  total "})
    EXPECT_NE(r.out.find(phase), std::string::npos) << phase << " missing from:\n" << r.out;
  EXPECT_NE(r.out.find("  object    " + std::to_string(std::filesystem::file_size(dir / "k.o")) + " bytes\n"),
            std::string::npos)
      << r.out;
  // Without the flag, no phases.
  r = runCli({"compile", (dir / "k.ll").string(), "-o", (dir / "k.o").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("phases:"), std::string::npos) << r.out;
}

// Two loops in IR: a scale that vectorises and an in-order float sum that may not.
constexpr const char* kLoopsIR = R"(
define void @scale(ptr noalias %x, ptr noalias %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %v = load float, ptr %px
  %w = fmul float %v, 2.0
  %py = getelementptr float, ptr %y, i64 %i
  store float %w, ptr %py
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define float @total(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %s = phi float [ 0.0, %entry ], [ %t, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %v = load float, ptr %px
  %t = fadd float %s, %v
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret float %t
}
)";

TEST(CompileCli, RemarksGiveEachLoopsVerdict) {
  auto dir = freshDir("remarks");
  std::ofstream(dir / "loops.ll") << kLoopsIR;
  auto r = runCli({"compile", (dir / "loops.ll").string(), "-O3", "-o", (dir / "loops.o").string(), "--remarks"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\nremarks:\n  in 'scale': vectorised, width "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  in 'total': not vectorised: cannot prove it is safe to reorder floating-point "
                       "operations"),
            std::string::npos)
      << r.out;
  // Without the flag, no remarks.
  r = runCli({"compile", (dir / "loops.ll").string(), "-O3", "-o", (dir / "loops.o").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("remarks:"), std::string::npos) << r.out;
  // At -O0 the vectoriser does not run, and the output says so rather than nothing.
  r = runCli({"compile", (dir / "loops.ll").string(), "-O0", "-o", (dir / "loops.o").string(), "--remarks"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("remarks:\n  no loop reached the loop vectoriser"), std::string::npos) << r.out;
}

TEST(CompileCli, HelpListsEveryFlag) {
  auto r = runCli({"compile", "--help"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: memjit compile <file.ll|file.bc> -o <out.o> [options]\n", 0), 0u) << r.out;
  for (const char* flag : {"\n  -o FILE.o ", "\n  --header FILE.h ", "\n  --emit-asm FILE.s ", "\n  --target TRIPLE ",
                           "\n  -O0, -O1, -O2, -O3 ", "\n  --signature NAME='<type>'", "\n  --recover ",
                           "\n  --no-vector-math ", "\n  --remarks ", "\n  --time-phases ", "\n  --help, -h "})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag << " missing from:\n" << r.out;
  // The table's spellings with '=' work like the separate value.
  auto dir = freshDir("help");
  std::ofstream(dir / "k.ll") << "define i64 @seven() {\n  ret i64 7\n}\n";
  r = runCli({"compile", (dir / "k.ll").string(), "--o=" + (dir / "k.o").string(), "--emit-ll=" + (dir / "k2.ll").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "k.o"));
  EXPECT_TRUE(std::filesystem::exists(dir / "k2.ll"));
  r = runCli({"compile", (dir / "k.ll").string(), "--time-phases=yes", "-o", (dir / "k.o").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--time-phases takes no value"), std::string::npos) << r.err;
}
