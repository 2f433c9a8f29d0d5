// Builds parallel kernels at build time: scale (a parallel loop), sum (a
// parallel reduction) and scale_first (checked mode), written as an object
// and a header.
#include <iostream>

#include "memjit/codegen/builder.h"
#include "memjit/jit/aot_command.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using codegen::Value;

int main(int argc, char** argv) {
  codegen::Module module("parallel_kernels");
  {
    codegen::FunctionBuilder b(module, "scale", *parseFunctionType("(f32, memref<?xf32>) -> ()"));
    Value a = b.arg(0), x = b.arg(1);
    b.parallelFor(b.index(0), b.dim(x, 0), b.index(1), {}, [&](Value i) { b.store(a * b.load(x, {i}), x, {i}); });
    if (Error e = b.finish()) return std::cerr << "generator: " << e.str() << "\n", 1;
  }
  {
    codegen::FunctionBuilder b(module, "sum", *parseFunctionType("(memref<?xi64>) -> i64"));
    Value x = b.arg(0);
    b.ret(b.parallelReduce(b.index(0), b.dim(x, 0), b.index(1), {1000}, {codegen::Reduction::sum(b.i64(0))},
                           [&](Value i) { return std::vector<Value>{b.load(x, {i})}; }));
    if (Error e = b.finish()) return std::cerr << "generator: " << e.str() << "\n", 1;
  }
  {
    // Checked mode: x[i] *= a for i < n, with every index checked against x's size.
    codegen::FunctionOptions options;
    options.checked = true;
    codegen::FunctionBuilder b(module, "scale_first", *parseFunctionType("(f32, memref<?xf32>, index) -> ()"), options);
    Value a = b.arg(0), x = b.arg(1);
    b.parallelFor(b.index(0), b.arg(2), b.index(1), {}, [&](Value i) { b.store(a * b.load(x, {i}), x, {i}); });
    if (Error e = b.finish()) return std::cerr << "generator: " << e.str() << "\n", 1;
  }
  return jit::runGenerator(argc, argv, module);
}
