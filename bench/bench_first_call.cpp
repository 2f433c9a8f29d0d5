// First-call latency and tiered compilation (docs/jit-and-aot.md, "Tiered compilation").
//
//   FirstCall/<kernel>/memjit_tiered      Jit::add with JitOptions::tiering (first tier O0,
//                                         FastISel), function lookup, first call returned
//   FirstCall/<kernel>/memjit_tiered_delay20ms  the same with the tier-up starting 20 ms later
//                                         (TieringOptions::delay): the first call without a
//                                         background compile competing for the cores
//   FirstCall/<kernel>/memjit_tiered_O1   the same with an O1 first tier (the minimal pipeline)
//   FirstCall/<kernel>/memjit_O0          the same compiled directly at O0 (tiering's own cost)
//   FirstCall/<kernel>/memjit_O0_afterO2  memjit_O0 with an O2 compile of the same kernel (in a
//                                         second Jit) in each pause, as memjit_tiered has its
//                                         tier-up there: the same cold caches
//   FirstCall/<kernel>/memjit_O2          the same compiled directly at O2
//   FirstCall/<kernel>/mlir               MLIR's ExecutionEngine at O2 on the peer kernel
//                                         (bench/mlir/<peer>.mlir, parsed untimed): lowering
//                                         to the LLVM dialect, engine, lookup, first call
//   Kernel/<kernel>/memjit_tiered/<size>  calls after the tier-up (through the stub), beside
//   Kernel/<kernel>/memjit/<size>         the same kernel compiled directly at O2
//
// "From handing over the module to the first result": the IR (memjit's
// kernel builder, MLIR's parser) is built with the timer paused; times are
// wall-clock. After each first call the timer pauses while the tier-up
// finishes and the module is removed, so no background compile of one
// iteration runs into the next. sgemm's MLIR peer is the tiled loop nest
// (matmul_tiled.mlir): MLIR has no counterpart of addSgemm's packed
// micro-kernel short of a vector pipeline.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conv3x3_kernel.h"
#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/tiering.h"
#include "memjit/runtime/memref.h"

#ifdef MEMJIT_HAVE_MLIR
#include "mlir_peer.h"
#endif

namespace {

using memjit::jit::Jit;
using memjit::jit::OptLevel;
using memjit::runtime::makeView;
using Vec = memjit::runtime::StridedMemRef<float, 1>;
using Mat = memjit::runtime::StridedMemRef<float, 2>;

enum class Kernel { Add, Saxpy, Softmax, Conv3x3, Matmul, Sgemm };

struct Case {
  const char* name;
  Kernel kernel;
  const char* mlirPeer;  // bench/mlir/<peer>.mlir defines @<peer>
};

const Case kCases[] = {{"add", Kernel::Add, "add"},         {"saxpy", Kernel::Saxpy, "saxpy"},
                       {"softmax", Kernel::Softmax, "softmax"}, {"conv3x3", Kernel::Conv3x3, "conv3x3"},
                       {"matmul", Kernel::Matmul, "matmul_naive"}, {"sgemm", Kernel::Sgemm, "matmul_tiled"}};

memjit::Error build(memjit::codegen::Module& m, Kernel kernel) {
  namespace cg = memjit::codegen;
  switch (kernel) {
    case Kernel::Add: return cg::addElementwiseAdd(m, "kernel");
    case Kernel::Saxpy: return cg::addSaxpy(m, "kernel");
    case Kernel::Softmax: return cg::addSoftmax(m, "kernel");
    case Kernel::Conv3x3: return memjit::bench::addConv3x3(m, "kernel", {}, false);
    case Kernel::Matmul: return cg::addMatmul(m, "kernel");
    case Kernel::Sgemm: return cg::addSgemm(m, "kernel");
  }
  return memjit::Error(memjit::ErrorCode::InvalidArgument, "unknown kernel");
}

// Inputs and outputs of one call: vectors of `n`, n x n matrices (conv3x3: an
// (n+2) x (n+2) input).
struct Data {
  explicit Data(std::int64_t size) : n(size), a(n * n + 4 * n + 4, 0.5f), b(a.size(), 0.25f), c(a.size()), w(9, 0.125f) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 17) * 0.0625f;
  }
  std::int64_t n;
  std::vector<float> a, b, c, w;

  void call(Kernel kernel, void* fn) {
    switch (kernel) {
      case Kernel::Add: {
        Vec x = makeView<float, 1>(a.data(), {n}), y = makeView<float, 1>(b.data(), {n}),
            z = makeView<float, 1>(c.data(), {n});
        reinterpret_cast<void (*)(Vec*, Vec*, Vec*)>(fn)(&x, &y, &z);
        return;
      }
      case Kernel::Saxpy: {
        Vec x = makeView<float, 1>(a.data(), {n}), y = makeView<float, 1>(c.data(), {n});
        reinterpret_cast<void (*)(float, Vec*, Vec*)>(fn)(1.5f, &x, &y);
        return;
      }
      case Kernel::Softmax: {
        Mat x = makeView<float, 2>(a.data(), {n, n}), y = makeView<float, 2>(c.data(), {n, n});
        reinterpret_cast<void (*)(Mat*, Mat*)>(fn)(&x, &y);
        return;
      }
      case Kernel::Conv3x3: {
        Mat x = makeView<float, 2>(a.data(), {n + 2, n + 2}), k = makeView<float, 2>(w.data(), {3, 3}),
            y = makeView<float, 2>(c.data(), {n, n});
        reinterpret_cast<void (*)(Mat*, Mat*, Mat*)>(fn)(&x, &k, &y);
        return;
      }
      case Kernel::Matmul:
      case Kernel::Sgemm: {
        Mat x = makeView<float, 2>(a.data(), {n, n}), y = makeView<float, 2>(b.data(), {n, n}),
            z = makeView<float, 2>(c.data(), {n, n});
        reinterpret_cast<void (*)(Mat*, Mat*, Mat*)>(fn)(&x, &y, &z);
        return;
      }
    }
  }
};

