// Single-precision matrix multiply: memjit's kernel-library sgemm (addSgemm,
// written with the builder's vector ops) against OpenBLAS pinned to one
// thread and against the same blocked algorithm in C++ (bench/native/sgemm.cpp,
// -O3 -march=native), plus memjit's parallel build and the one-core FP32
// peak of a 16-accumulator FMA loop, all in the same run.
//
//   Kernel/sgemm/<system>/<n>        systems: memjit openblas native memjit_par; n x n x n
//   Kernel/sgemm/<system>/<m>x<n>x<k>  the small and skinny shapes
//   Kernel/sgemm/<system>/<size>_At    A passed transposed (column-major
//                                      view of Aᵀ; memjit and openblas only)
//   Kernel/sgemm/<system>/<size>_Bt    B passed transposed
//   Kernel/fma_peak/native/1          GFLOP/s of the FMA loop (the peak)
//
// The context line openblas_core names the kernels OpenBLAS chose; where it
// misdetects an AVX-512 CPU the benchmark re-executes itself with
// OPENBLAS_CORETYPE=SkylakeX (bench/openblas_core.h).
//
// Counters: GFLOP/s (2mnk per call over wall time), cpu_GFLOP/s (over the
// calling thread's CPU time); of_peak: cpu_GFLOP/s over fma_peak's, measured
// first in the same run. Every system's result is checked
// against a double-precision product once per shape.
#include <benchmark/benchmark.h>

#include <cblas.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/parallel.h"
#include "native/sgemm.h"
#include "openblas_core.h"

using namespace memjit;
using Mat = runtime::StridedMemRef<float, 2>;

