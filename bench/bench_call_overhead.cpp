// Call overhead of one `_mlir_ciface_` function with 0, 1, 3 and 8 memref
// arguments and an empty body, through: a direct call with hand-built
// descriptors (the baseline), memjit's typed invoker, memjit's dynamic
// invoker, and MLIR 19's ExecutionEngine::invoke() (when MLIR is installed;
// its kernels are the same empty functions compiled by MLIR in-process).
//
//   CallOverhead/<system>/<nargs>   systems: direct typed dynamic mlir
#include <benchmark/benchmark.h>

#include <vector>

#include "memjit/runtime/callable.h"

#ifdef MEMJIT_HAVE_MLIR
#include "mlir_peer.h"
#endif

using namespace memjit;
using namespace memjit::runtime;
using M = StridedMemRef<float, 1>;

// The kernels: empty bodies the compiler cannot see through.
extern "C" {
__attribute__((noinline)) void _mlir_ciface_bench_k0() { asm volatile(""); }
__attribute__((noinline)) void _mlir_ciface_bench_k1(M* a) { asm volatile("" ::"r"(a)); }
__attribute__((noinline)) void _mlir_ciface_bench_k3(M* a, M* b, M* c) { asm volatile("" ::"r"(a), "r"(b), "r"(c)); }
__attribute__((noinline)) void _mlir_ciface_bench_k8(M* a, M* b, M* c, M* d, M* e, M* f, M* g, M* h) {
  asm volatile("" ::"r"(a), "r"(b), "r"(c), "r"(d), "r"(e), "r"(f), "r"(g), "r"(h));
}
}

namespace {

std::vector<float> storage(64, 1.0f);
M view(int i) { return makeView<float, 1>(storage.data() + i * 8, {8}); }

const char* typeText(int n) {
  switch (n) {
    case 0: return "() -> ()";
    case 1: return "(memref<?xf32>) -> ()";
    case 3: return "(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()";
    default:
      return "(memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, "
             "memref<?xf32>, memref<?xf32>) -> ()";
  }
}
void* kernel(int n) {
  switch (n) {
    case 0: return reinterpret_cast<void*>(&_mlir_ciface_bench_k0);
    case 1: return reinterpret_cast<void*>(&_mlir_ciface_bench_k1);
    case 3: return reinterpret_cast<void*>(&_mlir_ciface_bench_k3);
    default: return reinterpret_cast<void*>(&_mlir_ciface_bench_k8);
  }
}

void direct(benchmark::State& state, int n) {
  M d[8];
  for (int i = 0; i < 8; ++i) d[i] = view(i);
  for (auto _ : state) {
    switch (n) {
      case 0: _mlir_ciface_bench_k0(); break;
      case 1: _mlir_ciface_bench_k1(&d[0]); break;
      case 3: _mlir_ciface_bench_k3(&d[0], &d[1], &d[2]); break;
      default: _mlir_ciface_bench_k8(&d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7]); break;
    }
    benchmark::ClobberMemory();
  }
}

template <typename F, typename... A>
void typedLoop(benchmark::State& state, int n, A&... args) {
  auto fn = Callable::fromTypeText(kernel(n), "k", typeText(n));
  auto t = fn ? fn->as<F>() : Expected<TypedCallable<F>>(fn.error());
  if (!t) {
    state.SkipWithError(t.error().str().c_str());
    return;
  }
  for (auto _ : state) {
    (*t)(args...);
    benchmark::ClobberMemory();
  }
}

void typed(benchmark::State& state, int n) {
  M d[8];
  for (int i = 0; i < 8; ++i) d[i] = view(i);
  switch (n) {
    case 0: typedLoop<void()>(state, n); break;
    case 1: typedLoop<void(M)>(state, n, d[0]); break;
    case 3: typedLoop<void(M, M, M)>(state, n, d[0], d[1], d[2]); break;
    default: typedLoop<void(M, M, M, M, M, M, M, M)>(state, n, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]); break;
  }
}

void dynamic(benchmark::State& state, int n) {
  auto fn = Callable::fromTypeText(kernel(n), "k", typeText(n));
  if (!fn) {
    state.SkipWithError(fn.error().str().c_str());
    return;
  }
  std::vector<Variant> args;
  for (int i = 0; i < n; ++i) args.emplace_back(view(i));
  for (auto _ : state) {
    auto r = fn->invoke(args);
    benchmark::DoNotOptimize(r);
  }
}

#ifdef MEMJIT_HAVE_MLIR
// The same empty kernels (bench/mlir/call_overhead.mlir), compiled by MLIR's
// own pipeline and ExecutionEngine.
std::unique_ptr<mlir::ExecutionEngine> mlirEngine(std::string& error) {
  auto module = memjit::bench::loweredPeerModule({"call_overhead"});
  if (!module) {
    error = llvm::toString(module.takeError());
    return nullptr;
  }
  mlir::ExecutionEngineOptions options;
  auto engine = mlir::ExecutionEngine::create(**module, options);
  if (!engine) {
    error = llvm::toString(engine.takeError());
    return nullptr;
  }
  return std::move(*engine);
}

void mlirInvoke(benchmark::State& state, int n) {
  std::string error;
  auto engine = mlirEngine(error);
  if (!engine) {
    state.SkipWithError(error.c_str());
    return;
  }
  M d[8];
  M* p[8];
  for (int i = 0; i < 8; ++i) {
    d[i] = view(i);
    p[i] = &d[i];
  }
  for (auto _ : state) {
    llvm::Error e = llvm::Error::success();
    switch (n) {
      case 0: e = engine->invoke("k0"); break;
      case 1: e = engine->invoke("k1", p[0]); break;
      case 3: e = engine->invoke("k3", p[0], p[1], p[2]); break;
      default: e = engine->invoke("k8", p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]); break;
    }
    if (e) {
      state.SkipWithError(llvm::toString(std::move(e)).c_str());
      return;
    }
  }
}
#endif

int registerAll() {
  for (int n : {0, 1, 3, 8}) {
    std::string suffix = "/" + std::to_string(n);
    benchmark::RegisterBenchmark(("CallOverhead/direct" + suffix).c_str(), direct, n);
    benchmark::RegisterBenchmark(("CallOverhead/typed" + suffix).c_str(), typed, n);
    benchmark::RegisterBenchmark(("CallOverhead/dynamic" + suffix).c_str(), dynamic, n);
#ifdef MEMJIT_HAVE_MLIR
    benchmark::RegisterBenchmark(("CallOverhead/mlir" + suffix).c_str(), mlirInvoke, n);
#endif
  }
  return 0;
}
const int registered = registerAll();

}  // namespace

BENCHMARK_MAIN();
