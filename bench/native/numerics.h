// The native kernels of bench_numerics (see numerics.inc), declared for both
// builds: `native` (-O3 -march=native) and `native_fast` (plus -ffast-math).
#pragma once

#include <cstdint>

#define MEMJIT_DECLARE_NUMERICS(ns)                                                                          \
  namespace ns {                                                                                            \
  void softmax(const float* in, float* out, std::int64_t rows, std::int64_t cols);                          \
  void layernorm(const float* in, const float* gamma, const float* beta, float* out, std::int64_t rows,      \
                 std::int64_t cols);                                                                        \
  void geluTanh(const float* in, float* out, std::int64_t n);                                               \
  void geluErf(const float* in, float* out, std::int64_t n);                                                \
  void hash32(const std::uint32_t* in, std::uint32_t* out, std::int64_t n);                                 \
  void hash64(const std::uint64_t* in, std::uint64_t* out, std::int64_t n);                                 \
  float dotF16(const _Float16* a, const _Float16* b, std::int64_t n);                                       \
  float dotBf16(const std::uint16_t* a, const std::uint16_t* b, std::int64_t n);                            \
  float sum(const float* x, std::int64_t n);                                                                \
  void gemvBf16(const std::uint16_t* w, const float* x, float* y, std::int64_t rows, std::int64_t cols);      \
  }
MEMJIT_DECLARE_NUMERICS(native)
MEMJIT_DECLARE_NUMERICS(native_fast)
#undef MEMJIT_DECLARE_NUMERICS
