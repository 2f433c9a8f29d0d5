#include <cstdio>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using namespace memjit::codegen;

// y[i] = alpha * x[i] + y[i], buffers declared non-aliasing so LLVM vectorises without runtime checks.
Error buildSaxpy(Module& m) {
  FunctionOptions o;
  o.noalias = true;                      // `noalias` on every memref's aligned pointer
  auto type = parseFunctionType("(f32, memref<?xf32>, memref<?xf32>) -> ()");
  if (!type) return type.error();
  FunctionBuilder b(m, "saxpy", *type, o);
  Value alpha = b.arg(0), x = b.arg(1), y = b.arg(2);
  b.forLoop(b.index(0), b.dim(y, 0), b.index(1), [&](Value i) {
    b.store(b.fma(alpha, b.load(x, {i}), b.load(y, {i})), y, {i});
  });
  b.ret();
  return b.finish();                      // first misuse, or llvm::verifyFunction's report
}

int main() {
  Module m("kernels");
  if (Error e = buildSaxpy(m)) { std::fprintf(stderr, "%s\n", e.str().c_str()); return 1; }
  // m now holds @saxpy (expanded convention), @_mlir_ciface_saxpy and the metadata globals.
  // Hand it to memjit::Jit, or std::move(m).release() to any LLVM consumer.
}