namespace {

double gPeak = 0;  // GFLOP/s of Kernel/fma_peak/native/1

struct Shape {
  std::int64_t m, n, k;
  std::string name() const {
    return m == n && n == k ? std::to_string(n) : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
};

// Square sizes, then skinny shapes: a tall-thin panel update and a
// short-wide one (the shapes of a blocked factorisation's trailing updates),
// and attention heads / small layers (64 or 128 wide).
const Shape kShapes[] = {{64, 64, 64},       {256, 256, 256},   {512, 512, 512},  {1024, 1024, 1024},
                         {2048, 2048, 2048}, {4096, 64, 256},   {64, 4096, 1024}, {128, 64, 128},
                         {1024, 64, 1024}};
// Transposed operands at a cache-resident, an unpacked-skinny and a large shape.
const Shape kTransposedShapes[] = {{256, 256, 256}, {4096, 64, 256}, {1024, 1024, 1024}};

// Which operand is passed transposed (a column-major view).
enum class Transposed { None, A, B };

struct Kernels {
  std::unique_ptr<jit::Jit> jit;
  std::optional<jit::LoadedModule> mod;
  void (*serial)(Mat*, Mat*, Mat*) = nullptr;
  void (*parallel)(Mat*, Mat*, Mat*) = nullptr;
  void (*transposedA)(Mat*, Mat*, Mat*) = nullptr;
  void (*transposedB)(Mat*, Mat*, Mat*) = nullptr;
};

Kernels& kernels() {
  static Kernels k = [] {
    Kernels r;
    codegen::Module m("sgemm");
    codegen::SgemmOptions par;
    par.parallel = true;
    if (Error e = codegen::addSgemm(m, "sgemm", {})) std::abort();
    if (Error e = codegen::addSgemm(m, "sgemm_par", par)) std::abort();
    if (Error e = codegen::addSgemm(m, "sgemm_At", {.a = codegen::MatrixLayout::ColumnMajor})) std::abort();
    if (Error e = codegen::addSgemm(m, "sgemm_Bt", {.b = codegen::MatrixLayout::ColumnMajor})) std::abort();
    // MEMJIT_BENCH_DUMP=<dir> leaves the IR and the object there to disassemble.
    jit::JitOptions jo;
    if (const char* dir = std::getenv("MEMJIT_BENCH_DUMP")) jo.dumpDirectory = dir;
    auto j = jit::Jit::create(jo);
    if (!j) std::abort();
    r.jit = std::make_unique<jit::Jit>(std::move(*j));
    auto mod = r.jit->add(std::move(m));
    if (!mod) {
      std::fprintf(stderr, "%s\n", mod.error().str().c_str());
      std::abort();
    }
    r.mod.emplace(std::move(*mod));
    r.serial = reinterpret_cast<void (*)(Mat*, Mat*, Mat*)>(*r.mod->symbol("_mlir_ciface_sgemm"));
    r.parallel = reinterpret_cast<void (*)(Mat*, Mat*, Mat*)>(*r.mod->symbol("_mlir_ciface_sgemm_par"));
    r.transposedA = reinterpret_cast<void (*)(Mat*, Mat*, Mat*)>(*r.mod->symbol("_mlir_ciface_sgemm_At"));
    r.transposedB = reinterpret_cast<void (*)(Mat*, Mat*, Mat*)>(*r.mod->symbol("_mlir_ciface_sgemm_Bt"));
    return r;
  }();
  return k;
}

// A (m x k) and B (k x n) row-major, or stored transposed (Aᵀ k x m, Bᵀ
// n x k, row-major) and viewed column-major.
struct Operands {
  std::vector<float> a, b, c;
  Shape s;
  Transposed t;
  Operands(Shape shape, Transposed transposed)
      : a(shape.m * shape.k), b(shape.k * shape.n), c(shape.m * shape.n), s(shape), t(transposed) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i * 7 % 23) - 11) / 16;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i * 5 % 19) - 9) / 16;
  }
  std::int64_t lda() const { return t == Transposed::A ? s.m : s.k; }
  std::int64_t ldb() const { return t == Transposed::B ? s.k : s.n; }
  float aAt(std::int64_t i, std::int64_t p) const { return t == Transposed::A ? a[p * s.m + i] : a[i * s.k + p]; }
  float bAt(std::int64_t p, std::int64_t j) const { return t == Transposed::B ? b[j * s.k + p] : b[p * s.n + j]; }
  Mat view(std::vector<float>& v, std::int64_t rows, std::int64_t cols, bool columnMajor) {
    if (columnMajor) return {v.data(), v.data(), 0, {rows, cols}, {1, rows}};
    return {v.data(), v.data(), 0, {rows, cols}, {cols, 1}};
  }
  // The largest error against a double product over a sample of entries,
  // relative to the sum of magnitudes.
  double error() const {
    double worst = 0;
    for (std::int64_t i = 0; i < s.m; i += std::max<std::int64_t>(1, s.m / 17))
      for (std::int64_t j = 0; j < s.n; j += std::max<std::int64_t>(1, s.n / 13)) {
        double ref = 0, mag = 0;
        for (std::int64_t p = 0; p < s.k; ++p) {
          ref += static_cast<double>(aAt(i, p)) * bAt(p, j);
          mag += std::abs(static_cast<double>(aAt(i, p)) * bAt(p, j));
        }
        worst = std::max(worst, std::abs(c[i * s.n + j] - ref) / (mag + 1e-30));
      }
    return worst;
  }
};

enum class System { Memjit, MemjitPar, OpenBlas, Native };

void run(System sys, Operands& o) {
  Mat va = o.view(o.a, o.s.m, o.s.k, o.t == Transposed::A), vb = o.view(o.b, o.s.k, o.s.n, o.t == Transposed::B),
      vc = o.view(o.c, o.s.m, o.s.n, false);
  switch (sys) {
    case System::Memjit:
      (o.t == Transposed::A ? kernels().transposedA : o.t == Transposed::B ? kernels().transposedB
                                                                           : kernels().serial)(&va, &vb, &vc);
      break;
    case System::MemjitPar: kernels().parallel(&va, &vb, &vc); break;
    case System::OpenBlas:
      cblas_sgemm(CblasRowMajor, o.t == Transposed::A ? CblasTrans : CblasNoTrans,
                  o.t == Transposed::B ? CblasTrans : CblasNoTrans, static_cast<int>(o.s.m), static_cast<int>(o.s.n),
                  static_cast<int>(o.s.k), 1.0f, o.a.data(), static_cast<int>(o.lda()), o.b.data(),
                  static_cast<int>(o.ldb()), 0.0f, o.c.data(), static_cast<int>(o.s.n));
      break;
    case System::Native:
      bench::nativeSgemm(o.a.data(), o.s.k, o.b.data(), o.s.n, o.c.data(), o.s.n, o.s.m, o.s.n, o.s.k);
      break;
  }
}

