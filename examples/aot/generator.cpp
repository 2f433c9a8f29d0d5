// The AOT generator: builds the kernels with memjit at build time and writes
// an object file and a header (memjit_add_aot_library passes -o/--header).
#include <iostream>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/aot_command.h"

int main(int argc, char** argv) {
  memjit::codegen::Module module("kernels");
  for (memjit::Error e : {memjit::codegen::addElementwiseAdd(module, "add"),
                          memjit::codegen::addSaxpy(module, "saxpy"),
                          memjit::codegen::addMatmul(module, "matmul"),
                          memjit::codegen::addSum(module, "sum")}) {
    if (e) {
      std::cerr << "generator: " << e.str() << "\n";
      return 1;
    }
  }
  return memjit::jit::runGenerator(argc, argv, module);
}
