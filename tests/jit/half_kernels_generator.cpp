// Builds half_kernels.h's kernels at build time for jit_aot_half_test
// (memjit_add_aot_library passes -o/--header).
#include <iostream>

#include "half_kernels.h"
#include "memjit/jit/aot_command.h"

int main(int argc, char** argv) {
  memjit::codegen::Module module("half_kernels");
  if (memjit::Error e = memjit::test::addHalfKernels(module)) {
    std::cerr << "half_kernels_generator: " << e.str() << "\n";
    return 1;
  }
  return memjit::jit::runGenerator(argc, argv, module);
}
