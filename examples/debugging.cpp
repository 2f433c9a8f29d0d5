// Debugging a generated kernel: built with FunctionOptions::debugInfo and
// compiled by a Jit that registers its code with GDB, the kernel's
// instructions carry the lines of this file that built them. In gdb:
//   gdb -ex "set breakpoint pending on" -ex "break debugging.cpp:LINE" -ex run ./debugging
// with LINE the one marked below,
// stops inside the JIT'd kernel on that line, `bt` shows the kernel's frame at
// debugging.cpp:LINE above main, and `info args` shows the memref descriptors.
// Run as is, it checks the kernel's result and prints where it was built.
//   Optional argument: the optimisation level (0-3, default 0).
#include <cmath>
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
  std::fprintf(stderr, "debugging: %s\n", e.str().c_str());
  return 1;
}

int main(int argc, char** argv) {
  const int level = argc > 1 ? std::atoi(argv[1]) : 0;
  auto type = parseFunctionType("(f32, memref<?xf32>, memref<?xf32>) -> (f32)");
  if (!type) return fail(type.error());
  codegen::Module module("debugging");
  codegen::FunctionOptions options;
  options.debugInfo = true;
  options.argumentNames = {"alpha", "x", "out"};
  {
    codegen::FunctionBuilder b(module, "scale_sum", *type, options);
    codegen::Value alpha = b.arg(0), x = b.arg(1), out = b.arg(2);
    auto sum = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.f32(0.0f)},
                         [&](codegen::Value i, const std::vector<codegen::Value>& acc) {
                           codegen::Value v = alpha * b.load(x, {i});  // BREAK-HERE
                           b.name(v, "scaled");
                           b.store(v, out, {i});
                           return std::vector<codegen::Value>{acc[0] + v};
                         });
    b.ret({sum[0]});
    if (Error e = b.finish()) return fail(e);
  }
  auto jit = jit::Jit::create({.optLevel = static_cast<jit::OptLevel>(level), .gdbRegistration = true});
  if (!jit) return fail(jit.error());
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error());
  auto fn = loaded->function("scale_sum");
  if (!fn) return fail(fn.error());
  auto call = fn->as<float(float, Vec, Vec)>();
  if (!call) return fail(call.error());
  // Long enough for the vectorised loop of O2/O3 to run (a breakpoint on a
  // line stops at its first address, which is in that loop).
  std::vector<float> x(64), out(64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i + 1);
  const float sum = (*call)(2.0f, runtime::makeView(x), runtime::makeView(out));
  if (sum != 4160.0f || out[63] != 128.0f) {
    std::fprintf(stderr, "debugging: scale_sum gave %g, expected 4160\n", double(sum));
    return 1;
  }
  std::printf("scale_sum = %g (built at %s with debug info, O%d)\n", double(sum), __FILE__, level);
  return 0;
}
