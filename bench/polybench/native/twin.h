// The C++ twins' common part: each twin is `extern "C"` with the C ABI of polybench::Twin, its name suffixed by
// the build that compiled it (POLYBENCH_TWIN_SUFFIX: _gcc, _clang, _omp), so the three builds of one source link
// into one binary. Arrays are indexed as PolyBench's C indexes its arrays (`A[i][j]`), over run-time sizes.
#pragma once

#include <cmath>
#include <cstdint>

#define POLYBENCH_CAT2(a, b) a##b
#define POLYBENCH_CAT(a, b) POLYBENCH_CAT2(a, b)
#define POLYBENCH_TWIN(name) \
  extern "C" void POLYBENCH_CAT(polybench_##name, POLYBENCH_TWIN_SUFFIX)(const std::int64_t* n, const double* s, void* const* a)

// `#pragma omp parallel for` in the OpenMP build, nothing in the others.
#ifdef _OPENMP
#define POLYBENCH_OMP_FOR _Pragma("omp parallel for")
#else
#define POLYBENCH_OMP_FOR
#endif

namespace polybench_twin {

template <typename T>
struct Array2 {
  T* p;
  std::int64_t cols;
  T* operator[](std::int64_t i) const { return p + i * cols; }
};
template <typename T>
struct Array3 {
  T* p;
  std::int64_t d1, d2;
  Array2<T> operator[](std::int64_t i) const { return {p + i * d1 * d2, d2}; }
};

template <typename T = double>
T* vec(void* const* a, int i) {
  return static_cast<T*>(a[i]);
}
template <typename T = double>
Array2<T> mat(void* const* a, int i, std::int64_t cols) {
  return {static_cast<T*>(a[i]), cols};
}
template <typename T = double>
Array3<T> cube(void* const* a, int i, std::int64_t d1, std::int64_t d2) {
  return {static_cast<T*>(a[i]), d1, d2};
}

}  // namespace polybench_twin
