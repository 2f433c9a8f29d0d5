// Compile latency: from nothing to a callable kernel pointer.
//
//   Compile/<kernel>/memjit/<O0|O2|O3>     build the IR with memjit's kernel builder,
//                                          optimise, generate code, link, look up
//   Compile/<kernel>/memjit/O2_new_jit     O2 with a new Jit (LLJIT, TargetMachine) each time
//   Compile/<kernel>/memjit/O2_cache_hit   O2 with the object already cached
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

#include <chrono>
#include <string>

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
  }
  return 0;
}
const int registered = registerAll();

}  // namespace

BENCHMARK_MAIN();
