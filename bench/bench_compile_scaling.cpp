// Compile time and memory against function size, at O0 and O2:
//
//   CompileScaling/<body|loops|nest>/<ops>/<O0|O2|O2_1thread>
//
// O2 compiles a large module's outlined loops in parts on every core
// (JitOptions::compileThreads = 0); O2_1thread compiles the same parts on the
// adding thread alone, which shows what the threads bought and what the split
// alone did.
// for the generated kernels of scaling_kernels.h at 1K and 10K builder
// operations, and 100K when MEMJIT_BENCH_SCALING_LARGE=1 is set in the
// environment (minutes at O2 before issue 25's fixes; left out of
// `./dev.sh bench` by default). Each iteration runs in a forked child, so that
// its peak resident memory is its own: the time is the child's wall time from
// building the IR to the first lookup (manual time), and the counters are
//   cpu_s        the child's user+sys CPU time (the machine is shared: wall time
//                alone misleads)
//   peak_MB      the child's peak RSS (VmHWM), reset when the child starts
//   growth_MB    peak_MB less the RSS the child started with (what compiling took)
//   optimize_s, codegen_s  LoadedModule::compileStats()'s phases (summed over
//                the parts: on several threads they exceed the wall time)
//   parts        CompileStats::parts, the objects the code is in
// Growth is linear when each 10x in ops costs at most ~10x (2.3x per doubling:
// 2.3^log2(10) = 16x per decade is the bound).
//
//   ScalingRun/loops/10000/<elements>
//
// is what the compile buys: one call of the 10K-op loops kernel (1,666 loops,
// outlined and compiled as large_functions.h says) at O2 on `elements` floats,
// for changes to how those loops are compiled.
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <tuple>
#include <cstdlib>
#include <fstream>
#include <string>

#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "scaling_kernels.h"

namespace {

using memjit::bench::ScalingShape;
using memjit::jit::OptLevel;

// What a child reports through its pipe.
struct ChildResult {
  double wallSeconds = 0, cpuSeconds = 0, optimizeSeconds = 0, codegenSeconds = 0;
  long startKiB = 0, peakKiB = 0;
  std::size_t parts = 0;
  char error[256] = {};
};

long statusKiB(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(status, line))
    if (line.rfind(prefix, 0) == 0) return std::strtol(line.c_str() + prefix.size(), nullptr, 10);
  return 0;
}

double seconds(std::chrono::nanoseconds t) { return std::chrono::duration<double>(t).count(); }

double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

ChildResult compileInChild(ScalingShape shape, std::size_t ops, OptLevel level, unsigned threads) {
  ChildResult r;
  // Start the peak at the current RSS ("5": reset VmHWM, Linux 4.0+).
  std::ofstream("/proc/self/clear_refs") << "5";
  r.startKiB = statusKiB("VmRSS");
  const double cpuStart = cpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  auto fail = [&](const memjit::Error& e) {
    std::snprintf(r.error, sizeof r.error, "%s", e.str().c_str());
    return r;
  };
  memjit::jit::JitOptions options{.optLevel = level};
  options.compileThreads = threads;
  // As bench/jit_kernels.h: MEMJIT_BENCH_DUMP=<dir> keeps the IR before and after the passes and the object.
  if (const char* dir = std::getenv("MEMJIT_BENCH_DUMP")) options.dumpDirectory = dir;
  auto jit = memjit::jit::Jit::create(options);
  if (!jit) return fail(jit.error());
  memjit::codegen::Module module("scaling");
  if (auto e = memjit::bench::addScalingKernel(module, "kernel", shape, ops)) return fail(e);
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error());
  auto fn = loaded->function("kernel");
  if (!fn) return fail(fn.error());
  r.wallSeconds = seconds(std::chrono::steady_clock::now() - start);
  r.cpuSeconds = cpuSeconds() - cpuStart;
  r.optimizeSeconds = seconds(loaded->compileStats().optimize);
  r.codegenSeconds = seconds(loaded->compileStats().codegen);
  r.parts = loaded->compileStats().parts;
  r.peakKiB = statusKiB("VmHWM");
  return r;
}

