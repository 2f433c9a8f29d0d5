#include "memjit/error.h"

#include <gtest/gtest.h>

namespace memjit {
namespace {

Expected<int> half(int v) {
  if (v % 2) return Error(ErrorCode::InvalidArgument, std::to_string(v) + " is odd");
  return v / 2;
}

Expected<int> quarter(int v) {
  MEMJIT_ASSIGN_OR_RETURN(int h, half(v));
  MEMJIT_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}

Error checkEven(int v) {
  MEMJIT_TRY(half(v).takeError());
  return Error::success();
}

TEST(Error, SuccessIsFalsy) {
  Error e;
  EXPECT_FALSE(e);
  EXPECT_TRUE(e.ok());
  EXPECT_EQ(e.str(), "success");
}

TEST(Error, StrNamesCodeOffsetAndMessage) {
  Error e(ErrorCode::ParseError, "expected 'x'", 7);
  EXPECT_TRUE(e);
  EXPECT_EQ(e.str(), "parse error at byte 7: expected 'x'");
  EXPECT_EQ(Error(ErrorCode::NotFound, "no function 'f'").str(), "not found: no function 'f'");
}

TEST(Error, RuntimeCheckFailedHasItsName) {
  EXPECT_EQ(errorCodeName(ErrorCode::RuntimeCheckFailed), "runtime check failed");
  EXPECT_EQ(Error(ErrorCode::RuntimeCheckFailed, "kernel 'k': divsi by zero").str(),
            "runtime check failed: kernel 'k': divsi by zero");
}

TEST(Error, WithContextPrefixesTheMessageAndKeepsTheRest) {
  Error e = Error(ErrorCode::TypeMismatch, "expected f32", 3).withContext("argument #1");
  EXPECT_EQ(e.code(), ErrorCode::TypeMismatch);
  EXPECT_EQ(e.message(), "argument #1: expected f32");
  EXPECT_EQ(e.offset(), 3u);
}

TEST(Expected, PropagatesValuesAndErrors) {
  auto ok = quarter(8);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 2);
  auto bad = quarter(6);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "3 is odd");
  EXPECT_FALSE(checkEven(4));
  EXPECT_EQ(checkEven(5).code(), ErrorCode::InvalidArgument);
}

TEST(Expected, HoldsMoveOnlyValues) {
  Expected<std::unique_ptr<int>> p(std::make_unique<int>(4));
  ASSERT_TRUE(p);
  std::unique_ptr<int> taken = std::move(p).value();
  EXPECT_EQ(*taken, 4);
}


// Taking the value of a failed Expected is a bug in the caller; memjit's
// message must survive it (it used to end in an anonymous bad_variant_access).
TEST(ExpectedDeathTest, ValueOfAFailureAbortsWithTheMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto failed = [] { return Expected<int>(Error(ErrorCode::NotFound, "no function 'softmax' in module 'm'")); };
  EXPECT_DEATH((void)*failed(),
               "memjit: value of a failed Expected taken: not found: no function 'softmax' in module 'm'");
  EXPECT_DEATH((void)failed().value(), "value of a failed Expected taken: not found");
  struct Point { int x; };
  Expected<Point> point(Error(ErrorCode::ParseError, "bad", 3));
  EXPECT_DEATH((void)point->x, "value of a failed Expected taken: parse error at byte 3: bad");
  const Expected<Point>& constPoint = point;
  EXPECT_DEATH((void)constPoint.value(), "parse error at byte 3: bad");
}

TEST(ExpectedDeathTest, ErrorOfASuccessAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Expected<int> fine(1);
  EXPECT_DEATH((void)fine.error(), "memjit: error\\(\\) of a successful Expected taken: success");
}

TEST(ExpectedDeathTest, CantFailAbortsWithTheMessageAndPassesValuesThrough) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EQ(cantFail(Expected<int>(7)), 7);
  cantFail(Error::success());
  EXPECT_DEATH(cantFail(Expected<int>(Error(ErrorCode::IoError, "cannot read 'k.o'")), "loading kernels"),
               "memjit: loading kernels: I/O error: cannot read 'k.o'");
  EXPECT_DEATH(cantFail(Error(ErrorCode::Unsupported, "no AVX")), "memjit: unexpected failure: unsupported: no AVX");
}

}  // namespace
}  // namespace memjit
