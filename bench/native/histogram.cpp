// The C++ a user would write for a byte histogram: serially, and with OpenMP
// the two ways memjit offers (an array reduction and atomic increments).
#include "native/histogram.h"

#include <atomic>

namespace native {

void histogram(const std::uint8_t* x, long n, std::int64_t* bins) {
  for (long i = 0; i < n; ++i) ++bins[x[i]];
}

void histogramAtomic(const std::uint8_t* x, long n, std::int64_t* bins) {
  for (long i = 0; i < n; ++i) std::atomic_ref<std::int64_t>(bins[x[i]]).fetch_add(1, std::memory_order_relaxed);
}

void histogramReduceOmp(const std::uint8_t* x, long n, std::int64_t* bins) {
#pragma omp parallel for reduction(+ : bins[:kBins])
  for (long i = 0; i < n; ++i) ++bins[x[i]];
}

void histogramAtomicOmp(const std::uint8_t* x, long n, std::int64_t* bins) {
#pragma omp parallel for
  for (long i = 0; i < n; ++i) {
#pragma omp atomic
    ++bins[x[i]];
  }
}

}  // namespace native