void BM_Sgemm(benchmark::State& state, System sys, Shape s, Transposed t) {
  Operands o(s, t);
  run(sys, o);
  if (o.error() > 1e-5) {
    state.SkipWithError("wrong result");
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    run(sys, o);
    benchmark::DoNotOptimize(o.c.data());
    benchmark::ClobberMemory();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = 2.0 * s.m * s.n * s.k * static_cast<double>(state.iterations());
  // Wall-clock rate (the parallel build's threads included); cpu_GFLOP/s is
  // the calling thread's CPU time, steadier on a busy machine for one thread.
  state.counters["GFLOP/s"] = flops / 1e9 / wall;
  state.counters["cpu_GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(sys == System::MemjitPar ? std::to_string(runtime::numThreads()) + " threads" : "1 thread");
}

void BM_FmaPeak(benchmark::State& state) {
  const std::int64_t iterations = 1 << 20;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(bench::nativeFmaPeak(iterations));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = 2.0 * 16 * 16 * static_cast<double>(iterations) * static_cast<double>(state.iterations());
  state.counters["GFLOP/s"] = flops / 1e9 / wall;
  state.counters["cpu_GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
}

// of_peak for every sgemm run: GFLOP/s over the peak (from this process's
// fma_peak run, measured first).
class PeakReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> copy = runs;
    for (Run& r : copy) {
      auto it = r.counters.find("cpu_GFLOP/s");
      if (it == r.counters.end()) continue;
      const double rate = it->second.value;  // already a rate: counters are finished before reporting
      if (r.benchmark_name().rfind("Kernel/fma_peak", 0) == 0 && r.run_type == Run::RT_Iteration)
        gPeak = std::max(gPeak, rate);
      if (gPeak > 0 && r.benchmark_name().rfind("Kernel/sgemm", 0) == 0)
        r.counters["of_peak"] = benchmark::Counter(rate / gPeak);
    }
    ConsoleReporter::ReportRuns(copy);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bool openblasTwins = openblas_core::ensureAvx512Kernels(argv);
  // OpenBLAS on one thread: the anchor is one core's BLAS.
  openblas_set_num_threads(1);
  benchmark::Initialize(&argc, argv);
  benchmark::RegisterBenchmark("Kernel/fma_peak/native/1", BM_FmaPeak)->Unit(benchmark::kMicrosecond);
  const std::pair<const char*, System> systems[] = {{"memjit", System::Memjit},
                                                    {"openblas", System::OpenBlas},
                                                    {"native", System::Native},
                                                    {"memjit_par", System::MemjitPar}};
  for (const Shape& s : kShapes)
    for (auto [name, sys] : systems) {
      if (sys == System::OpenBlas && !openblasTwins) continue;
      benchmark::RegisterBenchmark(("Kernel/sgemm/" + std::string(name) + "/" + s.name()).c_str(), BM_Sgemm, sys, s,
                                   Transposed::None)
          ->Unit(benchmark::kMicrosecond);
    }
  for (auto [suffix, t] : {std::pair{"_At", Transposed::A}, std::pair{"_Bt", Transposed::B}})
    for (const Shape& s : kTransposedShapes)
      for (auto [name, sys] : {systems[0], systems[1]}) {
        if (sys == System::OpenBlas && !openblasTwins) continue;
        benchmark::RegisterBenchmark(("Kernel/sgemm/" + std::string(name) + "/" + s.name() + suffix).c_str(), BM_Sgemm,
                                     sys, s, t)
            ->Unit(benchmark::kMicrosecond);
      }
  PeakReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
