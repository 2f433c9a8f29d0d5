#include "memjit/runtime/owned_memref.h"

#include <gtest/gtest.h>

using namespace memjit;
using namespace memjit::runtime;

TEST(OwnedMemRef, AllocateWithAlignment) {
  auto m = OwnedMemRef<float, 2>::allocate({4, 8}, 256);
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m->get().data) % 256, 0u);
  EXPECT_EQ(m->get().strides[0], 8);
  (*m)({3, 7}) = 2.0f;
  EXPECT_EQ(m->get().data[31], 2.0f);
  EXPECT_TRUE(m->owning());
  // The owner frees basePtr (the allocation), which differs from data when alignment moved it.
  EXPECT_EQ(m->owner().get(), static_cast<void*>(m->get().basePtr));
}

TEST(OwnedMemRef, AdoptFreesMallocdMemoryOnce) {
  // LeakSanitizer/valgrind catch a leak; ASan catches a double free.
  StridedMemRef<int, 1> d;
  d.basePtr = static_cast<int*>(std::malloc(10 * sizeof(int)));
  d.data = d.basePtr + 2;  // an aligned pointer inside the allocation
  d.offset = 0;
  d.sizes[0] = 8;
  d.strides[0] = 1;
  {
    auto a = OwnedMemRef<int, 1>::adopt(d);
    auto copy = a;  // shares
    EXPECT_EQ(copy.owner().use_count(), 2);
    Buffer b = copy.toBuffer();
    EXPECT_EQ(b.owner().use_count(), 3);
  }
}

TEST(OwnedMemRef, BorrowOwnsNothing) {
  int x[2] = {1, 2};
  auto b = OwnedMemRef<int, 1>::borrow(makeView<int, 1>(x, {2}));
  EXPECT_FALSE(b.owning());
  const StridedMemRef<int, 1>& view = b;
  EXPECT_EQ(view.data, x);
}

TEST(OwnedMemRef, FromBufferChecksType) {
  auto buf = Buffer::allocate(ElementType::F64, {3});
  ASSERT_TRUE(buf);
  EXPECT_TRUE((OwnedMemRef<double, 1>::fromBuffer(*buf)));
  auto bad = OwnedMemRef<float, 1>::fromBuffer(*buf);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::TypeMismatch);
}

TEST(OwnedMemRef, HalfPrecisionElements) {
  auto m = OwnedMemRef<f16, 2>::allocate({2, 3});
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(m->toBuffer().elementType(), ElementType::F16);
  (*m)({1, 2}) = f16(0.5);
  EXPECT_EQ(m->get().data[5].bits(), 0x3800);
  EXPECT_TRUE((OwnedMemRef<bf16, 1>::allocate({4})));
  // Half-precision data is f16 or bf16, never an integer type of the same width.
  EXPECT_FALSE((OwnedMemRef<std::uint16_t, 2>::fromBuffer(m->toBuffer())));
  EXPECT_FALSE((OwnedMemRef<bf16, 2>::fromBuffer(m->toBuffer())));
}

TEST(OwnedUnrankedMemRef, SharesTheBufferAndPointsAtItsOwnDescriptor) {
  auto buf = Buffer::allocate(ElementType::F32, {2, 3});
  ASSERT_TRUE(buf);
  auto u = OwnedUnrankedMemRef<float>::fromBuffer(*buf);
  ASSERT_TRUE(u) << u.error().str();
  EXPECT_TRUE(u->valid());
  EXPECT_TRUE(u->owning());
  EXPECT_EQ(u->rank(), 2);
  EXPECT_EQ(u->owner(), buf->owner());
  const UnrankedMemRef<float>& raw = *u;
  EXPECT_EQ(raw.rank, 2);
  using Desc = StridedMemRef<float, 2>;
  EXPECT_EQ(static_cast<const Desc*>(raw.descriptor)->data, buf->aligned());
  // Copies and moves point at their own descriptor copy, not at the source's.
  OwnedUnrankedMemRef<float> copy = *u;
  EXPECT_NE(copy.get().descriptor, u->get().descriptor);
  EXPECT_EQ(static_cast<const Desc*>(copy.get().descriptor)->sizes[1], 3);
  OwnedUnrankedMemRef<float> moved = std::move(copy);
  EXPECT_TRUE(moved.valid());
  auto ranked = moved.ranked<2>();
  ASSERT_TRUE(ranked) << ranked.error().str();
  EXPECT_EQ((*ranked)->data, buf->aligned());
  EXPECT_FALSE(moved.ranked<1>());
  // The empty value.
  OwnedUnrankedMemRef<float> empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_EQ(empty.get().descriptor, nullptr);
}

TEST(OwnedUnrankedMemRef, FromDescriptorWithoutOwner) {
  float x[4] = {1, 2, 3, 4};
  auto ranked = makeView<float, 1>(x, {4});
  auto u = OwnedUnrankedMemRef<float>::fromDescriptor(1, &ranked);
  EXPECT_FALSE(u.owning());
  EXPECT_EQ(u.ranked<1>()->get().data, x);
}
