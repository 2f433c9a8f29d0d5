// A program built against an installed memjit with memjit::jit: it builds a
// kernel, JIT-compiles it and calls it through both invokers.
#include <cstdio>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/type_syntax.h"

using namespace memjit;

int main() {
  auto type = parseFunctionType("(memref<?xf32>, memref<?xf32>) -> f32");
  if (!type) return std::fprintf(stderr, "%s\n", type.error().str().c_str()), 1;
  codegen::Module module("consumer");
  codegen::FunctionBuilder b(module, "dot", *type);
  codegen::Value x = b.arg(0), y = b.arg(1);
  auto sum = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.f32(0)},
                       [&](codegen::Value i, const std::vector<codegen::Value>& acc) {
                         return std::vector<codegen::Value>{b.fma(b.load(x, {i}), b.load(y, {i}), acc[0])};
                       });
  b.ret({sum[0]});
  if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;

  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O2});
  if (!jit) return std::fprintf(stderr, "%s\n", jit.error().str().c_str()), 1;
  auto added = jit->add(std::move(module));
  if (!added) return std::fprintf(stderr, "%s\n", added.error().str().c_str()), 1;
  auto dot = added->function("dot");
  if (!dot) return std::fprintf(stderr, "%s\n", dot.error().str().c_str()), 1;

  std::vector<float> u{1, 2, 3}, v{4, 5, 6};
  using Vec = runtime::StridedMemRef<float, 1>;
  auto typed = dot->as<float(Vec, Vec)>();
  if (!typed) return std::fprintf(stderr, "%s\n", typed.error().str().c_str()), 1;
  float a = (*typed)(runtime::makeView(u), runtime::makeView(v));
  auto r = dot->invoke({runtime::makeView(u), runtime::makeView(v)});
  if (!r) return std::fprintf(stderr, "%s\n", r.error().str().c_str()), 1;
  std::printf("jit dot typed=%g dynamic=%g\n", a, r->toDouble());
  return a == 32.0f && r->toDouble() == 32.0 ? 0 : 1;
}
