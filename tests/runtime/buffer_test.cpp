#include "memjit/runtime/buffer.h"

#include <gtest/gtest.h>

using namespace memjit;
using namespace memjit::runtime;

TEST(Buffer, AllocateAlignsAndOwns) {
  for (std::size_t align : {1u, 16u, 64u, 4096u}) {
    auto b = Buffer::allocate(ElementType::F32, {3, 5}, align);
    ASSERT_TRUE(b) << b.error().str();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b->aligned()) % align, 0u);
    EXPECT_TRUE(b->owning());
    EXPECT_EQ(b->owner().get(), b->allocated());  // the allocated pointer is what gets freed
    EXPECT_EQ(b->numElements(), 15);
    EXPECT_TRUE(b->isRowMajorContiguous());
    EXPECT_EQ(static_cast<float*>(b->data())[14], 0.0f);  // zero-filled
  }
}

TEST(Buffer, AllocateRejectsBadInput) {
  EXPECT_EQ(Buffer::allocate(ElementType::F32, {2}, 24).error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(Buffer::allocate(ElementType::F32, {-1}).error().code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(Buffer::allocate(ElementType::F64, {1LL << 40, 1LL << 40}));
}

TEST(Buffer, ViewDescribesAndIndexes) {
  std::vector<std::int32_t> v{0, 1, 2, 3, 4, 5};
  auto b = Buffer::view(ElementType::SI32, v.data(), {2, 3});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->describe(), "sint32[2x3]");
  EXPECT_FALSE(b->owning());
  std::int64_t idx[2] = {1, 2};
  EXPECT_EQ(*static_cast<std::int32_t*>(b->at(idx)), 5);
  auto t = Buffer::view(ElementType::SI32, v.data(), {3, 2}, {1, 3});
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->isRowMajorContiguous());
  EXPECT_FALSE(Buffer::view(ElementType::F32, v.data(), {2, 3}, {1}));
}

TEST(Buffer, SizeOneDimsIgnoreStrides) {
  float x[4] = {};
  auto b = Buffer::view(ElementType::F32, x, {1, 4}, {999, 1});
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->isRowMajorContiguous());
}

TEST(Buffer, CopyPacksAStridedView) {
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  auto t = Buffer::view(ElementType::F32, v.data(), {4, 3}, {1, 4});  // transpose of 3x4
  ASSERT_TRUE(t);
  auto c = t->copy();
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->isRowMajorContiguous());
  const float* p = static_cast<const float*>(c->data());
  EXPECT_EQ(p[0], 0.0f);
  EXPECT_EQ(p[1], 4.0f);
  EXPECT_EQ(p[3], 1.0f);
  EXPECT_EQ(p[11], 11.0f);
  // and back into the strided layout
  static_cast<float*>(c->data())[1] = 40.0f;
  ASSERT_FALSE(t->copyFrom(*c));
  EXPECT_EQ(v[4], 40.0f);
  auto other = Buffer::allocate(ElementType::F32, {3, 4});
  EXPECT_EQ(t->copyFrom(*other).code(), ErrorCode::TypeMismatch);
}

TEST(Buffer, TypedAccessChecksElementAndRank) {
  std::vector<double> v(4);
  auto b = Buffer::fromMemRef(makeView<double, 2>(v.data(), {2, 2}));
  EXPECT_TRUE((b.as<double, 2>()));
  EXPECT_FALSE((b.as<float, 2>()));
  EXPECT_FALSE((b.as<double, 1>()));
  EXPECT_EQ(rawElementName(ElementType::UI16), "uint16");
  EXPECT_EQ(rawElementName(ElementType::Index), "index");
}

TEST(Buffer, StridedCopyRankZeroAndEmpty) {
  double a = 1.5, b = 0;
  stridedCopy(&b, {}, &a, {}, {}, sizeof(double));
  EXPECT_EQ(b, 1.5);
  std::int64_t sizes[2] = {0, 3}, strides[2] = {3, 1};
  stridedCopy(nullptr, strides, nullptr, strides, sizes, 4);  // nothing to touch
}
