// memjit/runtime/detail/first_tier.h: the runtime functions library kernels'
// first tiers call, against the documented order computed here: the matmul's
// layout bits (offsets the type fixes at 0 ignored, column-major operands),
// its kc blocks, and the softmax's rows.
#include "memjit/runtime/detail/first_tier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "memjit/runtime/memref.h"
#include "support/matmul_order.h"

namespace {

using memjit::runtime::makeView;
using namespace memjit::runtime::first_tier;
using Mat = memjit::runtime::StridedMemRef<float, 2>;

std::vector<float> reference(const Mat& A, const Mat& B, std::int64_t M, std::int64_t N, std::int64_t K,
                             std::int64_t kc) {
  return memjit::test::matmulInDocumentedOrder(A, B, M, N, K, kc);
}

// A 3 x 4 and B 4 x 2, each stored after `pad` elements; values whose sums
// round differently in another order.
struct Operands {
  explicit Operands(std::int64_t pad) : a(pad + 12), b(pad + 8) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::ldexp(1.0f + 0.125f * float(i), int(i % 7) * 4 - 12);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = (i % 2 ? -1.0f : 1.0f) * std::ldexp(1.0f + 0.25f * float(i), int(i % 5) * 5 - 10);
  }
  std::vector<float> a, b;
};

std::vector<float> product(Mat A, Mat B, std::int64_t cOffset, std::int64_t kc, std::int32_t layout) {
  std::vector<float> c(static_cast<std::size_t>(cOffset + 6), -7.0f);
  Mat C = makeView<float, 2>(c.data(), {3, 2});
  C.offset = cOffset;
  memjit_first_tier_matmul_f32(&A, &B, &C, kc, layout);
  return c;
}

std::vector<float> tail(const std::vector<float>& v, std::size_t from) { return {v.begin() + from, v.end()}; }

TEST(FirstTierMatmul, OffsetsAreTheDescriptorsUnlessTheTypeFixesThemAtZero) {
  Operands o(5);
  Mat A = makeView<float, 2>(o.a.data(), {3, 4}), B = makeView<float, 2>(o.b.data(), {4, 2});
  const std::vector<float> atZero = reference(A, B, 3, 2, 4, 4);
  A.offset = 5, B.offset = 5;
  const std::vector<float> atOffsets = reference(A, B, 3, 2, 4, 4);
  ASSERT_NE(atZero, atOffsets);

  EXPECT_EQ(tail(product(A, B, 2, 0, 0), 2), atOffsets);
  const std::vector<float> fixed = product(A, B, 2, 0, kZeroOffsetA | kZeroOffsetB | kZeroOffsetC);
  EXPECT_EQ(std::vector<float>(fixed.begin(), fixed.begin() + 6), atZero);
  EXPECT_EQ(fixed[6], -7.0f);
  EXPECT_EQ(fixed[7], -7.0f);
  // One bit per matrix: A at 0, B at its offset.
  Mat AatZero = A;
  AatZero.offset = 0;
  EXPECT_EQ(tail(product(A, B, 2, 0, kZeroOffsetA), 2), reference(AatZero, B, 3, 2, 4, 4));
}

TEST(FirstTierMatmul, ChainsInBlocksOfKcAndColumnMajorOperands) {
  Operands o(0);
  // Rows of 1, 2^27, -2^27, 1: one chain gives 1 (2^27 + 1 rounds to 2^27),
  // chains of two give (-2^27 + 1) + (1 + 2^27) = 0.
  for (std::size_t i = 0; i < 12; ++i) o.a[i] = i % 4 == 1 ? 0x1p27f : i % 4 == 2 ? -0x1p27f : 1.0f;
  for (std::size_t i = 0; i < 8; ++i) o.b[i] = i % 2 ? 0.5f : 1.0f;
  const Mat A = makeView<float, 2>(o.a.data(), {3, 4}), B = makeView<float, 2>(o.b.data(), {4, 2});
  EXPECT_EQ(product(A, B, 0, 0, 0), reference(A, B, 3, 2, 4, 4));
  EXPECT_EQ(product(A, B, 0, 2, 0), reference(A, B, 3, 2, 4, 2));
  EXPECT_NE(reference(A, B, 3, 2, 4, 2), reference(A, B, 3, 2, 4, 4));
  // A's and B's storage read as their transposes' (unit stride down a column).
  const Mat At = makeView<float, 2>(o.a.data(), {3, 4}, {1, 3}), Bt = makeView<float, 2>(o.b.data(), {4, 2}, {1, 4});
  EXPECT_EQ(product(At, Bt, 0, 0, kColumnMajorA | kColumnMajorB), reference(At, Bt, 3, 2, 4, 4));
}

// Per row: the maximum, exp(x - max), their in-order sum, each times 1 /
// sum; a NaN in a row makes the whole row NaN.
TEST(FirstTierSoftmax, RowsAsTheKernelComputesThem) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> in{1.0, nan, 3.0, -0.0, 2.5, -1e300, 0.25, 7.0}, out(8);
  auto inView = memjit::runtime::makeView<double, 2>(in.data(), {2, 4});
  auto outView = memjit::runtime::makeView<double, 2>(out.data(), {2, 4});
  memjit_first_tier_softmax_f64(&inView, &outView);
  for (int r = 0; r < 2; ++r) {
    const double* row = &in[static_cast<std::size_t>(4 * r)];
    const double max = r == 0 ? 3.0 : 7.0;
    double e[4], sum = 0;
    for (int c = 0; c < 4; ++c) sum = sum + (e[c] = std::exp(row[c] - max));
    for (int c = 0; c < 4; ++c) {
      const double got = out[static_cast<std::size_t>(4 * r + c)], want = e[c] * (1.0 / sum);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << r << "," << c;
        continue;
      }
      EXPECT_EQ(got, want) << r << "," << c;
    }
  }
}

}  // namespace
