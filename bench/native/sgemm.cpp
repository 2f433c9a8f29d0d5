#include "native/sgemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <immintrin.h>

namespace memjit::bench {

namespace {

// addSgemm's default blocking on an AVX-512 host: 14 x 32 micro-kernel,
// kc 192, mc 14 * 24, nc 4096.
constexpr std::int64_t MR = 14, NR = 32, KC = 192, MC = 336, NC = 4096;

__attribute__((noinline)) void microKernel(const float* __restrict ap, const float* __restrict bp, std::int64_t kc,
                                           float* __restrict c, std::int64_t ldc, std::int64_t rows,
                                           std::int64_t cols, bool first) {
  float acc[MR][NR] = {};
  for (std::int64_t p = 0; p < kc; ++p)
    for (std::int64_t r = 0; r < MR; ++r) {
      const float a = ap[p * MR + r];
      for (std::int64_t j = 0; j < NR; ++j) acc[r][j] += a * bp[p * NR + j];
    }
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) c[r * ldc + j] = first ? acc[r][j] : c[r * ldc + j] + acc[r][j];
}

}  // namespace

void nativeSgemm(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
                 std::int64_t m, std::int64_t n, std::int64_t k) {
  if (k == 0) {
    for (std::int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  auto* bPack = static_cast<float*>(std::aligned_alloc(64, KC * NC * sizeof(float)));
  auto* aPack = static_cast<float*>(std::aligned_alloc(64, KC * MC * sizeof(float)));
  for (std::int64_t jc = 0; jc < n; jc += NC) {
    const std::int64_t nc = std::min(NC, n - jc);
    for (std::int64_t pc = 0; pc < k; pc += KC) {
      const std::int64_t kc = std::min(KC, k - pc);
      for (std::int64_t jr = 0; jr < nc; jr += NR)
        for (std::int64_t p = 0; p < kc; ++p)
          for (std::int64_t j = 0; j < NR; ++j)
            bPack[jr * kc + p * NR + j] = jc + jr + j < n ? b[(pc + p) * ldb + jc + jr + j] : 0.0f;
      for (std::int64_t ic = 0; ic < m; ic += MC) {
        const std::int64_t mc = std::min(MC, m - ic);
        for (std::int64_t ir = 0; ir < mc; ir += MR)
          for (std::int64_t p = 0; p < kc; ++p)
            for (std::int64_t r = 0; r < MR; ++r)
              aPack[ir * kc + p * MR + r] = ic + ir + r < m ? a[(ic + ir + r) * lda + pc + p] : 0.0f;
        for (std::int64_t jr = 0; jr < nc; jr += NR)
          for (std::int64_t ir = 0; ir < mc; ir += MR)
            microKernel(aPack + ir * kc, bPack + jr * kc, kc, c + (ic + ir) * ldc + jc + jr, ldc,
                        std::min(MR, m - ic - ir), std::min(NR, n - jc - jr), pc == 0);
      }
    }
  }
  std::free(aPack);
  std::free(bPack);
}

float nativeFmaPeak(std::int64_t iterations) {
#ifdef __AVX512F__
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (std::int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  float sum = 0;
  alignas(64) float lanes[16];
  for (int i = 0; i < 16; ++i) {
    _mm512_store_ps(lanes, acc[i]);
    for (float l : lanes) sum += l;
  }
  return sum;
#else
  float acc[16][8];
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) acc[i][j] = static_cast<float>(i);
  for (std::int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j) acc[i][j] = acc[i][j] * 0.999999f + 1e-7f;
  float sum = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) sum += acc[i][j];
  return sum;
#endif
}

}  // namespace memjit::bench
