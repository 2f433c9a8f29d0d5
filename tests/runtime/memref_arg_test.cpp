// MemRefArg, the by-value memref parameter of generated AOT wrappers: each
// source it accepts gives the descriptor a callee would see, sharing (never
// copying) the data; what it must not accept does not compile.
#include "memjit/runtime/memref_arg.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace memjit::runtime {
namespace {

// What a generated wrapper does with its parameter: reads through the descriptor.
template <int N>
float sumOf(MemRefArg<float, N> arg) {
  const StridedMemRef<float, N>& d = arg;
  float total = 0;
  if constexpr (N == 1) {
    for (std::int64_t i = 0; i < d.sizes[0]; ++i) total += d.data[d.offset + i * d.strides[0]];
  } else {
    for (std::int64_t i = 0; i < d.sizes[0]; ++i)
      for (std::int64_t j = 0; j < d.sizes[1]; ++j) total += d.data[d.offset + i * d.strides[0] + j * d.strides[1]];
  }
  return total;
}

TEST(MemRefArg, FromAVectorAndASpanSharesTheirData) {
  std::vector<float> v = {1, 2, 3, 4};
  MemRefArg<float, 1> fromVector(v);
  EXPECT_EQ(fromVector.descriptor().data, v.data());
  EXPECT_EQ(fromVector.descriptor().basePtr, v.data());
  EXPECT_EQ(fromVector.descriptor().offset, 0);
  EXPECT_EQ(fromVector.descriptor().sizes[0], 4);
  EXPECT_EQ(fromVector.descriptor().strides[0], 1);
  EXPECT_EQ(sumOf<1>(v), 10.0f);
  v[0] = 100;  // no copy: the argument sees the change
  EXPECT_EQ(sumOf<1>(fromVector), 109.0f);

  std::span<float> tail(v.data() + 2, 2);
  EXPECT_EQ(sumOf<1>(tail), 7.0f);
  EXPECT_EQ((MemRefArg<float, 1>(tail).descriptor().data), v.data() + 2);
}

TEST(MemRefArg, EmptyVectorGivesASizeZeroMemRef) {
  std::vector<float> none;
  MemRefArg<float, 1> arg(none);
  EXPECT_EQ(arg.descriptor().sizes[0], 0);
  EXPECT_EQ(sumOf<1>(arg), 0.0f);
}

TEST(MemRefArg, KeepsAStridedDescriptorAsItIs) {
  // Column 1 of a 3x4 row-major matrix, reached through an offset and a stride.
  std::array<float, 12> m{};
  for (int i = 0; i < 12; ++i) m[i] = static_cast<float>(i);
  StridedMemRef<float, 1> column = makeView<float, 1>(m.data(), {3}, {4}, 1);
  MemRefArg<float, 1> arg(column);
  EXPECT_EQ(arg.descriptor().offset, 1);
  EXPECT_EQ(arg.descriptor().strides[0], 4);
  EXPECT_EQ(sumOf<1>(arg), 1.0f + 5.0f + 9.0f);

  StridedMemRef<float, 2> transposed = makeView<float, 2>(m.data(), {4, 3}, {1, 4});
  EXPECT_EQ(sumOf<2>(transposed), 66.0f);
}

TEST(MemRefArg, BorrowsAnOwnedMemRefWithoutTakingOwnership) {
  auto owned = OwnedMemRef<float, 2>::allocate({2, 3});
  ASSERT_TRUE(owned.ok()) << owned.error().message();
  owned->get().data[owned->get().offset + 5] = 2.5f;
  {
    MemRefArg<float, 2> arg(*owned);
    EXPECT_EQ(arg.descriptor().data, owned->get().data);
    EXPECT_EQ(sumOf<2>(arg), 2.5f);
  }
  // The argument is gone; the memory is still the OwnedMemRef's.
  EXPECT_EQ(owned->get().data[owned->get().offset + 5], 2.5f);
}

// Spans and vectors name rank-1 memory only, and only of the same element type.
static_assert(std::is_constructible_v<MemRefArg<float, 1>, std::vector<float>&>);
static_assert(!std::is_constructible_v<MemRefArg<float, 2>, std::vector<float>&>);
static_assert(!std::is_constructible_v<MemRefArg<float, 2>, std::span<float>>);
static_assert(!std::is_constructible_v<MemRefArg<double, 1>, std::vector<float>&>);
static_assert(!std::is_constructible_v<MemRefArg<float, 1>, const std::vector<float>&>);  // data is written through
static_assert(!std::is_constructible_v<MemRefArg<float, 1>, StridedMemRef<float, 2>>);
// Copying the argument copies the descriptor: 3 + 2N words.
static_assert(sizeof(MemRefArg<float, 2>) == sizeof(StridedMemRef<float, 2>));
static_assert(std::is_trivially_copyable_v<MemRefArg<float, 3>>);

}  // namespace
}  // namespace memjit::runtime
