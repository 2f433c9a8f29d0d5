// What FunctionOptions::debugInfo costs at compile time: building the kernel
// with the builder, then optimising at O2, generating code, linking and
// looking it up, with and without DWARF, in the same run.
//
//   Compile/<kernel>/plain       FunctionOptions::debugInfo = false
//   Compile/<kernel>/debuginfo   FunctionOptions::debugInfo = true
//
// Kernels: matmul (three nested loops, a loop-carried fma, as the kernel
// library's), softmax (three loops per row, a max and a sum reduction and
// exp, as examples/softmax.cpp) and conv3x3 (bench/conv3x3_kernel.h, nine
// unrolled fmas). One Jit serves every iteration; each removes its module.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

#include "conv3x3_kernel.h"
#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/type_syntax.h"

namespace {

using memjit::Error;
using memjit::codegen::FunctionBuilder;
using memjit::codegen::FunctionOptions;
using memjit::codegen::Module;
using memjit::codegen::Value;

Error addMatmul(Module& m, const FunctionOptions& options) {
  FunctionBuilder b(m, "kernel", *memjit::parseFunctionType("(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()"),
                    options);
  Value A = b.arg(0), B = b.arg(1), C = b.arg(2), zero = b.f32(0), lo = b.index(0), one = b.index(1);
  b.forLoop(lo, b.dim(C, 0), one, [&](Value i) {
    b.forLoop(lo, b.dim(C, 1), one, [&](Value j) {
      auto acc = b.forLoop(lo, b.dim(A, 1), one, {zero}, [&](Value k, const std::vector<Value>& s) {
        return std::vector<Value>{b.fma(b.load(A, {i, k}), b.load(B, {k, j}), s[0])};
      });
      b.store(acc[0], C, {i, j});
    });
  });
  b.ret();
  return b.finish();
}

Error addSoftmax(Module& m, const FunctionOptions& options) {
  FunctionBuilder b(m, "kernel", *memjit::parseFunctionType("(memref<?x?xf32>, memref<?x?xf32>) -> ()"), options);
  Value in = b.arg(0), out = b.arg(1), cols = b.dim(in, 1);
  b.forLoop(b.index(0), b.dim(in, 0), b.index(1), [&](Value r) {
    Value m = b.forLoop(b.index(0), cols, b.index(1), {b.f32(-INFINITY)}, [&](Value c, const std::vector<Value>& acc) {
      return std::vector<Value>{b.maxnumf(acc[0], b.load(in, {r, c}))};
    })[0];
    Value sum = b.forLoop(b.index(0), cols, b.index(1), {b.f32(0)}, [&](Value c, const std::vector<Value>& acc) {
      Value e = b.exp(b.load(in, {r, c}) - m);
      b.store(e, out, {r, c});
      return std::vector<Value>{acc[0] + e};
    })[0];
    Value inverse = 1.0f / sum;
    b.forLoop(b.index(0), cols, b.index(1), [&](Value c) { b.store(b.load(out, {r, c}) * inverse, out, {r, c}); });
  });
  b.ret();
  return b.finish();
}

Error addConv3x3(Module& m, const FunctionOptions& options) {
  return memjit::bench::addConv3x3(m, "kernel", options, /*parallel=*/false);
}

using Builder = Error (*)(Module&, const FunctionOptions&);

void compile(benchmark::State& state, Builder build, bool debugInfo) {
  auto jit = memjit::jit::Jit::create({.optLevel = memjit::jit::OptLevel::O2});
  if (!jit) {
    state.SkipWithError(jit.error().str().c_str());
    return;
  }
  FunctionOptions options;
  options.noalias = true;
  options.debugInfo = debugInfo;
  for (auto _ : state) {
    Module module("bench");
    if (Error e = build(module, options)) {
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

void registerAll() {
  const std::pair<const char*, Builder> kernels[] = {
      {"matmul", addMatmul}, {"softmax", addSoftmax}, {"conv3x3", addConv3x3}};
  for (auto [name, build] : kernels)
    for (bool debugInfo : {false, true})
      benchmark::RegisterBenchmark((std::string("Compile/") + name + (debugInfo ? "/debuginfo" : "/plain")).c_str(),
                                   compile, build, debugInfo)
          ->Unit(benchmark::kMillisecond);
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
