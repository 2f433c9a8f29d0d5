// The cost of checked mode (FunctionOptions::checked): each kernel built once
// plain (`memjit`) and once checked (`memjit_checked`), both compiled by
// memjit::jit at O3 for the host CPU, measured side by side in one run.
//
//   Kernel/<kernel>/{memjit,memjit_checked}/<size>
//     add          out[i] = a[i] + b[i] over n floats (the kernel library's)
//     conv3x3      2-D 3x3 convolution, n x n output from an (n+2) x (n+2) input
//     conv3x3_par  the same with a 2-D parallelFor (the process's thread count)
//     matmul_naive the kernel library's i-j-k loop nest, n x n
//     matmul_tiled bench_parallel's tiled loop nest (tiled_matmul_kernel.h) in 32 x 128 tiles, n x n
//
// Checked calls go through TypedFunction::call (what a checked caller uses),
// plain ones through operator(). Each checked result is compared with the
// plain one once per run (exactly: the same operations in the same order).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "conv3x3_kernel.h"
#include "jit_kernels.h"
#include "tiled_matmul_kernel.h"

using namespace memjit;
using Vec = runtime::StridedMemRef<float, 1>;
using Mat = runtime::StridedMemRef<float, 2>;

namespace {

struct Floats {
  float* p;
  std::int64_t n;
  explicit Floats(std::int64_t n, float seed)
      : p(static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64))), n(n) {
    for (std::int64_t i = 0; i < n; ++i) p[i] = seed + static_cast<float>((i * 7919) % 97) / 97.0f;
  }
  ~Floats() { std::free(p); }
  Floats(const Floats&) = delete;
  Vec vec() const { return {p, p, 0, {n}, {1}}; }
  Mat mat(std::int64_t rows, std::int64_t cols) const { return {p, p, 0, {rows, cols}, {cols, 1}}; }
};

codegen::FunctionOptions options(bool checked) {
  codegen::FunctionOptions o;
  o.arguments.assign(3, codegen::ArgumentAttributes{true, 64});
  o.checked = checked;
  return o;
}

Error addConv(codegen::Module& m, const std::string& name, bool checked, bool parallel) {
  return bench::addConv3x3(m, name, options(checked), parallel);
}

struct Kernels {
  bench::JitKernels jit;
  std::string error;

  static Kernels& get() {
    static Kernels k = [] {
      Kernels built{bench::JitKernels::make("checked_bench", build), {}};
      built.error = built.jit.error;
      return built;
    }();
    return k;
  }

  static Error build(codegen::Module& m) {
    for (bool checked : {false, true}) {
      const std::string s = checked ? "_checked" : "";
      codegen::KernelOptions o;
      o.alignment = 64;
      o.checked = checked;
      MEMJIT_TRY(codegen::addElementwiseAdd(m, "add" + s, o));
      MEMJIT_TRY(codegen::addMatmul(m, "matmul_naive" + s, o));
      MEMJIT_TRY(bench::addTiledMatmul(m, "matmul_tiled" + s, options(checked), false, 32, 128));
      MEMJIT_TRY(addConv(m, "conv3x3" + s, checked, false));
      MEMJIT_TRY(addConv(m, "conv3x3_par" + s, checked, true));
    }
    return Error::success();
  }

  template <typename F>
  std::optional<jit::TypedFunction<F>> typed(const std::string& name) {
    auto fn = jit.mod->function(name);
    if (!fn) return error = fn.error().str(), std::nullopt;
    auto t = fn->as<F>();
    if (!t) return error = t.error().str(), std::nullopt;
    return std::move(*t);
  }
};

// Runs `plain` and `checked` once and compares their outputs, then times the one asked for.
template <typename Run>
void measure(benchmark::State& state, bool checked, Run&& run, const std::function<bool()>& sameAsPlain) {
  if (checked) {
    if (Error e = run(false)) return state.SkipWithError(e.str().c_str());
    if (Error e = run(true)) return state.SkipWithError(e.str().c_str());
    if (!sameAsPlain()) return state.SkipWithError("checked result differs from plain");
  }
  for (auto _ : state) {
    Error e = run(checked);
    if (e) return state.SkipWithError(e.str().c_str());
    benchmark::ClobberMemory();
  }
}

