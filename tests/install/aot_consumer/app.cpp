// Calls an ahead-of-time compiled kernel through the generated header.
#include <cstdio>
#include <vector>

#include "kernels.h"

int main() {
  std::vector<float> x{1, 2, 3}, y{1, 1, 1};
  kernels::saxpy(2.0f, x, y);  // y += 2 * x; the wrapper takes the vectors as views
  const auto* info = kernels::findFunction("saxpy");
  std::printf("aot saxpy %g %g %g %s\n", y[0], y[1], y[2], info ? info->type : "?");
  return y[0] == 3 && y[1] == 5 && y[2] == 7 ? 0 : 1;
}
