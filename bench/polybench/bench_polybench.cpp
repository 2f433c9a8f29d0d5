// PolyBench/C 4.2.1's 30 kernels (polybench.h): memjit's builds against the same loop nests in C++ compiled by
// g++ and by clang (-O3 -march=native -ffp-contract=off), in one run.
//
//   Kernel/polybench_<kernel>/<system>/<DATASET>     DATASET: LARGE (PolyBench's default), MEDIUM
//     memjit          the builder's kernel, JIT-compiled at O3 for the host
//     native_gcc      the C++ twin compiled by g++
//     native_clang    the C++ twin compiled by clang
//     memjit_checked  memjit's kernel in checked mode (FunctionOptions::checked)
//     memjit_par      memjit's kernel with its parallel loops as parallelFor (kernels with parallel outer loops)
//     native_omp      the g++ twin with `#pragma omp parallel for` on the same loops
//
// Every iteration starts from PolyBench's initial data (copied in with the timer paused); a kernel longer than
// 0.1 s runs once, as most LARGE ones do (they take seconds: filter with --benchmark_filter=/LARGE or /MEDIUM). The test polybench_test
// checks that every system computes the same bits at MINI and SMALL.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "memjit/jit/jit.h"
#include "polybench.h"

using namespace memjit;
using namespace memjit::polybench;

namespace {

jit::Jit& sharedJit() {
  static jit::Jit j = *jit::Jit::create({.optLevel = jit::OptLevel::O3});
  return j;
}

// Compiled once per kernel and flavor.
Expected<jit::Function> compiled(const Kernel& k, Flavor f) {
  static std::map<std::pair<std::string, Flavor>, jit::Function> cache;
  auto key = std::make_pair(std::string(k.name), f);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  MEMJIT_ASSIGN_OR_RETURN(jit::Function fn, compile(sharedJit(), k, f));
  cache.emplace(key, fn);
  return fn;
}

// The initial data of the kernel being measured and a working copy; kept while the next benchmark is of the same
// kernel and dataset (the benchmarks are registered kernel by kernel), so each is initialised once.
struct Inputs {
  std::string key;
  std::optional<Data> pristine, work;
};

Data& inputsFor(const Kernel& k, Dataset d) {
  static Inputs inputs;
  const std::string key = std::string(k.name) + "/" + datasetName(d);
  if (inputs.key != key) {
    inputs.pristine.reset();
    inputs.work.reset();
    inputs.pristine.emplace(makeData(k, d));
    inputs.work.emplace(makeData(k, d));
    inputs.key = key;
  }
  copyArrays(*inputs.pristine, *inputs.work);
  return *inputs.work;
}

enum class System { Memjit, Gcc, Clang, Checked, Par, Omp };

void measure(benchmark::State& state, const Kernel& k, System system, Dataset d) {
  std::optional<jit::Function> fn;
  if (system == System::Memjit || system == System::Checked || system == System::Par) {
    auto f = compiled(k, system == System::Memjit ? Flavor::Serial : system == System::Checked ? Flavor::Checked
                                                                                              : Flavor::Parallel);
    if (!f) return state.SkipWithError(f.error().str().c_str());
    fn = *f;
  }
  Data& data = inputsFor(k, d);
  bool first = true;
  for (auto _ : state) {
    if (!first) {
      state.PauseTiming();
      inputsFor(k, d);  // the same working copy, refilled
      state.ResumeTiming();
    }
    first = false;
    switch (system) {
      case System::Gcc: runTwin(k.gcc, data); break;
      case System::Clang: runTwin(k.clang, data); break;
      case System::Omp: runTwin(k.omp, data); break;
      default:
        if (Error e = run(*fn, k, data)) return state.SkipWithError(e.str().c_str());
    }
    benchmark::ClobberMemory();
  }
}

int registerAll() {
  const std::pair<System, const char*> serial[] = {
      {System::Memjit, "memjit"}, {System::Gcc, "native_gcc"}, {System::Clang, "native_clang"},
      {System::Checked, "memjit_checked"}};
  const std::pair<System, const char*> parallel[] = {{System::Par, "memjit_par"}, {System::Omp, "native_omp"}};
  for (Dataset d : {Dataset::Large, Dataset::Medium})
    for (const Kernel& k : kernels()) {
      auto add = [&](System s, const char* system) {
        const std::string name = std::string("Kernel/polybench_") + k.name + "/" + system + "/" + datasetName(d);
        auto* b = benchmark::RegisterBenchmark(name.c_str(), [&k, s, d](benchmark::State& st) { measure(st, k, s, d); });
        b->Unit(benchmark::kMillisecond)->UseRealTime();
        // A kernel longer than 0.1 s runs once (LARGE's mostly do); shorter ones as often as fills 0.1 s.
        b->MinTime(0.1);
      };
      for (auto [s, name] : serial) add(s, name);
      if (k.omp)
        for (auto [s, name] : parallel) add(s, name);
    }
  return 0;
}

const int registered = registerAll();

}  // namespace

BENCHMARK_MAIN();
