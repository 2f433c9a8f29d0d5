// Compile latency: from nothing to a callable kernel pointer.
//
//   Compile/<kernel>/memjit/<O0|O2|O3>     build the IR with memjit's kernel builder,
//                                          optimise, generate code, link, look up
//   Compile/<kernel>/memjit/O2_new_jit     O2 with a new Jit (LLJIT, TargetMachine) each time
//   Compile/<kernel>/memjit/O2_cache_hit   O2 with the object already cached (its
//                                          linked code unloaded: the hit links it again)
//   CacheHit/<kernel>/warm                 Jit::add of a module whose object is cached and
//                                          whose twin is loaded in the same Jit, plus the
//                                          first function lookup (manual time: building the
//                                          IR, a cost every path pays, is the build_ms counter); cpu_us, and the
//                                          thread's context switches per hit: waits (voluntary)
//                                          and preemptions (involuntary)
//   CacheHit/<kernel>/fresh_process        a new process (bench/cache_hit_process.cpp, LLVM
//                                          linked statically as in the memjit CLI) that
//                                          makes a Jit over a filled disk cache, builds, adds,
//                                          looks up and calls the kernel once: the whole
//                                          process's wall time; the in-process part (from
//                                          main to the call's return) and its phases are
//                                          counters
//   CacheHit/<kernel>/fresh_process_shared_llvm  the same, linked to the shared libLLVM
//   Compile/<kernel>/mlir/<O0|O2|O3>       MLIR's ExecutionEngine end to end: parse the
//                                          MLIR text (bench/mlir/add.mlir, matmul_naive.mlir,
//                                          read before timing), lower to the LLVM dialect,
//                                          create the engine, first lookup
//
// One memjit::jit::Jit serves every iteration (its TargetMachine is made once),
// as one MLIRContext serves MLIR's; each iteration removes its module again so
// the next can reuse the names. Compile/<kernel>/memjit/O2_new_jit pays for a
// fresh Jit every iteration too, as MLIR pays for a fresh ExecutionEngine.
// The memjit lines carry the phases as counters, in ms per compile (avg over
// iterations): build (the kernel builder making the IR), then
// LoadedModule::compileStats()'s verify, prepare, cache (key and lookup),
// optimize, codegen (instruction selection and MC), link, then lookup (the
// first LoadedModule::function), and code_bytes.
// CPU time is the benchmark thread's: MLIR's context may hand work to its
// thread pool, which that clock misses (about 1 ms at O2), so compare wall
// times too.
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>

#include "child_process.h"
#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"

#ifdef MEMJIT_HAVE_MLIR
#include "mlir_peer.h"
#endif

namespace {

using memjit::jit::Jit;
using memjit::jit::OptLevel;

enum class Kernel { Add, Matmul };

memjit::Error buildKernel(memjit::codegen::Module& module, Kernel kernel) {
  return kernel == Kernel::Add ? memjit::codegen::addElementwiseAdd(module, "kernel")
                               : memjit::codegen::addMatmul(module, "kernel");
}

using Clock = std::chrono::steady_clock;

// The phases of the compiles so far, summed.
struct Phases {
  Clock::duration build{}, lookup{};
  memjit::jit::CompileStats module;
  std::size_t codeBytes = 0;

  void add(Clock::duration buildTime, Clock::duration lookupTime, const memjit::jit::CompileStats& s) {
    build += buildTime;
    lookup += lookupTime;
    module.verify += s.verify;
    module.prepare += s.prepare;
    module.cacheLookup += s.cacheLookup;
    module.optimize += s.optimize;
    module.codegen += s.codegen;
    module.link += s.link;
    codeBytes = s.codeBytes;
  }

  void report(benchmark::State& state) const {
    auto ms = [&](const char* name, auto time) {
      state.counters[name] = benchmark::Counter(std::chrono::duration<double, std::milli>(time).count(),
                                                benchmark::Counter::kAvgIterations);
    };
    ms("build_ms", build);
    ms("verify_ms", module.verify);
    ms("prepare_ms", module.prepare);
    ms("cache_ms", module.cacheLookup);
    ms("optimize_ms", module.optimize);
    ms("codegen_ms", module.codegen);
    ms("link_ms", module.link);
    ms("lookup_ms", lookup);
    state.counters["code_bytes"] = static_cast<double>(codeBytes);
  }
};

// This thread's voluntary and involuntary context switches so far: whether a
// wall time above the CPU time is waiting (voluntary) or preemption by the load.
std::pair<long, long> threadContextSwitches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return {usage.ru_nvcsw, usage.ru_nivcsw};
}

double threadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// One add+lookup+remove; false (with the error on `state`) on failure.
bool compileOnce(benchmark::State& state, Jit& jit, Kernel kernel, OptLevel level, Phases* phases = nullptr) {
  const auto started = Clock::now();
  memjit::codegen::Module module("bench");
  if (auto e = buildKernel(module, kernel)) {
    state.SkipWithError(e.str().c_str());
    return false;
  }
  const auto built = Clock::now();
  auto loaded = jit.add(std::move(module), {.optLevel = level});
  if (!loaded) {
    state.SkipWithError(loaded.error().str().c_str());
    return false;
  }
  const auto added = Clock::now();
  auto fn = loaded->function("kernel");
  if (!fn) {
    state.SkipWithError(fn.error().str().c_str());
    return false;
  }
  if (phases) phases->add(built - started, Clock::now() - added, loaded->compileStats());
  benchmark::DoNotOptimize(fn->cInterface());
  (void)jit.remove(*loaded);
  return true;
}

void memjitCold(benchmark::State& state, Kernel kernel, OptLevel level) {
  auto jit = Jit::create({.optLevel = level});
  if (!jit) {
    state.SkipWithError(jit.error().str().c_str());
    return;
  }
  Phases phases;
  for (auto _ : state)
    if (!compileOnce(state, *jit, kernel, level, &phases)) return;
  phases.report(state);
}

void memjitNewJit(benchmark::State& state, Kernel kernel, OptLevel level) {
  for (auto _ : state) {
    auto jit = Jit::create({.optLevel = level});
    if (!jit) {
      state.SkipWithError(jit.error().str().c_str());
      return;
    }
    if (!compileOnce(state, *jit, kernel, level)) return;
  }
}

void memjitCacheHit(benchmark::State& state, Kernel kernel, OptLevel level) {
  auto cache = memjit::jit::ObjectCache::inMemory();
  auto jit = Jit::create({.optLevel = level, .cache = cache});
  if (!jit) {
    state.SkipWithError(jit.error().str().c_str());
    return;
  }
  if (!compileOnce(state, *jit, kernel, level)) return;  // fills the cache
  Phases phases;
  for (auto _ : state)
    if (!compileOnce(state, *jit, kernel, level, &phases)) return;
  phases.report(state);
  state.counters["hits"] = static_cast<double>(cache->stats().hits);
}

void cacheHitWarm(benchmark::State& state, Kernel kernel) {
  auto cache = memjit::jit::ObjectCache::inMemory();
  auto jit = Jit::create({.cache = cache});
  if (!jit) {
    state.SkipWithError(jit.error().str().c_str());
    return;
  }
  memjit::codegen::Module first("bench");
  if (auto e = buildKernel(first, kernel)) {
    state.SkipWithError(e.str().c_str());
    return;
  }
  auto twin = jit->add(std::move(first));  // fills the cache and stays loaded
  if (!twin) {
    state.SkipWithError(twin.error().str().c_str());
    return;
  }
  Clock::duration build{};
  Phases phases;
  double cpuSeconds = 0;  // of the add and lookup, this thread's: the machine is shared
  long waits = 0, preemptions = 0;
  for (auto _ : state) {
    const auto started = Clock::now();
    memjit::codegen::Module module("bench");
    if (auto e = buildKernel(module, kernel)) {
      state.SkipWithError(e.str().c_str());
      return;
    }
    const auto built = Clock::now();
    const double cpuBefore = threadCpuSeconds();
    const auto switchesBefore = threadContextSwitches();
    auto loaded = jit->add(std::move(module));
    if (!loaded) {
      state.SkipWithError(loaded.error().str().c_str());
      return;
    }
    const auto added = Clock::now();
    auto fn = loaded->function("kernel");
    if (!fn) {
      state.SkipWithError(fn.error().str().c_str());
      return;
    }
    benchmark::DoNotOptimize(fn->cInterface());
    const auto looked = Clock::now();
    cpuSeconds += threadCpuSeconds() - cpuBefore;
    const auto switchesAfter = threadContextSwitches();
    waits += switchesAfter.first - switchesBefore.first;
    preemptions += switchesAfter.second - switchesBefore.second;
    state.SetIterationTime(std::chrono::duration<double>(looked - built).count());
    phases.add(built - started, looked - added, loaded->compileStats());
    if (!loaded->compileStats().cacheHit) {
      state.SkipWithError("not a cache hit");
      return;
    }
    (void)jit->remove(*loaded);
  }
  phases.report(state);
  state.counters["cpu_us"] = benchmark::Counter(cpuSeconds * 1e6, benchmark::Counter::kAvgIterations);
  state.counters["waits"] = benchmark::Counter(static_cast<double>(waits), benchmark::Counter::kAvgIterations);
  state.counters["preemptions"] =
      benchmark::Counter(static_cast<double>(preemptions), benchmark::Counter::kAvgIterations);
}

