#include "bf16_truncation.h"

#include <bit>
#include <cmath>

namespace memjit::runtime::runner {

float truncFloatToBF16(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  std::uint32_t result;
  if (std::isnan(x)) {
    result = ((bits >> 16) & 0x8000u) | 0x7fc0u;
  } else {
    // Adding 0x7fff plus the lowest kept bit carries into the kept half
    // exactly when the dropped half is above, or at with an odd kept part,
    // halfway; a carry out of the largest finite value gives infinity.
    result = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  }
  return std::bit_cast<float>(result);
}

float truncDoubleToBF16(double x) { return truncFloatToBF16(static_cast<float>(x)); }

}  // namespace memjit::runtime::runner
