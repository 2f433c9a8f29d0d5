// Parallel loops: a kernel that normalises rows with a parallel loop and a
// kernel that sums squares with a parallel reduction, checked against serial
// C++ and timed beside the same loops under `#pragma omp parallel for`.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/parallel.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using codegen::Value;
using Mat = runtime::StridedMemRef<float, 2>;
using Vec = runtime::StridedMemRef<double, 1>;

template <typename F>
double millis(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int main() {
  codegen::Module m("parallel_example");
  {
    // normalize(m): each row divided by its largest absolute value; rows in parallel.
    codegen::FunctionBuilder b(m, "normalize", *parseFunctionType("(memref<?x?xf32>) -> ()"));
    Value a = b.arg(0), rows = b.dim(a, 0), cols = b.dim(a, 1), zero = b.index(0), one = b.index(1);
    b.parallelFor(zero, rows, one, {}, [&](Value i) {
      Value peak = b.forLoop(zero, cols, one, {b.f32(0)}, [&](Value j, const std::vector<Value>& acc) {
        return std::vector<Value>{b.max(acc[0], b.abs(b.load(a, {i, j})))};
      })[0];
      Value inv = b.f32(1) / b.max(peak, b.f32(1e-30f));
      b.forLoop(zero, cols, one, [&](Value j) { b.store(b.load(a, {i, j}) * inv, a, {i, j}); });
    });
    if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  }
  {
    // sumsq(x) = sum of x[i]^2, a parallel reduction.
    codegen::FunctionBuilder b(m, "sumsq", *parseFunctionType("(memref<?xf64>) -> f64"));
    Value x = b.arg(0);
    b.ret(b.parallelReduce(b.index(0), b.dim(x, 0), b.index(1), {}, {codegen::Reduction::sum(b.f64(0))},
                           [&](Value i) {
                             Value v = b.load(x, {i});
                             return std::vector<Value>{v * v};
                           }));
    if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  }
  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O3});
  if (!jit) return std::fprintf(stderr, "%s\n", jit.error().str().c_str()), 1;
  auto mod = jit->add(std::move(m));
  if (!mod) return std::fprintf(stderr, "%s\n", mod.error().str().c_str()), 1;
  auto normalize = reinterpret_cast<void (*)(Mat*)>(*mod->symbol("_mlir_ciface_normalize"));
  auto sumsq = reinterpret_cast<double (*)(Vec*)>(*mod->symbol("_mlir_ciface_sumsq"));

  const long R = 2000, C = 2000;
  std::vector<float> a(R * C), want(R * C);
  for (long i = 0; i < R * C; ++i) a[i] = want[i] = std::sin(0.001f * static_cast<float>(i)) * static_cast<float>(i % 97);
  auto serialNormalize = [](std::vector<float>& v, long R, long C) {
    for (long i = 0; i < R; ++i) {
      float peak = 0;
      for (long j = 0; j < C; ++j) peak = std::fmax(peak, std::fabs(v[i * C + j]));
      const float inv = 1.0f / std::fmax(peak, 1e-30f);
      for (long j = 0; j < C; ++j) v[i * C + j] *= inv;
    }
  };
  Mat d{a.data(), a.data(), 0, {R, C}, {C, 1}};
  const double tMemjit = millis([&] { normalize(&d); });
  const double tSerial = millis([&] { serialNormalize(want, R, C); });
  int failures = 0;
  for (long i = 0; i < R * C; ++i)
    if (a[i] != want[i]) {
      std::fprintf(stderr, "normalize differs at %ld: %g vs %g\n", i, a[i], want[i]);
      ++failures;
      break;
    }

  std::vector<double> x(R * C);
  for (long i = 0; i < R * C; ++i) x[i] = 1.0 / static_cast<double>(i + 1);
  Vec dx{x.data(), x.data(), 0, {R * C}, {1}};
  double got = 0, serial = 0;
  const double tSum = millis([&] { got = sumsq(&dx); });
  for (double v : x) serial += v * v;
  // Partials are combined out of serial order: equal up to rounding.
  if (std::fabs(got - serial) > 1e-12 * serial) std::fprintf(stderr, "sumsq %.17g vs %.17g\n", got, serial), ++failures;

  std::printf("threads %d: normalize %.2f ms (serial C++ %.2f ms), sumsq %.2f ms\n", runtime::numThreads(), tMemjit,
              tSerial, tSum);
#ifdef _OPENMP
  std::vector<float> b = want;
  const double tOmp = millis([&] {
#pragma omp parallel for
    for (long i = 0; i < R; ++i) {
      float peak = 0;
      for (long j = 0; j < C; ++j) peak = std::fmax(peak, std::fabs(b[i * C + j]));
      const float inv = 1.0f / std::fmax(peak, 1e-30f);
      for (long j = 0; j < C; ++j) b[i * C + j] *= inv;
    }
  });
  std::printf("normalize under #pragma omp parallel for: %.2f ms\n", tOmp);
#endif
  if (failures == 0) std::printf("parallel example: results equal serial C++\n");
  return failures == 0 ? 0 : 1;
}