void compileScaling(benchmark::State& state, ScalingShape shape, std::size_t ops, OptLevel level, unsigned threads) {
  double cpu = 0, peak = 0, growth = 0, optimize = 0, codegen = 0, parts = 0;
  for (auto _ : state) {
    int fds[2];
    if (pipe(fds) != 0) {
      state.SkipWithError("pipe failed");
      return;
    }
    const pid_t child = fork();
    if (child == 0) {
      close(fds[0]);
      ChildResult r = compileInChild(shape, ops, level, threads);
      const bool written = write(fds[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
      _exit(written ? 0 : 1);
    }
    close(fds[1]);
    ChildResult r;
    const bool complete = child > 0 && read(fds[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    close(fds[0]);
    int status = 0;
    if (child > 0) waitpid(child, &status, 0);
    if (!complete || r.error[0]) {
      state.SkipWithError(complete ? r.error : "the compiling child died");
      return;
    }
    state.SetIterationTime(r.wallSeconds);
    cpu += r.cpuSeconds;
    peak += static_cast<double>(r.peakKiB) / 1024;
    growth += static_cast<double>(r.peakKiB - r.startKiB) / 1024;
    optimize += r.optimizeSeconds;
    codegen += r.codegenSeconds;
    parts += static_cast<double>(r.parts);
  }
  auto avg = [&](double total) { return benchmark::Counter(total, benchmark::Counter::kAvgIterations); };
  state.counters["cpu_s"] = avg(cpu);
  state.counters["peak_MB"] = avg(peak);
  state.counters["growth_MB"] = avg(growth);
  state.counters["optimize_s"] = avg(optimize);
  state.counters["codegen_s"] = avg(codegen);
  state.counters["parts"] = avg(parts);
}

void scalingRun(benchmark::State& state, ScalingShape shape, std::size_t ops) {
  auto jit = memjit::jit::Jit::create({.optLevel = OptLevel::O2});
  memjit::codegen::Module module("scaling_run");
  if (!jit || memjit::bench::addScalingKernel(module, "kernel", shape, ops)) {
    state.SkipWithError("cannot build the kernel");
    return;
  }
  auto loaded = jit->add(std::move(module));
  if (!loaded) {
    state.SkipWithError(loaded.error().str().c_str());
    return;
  }
  using Vector = memjit::runtime::StridedMemRef<float, 1>;
  auto fn = loaded->function("kernel");
  auto call = fn ? fn->as<void(Vector, Vector)>() : decltype(fn->as<void(Vector, Vector)>())(fn.error());
  if (!call) {
    state.SkipWithError(call.error().str().c_str());
    return;
  }
  const auto n = static_cast<std::int64_t>(state.range(0));
  std::vector<float> in(static_cast<std::size_t>(n), 0.25f), out(static_cast<std::size_t>(n), 1.0f);
  for (auto _ : state) {
    (*call)(memjit::runtime::makeView<float, 1>(in.data(), {n}), memjit::runtime::makeView<float, 1>(out.data(), {n}));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

int registerAll() {
  benchmark::RegisterBenchmark("ScalingRun/loops/10000", scalingRun, ScalingShape::Loops, std::size_t{10000})
      ->Arg(16)
      ->Arg(1000)
      ->Unit(benchmark::kMicrosecond);
  const char* large = std::getenv("MEMJIT_BENCH_SCALING_LARGE");
  std::vector<std::size_t> sizes = {1000, 10000};
  if (large && std::string(large) == "1") sizes.push_back(100000);
  for (ScalingShape shape : {ScalingShape::Body, ScalingShape::Loops, ScalingShape::Nest})
    for (std::size_t ops : sizes)
      for (auto [name, level, threads] : {std::tuple{"O0", OptLevel::O0, 0u}, std::tuple{"O2", OptLevel::O2, 0u},
                                          std::tuple{"O2_1thread", OptLevel::O2, 1u}}) {
        const std::string label = std::string("CompileScaling/") + memjit::bench::scalingShapeName(shape) + "/" +
                                  std::to_string(ops) + "/" + name;
        auto* b = benchmark::RegisterBenchmark(label.c_str(), compileScaling, shape, ops, level, threads);
        b->UseManualTime()->Unit(benchmark::kMillisecond);
        if (ops >= 10000) b->Iterations(1);
      }
  return 0;
}
const int registered = registerAll();

}  // namespace

BENCHMARK_MAIN();