std::int64_t firstCallSize(Kernel kernel) {
  return kernel == Kernel::Add || kernel == Kernel::Saxpy ? 1024 : 64;
}

enum class Mode { Tiered, TieredLater, TieredO1, Direct, DirectO0, DirectO0AfterO2 };

std::optional<Jit> makeJit(benchmark::State& state, Mode mode) {
  memjit::jit::JitOptions options;
  options.tiering.enabled = mode == Mode::Tiered || mode == Mode::TieredLater || mode == Mode::TieredO1;
  if (mode == Mode::TieredLater) options.tiering.delay = std::chrono::milliseconds(20);
  if (mode == Mode::DirectO0 || mode == Mode::DirectO0AfterO2) options.optLevel = OptLevel::O0;
  options.tiering.firstTier = mode == Mode::TieredO1 ? OptLevel::O1 : OptLevel::O0;
  auto jit = Jit::create(options);
  if (!jit) {
    state.SkipWithError(jit.error().str().c_str());
    return std::nullopt;
  }
  return std::move(*jit);
}

void memjitFirstCall(benchmark::State& state, Case c, Mode mode) {
  std::optional<Jit> made = makeJit(state, mode);
  if (!made) return;
  Jit& jit = *made;
  Data data(firstCallSize(c.kernel));
  memjit::jit::CompileStats phases;
  std::optional<Jit> optimising;  // DirectO0AfterO2's second Jit
  if (mode == Mode::DirectO0AfterO2 && !(optimising = makeJit(state, Mode::Direct))) return;
  for (auto _ : state) {
    state.PauseTiming();
    if (optimising) {
      memjit::codegen::Module twin("first_call_O2");
      if (auto e = build(twin, c.kernel)) {
        state.SkipWithError(e.str().c_str());
        return;
      }
      auto compiled = optimising->add(std::move(twin));
      if (!compiled) {
        state.SkipWithError(compiled.error().str().c_str());
        return;
      }
      (void)optimising->remove(*compiled);
    }
    memjit::codegen::Module module("first_call");
    if (auto e = build(module, c.kernel)) {
      state.SkipWithError(e.str().c_str());
      return;
    }
    state.ResumeTiming();
    auto loaded = jit.add(std::move(module));
    if (!loaded) {
      state.SkipWithError(loaded.error().str().c_str());
      return;
    }
    auto fn = loaded->function("kernel");
    if (!fn) {
      state.SkipWithError(fn.error().str().c_str());
      return;
    }
    data.call(c.kernel, fn->cInterface());
    benchmark::DoNotOptimize(data.c.data());
    state.PauseTiming();
    const memjit::jit::CompileStats& s = loaded->compileStats();
    phases.verify += s.verify, phases.prepare += s.prepare, phases.cacheLookup += s.cacheLookup;
    phases.optimize += s.optimize, phases.codegen += s.codegen, phases.link += s.link, phases.total += s.total;
    if (auto e = memjit::jit::waitForTierUp(*loaded)) state.SkipWithError(e.str().c_str());
    (void)jit.remove(*loaded);
    state.ResumeTiming();
  }
  // Where the add's time went (LoadedModule::compileStats), in ms per first call.
  auto ms = [&](const char* name, auto time) {
    state.counters[name] = benchmark::Counter(std::chrono::duration<double, std::milli>(time).count(),
                                              benchmark::Counter::kAvgIterations);
  };
  ms("prepare_ms", phases.prepare + phases.verify + phases.cacheLookup);
  ms("optimize_ms", phases.optimize);
  ms("codegen_ms", phases.codegen);
  ms("link_ms", phases.link);
  ms("add_ms", phases.total);
}

