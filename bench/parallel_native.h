// bench_parallel's native twins (parallel_native.cpp, built with -fopenmp).
#pragma once

namespace native {
constexpr long kTileI = 16, kTileK = 128;
void matmul(const float* A, const float* B, float* C, long n);
void matmulOmp(const float* A, const float* B, float* C, long n);
void expTanh(const float* x, float* y, long n);
void expTanhOmp(const float* x, float* y, long n);
void conv3x3(const float* in, const float* w, float* out, long n);
void conv3x3Omp(const float* in, const float* w, float* out, long n);
double sum(const double* x, long n);
double sumOmp(const double* x, long n);
void add(const float* a, const float* b, float* c, long n);
void addOmp(const float* a, const float* b, float* c, long n);
void emptyRegionOmp(long* out, long threads);
void emptyRegionTbb(long* out, long threads);  // parallel_tbb.cpp, with MEMJIT_BENCH_HAVE_TBB
}  // namespace native
