#include <cstdio>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

using memjit::runtime::StridedMemRef;

int main() {
  memjit::codegen::Module module("kernels");
  if (auto e = memjit::codegen::addElementwiseAdd(module, "add")) return 1;

  auto jit = memjit::jit::Jit::create({.optLevel = memjit::jit::OptLevel::O3,
                                       .cache = memjit::jit::ObjectCache::inMemory()});
  if (!jit) return 1;
  auto loaded = jit->add(std::move(module));      // verified, optimised, compiled, linked now
  if (!loaded) { std::puts(loaded.error().str().c_str()); return 1; }

  auto add = loaded->function("add");             // signature read from the embedded metadata
  auto typed = add->as<void(StridedMemRef<float, 1>, StridedMemRef<float, 1>,
                            StridedMemRef<float, 1>)>();   // checked once against the metadata
  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c[4];
  StridedMemRef<float, 1> da{a, a, 0, {4}, {1}}, db{b, b, 0, {4}, {1}}, dc{c, c, 0, {4}, {1}};
  (*typed)(da, db, dc);                           // c = {11, 22, 33, 44}; a direct call

  std::printf("%s\n", memjit::toString(add->signature().type).c_str());
  (void)jit->remove(*loaded);                     // code freed once no handle uses it
  return c[0] == 11 && c[3] == 44 ? 0 : 1;
}
