// Parallel loops: memjit kernels with forLoop (memjit) and parallelFor /
// parallelReduce (memjit_par), against the same loops in C++ -O3 -march=native
// (native) and with `#pragma omp parallel for` (native_omp), in one run.
//
//   Kernel/<kernel>/{memjit,memjit_par,native,native_omp}/<size>
//     kernels: matmul (tiled, n x n), exp_tanh (16M floats), conv3x3
//     (2048 x 2048), sum (16M doubles, reduction; also memjit_par_deterministic,
//     ParallelOptions::deterministic), add (16M floats)
//   Parallel/overhead/{memjit,openmp,tbb}   one region of one tiny iteration per thread
//                                         (tbb when oneTBB is installed)
//
// Every kernel's result is checked against native once per run (sum: to a
// relative 1e-9, as partials are combined out of serial order).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/parallel.h"
#include "memjit/type_syntax.h"
#include "conv3x3_kernel.h"
#include "jit_kernels.h"
#include "sum_kernel.h"
#include "tiled_matmul_kernel.h"
#include "parallel_native.h"

using namespace memjit;
using codegen::Value;
using Vec = runtime::StridedMemRef<float, 1>;
using VecD = runtime::StridedMemRef<double, 1>;
using VecL = runtime::StridedMemRef<std::int64_t, 1>;
using Mat = runtime::StridedMemRef<float, 2>;

namespace {

constexpr long kBig = 16 << 20;
constexpr long kConv = 2048;

template <typename T>
struct Buffer {
  T* p = nullptr;
  long n = 0;
  explicit Buffer(long n) : p(static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64))), n(n) {}
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
};

template <typename T>
runtime::StridedMemRef<T, 1> vec(Buffer<T>& b) { return {b.p, b.p, 0, {b.n}, {1}}; }
Mat mat(Buffer<float>& b, long rows, long cols) { return {b.p, b.p, 0, {rows, cols}, {cols, 1}}; }

// Builds a loop serially (forLoop) or in parallel (parallelFor).
void loop(codegen::FunctionBuilder& b, bool par, Value lb, Value ub, Value step, const std::function<void(Value)>& body) {
  if (par)
    b.parallelFor(lb, ub, step, {}, body);
  else
    b.forLoop(lb, ub, step, body);
}

codegen::FunctionOptions noalias(std::size_t n) {
  codegen::FunctionOptions o;
  o.arguments.assign(n, codegen::ArgumentAttributes{true, 64});
  return o;
}

Error build(codegen::Module& m, bool par) {
  const std::string s = par ? "_par" : "";
  if (Error e = bench::addTiledMatmul(m, "matmul" + s, noalias(3), par, native::kTileI, native::kTileK)) return e;
  {
    codegen::FunctionBuilder b(m, "exp_tanh" + s, *parseFunctionType("(memref<?xf32>, memref<?xf32>) -> ()"), noalias(2));
    Value x = b.arg(0), y = b.arg(1);
    loop(b, par, b.index(0), b.dim(x, 0), b.index(1), [&](Value i) {
      Value v = b.load(x, {i});
      b.store(b.exp(v) * b.tanh(v), y, {i});
    });
    if (Error e = b.finish()) return e;
  }
  {
    if (Error e = bench::addConv3x3(m, "conv3x3" + s, noalias(3), par)) return e;
  }
  if (Error e = bench::addSum(m, "sum" + s, noalias(1), par)) return e;
  // The same sum with ParallelOptions::deterministic: fixed blocks and combine tree.
  if (par)
    if (Error e = bench::addSum(m, "sum_par_det", noalias(1), true, {.deterministic = true})) return e;
  {
    codegen::FunctionBuilder b(m, "add" + s, *parseFunctionType("(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()"), noalias(3));
    Value x = b.arg(0), y = b.arg(1), z = b.arg(2);
    loop(b, par, b.index(0), b.dim(x, 0), b.index(1), [&](Value i) { b.store(b.load(x, {i}) + b.load(y, {i}), z, {i}); });
    if (Error e = b.finish()) return e;
  }
  if (par) {
    codegen::FunctionBuilder b(m, "empty_region", *parseFunctionType("(memref<?xi64>) -> ()"), noalias(1));
    Value out = b.arg(0);
    b.parallelFor(b.index(0), b.dim(out, 0), b.index(1), {}, [&](Value i) { b.store(b.cast(i, ElementType::I64), out, {i}); });
    if (Error e = b.finish()) return e;
  }
  return Error::success();
}

