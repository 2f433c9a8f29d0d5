// The first-tier body of addMatmul and addSgemm (codegen/kernel_first_tiers.h)
// calls these: C = A * B in the kernels' summation order, compiled ahead of
// time so that a tiered Jit's first tier compiles nothing but the call (the
// same loop nest as IR cost twice the instructions of the kernel's own O0
// compile). Per element of C: K cut into blocks of kc (0: one block), each
// block an in-order FMA chain from +0 (fma(A[i][p], B[p][j], acc), p
// ascending), the first block's chain the sum and each later one's added to
// it (chain + sum). std::fma rounds once, so every version below (the
// portable one calls libm's fma) gives the same bits; the chains of a strip of
// C's row are independent, which the compiler vectorises.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "memjit/runtime/detail/first_tier.h"
#include "memjit/runtime/memref.h"

namespace {

template <typename T>
using Matrix = memjit::runtime::StridedMemRef<T, 2>;

// What the kernel's memref types fix (first_tier::MatmulLayout), the kernels
// use, whatever a descriptor says: the layouts' unit strides, and a static
// offset of 0 (addMatmul's memref<?x?xT>; addSgemm's offsets are dynamic).
using namespace memjit::runtime::first_tier;

template <typename T>
std::int64_t offsetOf(const Matrix<T>& m, bool zeroOffset) {
  return zeroOffset ? 0 : m.offset;
}

template <typename T>
struct View {
  const T* data;
  std::int64_t rowStride, columnStride;
  View(const Matrix<T>& m, bool columnMajor, bool zeroOffset)
      : data(m.data + offsetOf(m, zeroOffset)),
        rowStride(columnMajor ? 1 : m.strides[0]),
        columnStride(columnMajor ? m.strides[1] : 1) {}
  T at(std::int64_t i, std::int64_t j) const { return data[i * rowStride + j * columnStride]; }
};

// Inlined into each target's version below.
template <typename T>
[[gnu::always_inline]] inline void matmul(const Matrix<T>* a, const Matrix<T>* b, Matrix<T>* c, std::int64_t kc,
                                          std::int32_t layout) {
  const View<T> A(*a, layout & kColumnMajorA, layout & kZeroOffsetA), B(*b, layout & kColumnMajorB, layout & kZeroOffsetB);
  const std::int64_t M = c->sizes[0], N = c->sizes[1], K = a->sizes[1];
  const std::int64_t depth = kc > 0 ? kc : std::max<std::int64_t>(K, 1);
  constexpr std::int64_t kStrip = 64;
  T chain[kStrip], sum[kStrip];
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j0 = 0; j0 < N; j0 += kStrip) {
      const std::int64_t width = std::min(kStrip, N - j0);
      std::fill(sum, sum + width, T(0));  // K == 0: C is +0
      for (std::int64_t pc = 0; pc < K; pc += depth) {
        std::fill(chain, chain + width, T(0));
        const std::int64_t end = pc + std::min(depth, K - pc);
        for (std::int64_t p = pc; p < end; ++p) {
          const T x = A.at(i, p);
          if (B.columnStride == 1) {
            const T* row = B.data + p * B.rowStride + j0;
            for (std::int64_t j = 0; j < width; ++j) chain[j] = std::fma(x, row[j], chain[j]);
          } else {
            for (std::int64_t j = 0; j < width; ++j) chain[j] = std::fma(x, B.at(p, j0 + j), chain[j]);
          }
        }
        for (std::int64_t j = 0; j < width; ++j) sum[j] = pc == 0 ? chain[j] : chain[j] + sum[j];
      }
      T* out = c->data + offsetOf(*c, layout & kZeroOffsetC) + i * c->strides[0] + j0;
      std::copy(sum, sum + width, out);
    }
}

// One version per x86 target, picked per call by the CPU's features: not
// target_clones, whose ifunc resolver runs before a sanitizer's runtime is
// initialised and crashed every ThreadSanitizer test binary at load.
template <typename T>
using Entry = void (*)(const Matrix<T>*, const Matrix<T>*, Matrix<T>*, std::int64_t, std::int32_t);

template <typename T>
void portable(const Matrix<T>* a, const Matrix<T>* b, Matrix<T>* c, std::int64_t kc, std::int32_t layout) {
  matmul(a, b, c, kc, layout);
}

#if defined(__x86_64__)
template <typename T>
__attribute__((target("avx2,fma"))) void avx2(const Matrix<T>* a, const Matrix<T>* b, Matrix<T>* c, std::int64_t kc,
                                             std::int32_t layout) {
  matmul(a, b, c, kc, layout);
}

template <typename T>
__attribute__((target("avx512f,avx512vl,avx2,fma"))) void avx512(const Matrix<T>* a, const Matrix<T>* b,
                                                                 Matrix<T>* c, std::int64_t kc,
                                                                 std::int32_t layout) {
  matmul(a, b, c, kc, layout);
}
#endif

template <typename T>
Entry<T> best() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma"))
    return &avx512<T>;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2<T>;
#endif
  return &portable<T>;
}

}  // namespace

// `layout`: first_tier::MatmulLayout bits (C is row-major).
extern "C" void memjit_first_tier_matmul_f32(const void* a, const void* b, void* c, std::int64_t kc,
                                             std::int32_t layout) {
  static const Entry<float> entry = best<float>();
  entry(static_cast<const Matrix<float>*>(a), static_cast<const Matrix<float>*>(b), static_cast<Matrix<float>*>(c), kc,
        layout);
}

extern "C" void memjit_first_tier_matmul_f64(const void* a, const void* b, void* c, std::int64_t kc,
                                             std::int32_t layout) {
  static const Entry<double> entry = best<double>();
  entry(static_cast<const Matrix<double>*>(a), static_cast<const Matrix<double>*>(b), static_cast<Matrix<double>*>(c),
        kc, layout);
}
