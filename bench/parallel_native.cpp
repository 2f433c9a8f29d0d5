// The native twins of bench_parallel's kernels: the same loops in C++,
// compiled with -O3 -march=native -fopenmp; *Omp run the outer loop with
// `#pragma omp parallel for` (static schedule, as memjit's default).
#include "parallel_native.h"

#include <cmath>

namespace native {

#define A64(p) static_cast<decltype(p)>(__builtin_assume_aligned(p, 64))

template <bool Par>
static void matmulT(const float* __restrict A, const float* __restrict B, float* __restrict C, long n) {
  A = A64(A), B = A64(B), C = A64(C);
#pragma omp parallel for schedule(static) if (Par)
  for (long i0 = 0; i0 < n; i0 += kTileI) {
    for (long i = i0; i < i0 + kTileI && i < n; ++i)
      for (long j = 0; j < n; ++j) C[i * n + j] = 0;
    for (long k0 = 0; k0 < n; k0 += kTileK)
      for (long i = i0; i < i0 + kTileI && i < n; ++i)
        for (long k = k0; k < k0 + kTileK && k < n; ++k) {
          const float a = A[i * n + k];
          for (long j = 0; j < n; ++j) C[i * n + j] = std::fma(a, B[k * n + j], C[i * n + j]);
        }
  }
}
void matmul(const float* A, const float* B, float* C, long n) { matmulT<false>(A, B, C, n); }
void matmulOmp(const float* A, const float* B, float* C, long n) { matmulT<true>(A, B, C, n); }

template <bool Par>
static void expTanhT(const float* __restrict x, float* __restrict y, long n) {
#pragma omp parallel for schedule(static) if (Par)
  for (long i = 0; i < n; ++i) y[i] = std::exp(x[i]) * std::tanh(x[i]);
}
void expTanh(const float* x, float* y, long n) { expTanhT<false>(x, y, n); }
void expTanhOmp(const float* x, float* y, long n) { expTanhT<true>(x, y, n); }

// in is (n+2) x (n+2), out n x n, w 3 x 3.
template <bool Par>
static void conv3x3T(const float* __restrict in, const float* __restrict w, float* __restrict out, long n) {
#pragma omp parallel for schedule(static) if (Par)
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) {
      float s = 0;
      for (long di = 0; di < 3; ++di)
        for (long dj = 0; dj < 3; ++dj) s = std::fma(w[di * 3 + dj], in[(i + di) * (n + 2) + j + dj], s);
      out[i * n + j] = s;
    }
}
void conv3x3(const float* in, const float* w, float* out, long n) { conv3x3T<false>(in, w, out, n); }
void conv3x3Omp(const float* in, const float* w, float* out, long n) { conv3x3T<true>(in, w, out, n); }

double sum(const double* x, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += x[i];
  return s;
}
double sumOmp(const double* x, long n) {
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (long i = 0; i < n; ++i) s += x[i];
  return s;
}

template <bool Par>
static void addT(const float* __restrict a, const float* __restrict b, float* __restrict c, long n) {
  a = A64(a), b = A64(b), c = A64(c);
#pragma omp parallel for schedule(static) if (Par)
  for (long i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
void add(const float* a, const float* b, float* c, long n) { addT<false>(a, b, c, n); }
void addOmp(const float* a, const float* b, float* c, long n) { addT<true>(a, b, c, n); }

void emptyRegionOmp(long* out, long threads) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < threads; ++i) out[i] = i;
}

}  // namespace native
