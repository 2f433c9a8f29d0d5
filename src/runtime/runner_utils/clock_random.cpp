// Timing (rtclock, nanoTime), random numbers (rtsrand/rtrand/rtdrand,
// shuffle) and std::sort, from mlir_c_runner_utils and mlir_runner_utils.
// The generator is std::mt19937 and the distribution std::uniform_int_-
// distribution, as in MLIR, so a seed gives MLIR's sequence with the same
// C++ standard library.
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "view.h"

namespace {

template <typename T>
void sortPrefix(std::uint64_t n, memjit::runtime::StridedMemRef<T, 1>* v) {
  // As MLIR: the first n elements from the view's start, contiguous (the
  // sparse compiler passes its own dense buffers; the stride is not read).
  if (n == 0) return;
  T* begin = v->data + v->offset;
  std::sort(begin, begin + n);
}

}  // namespace

extern "C" {

double rtclock() {
  timeval tp{};
  if (gettimeofday(&tp, nullptr) != 0)
    std::fprintf(stderr, "Error returning time from gettimeofday: %d\n", errno);
  return static_cast<double>(tp.tv_sec) + static_cast<double>(tp.tv_usec) * 1.0e-6;
}

std::int64_t _mlir_ciface_nanoTime() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
}

void* rtsrand(std::uint64_t seed) { return new std::mt19937(static_cast<std::mt19937::result_type>(seed)); }

std::uint64_t rtrand(void* generator, std::uint64_t m) {
  std::uniform_int_distribution<std::uint64_t> distribution(0, m);
  return distribution(*static_cast<std::mt19937*>(generator));
}

void rtdrand(void* generator) { delete static_cast<std::mt19937*>(generator); }

// A random permutation of 0..size-1, shuffled contiguously as MLIR does and
// then stored through the view's stride.
void _mlir_ciface_shuffle(memjit::runtime::StridedMemRef<std::uint64_t, 1>* m, void* generator) {
  const std::int64_t size = m->sizes[0];
  if (size <= 0) return;
  std::vector<std::uint64_t> permutation(static_cast<std::size_t>(size));
  std::iota(permutation.begin(), permutation.end(), std::uint64_t{0});
  std::shuffle(permutation.begin(), permutation.end(), *static_cast<std::mt19937*>(generator));
  for (std::int64_t i = 0; i < size; ++i)
    m->data[m->offset + i * m->strides[0]] = permutation[static_cast<std::size_t>(i)];
}

void _mlir_ciface_stdSortI64(std::uint64_t n, memjit::runtime::StridedMemRef<std::int64_t, 1>* v) { sortPrefix(n, v); }
void _mlir_ciface_stdSortF64(std::uint64_t n, memjit::runtime::StridedMemRef<double, 1>* v) { sortPrefix(n, v); }
void _mlir_ciface_stdSortF32(std::uint64_t n, memjit::runtime::StridedMemRef<float, 1>* v) { sortPrefix(n, v); }

}  // extern "C"
