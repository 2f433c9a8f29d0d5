#include <gtest/gtest.h>

#include "support/cli_runner.h"

namespace memjit::test {
namespace {

TEST(ParseTypeCli, PrintsTheCanonicalSpelling) {
  auto r = runCli({"parse-type", "memref<4 x ?xf32,strided<[?,1],offset:?>>"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "memref<4x?xf32, strided<[?, 1], offset: ?>>\n");
  EXPECT_EQ(r.err, "");
}

TEST(ParseTypeCli, AcceptsFunctionTypes) {
  auto r = runCli({"parse-type", "(memref<?xf32>,i32)->(i32)"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "(memref<?xf32>, i32) -> i32\n");
  r = runCli({"parse-type", "() -> ()"});
  EXPECT_EQ(r.out, "() -> ()\n");
}

TEST(ParseTypeCli, MalformedInputIsOneLineOnStderrWithTheOffsetAndStatusOne) {
  auto r = runCli({"parse-type", "memref<4xf33>"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "memjit parse-type: parse error at byte 9: expected a type (memref<...>, iN, siN, uiN, f16, "
            "bf16, f32, f64, index, !llvm.ptr or complex<f32|f64>), found 'f33>'\n");
}

TEST(ParseTypeCli, WrongArgumentCountIsAUsageError) {
  auto r = runCli({"parse-type"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("expects exactly one argument"), std::string::npos);
}

TEST(Cli, UnknownCommandAndHelp) {
  auto r = runCli({"frobnicate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
  r = runCli({"help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("parse-type"), std::string::npos);
}

}  // namespace
}  // namespace memjit::test