struct Kernels {
  static bench::JitKernels& instance() {
    static bench::JitKernels k = bench::JitKernels::makeSerialAndParallel("bench_parallel", build);
    return k;
  }
};

enum System { Memjit, MemjitPar, Native, NativeOmp, MemjitParDeterministic };
const char* kSystems[] = {"memjit", "memjit_par", "native", "native_omp", "memjit_par_deterministic"};

bool close(const float* a, const float* b, long n, float tol) {
  for (long i = 0; i < n; ++i)
    if (std::fabs(a[i] - b[i]) > tol * (1 + std::fabs(b[i]))) return false;
  return true;
}

void fill(float* p, long n, float scale) {
  for (long i = 0; i < n; ++i) p[i] = scale * static_cast<float>((i * 7919) % 1000) / 1000.0f - scale / 2;
}

// Runs f once against the native result (checked once per run and system).
template <typename F>
void checkOnce(benchmark::State& state, const std::string& key, F&& ok) {
  static std::map<std::string, bool> done;
  if (done[key]) return;
  done[key] = true;
  if (!ok()) state.SkipWithError(("result differs from native: " + key).c_str());
}

void BM_Matmul(benchmark::State& state, System sys) {
  auto& k = Kernels::instance();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const long n = state.range(0);
  Buffer<float> A(n * n), B(n * n), C(n * n), R(n * n);
  fill(A.p, n * n, 1), fill(B.p, n * n, 2);
  Mat a = mat(A, n, n), b = mat(B, n, n), c = mat(C, n, n);
  auto f = reinterpret_cast<void (*)(Mat*, Mat*, Mat*)>(k.get(sys == MemjitPar ? "matmul_par" : "matmul"));
  auto run = [&] {
    if (sys == Native) native::matmul(A.p, B.p, C.p, n);
    else if (sys == NativeOmp) native::matmulOmp(A.p, B.p, C.p, n);
    else f(&a, &b, &c);
  };
  run();
  native::matmul(A.p, B.p, R.p, n);
  checkOnce(state, "matmul" + std::to_string(n) + kSystems[sys], [&] { return close(C.p, R.p, n * n, 1e-3f); });
  for (auto _ : state) run();
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations(), benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void BM_ExpTanh(benchmark::State& state, System sys) {
  auto& k = Kernels::instance();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const long n = state.range(0);
  Buffer<float> X(n), Y(n), R(n);
  fill(X.p, n, 4);
  Vec x = vec(X), y = vec(Y);
  auto f = reinterpret_cast<void (*)(Vec*, Vec*)>(k.get(sys == MemjitPar ? "exp_tanh_par" : "exp_tanh"));
  auto run = [&] {
    if (sys == Native) native::expTanh(X.p, Y.p, n);
    else if (sys == NativeOmp) native::expTanhOmp(X.p, Y.p, n);
    else f(&x, &y);
  };
  run();
  native::expTanh(X.p, R.p, n);
  checkOnce(state, std::string("exp_tanh") + kSystems[sys], [&] { return close(Y.p, R.p, n, 1e-5f); });
  for (auto _ : state) run();
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_Conv(benchmark::State& state, System sys) {
  auto& k = Kernels::instance();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const long n = state.range(0);
  Buffer<float> In((n + 2) * (n + 2)), W(9), Out(n * n), R(n * n);
  fill(In.p, (n + 2) * (n + 2), 2);
  fill(W.p, 9, 1);
  Mat in = mat(In, n + 2, n + 2), w = mat(W, 3, 3), out = mat(Out, n, n);
  auto f = reinterpret_cast<void (*)(Mat*, Mat*, Mat*)>(k.get(sys == MemjitPar ? "conv3x3_par" : "conv3x3"));
  auto run = [&] {
    if (sys == Native) native::conv3x3(In.p, W.p, Out.p, n);
    else if (sys == NativeOmp) native::conv3x3Omp(In.p, W.p, Out.p, n);
    else f(&in, &w, &out);
  };
  run();
  native::conv3x3(In.p, W.p, R.p, n);
  checkOnce(state, std::string("conv3x3") + kSystems[sys], [&] { return close(Out.p, R.p, n * n, 1e-5f); });
  for (auto _ : state) run();
  state.SetItemsProcessed(state.iterations() * n * n);
}

void BM_Sum(benchmark::State& state, System sys) {
  auto& k = Kernels::instance();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const long n = state.range(0);
  Buffer<double> X(n);
  for (long i = 0; i < n; ++i) X.p[i] = static_cast<double>((i * 7919) % 1000) / 1000.0;
  VecD x = vec(X);
  auto f = reinterpret_cast<double (*)(VecD*)>(
      k.get(sys == MemjitPar ? "sum_par" : sys == MemjitParDeterministic ? "sum_par_det" : "sum"));
  auto run = [&] {
    if (sys == Native) return native::sum(X.p, n);
    if (sys == NativeOmp) return native::sumOmp(X.p, n);
    return f(&x);
  };
  const double want = native::sum(X.p, n), got = run();
  checkOnce(state, std::string("sum") + kSystems[sys], [&] { return std::fabs(got - want) <= 1e-9 * std::fabs(want); });
  for (auto _ : state) benchmark::DoNotOptimize(run());
  state.SetBytesProcessed(state.iterations() * n * 8);
}

void BM_Add(benchmark::State& state, System sys) {
  auto& k = Kernels::instance();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const long n = state.range(0);
  Buffer<float> X(n), Y(n), Z(n), R(n);
  fill(X.p, n, 1), fill(Y.p, n, 3);
  Vec x = vec(X), y = vec(Y), z = vec(Z);
  auto f = reinterpret_cast<void (*)(Vec*, Vec*, Vec*)>(k.get(sys == MemjitPar ? "add_par" : "add"));
  auto run = [&] {
    if (sys == Native) native::add(X.p, Y.p, Z.p, n);
    else if (sys == NativeOmp) native::addOmp(X.p, Y.p, Z.p, n);
    else f(&x, &y, &z);
  };
  run();
  native::add(X.p, Y.p, R.p, n);
  checkOnce(state, std::string("add") + kSystems[sys], [&] { return close(Z.p, R.p, n, 0); });
  for (auto _ : state) run();
  state.SetBytesProcessed(state.iterations() * n * 12);
}

enum class Pool { Memjit, OpenMP, Tbb };
void BM_Overhead(benchmark::State& state, Pool pool) {
  auto& k = Kernels::instance();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const long threads = runtime::numThreads();
  Buffer<std::int64_t> out(threads);
  VecL o = vec(out);
  auto f = reinterpret_cast<void (*)(VecL*)>(k.get("empty_region"));
  for (auto _ : state) {
    if (pool == Pool::Memjit) f(&o);
#ifdef MEMJIT_BENCH_HAVE_TBB
    else if (pool == Pool::Tbb) native::emptyRegionTbb(reinterpret_cast<long*>(out.p), threads);
#endif
    else native::emptyRegionOmp(reinterpret_cast<long*>(out.p), threads);
    benchmark::ClobberMemory();
  }
}

const int kRegistered = [] {
  for (int s = 0; s < 4; ++s) {
    const auto sys = static_cast<System>(s);
    const std::string name = kSystems[s];
    benchmark::RegisterBenchmark(("Kernel/matmul/" + name).c_str(), BM_Matmul, sys)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("Kernel/exp_tanh/" + name).c_str(), BM_ExpTanh, sys)->Arg(kBig)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("Kernel/conv3x3/" + name).c_str(), BM_Conv, sys)->Arg(kConv)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("Kernel/sum/" + name).c_str(), BM_Sum, sys)->Arg(kBig)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("Kernel/add/" + name).c_str(), BM_Add, sys)->Arg(kBig)->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::RegisterBenchmark("Kernel/sum/memjit_par_deterministic", BM_Sum, MemjitParDeterministic)->Arg(kBig)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("Parallel/overhead/memjit", BM_Overhead, Pool::Memjit)->UseRealTime();
  benchmark::RegisterBenchmark("Parallel/overhead/openmp", BM_Overhead, Pool::OpenMP)->UseRealTime();
#ifdef MEMJIT_BENCH_HAVE_TBB
  benchmark::RegisterBenchmark("Parallel/overhead/tbb", BM_Overhead, Pool::Tbb)->UseRealTime();
#endif
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
