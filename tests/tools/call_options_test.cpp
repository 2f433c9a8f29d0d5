// The command line of `memjit call`: its flag table parsed, and its help.
#include "call_options.h"

#include <gtest/gtest.h>

#include "support/expect_error.h"

namespace memjit::cli {
namespace {

TEST(CallOptions, ParsesEveryFlag) {
  auto o = parseCallOptions({"k.ll", "-e", "f", "-O1", "--shared-libs=a.so,b.so", "--signature", "f=(f32) -> f32",
                            "--arg", "1.5", "--arg=x=in.npy", "--out", "y.npy", "--output=0=r.npy", "--print", "x",
                            "--print-results", "--benchmark=7", "--warmup", "3"});
  ASSERT_TRUE(o.ok()) << o.error().str();
  EXPECT_EQ(o->file, "k.ll");
  EXPECT_EQ(o->entry, "f");
  EXPECT_EQ(o->optLevel, jit::OptLevel::O1);
  EXPECT_EQ(o->sharedLibs, (std::vector<std::string>{"a.so", "b.so"}));
  ASSERT_EQ(o->signatures.size(), 1u);
  EXPECT_EQ(o->signatures[0].second, "(f32) -> f32");
  ASSERT_EQ(o->args.size(), 2u);
  EXPECT_FALSE(o->args[0].key);
  EXPECT_EQ(o->args[0].value, "1.5");
  EXPECT_EQ(o->args[1].key, "x");
  EXPECT_EQ(o->args[1].value, "in.npy");
  ASSERT_EQ(o->outs.size(), 2u);
  EXPECT_FALSE(o->outs[0].key);
  EXPECT_EQ(o->outs[1].key, "0");
  EXPECT_EQ(o->prints, (std::vector<std::string>{"x"}));
  EXPECT_TRUE(o->forcePrintResults);
  EXPECT_EQ(o->benchmarkReps, 7);
  EXPECT_EQ(o->warmups, 3);

  auto d = parseCallOptions({"k.bc", "--e=g", "--benchmark", "--no-print"});
  ASSERT_TRUE(d.ok()) << d.error().str();
  EXPECT_EQ(d->entry, "g");
  EXPECT_EQ(d->optLevel, jit::OptLevel::O3);
  EXPECT_EQ(d->benchmarkReps, 10);
  EXPECT_EQ(d->warmups, 1);
  EXPECT_FALSE(d->printResults);
}

TEST(CallOptions, SplitsKeysOnlyWhereTheyLookLikeNames) {
  EXPECT_EQ(splitKey("x=in.npy"), (std::pair<std::optional<std::string>, std::string>{"x", "in.npy"}));
  EXPECT_EQ(splitKey("inputs.mask=zeros:3"), (std::pair<std::optional<std::string>, std::string>{"inputs.mask", "zeros:3"}));
  EXPECT_EQ(splitKey("random:8:seed=3").first, std::nullopt);
  EXPECT_EQ(splitKey("./a=b.npy").first, std::nullopt);
  EXPECT_EQ(splitKey("=5").first, std::nullopt);
  EXPECT_EQ(splitKey("-2.5").first, std::nullopt);
}

TEST(CallOptions, KnowsItsFlags) {
  for (const char* f : {"--arg", "--arg=1", "-arg", "--signature", "--out", "--output=a.npy", "--print", "--no-print",
                        "--print-results", "--benchmark", "--benchmark=3", "--warmup=2", "-e", "-O3", "--shared-libs=x.so",
                        "--help"})
    EXPECT_TRUE(isCallFlag(f)) << f;
  for (const char* f : {"--entry-point-result=void", "k.ll", "-", "--argument", "-O4", "--enable-matrix"})
    EXPECT_FALSE(isCallFlag(f)) << f;
}

TEST(CallOptions, HelpWithoutAFile) {
  auto o = parseCallOptions({"--help"});
  ASSERT_TRUE(o.ok()) << o.error().str();
  EXPECT_TRUE(o->help);
  EXPECT_TRUE(parseCallOptions({"k.ll", "-h"})->help);
}

// The help is the table's: every spelling of every flag appears in it.
TEST(CallOptions, HelpListsEveryFlagOfTheTable) {
  const std::string help = callHelp();
  EXPECT_EQ(help.rfind(std::string("usage: ") + kCallUsage + "\n", 0), 0u) << help;
  for (const auto& flag : callFlags())
    for (std::string_view name : flag.names) {
      const std::string spelled = (name.size() <= 2 ? "-" : "--") + std::string(name);
      const bool first = help.find("\n  " + spelled) != std::string::npos;
      const bool further = help.find(", " + spelled) != std::string::npos;
      EXPECT_TRUE(first || further) << spelled << " missing from\n" << help;
    }
  EXPECT_NE(help.find("\n  --arg [NAME=]VALUE        a value for the next raw input"), std::string::npos) << help;
  EXPECT_NE(help.find("  --benchmark[=N]"), std::string::npos) << help;
  EXPECT_NE(help.find("random[:SHAPE][:seed=S]"), std::string::npos) << help;
}

TEST(CallOptions, Errors) {
  using test::expectError;
  expectError(parseCallOptions({}).error(), ErrorCode::InvalidArgument, {"expects a program file (.ll, .bc or .o)"});
  expectError(parseCallOptions({"a.ll", "b.ll"}).error(), ErrorCode::InvalidArgument, {"a second: 'b.ll'"});
  expectError(parseCallOptions({"a.ll", "-x"}).error(), ErrorCode::InvalidArgument,
              {"unknown option '-x'", "memjit call --help"});
  expectError(parseCallOptions({"a.ll", "--entry-point-result=void"}).error(), ErrorCode::InvalidArgument,
              {"unknown option '--entry-point-result=void'"});
  expectError(parseCallOptions({"a.ll", "--no-print=1"}).error(), ErrorCode::InvalidArgument,
              {"--no-print takes no value"});
  expectError(parseCallOptions({"a.ll", "-e"}).error(), ErrorCode::InvalidArgument, {"-e needs a value"});
  expectError(parseCallOptions({"a.ll", "--signature", "=x"}).error(), ErrorCode::InvalidArgument, {"NAME='<function type>'"});
  expectError(parseCallOptions({"a.ll", "--benchmark=x"}).error(), ErrorCode::InvalidArgument, {"--benchmark", "got 'x'"});
  expectError(parseCallOptions({"a.ll", "--warmup=1.5"}).error(), ErrorCode::InvalidArgument, {"--warmup", "got '1.5'"});
  expectError(parseCallOptions({"a.ll", "--arg", "x="}).error(), ErrorCode::InvalidArgument, {"the value is empty"});
  expectError(parseCallOptions({"a.ll", "--out=x="}).error(), ErrorCode::InvalidArgument, {"the path is empty"});
  expectError(parseCallOptions({"a.ll", "--no-print", "--print-results"}).error(), ErrorCode::InvalidArgument,
              {"contradict"});
}

}  // namespace
}  // namespace memjit::cli
