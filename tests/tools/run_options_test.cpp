// The command line of `memjit run`'s function mode.
#include "run_options.h"

#include <gtest/gtest.h>

#include "support/expect_error.h"

namespace memjit::cli {
namespace {

TEST(RunOptions, ParsesEveryFlag) {
  auto o = parseRunOptions({"k.ll", "-e", "f", "-O1", "--shared-libs=a.so,b.so", "--signature", "f=(f32) -> f32",
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

  auto d = parseRunOptions({"k.bc", "--e=g", "--benchmark", "--no-print"});
  ASSERT_TRUE(d.ok()) << d.error().str();
  EXPECT_EQ(d->entry, "g");
  EXPECT_EQ(d->optLevel, jit::OptLevel::O3);
  EXPECT_EQ(d->benchmarkReps, 10);
  EXPECT_EQ(d->warmups, 1);
  EXPECT_FALSE(d->printResults);
}

TEST(RunOptions, SplitsKeysOnlyWhereTheyLookLikeNames) {
  EXPECT_EQ(splitKey("x=in.npy"), (std::pair<std::optional<std::string>, std::string>{"x", "in.npy"}));
  EXPECT_EQ(splitKey("inputs.mask=zeros:3"), (std::pair<std::optional<std::string>, std::string>{"inputs.mask", "zeros:3"}));
  EXPECT_EQ(splitKey("random:8:seed=3").first, std::nullopt);
  EXPECT_EQ(splitKey("./a=b.npy").first, std::nullopt);
  EXPECT_EQ(splitKey("=5").first, std::nullopt);
  EXPECT_EQ(splitKey("-2.5").first, std::nullopt);
}

TEST(RunOptions, KnowsItsFlags) {
  for (const char* f : {"--arg", "--arg=1", "--signature", "--out", "--output=a.npy", "--print", "--no-print",
                        "--print-results", "--benchmark", "--benchmark=3", "--warmup=2"})
    EXPECT_TRUE(isFunctionModeFlag(f)) << f;
  for (const char* f : {"-e", "-O3", "--shared-libs=x.so", "--entry-point-result=void", "k.ll", "--argument"})
    EXPECT_FALSE(isFunctionModeFlag(f)) << f;
}

TEST(RunOptions, Errors) {
  using test::expectError;
  expectError(parseRunOptions({}).error(), ErrorCode::InvalidArgument, {"expects a program file"});
  expectError(parseRunOptions({"a.ll", "b.ll"}).error(), ErrorCode::InvalidArgument, {"a second: 'b.ll'"});
  expectError(parseRunOptions({"a.ll", "-x"}).error(), ErrorCode::InvalidArgument, {"unknown option '-x'"});
  expectError(parseRunOptions({"a.ll", "-e"}).error(), ErrorCode::InvalidArgument, {"-e needs a value"});
  expectError(parseRunOptions({"a.ll", "--signature", "=x"}).error(), ErrorCode::InvalidArgument, {"NAME='<function type>'"});
  expectError(parseRunOptions({"a.ll", "--benchmark=x"}).error(), ErrorCode::InvalidArgument, {"--benchmark", "got 'x'"});
  expectError(parseRunOptions({"a.ll", "--warmup=1.5"}).error(), ErrorCode::InvalidArgument, {"--warmup", "got '1.5'"});
  expectError(parseRunOptions({"a.ll", "--arg", "x="}).error(), ErrorCode::InvalidArgument, {"the value is empty"});
  expectError(parseRunOptions({"a.ll", "--out=x="}).error(), ErrorCode::InvalidArgument, {"the path is empty"});
  expectError(parseRunOptions({"a.ll", "--no-print", "--print-results"}).error(), ErrorCode::InvalidArgument,
              {"contradict"});
}

}  // namespace
}  // namespace memjit::cli