// Steady state: calls after the tier-up beside a direct O2 compile.
void memjitSteady(benchmark::State& state, Case c, Mode mode) {
  std::optional<Jit> made = makeJit(state, mode);
  if (!made) return;
  Jit& jit = *made;
  memjit::codegen::Module module("steady");
  if (auto e = build(module, c.kernel)) {
    state.SkipWithError(e.str().c_str());
    return;
  }
  auto loaded = jit.add(std::move(module));
  if (!loaded) {
    state.SkipWithError(loaded.error().str().c_str());
    return;
  }
  memjit::jit::requestTierUp(*loaded);
  if (auto e = memjit::jit::waitForTierUp(*loaded)) {
    state.SkipWithError(e.str().c_str());
    return;
  }
  void* fn = loaded->function("kernel")->cInterface();
  Data data(state.range(0));
  for (auto _ : state) {
    data.call(c.kernel, fn);
    benchmark::DoNotOptimize(data.c.data());
    benchmark::ClobberMemory();
  }
}

#ifdef MEMJIT_HAVE_MLIR
void mlirFirstCall(benchmark::State& state, Case c) {
  mlir::MLIRContext& context = memjit::bench::peerContext();
  auto source = memjit::bench::peerSource({c.mlirPeer});
  if (!source) {
    state.SkipWithError(llvm::toString(source.takeError()).c_str());
    return;
  }
  const bool convertMath = memjit::bench::usesMath(*source);
  const std::string entry = std::string("_mlir_ciface_") + c.mlirPeer;
  Data data(firstCallSize(c.kernel));
  for (auto _ : state) {
    state.PauseTiming();
    auto module = mlir::parseSourceString<mlir::ModuleOp>(*source, &context);
    if (!module) {
      state.SkipWithError("MLIR could not parse the kernel");
      return;
    }
    state.ResumeTiming();
    if (mlir::failed(memjit::bench::lowerToLLVMDialect(*module, convertMath))) {
      state.SkipWithError("MLIR's lowering failed");
      return;
    }
    auto engine = memjit::bench::peerEngine(*module, 2, entry);
    if (!engine) {
      state.SkipWithError(llvm::toString(engine.takeError()).c_str());
      return;
    }
    data.call(c.kernel, engine->entry);
    benchmark::DoNotOptimize(data.c.data());
    state.PauseTiming();
    engine->engine.reset();
    module = {};
    state.ResumeTiming();
  }
}
#endif

int registerAll() {
  for (const Case& c : kCases) {
    const std::string prefix = std::string("FirstCall/") + c.name + "/";
    benchmark::RegisterBenchmark((prefix + "memjit_tiered").c_str(), memjitFirstCall, c, Mode::Tiered)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((prefix + "memjit_tiered_delay20ms").c_str(), memjitFirstCall, c, Mode::TieredLater)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((prefix + "memjit_tiered_O1").c_str(), memjitFirstCall, c, Mode::TieredO1)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((prefix + "memjit_O0").c_str(), memjitFirstCall, c, Mode::DirectO0)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((prefix + "memjit_O0_afterO2").c_str(), memjitFirstCall, c, Mode::DirectO0AfterO2)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((prefix + "memjit_O2").c_str(), memjitFirstCall, c, Mode::Direct)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
#ifdef MEMJIT_HAVE_MLIR
    benchmark::RegisterBenchmark((prefix + "mlir").c_str(), mlirFirstCall, c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
#endif
  }
  // Steady state: a tiny kernel (where the stub's jump shows most), a
  // memory-bound one and a compute-bound one.
  const std::pair<Case, std::int64_t> steady[] = {{kCases[0], 16}, {kCases[1], 4096}, {kCases[4], 128}};
  for (const auto& [c, size] : steady) {
    const std::string prefix = std::string("Kernel/") + c.name + "/";
    benchmark::RegisterBenchmark((prefix + "memjit_tiered").c_str(), memjitSteady, c, Mode::Tiered)->Arg(size);
    benchmark::RegisterBenchmark((prefix + "memjit").c_str(), memjitSteady, c, Mode::Direct)->Arg(size);
  }
  return 0;
}
const int registered = registerAll();

}  // namespace

BENCHMARK_MAIN();
