// What FunctionOptions::debugInfo costs at compile time: building the kernel
// with the builder, then optimising at O2, generating code, linking and
// looking it up, with and without DWARF, in the same run.
//
//   Compile/<kernel>/plain       FunctionOptions::debugInfo = false
//   Compile/<kernel>/debuginfo   FunctionOptions::debugInfo = true
//
// Kernels: matmul (three nested loops, a loop-carried fma) and softmax
// (three loops per row, a max and a sum reduction and exp) from the kernel
// library, and conv3x3 (bench/conv3x3_kernel.h, nine unrolled fmas). One
// Jit serves every iteration; each removes its module.
#include <benchmark/benchmark.h>

#include <string>

#include "conv3x3_kernel.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"

namespace {

using memjit::Error;
using memjit::codegen::Module;

// Every kernel named "kernel", its buffers noalias, with or without DWARF.
Error addMatmul(Module& m, bool debugInfo) {
  return memjit::codegen::addMatmul(m, "kernel", {.debugInfo = debugInfo});
}
Error addSoftmax(Module& m, bool debugInfo) {
  return memjit::codegen::addSoftmax(m, "kernel", {.debugInfo = debugInfo});
}
Error addConv3x3(Module& m, bool debugInfo) {
  memjit::codegen::FunctionOptions options;
  options.noalias = true;
  options.debugInfo = debugInfo;
  return memjit::bench::addConv3x3(m, "kernel", options, /*parallel=*/false);
}

using Builder = Error (*)(Module&, bool debugInfo);

void compile(benchmark::State& state, Builder build, bool debugInfo) {
  auto jit = memjit::jit::Jit::create({.optLevel = memjit::jit::OptLevel::O2});
  if (!jit) {
    state.SkipWithError(jit.error().str().c_str());
    return;
  }
  for (auto _ : state) {
    Module module("bench");
    if (Error e = build(module, debugInfo)) {
      state.SkipWithError(e.str().c_str());
      return;
    }
    auto loaded = jit->add(std::move(module));
    if (!loaded) {
      state.SkipWithError(loaded.error().str().c_str());
      return;
    }
    auto fn = loaded->function("kernel");
    if (!fn) {
      state.SkipWithError(fn.error().str().c_str());
      return;
    }
    benchmark::DoNotOptimize(fn->cInterface());
    (void)jit->remove(*loaded);
  }
}

int registerAll() {
  const std::pair<const char*, Builder> kernels[] = {
      {"matmul", addMatmul}, {"softmax", addSoftmax}, {"conv3x3", addConv3x3}};
  for (auto [name, build] : kernels)
    for (bool debugInfo : {false, true})
      benchmark::RegisterBenchmark((std::string("Compile/") + name + (debugInfo ? "/debuginfo" : "/plain")).c_str(),
                                   compile, build, debugInfo)
          ->Unit(benchmark::kMillisecond);
  return 0;
}
const int registered = registerAll();

}  // namespace

BENCHMARK_MAIN();
