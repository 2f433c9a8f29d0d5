#include "memjit/runtime/memref.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "support/mlir.h"

#ifdef MEMJIT_HAVE_MLIR_RUNNER_UTILS
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#endif

using namespace memjit;
using namespace memjit::runtime;

#ifdef MEMJIT_HAVE_MLIR_RUNNER_UTILS
// Layout identity with MLIR's own structs: size, alignment and every offset.
template <typename T, int N>
constexpr bool sameRanked() {
  using M = StridedMemRefType<T, N>;
  using J = StridedMemRef<T, N>;
  bool ok = sizeof(M) == sizeof(J) && alignof(M) == alignof(J) && offsetof(M, basePtr) == offsetof(J, basePtr) &&
            offsetof(M, data) == offsetof(J, data) && offsetof(M, offset) == offsetof(J, offset);
  if constexpr (N > 0) ok = ok && offsetof(M, sizes) == offsetof(J, sizes) && offsetof(M, strides) == offsetof(J, strides);
  return ok;
}
static_assert(sameRanked<float, 0>());
static_assert(sameRanked<float, 1>());
static_assert(sameRanked<double, 2>());
static_assert(sameRanked<std::int8_t, 3>());
static_assert(sameRanked<std::int64_t, 5>());
static_assert(sizeof(::UnrankedMemRefType<float>) == sizeof(UnrankedMemRef<float>));
static_assert(offsetof(::UnrankedMemRefType<float>, rank) == offsetof(UnrankedMemRef<float>, rank));
static_assert(offsetof(::UnrankedMemRefType<float>, descriptor) == offsetof(UnrankedMemRef<float>, descriptor));

TEST(MemRef, SharesMlirLayoutAtRunTime) {
  std::vector<float> v(6);
  auto m = makeView<float, 2>(v.data(), {2, 3});
  StridedMemRefType<float, 2> mlir;
  std::memcpy(&mlir, &m, sizeof m);
  EXPECT_EQ(mlir.data, v.data());
  EXPECT_EQ(mlir.sizes[1], 3);
  EXPECT_EQ(mlir.strides[0], 3);
  mlir[std::array<std::int64_t, 2>{1, 2}] = 7.0f;  // MLIR's own indexing reaches the same element
  EXPECT_EQ(v[5], 7.0f);
}
#else
TEST(MemRef, SharesMlirLayoutAtRunTime) {
  MEMJIT_MLIR_UNAVAILABLE() << "MLIR's CRunnerUtils.h was not found at configure time";
}
#endif

TEST(MemRef, ViewOverVectorIsRowMajor) {
  std::vector<int> v{1, 2, 3, 4, 5, 6};
  auto m = makeView(v, std::array<std::int64_t, 2>{2, 3});
  EXPECT_EQ(m.sizes[0], 2);
  EXPECT_EQ(m.strides[0], 3);
  EXPECT_EQ(m.strides[1], 1);
  EXPECT_EQ((m({1, 0})), 4);
  EXPECT_EQ(m.numElements(), 6);
  auto one = makeView(v);
  EXPECT_EQ(one.sizes[0], 6);
  EXPECT_EQ(one.basePtr, v.data());
}

TEST(MemRef, ViewWithStridesAndOffset) {
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = static_cast<float>(i);
  // The transpose of a 3x4 row-major matrix, skipping nothing: a 4x3 view.
  auto t = makeView<float, 2>(v.data(), {4, 3}, {1, 4});
  EXPECT_EQ((t({2, 1})), 6.0f);
  // Column 1 of the 3x4 matrix.
  auto col = makeView<float, 1>(v.data(), {3}, {4}, 1);
  EXPECT_EQ((col({2})), 9.0f);
}

TEST(MemRef, SpanAndZeroRankViews) {
  double d[3] = {1, 2, 3};
  auto m = makeView(std::span<double>(d));
  EXPECT_EQ(m.sizes[0], 3);
  double x = 4.5;
  auto s = makeView<double, 0>(&x, {});
  EXPECT_EQ(s(), 4.5);
  auto u = makeUnranked(m);
  EXPECT_EQ(u.rank, 1);
  EXPECT_EQ(u.descriptor, &m);
}

TEST(MemRef, ElementTypeCompatibility) {
  EXPECT_TRUE(elementTypesCompatible(ElementType::I32, ElementType::SI32));
  EXPECT_TRUE(elementTypesCompatible(ElementType::UI32, ElementType::I32));
  EXPECT_FALSE(elementTypesCompatible(ElementType::SI32, ElementType::UI32));
  EXPECT_FALSE(elementTypesCompatible(ElementType::I32, ElementType::I64));
  EXPECT_TRUE(elementTypesCompatible(ElementType::Index, ElementType::I64));
  EXPECT_FALSE(elementTypesCompatible(ElementType::F32, ElementType::I32));
  EXPECT_EQ(descriptorSize(2), 56u);
}

TEST(MemRef, RowMajorStrides) {
  EXPECT_EQ(rowMajorStrides<0>({}), (std::array<std::int64_t, 0>{}));
  EXPECT_EQ(rowMajorStrides<1>({7}), (std::array<std::int64_t, 1>{1}));
  EXPECT_EQ(rowMajorStrides<3>({2, 3, 4}), (std::array<std::int64_t, 3>{12, 4, 1}));
  // A zero-sized dim makes the strides outside it zero, as MLIR's canonical
  // strides for memref<2x0x3xf32> are [0, 3, 1]; the innermost is always 1.
  EXPECT_EQ(rowMajorStrides<3>({2, 0, 3}), (std::array<std::int64_t, 3>{0, 3, 1}));
  EXPECT_EQ(rowMajorStrides<2>({5, 0}), (std::array<std::int64_t, 2>{0, 1}));
  // Sizes past 2^32 elements: strides are 64-bit, not int.
  constexpr std::int64_t big = std::int64_t{1} << 33;
  EXPECT_EQ(rowMajorStrides<3>({3, big, 2}), (std::array<std::int64_t, 3>{2 * big, 2, 1}));
}
