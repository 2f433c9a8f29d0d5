// Builds the kernels at build time; memjit_add_aot_library passes -o, --header, -O2.
#include <cstdio>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/aot_command.h"

int main(int argc, char** argv) {
  memjit::codegen::Module module("kernels");
  if (memjit::Error e = memjit::codegen::addSaxpy(module, "saxpy"))
    return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  return memjit::jit::runGenerator(argc, argv, module);
}
