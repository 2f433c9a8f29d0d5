// The C++ a user would write for an int8 dot product and GEMV (u8 activations or weights times s8).
#include "native/dot.h"

namespace native {

std::int32_t dotU8S8(const std::uint8_t* a, const std::int8_t* b, long n) {
  std::int32_t acc = 0;
  for (long i = 0; i < n; ++i) acc += std::int32_t{a[i]} * std::int32_t{b[i]};
  return acc;
}

void gemvU8S8(const std::uint8_t* a, const std::int8_t* x, std::int32_t* y, long rows, long cols) {
  for (long r = 0; r < rows; ++r) {
    std::int32_t acc = 0;
    for (long c = 0; c < cols; ++c) acc += std::int32_t{a[r * cols + c]} * std::int32_t{x[c]};
    y[r] = acc;
  }
}

}  // namespace native
