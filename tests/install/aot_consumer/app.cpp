// Calls an ahead-of-time compiled kernel through the generated header.
#include <cstdio>

#include "kernels.h"

int main() {
  float x[3] = {1, 2, 3}, y[3] = {1, 1, 1};
  memjit::runtime::StridedMemRef<float, 1> dx{x, x, 0, {3}, {1}}, dy{y, y, 0, {3}, {1}};
  kernels::saxpy(2.0f, dx, dy);  // y += 2 * x (the by-value wrappers take views)
  const auto* info = kernels::findFunction("saxpy");
  std::printf("aot saxpy %g %g %g %s\n", y[0], y[1], y[2], info ? info->type : "?");
  return y[0] == 3 && y[1] == 5 && y[2] == 7 ? 0 : 1;
}
