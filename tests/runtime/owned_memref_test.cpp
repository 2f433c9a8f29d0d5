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
