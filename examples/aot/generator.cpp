// The AOT generator: builds the kernels with memjit at build time and writes
// an object file and a header (memjit_add_aot_library passes -o/--header).
#include <iostream>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/aot_command.h"
#include "memjit/type_syntax.h"

using namespace memjit;

// scaled(values, factor): a fresh memref values * factor. Named arguments
// become the parameter names of the generated C++ wrapper.
static Error addScaled(codegen::Module& module) {
  auto type = parseFunctionType("(memref<?xf32>, f32) -> memref<?xf32>");
  if (!type) return type.error();
  codegen::FunctionOptions options;
  options.argumentNames = {"values", "factor"};
  codegen::FunctionBuilder b(module, "scaled", *type, options);
  codegen::Value values = b.arg("values"), factor = b.arg("factor");
  codegen::Value n = b.dim(values, 0);
  codegen::Value out = b.alloc(std::get<MemRefType>(type->results[0]), {n});
  b.forLoop(b.index(0), n, b.index(1), [&](codegen::Value i) {
    b.store(b.load(values, {i}) * factor, out, {i});
  });
  b.ret({out});
  return b.finish();
}

// minmax(values): two results, returned as a std::tuple by the wrapper.
static Error addMinMax(codegen::Module& module) {
  auto type = parseFunctionType("(memref<?xf32>) -> (f32, f32)");
  if (!type) return type.error();
  codegen::FunctionOptions options;
  options.argumentNames = {"values"};
  codegen::FunctionBuilder b(module, "minmax", *type, options);
  codegen::Value values = b.arg("values");
  codegen::Value first = b.load(values, {b.index(0)});
  auto bounds = b.forLoop(b.index(1), b.dim(values, 0), b.index(1), {first, first},
                          [&](codegen::Value i, const std::vector<codegen::Value>& mm) {
                            codegen::Value v = b.load(values, {i});
                            return std::vector<codegen::Value>{b.minnumf(mm[0], v), b.maxnumf(mm[1], v)};
                          });
  b.ret(bounds);
  return b.finish();
}

// [docs:main]
int main(int argc, char** argv) {
  codegen::Module module("kernels");
  for (Error e : {codegen::addElementwiseAdd(module, "add"), codegen::addSaxpy(module, "saxpy"),
                  codegen::addMatmul(module, "matmul"), codegen::addSum(module, "sum"), addScaled(module),
                  addMinMax(module)}) {
    if (e) {
      std::cerr << "generator: " << e.str() << "\n";
      return 1;
    }
  }
  return jit::runGenerator(argc, argv, module);
}
// [docs:end]
