// Matrix multiplication two ways from memjit's kernel library: the naive
// triple loop, and addSgemm, the packed, cache-blocked, register-blocked
// GEMM written with the builder's vector operations (sized for this CPU's
// vector registers). Both are checked against a double-precision C++
// reference and timed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"

using namespace memjit;
using Mat = runtime::StridedMemRef<float, 2>;

static int fail(const Error& e) {
  std::fprintf(stderr, "matmul: %s\n", e.str().c_str());
  return 1;
}

template <typename F>
static double bestSeconds(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

int main() {
  codegen::Module module("matmul");
  if (Error e = codegen::addMatmul(module, "matmul_naive")) return fail(e);
  if (Error e = codegen::addSgemm(module, "matmul_blocked")) return fail(e);
  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O3});
  if (!jit) return fail(jit.error());
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error());
  auto naiveFn = loaded->function("matmul_naive");
  auto blockedFn = loaded->function("matmul_blocked");
  if (!naiveFn) return fail(naiveFn.error());
  if (!blockedFn) return fail(blockedFn.error());
  auto naive = naiveFn->as<void(Mat, Mat, Mat)>();
  auto blocked = blockedFn->as<void(Mat, Mat, Mat)>();
  if (!naive) return fail(naive.error());
  if (!blocked) return fail(blocked.error());

  std::printf("%-14s %10s %12s %12s\n", "M x K x N", "kernel", "ms", "GFLOP/s");
  // Odd sizes on purpose: the tiles do not divide them.
  for (auto [M, K, N] : {std::array<std::int64_t, 3>{67, 45, 93}, {256, 256, 256}, {333, 517, 401}}) {
    std::vector<float> a(M * K), b(K * N), c1(M * N, -1.0f), c2(M * N, -2.0f);
    for (std::int64_t i = 0; i < M * K; ++i) a[i] = float((i * 7) % 11) - 5.0f;
    for (std::int64_t i = 0; i < K * N; ++i) b[i] = 0.25f * float((i * 5) % 13) - 1.0f;
    Mat va = runtime::makeView(a, std::array<std::int64_t, 2>{M, K});
    Mat vb = runtime::makeView(b, std::array<std::int64_t, 2>{K, N});
    Mat v1 = runtime::makeView(c1, std::array<std::int64_t, 2>{M, N});
    Mat v2 = runtime::makeView(c2, std::array<std::int64_t, 2>{M, N});
    int reps = M * K * N > 10'000'000 ? 3 : 10;
    double tNaive = bestSeconds(reps, [&] { (*naive)(va, vb, v1); });
    double tBlocked = bestSeconds(reps, [&] { (*blocked)(va, vb, v2); });

    // The reference, in double: float rounding stays far below the tolerance.
    for (std::int64_t i = 0; i < M; ++i)
      for (std::int64_t j = 0; j < N; ++j) {
        double ref = 0;
        for (std::int64_t k = 0; k < K; ++k) ref += double(a[i * K + k]) * double(b[k * N + j]);
        double tol = 1e-4 * std::max(1.0, std::fabs(ref));
        if (std::fabs(c1[i * N + j] - ref) > tol || std::fabs(c2[i * N + j] - ref) > tol) {
          std::fprintf(stderr, "matmul: C[%ld][%ld] naive %g sgemm %g, expected %g\n", long(i), long(j),
                       double(c1[i * N + j]), double(c2[i * N + j]), ref);
          return 1;
        }
      }
    double flops = 2.0 * double(M) * double(K) * double(N);
    char shape[32];
    std::snprintf(shape, sizeof shape, "%ldx%ldx%ld", long(M), long(K), long(N));
    std::printf("%-14s %10s %12.3f %12.2f\n", shape, "naive", tNaive * 1e3, flops / tNaive * 1e-9);
    std::printf("%-14s %10s %12.3f %12.2f\n", "", "sgemm", tBlocked * 1e3, flops / tBlocked * 1e-9);
  }
  std::printf("both kernels match the C++ reference\n");
  return 0;
}
