// Floating-point semantics of the kernel builder: MLIR's `arith.fastmath`
// flags, with MLIR's names and meanings. By default every operation is exact
// IEEE 754 (round to nearest, NaN, infinities and signed zeros honoured, no
// reassociation): the flags are a promise the program makes to the compiler,
// and a result that breaks the promise is undefined (poison).
//
//   reassoc   operations may be reassociated (sums and products reordered,
//             e.g. to vectorise a reduction); results change in the last bits
//   nnan      no operand or result is NaN
//   ninf      no operand or result is +-inf
//   nsz       the sign of a zero does not matter
//   arcp      x / y may become x * (1 / y)
//   contract  a * b + c may become fma(a, b, c) (one rounding instead of two)
//   afn       math functions may be replaced by faster approximations
//   fast      all of the above
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "memjit/error.h"

namespace memjit::codegen {

/// A set of fast-math flags; combine with `|`.
enum class FastMath : std::uint8_t {
  None = 0,
  Reassoc = 1 << 0,   ///< `reassoc`
  NoNaNs = 1 << 1,    ///< `nnan`
  NoInfs = 1 << 2,    ///< `ninf`
  NoSignedZeros = 1 << 3,  ///< `nsz`
  AllowReciprocal = 1 << 4,  ///< `arcp`
  AllowContract = 1 << 5,  ///< `contract`
  ApproxFunc = 1 << 6,  ///< `afn`
  Fast = 0x7f,  ///< `fast`: every flag
};

constexpr FastMath operator|(FastMath a, FastMath b) noexcept {
  return static_cast<FastMath>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr FastMath operator&(FastMath a, FastMath b) noexcept {
  return static_cast<FastMath>(static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(b));
}
constexpr FastMath operator~(FastMath a) noexcept {
  return static_cast<FastMath>(~static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(FastMath::Fast));
}
/// True when every flag of `wanted` is in `flags`.
constexpr bool has(FastMath flags, FastMath wanted) noexcept { return (flags & wanted) == wanted; }

/// MLIR's spelling inside `#arith.fastmath<...>`: "none", "fast", or the
/// flags in MLIR's order joined by commas ("reassoc,nnan,contract").
std::string toString(FastMath flags);

/// Parses MLIR's spelling (as printed by toString; also accepts spaces after
/// commas). An unknown flag is an error naming it and its offset.
Expected<FastMath> parseFastMath(std::string_view text);

}  // namespace memjit::codegen
