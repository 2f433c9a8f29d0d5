// A program built against an installed memjit with only memjit::runtime.
#include <cstdio>

#include "memjit/type_syntax.h"

int main() {
  auto t = memjit::parseType("memref<?x4 x f32>");
  if (!t) {
    std::fprintf(stderr, "%s\n", t.error().str().c_str());
    return 1;
  }
  std::printf("%s\n", memjit::toString(*t).c_str());
  return 0;
}
