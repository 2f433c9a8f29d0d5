// Test helper: C = A * B in the order memjit's matrix products document
// (kernels.h, addSgemm; addMatmul is one block): per element of C, K cut
// into blocks of kc (0: one block), each an in-order FMA chain from +0, the
// first block's chain the sum and each later one's added to it as chain + sum.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "memjit/runtime/memref.h"

namespace memjit::test {

template <typename T>
std::vector<T> matmulInDocumentedOrder(const runtime::StridedMemRef<T, 2>& A, const runtime::StridedMemRef<T, 2>& B,
                                       std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t kc) {
  std::vector<T> C(static_cast<std::size_t>(M * N));
  const std::int64_t depth = kc > 0 ? kc : std::max<std::int64_t>(K, 1);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      T sum = 0;
      for (std::int64_t pc = 0; pc < K; pc += depth) {
        T chain = 0;
        for (std::int64_t p = pc; p < std::min(K, pc + depth); ++p) chain = std::fma(A({i, p}), B({p, j}), chain);
        sum = pc == 0 ? chain : chain + sum;
      }
      C[static_cast<std::size_t>(i * N + j)] = sum;
    }
  return C;
}

}  // namespace memjit::test
