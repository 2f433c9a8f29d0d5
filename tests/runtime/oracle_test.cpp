#include "memjit/runtime/oracle.h"

#include <gtest/gtest.h>

#include "memjit/type_syntax.h"
#include "support/types.h"

using namespace memjit;
using namespace memjit::runtime;
using memjit::test::type;

namespace {
BufferDescription desc(ElementType e, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
                       std::int64_t offset = 0) {
  BufferDescription d = BufferDescription::rowMajor(e, shape);
  d.strides = std::move(strides);
  d.offset = offset;
  return d;
}
}  // namespace

TEST(Oracle, ContiguousIsUsableAsIs) {
  auto d = bufferDescriptionOracle(type("memref<?x4xf32>"), BufferDescription::rowMajor(ElementType::F32, {3, 4}));
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_EQ(d->usability, Usability::AsIs);
  EXPECT_EQ(d->target.len, 48u);
}

TEST(Oracle, TransposedViewNeedsACopyForIdentityLayout) {
  auto d = bufferDescriptionOracle(type("memref<4x3xf32>"), desc(ElementType::F32, {4, 3}, {1, 4}));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->usability, Usability::Copy);
  EXPECT_EQ(d->target.strides, (std::vector<std::int64_t>{3, 1}));
  EXPECT_NE(d->reason.find("stride"), std::string::npos);
}

TEST(Oracle, StridedLayoutAcceptsMatchingStrides) {
  auto d = bufferDescriptionOracle(type("memref<4x3xf32, strided<[1, 4]>>"), desc(ElementType::F32, {4, 3}, {1, 4}));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->usability, Usability::AsIs);
  // Dynamic strides accept anything.
  auto any = bufferDescriptionOracle(type("memref<?x?xf32, strided<[?, ?], offset: ?>>"),
                                     desc(ElementType::F32, {4, 3}, {7, 2}, 5));
  ASSERT_TRUE(any);
  EXPECT_EQ(any->usability, Usability::AsIs);
  // A column-major layout is produced by a copy when needed.
  auto col = bufferDescriptionOracle(type("memref<4x3xf32, strided<[1, 4]>>"), BufferDescription::rowMajor(ElementType::F32, {4, 3}));
  ASSERT_TRUE(col);
  EXPECT_EQ(col->usability, Usability::Copy);
  EXPECT_EQ(col->target.strides, (std::vector<std::int64_t>{1, 4}));
}

TEST(Oracle, OffsetIsRebasedNotCopied) {
  auto d = bufferDescriptionOracle(type("memref<3xf32>"), desc(ElementType::F32, {3}, {1}, 5));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->usability, Usability::Rebase);
  EXPECT_EQ(d->target.offset, 0);
}

TEST(Oracle, UnsupportedWithReason) {
  auto el = bufferDescriptionOracle(type("memref<384xsi32>"), BufferDescription::rowMajor(ElementType::F32, {384}));
  ASSERT_FALSE(el);
  EXPECT_EQ(el.error().code(), ErrorCode::TypeMismatch);
  EXPECT_EQ(el.error().message(), "element type differs: expected Buffer<sint32[384]>, received float32[384]");
  auto rank = bufferDescriptionOracle(type("memref<1x384xsi32>"), BufferDescription::rowMajor(ElementType::SI32, {384}));
  ASSERT_FALSE(rank);
  EXPECT_EQ(rank.error().message(), "rank differs: expected Buffer<sint32[1x384]>, received sint32[384]");
  auto dim = bufferDescriptionOracle(type("memref<2x?xf32>"), BufferDescription::rowMajor(ElementType::F32, {3, 3}));
  ASSERT_FALSE(dim);
  EXPECT_NE(dim.error().message().find("dim 0 differs"), std::string::npos);
  auto overlap = bufferDescriptionOracle(type("memref<4x3xf32, strided<[1, 1]>>"), BufferDescription::rowMajor(ElementType::F32, {4, 3}));
  ASSERT_FALSE(overlap);
  EXPECT_NE(overlap.error().message().find("no packed layout satisfies the declared strides [1, 1]"), std::string::npos);
  auto partial = bufferDescriptionOracle(type("memref<4x3xf32, strided<[?, 2]>>"), BufferDescription::rowMajor(ElementType::F32, {4, 3}));
  ASSERT_FALSE(partial);
  EXPECT_NE(partial.error().message().find("declared strides [?, 2]"), std::string::npos) << partial.error().message();
  EXPECT_FALSE(bufferDescriptionOracle(ElementType::F32, BufferDescription::rowMajor(ElementType::F32, {1})));
}

TEST(Oracle, UnrankedTakesAnyRank) {
  auto d = bufferDescriptionOracle(type("memref<*xf64>"), desc(ElementType::F64, {2, 2, 2}, {1, 2, 4}));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->usability, Usability::AsIs);
  EXPECT_FALSE(bufferDescriptionOracle(type("memref<*xf64>"), BufferDescription::rowMajor(ElementType::F32, {2})));
}

TEST(Oracle, DescribeExpected) {
  EXPECT_EQ(describeExpected(type("memref<?x128x64xf64>")), "Buffer<float64[?x128x64]>");
  EXPECT_EQ(describeExpected(type("memref<*xf32>")), "Buffer<float32[*]>");
  EXPECT_EQ(describeExpected(type("i32")), "sint32");
  EXPECT_EQ(describeExpected(type("memref<4xf32, strided<[2]>>")), "Buffer<float32[4]> strided<[2]>");
}
