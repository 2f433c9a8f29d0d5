// bench_histogram's native twins (native/histogram.cpp, g++ -O3 -march=native -fopenmp).
#pragma once

#include <cstdint>

namespace native {
constexpr int kBins = 256;
void histogram(const std::uint8_t* x, long n, std::int64_t* bins);          // serial
void histogramAtomic(const std::uint8_t* x, long n, std::int64_t* bins);    // serial, relaxed atomic adds
void histogramReduceOmp(const std::uint8_t* x, long n, std::int64_t* bins);  // reduction(+: bins[:256])
void histogramAtomicOmp(const std::uint8_t* x, long n, std::int64_t* bins);  // #pragma omp atomic
}  // namespace native