// Runs bench/cache_hit_process.cpp; its exit status (0 hit, 2 miss) and the
// numbers it prints, or -1 when it could not run.
int runCacheHitProcess(const std::string& program, const std::string& dir, const char* kernel,
                       std::string& printed) {
  return memjit::bench::runChild({program, dir, kernel}, printed);
}

void cacheHitFreshProcess(benchmark::State& state, const char* kernel, const std::string& program) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("memjit-bench-cache-hit-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir);
  std::string printed;
  if (runCacheHitProcess(program, dir, kernel, printed) != 2) {  // compiles and fills the cache
    state.SkipWithError("the cache-filling process failed");
    return;
  }
  double inProcess = 0, create = 0, build = 0, add = 0, call = 0, faults = 0;
  for (auto _ : state) {
    if (runCacheHitProcess(program, dir, kernel, printed) != 0) {
      state.SkipWithError(("the process missed the cache or failed: " + printed).c_str());
      break;
    }
    std::istringstream numbers(printed);
    double phase[6] = {};
    for (double& value : phase) numbers >> value;
    inProcess += phase[0], create += phase[1], build += phase[2], add += phase[3], call += phase[4];
    faults += phase[5];
  }
  std::filesystem::remove_all(dir);
  auto ms = [&](double ns) {
    return benchmark::Counter(ns / 1e6, benchmark::Counter::kAvgIterations);
  };
  state.counters["in_process_ms"] = ms(inProcess);
  state.counters["create_ms"] = ms(create);
  state.counters["build_ms"] = ms(build);
  state.counters["add_ms"] = ms(add);
  state.counters["lookup_call_ms"] = ms(call);
  state.counters["page_faults"] = benchmark::Counter(faults, benchmark::Counter::kAvgIterations);
}

#ifdef MEMJIT_HAVE_MLIR
// The peer kernel bench/mlir/<file>.mlir defines the function <file>.
const char* mlirPeer(Kernel kernel) { return kernel == Kernel::Add ? "add" : "matmul_naive"; }

void mlirEndToEnd(benchmark::State& state, Kernel kernel, unsigned level) {
  mlir::MLIRContext& context = memjit::bench::peerContext();
  auto source = memjit::bench::peerSource({mlirPeer(kernel)});
  if (!source) {
    state.SkipWithError(llvm::toString(source.takeError()).c_str());
    return;
  }
  const bool convertMath = memjit::bench::usesMath(*source);
  const std::string entry = std::string("_mlir_ciface_") + mlirPeer(kernel);
  for (auto _ : state) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(*source, &context);
    if (!module) {
      state.SkipWithError("MLIR could not parse the kernel");
      return;
    }
    if (mlir::failed(memjit::bench::lowerToLLVMDialect(*module, convertMath))) {
      state.SkipWithError("MLIR's lowering failed");
      return;
    }
    auto engine = memjit::bench::peerEngine(*module, level, entry);
    if (!engine) {
      state.SkipWithError(llvm::toString(engine.takeError()).c_str());
      return;
    }
    benchmark::DoNotOptimize(engine->entry);
  }
}
#endif

int registerAll() {
  const std::pair<const char*, Kernel> kernels[] = {{"add", Kernel::Add}, {"matmul", Kernel::Matmul}};
  const std::pair<const char*, OptLevel> levels[] = {
      {"O0", OptLevel::O0}, {"O2", OptLevel::O2}, {"O3", OptLevel::O3}};
  for (auto [kname, kernel] : kernels) {
    const std::string prefix = std::string("Compile/") + kname;
    for (auto [lname, level] : levels) {
      benchmark::RegisterBenchmark((prefix + "/memjit/" + lname).c_str(), memjitCold, kernel, level)
          ->Unit(benchmark::kMillisecond);
#ifdef MEMJIT_HAVE_MLIR
      benchmark::RegisterBenchmark((prefix + "/mlir/" + lname).c_str(), mlirEndToEnd, kernel,
                                   static_cast<unsigned>(level))
          ->Unit(benchmark::kMillisecond);
#endif
    }
    benchmark::RegisterBenchmark((prefix + "/memjit/O2_new_jit").c_str(), memjitNewJit, kernel, OptLevel::O2)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((prefix + "/memjit/O2_cache_hit").c_str(), memjitCacheHit, kernel,
                                 OptLevel::O2)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("CacheHit/") + kname + "/warm").c_str(), cacheHitWarm, kernel)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("CacheHit/") + kname + "/fresh_process").c_str(),
                                 cacheHitFreshProcess, kname, std::string(MEMJIT_CACHE_HIT_PROCESS_STATIC))
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("CacheHit/") + kname + "/fresh_process_shared_llvm").c_str(),
                                 cacheHitFreshProcess, kname, std::string(MEMJIT_CACHE_HIT_PROCESS_SHARED))
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int registered = registerAll();

}  // namespace

BENCHMARK_MAIN();
