// A program built against an installed memjit with only memjit::runtime (and
// memjit::runner_utils): it calls a function in MLIR's C-interface convention
// through both invokers, and prints a memref with MLIR's printMemref, with no
// LLVM or MLIR in the process.
#include <cstdio>
#include <vector>

#include "memjit/runtime/callable.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/runner_utils.h"
#include "memjit/type_syntax.h"

using memjit::runtime::StridedMemRef;

// What `_mlir_ciface_dot` of an MLIR- or memjit-compiled object looks like to C++.
extern "C" float dot_ciface(StridedMemRef<float, 1>* x, StridedMemRef<float, 1>* y) {
  float s = 0;
  for (std::int64_t i = 0; i < x->sizes[0]; ++i)
    s += x->data[x->offset + i * x->strides[0]] * y->data[y->offset + i * y->strides[0]];
  return s;
}

int main() {
  auto t = memjit::parseType("memref<?x4 x f32>");
  if (!t) return std::fprintf(stderr, "%s\n", t.error().str().c_str()), 1;
  std::printf("%s\n", memjit::toString(*t).c_str());

  auto fn = memjit::runtime::Callable::fromTypeText(reinterpret_cast<void*>(&dot_ciface), "dot",
                                                    "(memref<?xf32>, memref<?xf32>) -> f32");
  if (!fn) return std::fprintf(stderr, "%s\n", fn.error().str().c_str()), 1;
  std::vector<float> u{1, 2, 3}, v{4, 5, 6};
  using Vec = StridedMemRef<float, 1>;
  auto typed = fn->as<float(Vec, Vec)>();
  if (!typed) return std::fprintf(stderr, "%s\n", typed.error().str().c_str()), 1;
  float a = (*typed)(memjit::runtime::makeView(std::span(u)), memjit::runtime::makeView(std::span(v)));
  auto b = fn->invoke({memjit::runtime::makeView(std::span(u)), memjit::runtime::makeView(std::span(v))});
  if (!b) return std::fprintf(stderr, "%s\n", b.error().str().c_str()), 1;
  std::printf("dot typed=%g dynamic=%g\n", a, b->toDouble());
  auto view = memjit::runtime::makeView(std::span(u));
  _mlir_ciface_printMemref1dF32(&view);  // what a lowered program's printMemref call runs
  return a == 32.0f && b->toDouble() == 32.0 ? 0 : 1;
}
