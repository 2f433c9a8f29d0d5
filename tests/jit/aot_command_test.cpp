// The command line of AOT generators and `memjit compile` (aot_command.h):
// every option parsed, and runGenerator's exit status and one-line messages.
#include "memjit/jit/aot_command.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "support/files.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::elfMachine;
using memjit::test::readFile;

TEST(AotCommand, ParsesEveryOption) {
  auto command = parseAotCommand({"in.ll", "-o", "x.o", "--header", "x.h", "--emit-asm", "x.s",
                                  "--emit-ll", "x.ll", "--emit-bc", "x.bc", "-O3", "--target",
                                  "aarch64-linux-gnu", "--signature", "f=(f32) -> f32",
                                  "--namespace", "ns"});
  ASSERT_TRUE(command.ok()) << command.error().str();
  EXPECT_EQ(command->inputs, std::vector<std::string>{"in.ll"});
  EXPECT_EQ(command->outputs.object, "x.o");
  EXPECT_EQ(command->outputs.bitcode, "x.bc");
  EXPECT_EQ(command->options.optLevel, OptLevel::O3);
  EXPECT_EQ(command->options.target.triple, "aarch64-linux-gnu");
  EXPECT_EQ(command->options.target.cpu, "generic");  // the host CPU does not carry over
  EXPECT_TRUE(command->options.target.features.empty());
  ASSERT_EQ(command->signatures.size(), 1u);
  EXPECT_EQ(command->signatures[0].second, "(f32) -> f32");
  EXPECT_EQ(command->header.cppNamespace, "ns");
}

namespace {

// runGenerator as a generator's main() calls it, with what it prints kept.
struct GeneratorRun {
  int status;
  std::string printed;
};

GeneratorRun runGeneratorWith(std::vector<std::string> args, codegen::Module& module) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream printed;
  const int status = runGenerator(static_cast<int>(argv.size()), argv.data(), module, printed);
  return {status, printed.str()};
}

}  // namespace

TEST(AotCommand, GeneratorWritesWhatItIsAskedForAndPrintsNothing) {
  auto dir = test::freshDir("jit/aot_command/generator");
  codegen::Module module("generated");
  ASSERT_FALSE(codegen::addSaxpy(module, "saxpy"));
  const std::string object = (dir / "g.o").string(), header = (dir / "g.h").string();
  auto run = runGeneratorWith({"gen", "-o", object, "--header", header, "--namespace", "ns"}, module);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.printed, "");
  EXPECT_EQ(elfMachine(readFile(object)), 62);  // EM_X86_64 on this host
  EXPECT_NE(readFile(header).find("namespace ns"), std::string::npos);
}

TEST(AotCommand, GeneratorUsageErrorsPrintOneLineAndReturnTwo) {
  codegen::Module module("generated");
  ASSERT_FALSE(codegen::addSaxpy(module, "saxpy"));
  auto missing = runGeneratorWith({"gen", "-o"}, module);
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.printed, "gen: invalid argument: option '-o' needs a value\n");
  auto positional = runGeneratorWith({"gen", "in.ll", "-o", "x.o"}, module);
  EXPECT_EQ(positional.status, 2);
  EXPECT_EQ(positional.printed, "gen: unexpected argument 'in.ll'\n");
  // Without argv[0] the line still says who is talking.
  auto nameless = runGeneratorWith({}, module);
  EXPECT_EQ(nameless.status, 2);
  EXPECT_EQ(nameless.printed.rfind("generator: invalid argument: nothing to write", 0), 0u) << nameless.printed;
}

TEST(AotCommand, GeneratorCompileErrorsPrintOneLineAndReturnOne) {
  auto dir = test::freshDir("jit/aot_command/generator_unwritable");
  codegen::Module module("generated");
  ASSERT_FALSE(codegen::addSaxpy(module, "saxpy"));
  const std::string object = (dir / "no_such_dir" / "g.o").string();
  auto run = runGeneratorWith({"gen", "-o", object}, module);
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.printed, "gen: I/O error: cannot write object file '" + object + "'\n");
}

TEST(AotCommand, HostTargetUnlessToldOtherwise) {
  auto host = parseAotCommand({"-o", "x.o"});
  ASSERT_TRUE(host.ok()) << host.error().str();
  EXPECT_EQ(host->options.target, TargetSpec::host());
  EXPECT_TRUE(host->inputs.empty());
  // Naming the host's own triple keeps its CPU and features; a cross target
  // keeps what is given for it.
  auto sameTriple = parseAotCommand({"-o", "x.o", "--target", TargetSpec::host().triple});
  ASSERT_TRUE(sameTriple.ok()) << sameTriple.error().str();
  EXPECT_EQ(sameTriple->options.target, TargetSpec::host());
  auto cross = parseAotCommand({"-o", "x.o", "--target", "aarch64-linux-gnu", "--cpu", "neoverse-n1",
                                "--features", "+sve"});
  ASSERT_TRUE(cross.ok()) << cross.error().str();
  EXPECT_EQ(cross->options.target.cpu, "neoverse-n1");
  EXPECT_EQ(cross->options.target.features, "+sve");
}

TEST(AotCommand, LaterFlagsWinAndSignaturesAccumulate) {
  auto command = parseAotCommand({"-O0", "-o", "a.o", "-O1", "-o", "b.o", "--recover", "--no-vector-math",
                                  "--signature", "f=() -> ()", "--signature", "g=(i32) -> (i32, f64)",
                                  "--signature", "h=", "x.ll", "y.ll"});
  ASSERT_TRUE(command.ok()) << command.error().str();
  EXPECT_EQ(command->options.optLevel, OptLevel::O1);
  EXPECT_EQ(command->outputs.object, "b.o");
  EXPECT_TRUE(command->options.recoverFromLlvmCrashes);
  EXPECT_FALSE(command->options.vectorMath);
  // The type is split at the first '=' only and checked later, where it is used.
  ASSERT_EQ(command->signatures.size(), 3u);
  EXPECT_EQ(command->signatures[1], (std::pair<std::string, std::string>{"g", "(i32) -> (i32, f64)"}));
  EXPECT_EQ(command->signatures[2], (std::pair<std::string, std::string>{"h", ""}));
  EXPECT_EQ(command->inputs, (std::vector<std::string>{"x.ll", "y.ll"}));
}

TEST(AotCommand, RefusesWhatItCannotUse) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"in.ll"}, "nothing to write: give -o, --header, --emit-asm, --emit-ll or --emit-bc"},
      {{"-o", "x.o", "-O4"}, "unknown option '-O4'"},
      {{"-o", "x.o", "--emit-obj", "y.o"}, "unknown option '--emit-obj'"},
      {{"-o", "x.o", "--signature", "=() -> ()"}, "--signature expects NAME='<function type>', got '=() -> ()'"},
      {{"-o", "x.o", "--signature", "f"}, "--signature expects NAME='<function type>', got 'f'"},
  };
  for (const Case& c : cases) {
    auto command = parseAotCommand(c.args);
    ASSERT_FALSE(command.ok()) << c.message;
    EXPECT_EQ(command.error().code(), ErrorCode::InvalidArgument) << c.message;
    EXPECT_EQ(command.error().message(), c.message);
  }
}
