// Parallel loops on a machine whose cores are busy (bench_parallel): each
// kernel serial (memjit) and with parallelFor/parallelReduce (memjit_par),
// on an idle machine and beside a background load the benchmark starts itself,
// one busy thread per core (so with the kernel's own threads, twice as many
// busy threads as cores).
//
//   Parallel/{idle,oversubscribed}/<kernel>/{memjit_par,memjit}
//     kernels: conv3x3 (1024 x 1024), gelu (4M floats, tanh form), sum (4M doubles)
//
// The target (docs/parallel-loops.md): oversubscribed memjit_par >= 0.9x the
// speed of oversubscribed memjit, with no environment variable set, and idle
// memjit_par at the speed it had before. Run the pairs with
// --benchmark_enable_random_interleaving and repetitions: a loaded
// scheduler's preemptions (a 4 ms tick on one call in three) drift between
// blocks of back-to-back repetitions, so only interleaved medians compare.
#include <benchmark/benchmark.h>

#include <atomic>
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "conv3x3_kernel.h"
#include "jit_kernels.h"
#include "sum_kernel.h"
#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using codegen::Value;

namespace {

constexpr long kConvN = 1024;
constexpr long kVecN = 4 << 20;

// One spinning thread per core while alive (started by each benchmark, so
// every figure's load is the same whatever else runs).
class BackgroundLoad {
 public:
  BackgroundLoad() {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        volatile unsigned long spin = 0;
        while (!stop_.load(std::memory_order_relaxed)) spin = spin + 1;
      });
  }
  ~BackgroundLoad() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

codegen::FunctionOptions noalias(std::size_t n) {
  codegen::FunctionOptions o;
  o.arguments.assign(n, codegen::ArgumentAttributes{true, 0});  // std::vector data: no alignment promised
  return o;
}

Error build(codegen::Module& m, bool par) {
  const std::string s = par ? "_par" : "";
  if (Error e = bench::addConv3x3(m, "conv3x3" + s, noalias(3), par)) return e;
  {
    codegen::FunctionBuilder b(m, "gelu" + s, *parseFunctionType("(memref<?xf32>, memref<?xf32>) -> ()"), noalias(2));
    Value x = b.arg(0), y = b.arg(1);
    auto body = [&](Value i) {
      Value v = b.load(x, {i});
      b.store(0.5f * v * (1.0f + b.tanh(0.7978845608f * (v + 0.044715f * v * v * v))), y, {i});
    };
    if (par) b.parallelFor(b.index(0), b.dim(x, 0), b.index(1), {}, body);
    else b.forLoop(b.index(0), b.dim(x, 0), b.index(1), body);
    if (Error e = b.finish()) return e;
  }
  return bench::addSum(m, "sum" + s, noalias(1), par);
}

struct Kernels {
  static bench::JitKernels& instance() {
    static bench::JitKernels k = bench::JitKernels::makeSerialAndParallel("parallel_oversubscribed", build);
    return k;
  }
};

template <typename T, int R>
runtime::StridedMemRef<T, R> view(std::vector<T>& v, long rows, long cols) {
  if constexpr (R == 1) return {v.data(), v.data(), 0, {rows}, {1}};
  else return {v.data(), v.data(), 0, {rows, cols}, {cols, 1}};
}

enum class Kernel { Conv, Gelu, Sum };

void BM_Loaded(benchmark::State& state, Kernel kernel, bool par, bool loaded) {
  auto& k = Kernels::instance();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const std::string s = par ? "_par" : "";
  std::vector<float> a, w(9, 0.1f), out;
  std::vector<double> d;
  std::function<void()> run;
  using M2 = runtime::StridedMemRef<float, 2>;
  using V1 = runtime::StridedMemRef<float, 1>;
  using D1 = runtime::StridedMemRef<double, 1>;
  M2 in2, w2, out2;
  V1 x1, y1;
  D1 d1;
  if (kernel == Kernel::Conv) {
    a.assign((kConvN + 2) * (kConvN + 2), 0.5f), out.assign(kConvN * kConvN, 0);
    in2 = view<float, 2>(a, kConvN + 2, kConvN + 2), w2 = view<float, 2>(w, 3, 3), out2 = view<float, 2>(out, kConvN, kConvN);
    auto f = reinterpret_cast<void (*)(M2*, M2*, M2*)>(k.get("conv3x3" + s));
    run = [&, f] { f(&in2, &w2, &out2); };
  } else if (kernel == Kernel::Gelu) {
    a.assign(kVecN, 0.25f), out.assign(kVecN, 0);
    x1 = view<float, 1>(a, kVecN, 0), y1 = view<float, 1>(out, kVecN, 0);
    auto f = reinterpret_cast<void (*)(V1*, V1*)>(k.get("gelu" + s));
    run = [&, f] { f(&x1, &y1); };
  } else {
    d.assign(kVecN, 0.5);
    d1 = view<double, 1>(d, kVecN, 0);
    auto f = reinterpret_cast<double (*)(D1*)>(k.get("sum" + s));
    run = [&, f] { benchmark::DoNotOptimize(f(&d1)); };
  }
  run();  // first touch and first region outside the timing
  std::optional<BackgroundLoad> load;
  if (loaded) load.emplace();
  for (auto _ : state) run();
}

const int kRegistered = [] {
  const std::pair<Kernel, const char*> kernels[] = {{Kernel::Conv, "conv3x3"}, {Kernel::Gelu, "gelu"}, {Kernel::Sum, "sum"}};
  for (bool loaded : {false, true})
    for (auto [kernel, name] : kernels)
      for (bool par : {true, false})
        benchmark::RegisterBenchmark((std::string("Parallel/") + (loaded ? "oversubscribed/" : "idle/") + name + "/" +
                                      (par ? "memjit_par" : "memjit"))
                                         .c_str(),
                                     BM_Loaded, kernel, par, loaded)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
  return 0;
}();

}  // namespace
