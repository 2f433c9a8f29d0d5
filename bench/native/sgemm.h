// bench_sgemm's `native` system: the blocked algorithm of memjit's addSgemm
// (the same packing, cache blocks and MR x NR micro-kernel) in plain C++,
// compiled -O3 -march=native so the compiler's vectoriser does what memjit's
// builder code states explicitly.
#pragma once

#include <cstdint>

namespace memjit::bench {

/// C = A * B, row-major with leading dimensions, one thread.
void nativeSgemm(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
                 std::int64_t m, std::int64_t n, std::int64_t k);

/// FLOPs of a 16-accumulator FMA loop over `iterations` steps (2 * 16 * 16
/// per step), for the one-core FP32 peak: independent chains, no memory.
float nativeFmaPeak(std::int64_t iterations);

}  // namespace memjit::bench
