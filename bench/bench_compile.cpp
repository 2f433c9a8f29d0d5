// Compile latency: from nothing to a callable kernel pointer.
//
//   Compile/<kernel>/memjit/<O0|O2|O3>     build the IR with memjit's kernel builder,
//                                          optimise, generate code, link, look up
//   Compile/<kernel>/memjit/O2_new_jit     O2 with a new Jit (LLJIT, TargetMachine) each time
//   Compile/<kernel>/memjit/O2_cache_hit   O2 with the object already cached
//   Compile/<kernel>/mlir/<O0|O2|O3>       MLIR's ExecutionEngine end to end: parse the
//                                          MLIR text, lower to the LLVM dialect, create
//                                          the engine, first lookup
//
// One memjit::jit::Jit serves every iteration (its TargetMachine is made once),
// as one MLIRContext serves MLIR's; each iteration removes its module again so
// the next can reuse the names. Compile/<kernel>/memjit/O2_new_jit pays for a
// fresh Jit every iteration too, as MLIR pays for a fresh ExecutionEngine.
// CPU time is the benchmark thread's: MLIR's context may hand work to its
// thread pool, which that clock misses (about 1 ms at O2), so compare wall
// times too.
#include <benchmark/benchmark.h>

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

// One add+lookup+remove; false (with the error on `state`) on failure.
bool compileOnce(benchmark::State& state, Jit& jit, Kernel kernel, OptLevel level) {
  memjit::codegen::Module module("bench");
  if (auto e = buildKernel(module, kernel)) {
    state.SkipWithError(e.str().c_str());
    return false;
  }
  auto loaded = jit.add(std::move(module), {.optLevel = level});
  if (!loaded) {
    state.SkipWithError(loaded.error().str().c_str());
    return false;
  }
  auto fn = loaded->function("kernel");
  if (!fn) {
    state.SkipWithError(fn.error().str().c_str());
    return false;
  }
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
  for (auto _ : state)
    if (!compileOnce(state, *jit, kernel, level)) return;
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
  for (auto _ : state)
    if (!compileOnce(state, *jit, kernel, level)) return;
  state.counters["hits"] = static_cast<double>(cache->stats().hits);
}

#ifdef MEMJIT_HAVE_MLIR
constexpr const char* kMlirAdd = R"mlir(
func.func @kernel(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %c, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %c[%i] : memref<?xf32>
  }
  return
}
)mlir";

constexpr const char* kMlirMatmul = R"mlir(
func.func @kernel(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %acc = scf.for %p = %c0 to %k step %c1 iter_args(%sum = %zero) -> (f32) {
        %x = memref.load %A[%i, %p] : memref<?x?xf32>
        %y = memref.load %B[%p, %j] : memref<?x?xf32>
        %prod = arith.mulf %x, %y : f32
        %next = arith.addf %sum, %prod : f32
        scf.yield %next : f32
      }
      memref.store %acc, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
)mlir";

void mlirEndToEnd(benchmark::State& state, Kernel kernel, unsigned level) {
  mlir::MLIRContext& context = memjit::bench::peerContext();
  const char* source = kernel == Kernel::Add ? kMlirAdd : kMlirMatmul;
  for (auto _ : state) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    if (!module) {
      state.SkipWithError("MLIR could not parse the kernel");
      return;
    }
    if (mlir::failed(memjit::bench::lowerToLLVMDialect(*module))) {
      state.SkipWithError("MLIR's lowering failed");
      return;
    }
    mlir::ExecutionEngineOptions options;
    auto transformer = mlir::makeOptimizingTransformer(level, 0, nullptr);
    options.transformer = transformer;
    options.jitCodeGenOptLevel = level == 0   ? llvm::CodeGenOptLevel::None
                                 : level == 3 ? llvm::CodeGenOptLevel::Aggressive
                                              : llvm::CodeGenOptLevel::Default;
    auto engine = mlir::ExecutionEngine::create(*module, options);
    if (!engine) {
      state.SkipWithError(llvm::toString(engine.takeError()).c_str());
      return;
    }
    auto fn = (*engine)->lookup("_mlir_ciface_kernel");
    if (!fn) {
      state.SkipWithError(llvm::toString(fn.takeError()).c_str());
      return;
    }
    benchmark::DoNotOptimize(*fn);
  }
}
#endif

void registerAll() {
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
}

}  // namespace

int main(int argc, char** argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
