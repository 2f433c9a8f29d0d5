// The complete example in the README (built and run by the tests, so it stays true).
#include <cstdio>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/type_syntax.h"

using namespace memjit;

int main() {
  // dot(x, y) = sum of x[i] * y[i], as MLIR would type it.
  auto type = parseFunctionType("(memref<?xf32>, memref<?xf32>) -> f32");
  codegen::Module module("demo");
  codegen::FunctionBuilder b(module, "dot", *type);
  codegen::Value x = b.arg(0), y = b.arg(1);
  auto sum = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.f32(0)},
                       [&](codegen::Value i, const std::vector<codegen::Value>& acc) {
                         return std::vector<codegen::Value>{b.fma(b.load(x, {i}), b.load(y, {i}), acc[0])};
                       });
  b.ret({sum[0]});
  if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;

  // cantFail: a failure here is a bug, so abort with memjit's message.
  auto engine = cantFail(jit::Jit::create({.optLevel = jit::OptLevel::O3}));
  auto loaded = cantFail(engine.add(std::move(module)));    // compiled and linked now
  auto dot = cantFail(loaded.function("dot"));              // signature read back from the object

  std::vector<float> u{1, 2, 3}, v{4, 5, 6};
  using Vec = runtime::StridedMemRef<float, 1>;
  auto typed = cantFail(dot.as<float(Vec, Vec)>());         // checked once, then a direct call
  float a = typed(runtime::makeView(u), runtime::makeView(v));
  auto r = dot.invoke({runtime::makeView(u), runtime::makeView(v)});  // checked on every call
  if (!r) return std::fprintf(stderr, "%s\n", r.error().str().c_str()), 1;
  std::printf("dot = %g (typed), %g (dynamic); signature %s\n", a, r->toDouble(), dot.signature().raw.c_str());
  return a == 32.0f && r->toDouble() == 32.0 ? 0 : 1;
}