void benchAdd(benchmark::State& state, bool checked) {
  auto& k = Kernels::get();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const std::int64_t n = state.range(0);
  Floats a(n, 1), b(n, 2), out(n, 0), ref(n, 0);
  auto plain = k.typed<void(Vec, Vec, Vec)>("add"), safe = k.typed<void(Vec, Vec, Vec)>("add_checked");
  if (!plain || !safe) return state.SkipWithError(k.error.c_str());
  measure(
      state, checked,
      [&](bool c) {
        if (c) return safe->call(a.vec(), b.vec(), out.vec());
        (*plain)(a.vec(), b.vec(), checked ? ref.vec() : out.vec());
        return Error::success();
      },
      [&] { return std::memcmp(out.p, ref.p, n * 4) == 0; });
  state.counters["GB/s"] = benchmark::Counter(3.0 * 4 * double(n), benchmark::Counter::kIsIterationInvariantRate);
}

void benchConv(benchmark::State& state, bool checked, bool parallel) {
  auto& k = Kernels::get();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const std::int64_t n = state.range(0);
  Floats in((n + 2) * (n + 2), 2), w(9, 1), out(n * n, 0), ref(n * n, 0);
  const std::string name = parallel ? "conv3x3_par" : "conv3x3";
  auto plain = k.typed<void(Mat, Mat, Mat)>(name), safe = k.typed<void(Mat, Mat, Mat)>(name + "_checked");
  if (!plain || !safe) return state.SkipWithError(k.error.c_str());
  measure(
      state, checked,
      [&](bool c) {
        if (c) return safe->call(in.mat(n + 2, n + 2), w.mat(3, 3), out.mat(n, n));
        (*plain)(in.mat(n + 2, n + 2), w.mat(3, 3), checked ? ref.mat(n, n) : out.mat(n, n));
        return Error::success();
      },
      [&] { return std::memcmp(out.p, ref.p, n * n * 4) == 0; });
  state.counters["GFLOP/s"] = benchmark::Counter(18.0 * double(n * n), benchmark::Counter::kIsIterationInvariantRate);
}

void benchMatmul(benchmark::State& state, bool checked, const std::string& name) {
  auto& k = Kernels::get();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const std::int64_t n = state.range(0);
  Floats A(n * n, 1), B(n * n, -1), C(n * n, 0), ref(n * n, 0);
  auto plain = k.typed<void(Mat, Mat, Mat)>(name), safe = k.typed<void(Mat, Mat, Mat)>(name + "_checked");
  if (!plain || !safe) return state.SkipWithError(k.error.c_str());
  measure(
      state, checked,
      [&](bool c) {
        if (c) return safe->call(A.mat(n, n), B.mat(n, n), C.mat(n, n));
        (*plain)(A.mat(n, n), B.mat(n, n), checked ? ref.mat(n, n) : C.mat(n, n));
        return Error::success();
      },
      [&] { return std::memcmp(C.p, ref.p, n * n * 4) == 0; });
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

const int registered = [] {
  for (bool checked : {false, true}) {
    const std::string system = checked ? "/memjit_checked" : "/memjit";
    for (std::int64_t n : {4096, 1 << 20, 16 << 20})
      benchmark::RegisterBenchmark(("Kernel/add" + system).c_str(), benchAdd, checked)->Arg(n)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("Kernel/conv3x3" + system).c_str(), benchConv, checked, false)
        ->Arg(2048)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("Kernel/conv3x3_par" + system).c_str(), benchConv, checked, true)
        ->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("Kernel/matmul_naive" + system).c_str(), benchMatmul, checked, "matmul_naive")
        ->Arg(256)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("Kernel/matmul_tiled" + system).c_str(), benchMatmul, checked, "matmul_tiled")
        ->Arg(512)->Unit(benchmark::kMillisecond);
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
