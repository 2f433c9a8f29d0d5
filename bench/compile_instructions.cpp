// Instructions per compile, for callgrind: the machine is too loaded for
// timings to show a few percent. Compiles one kernel `count` times in one Jit
// after an untimed warm-up (the pooled TargetMachine, its code generators and
// the library info are made once per process), so that collecting only inside
// `Jit::add(codegen::Module, ...)` counts the per-module cost and nothing else:
//
//   valgrind --tool=callgrind --toggle-collect='memjit::jit::Jit::add(memjit::codegen::Module*'
//            build/bench/memjit_compile_instructions matmul O2 3
//
// <kernel>: add, saxpy, softmax, conv3x3, matmul, sgemm (bench_first_call's
// kernels), or a scaling kernel as <body|loops|nest>:<ops> (scaling_kernels.h:
// bench_compile_scaling's, whose binary callgrind cannot run, built as it is
// for the host's AVX-512); <level>: O0, O2, tiered (the O0 first tier only:
// the tier-up is delayed past the run). The warm-up goes through
// Jit::addAll, outside the collected function.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "conv3x3_kernel.h"
#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "scaling_kernels.h"

namespace {

memjit::Error build(memjit::codegen::Module& module, const std::string& kernel) {
  namespace cg = memjit::codegen;
  if (kernel == "add") return cg::addElementwiseAdd(module, "kernel");
  if (kernel == "saxpy") return cg::addSaxpy(module, "kernel");
  if (kernel == "matmul") return cg::addMatmul(module, "kernel");
  if (kernel == "softmax") return cg::addSoftmax(module, "kernel");
  if (kernel == "conv3x3") return memjit::bench::addConv3x3(module, "kernel", {}, false);
  if (kernel == "sgemm") return cg::addSgemm(module, "kernel");
  using memjit::bench::ScalingShape;
  for (ScalingShape shape : {ScalingShape::Body, ScalingShape::Loops, ScalingShape::Nest}) {
    const std::string prefix = std::string(memjit::bench::scalingShapeName(shape)) + ":";
    if (kernel.rfind(prefix, 0) == 0)
      return memjit::bench::addScalingKernel(module, "kernel", shape, std::strtoull(kernel.c_str() + prefix.size(), nullptr, 10));
  }
  return memjit::Error(memjit::ErrorCode::InvalidArgument, "unknown kernel '" + kernel + "'");
}

int fail(const memjit::Error& error) {
  std::fprintf(stderr, "%s\n", error.str().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <add|saxpy|softmax|conv3x3|matmul|sgemm|body:N|loops:N|nest:N> <O0|O2|tiered> [count] [dump directory]\n",
                 argv[0]);
    return 2;
  }
  const std::string kernel = argv[1], level = argv[2];
  const int count = argc > 3 ? std::atoi(argv[3]) : 3;
  memjit::jit::JitOptions options;
  options.optLevel = level == "O0" ? memjit::jit::OptLevel::O0 : memjit::jit::OptLevel::O2;
  if (argc > 4) options.dumpDirectory = argv[4];  // each compile's IR and object, to look at
  if (level == "tiered") {
    options.tiering.enabled = true;
    options.tiering.delay = std::chrono::hours(1);  // removing the module cancels it
  }
  auto jit = memjit::jit::Jit::create(options);
  if (!jit) return fail(jit.error());
  for (int i = 0; i <= count; ++i) {
    memjit::codegen::Module module("compile_instructions");
    if (auto e = build(module, kernel)) return fail(e);
    std::vector<memjit::jit::LoadedModule> loaded;
    if (i == 0) {
      std::vector<memjit::codegen::Module> warmUp;
      warmUp.push_back(std::move(module));
      auto added = jit->addAll(std::move(warmUp));
      if (!added) return fail(added.error());
      loaded = std::move(*added);
    } else {
      auto added = jit->add(std::move(module));
      if (!added) return fail(added.error());
      loaded.push_back(std::move(*added));
    }
    if (auto fn = loaded[0].function("kernel"); !fn) return fail(fn.error());
    if (auto e = jit->remove(loaded[0])) return fail(e);
  }
  return 0;
}
