// Profiling a generated kernel with perf: built with FunctionOptions::debugInfo
// and compiled by a Jit that writes a jitdump (JitOptions::perfJitdump, under
// $JITDUMPDIR/.debug/jit/, else $HOME's), perf attributes the kernel's samples
// to the lines of this file that built it:
//   JITDUMPDIR=$PWD perf record -k 1 -e cpu-clock:u -o perf.data ./profiling 30000
//   perf inject --jit -i perf.data -o perf.jit.data
//   perf report -i perf.jit.data --sort sym,srcline --stdio
// shows _mlir_ciface_polynomial (the kernel's body runs in its C interface)
// at profiling.cpp:LINE, with LINE the one marked `// HOT-LINE` below, and
// `perf annotate -i perf.jit.data --stdio -l _mlir_ciface_polynomial`
// interleaves this file's lines with the kernel's instructions. (-k 1: jitdump records are stamped
// with CLOCK_MONOTONIC, and perf inject matches them to samples by time.)
//   Argument: how many times to run the kernel over its 64k elements
//   (default 1, a quick check of the result).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using Vec = runtime::StridedMemRef<float, 1>;

static int fail(const Error& e) {
  std::fprintf(stderr, "profiling: %s\n", e.str().c_str());
  return 1;
}

int main(int argc, char** argv) {
  const long repeats = argc > 1 ? std::atol(argv[1]) : 1;
  auto type = parseFunctionType("(memref<?xf32>, memref<?xf32>) -> ()");
  if (!type) return fail(type.error());
  codegen::Module module("profiling");
  codegen::FunctionOptions options;
  options.debugInfo = true;
  options.noalias = true;
  options.argumentNames = {"x", "y"};
  {
    // y = a degree-8 polynomial of x (Horner's scheme): a divide-free chain
    // of dependent multiply-adds, so nearly every sample lands on one line.
    codegen::FunctionBuilder b(module, "polynomial", *type, options);
    codegen::Value x = b.arg(0), y = b.arg(1);
    b.forLoop(b.index(0), b.dim(x, 0), b.index(1), [&](codegen::Value i) {
      codegen::Value v = b.load(x, {i});
      codegen::Value p = b.f32(1.0f);
      for (int k = 0; k < 8; ++k) p = b.fma(p, v, b.f32(0.5f));  // HOT-LINE
      b.store(p, y, {i});
    });
    b.ret();
    if (Error e = b.finish()) return fail(e);
  }
  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O2, .perfJitdump = true});
  if (!jit) return fail(jit.error());
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error());
  auto fn = loaded->function("polynomial");
  if (!fn) return fail(fn.error());
  auto* polynomial = fn->cInterfaceAs<void(Vec*, Vec*)>();

  // x alternates 0 and 1: each step maps p to p * x + 0.5, so p(0) = 0.5
  // and p(1) = 1 + 8 * 0.5 = 5, both exact.
  std::vector<float> x(65536), y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i % 2);
  Vec xs = runtime::makeView(x), ys = runtime::makeView(y);
  for (long r = 0; r < repeats; ++r) polynomial(&xs, &ys);
  if (y[0] != 0.5f || y.back() != 5.0f) {
    std::fprintf(stderr, "profiling: polynomial gave %g and %g, expected 0.5 and 5\n", double(y[0]),
                 double(y.back()));
    return 1;
  }
  std::printf("polynomial ran %ld times over %zu elements (built at %s with debug info)\n", repeats, x.size(),
              __FILE__);
  return 0;
}
