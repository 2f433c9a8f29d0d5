// `memjit call`: argument values from the command line --
// .npy files, scalar literals and generators (zeros, ones, iota, random) --
// checked against the input's type, with errors that name the input.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"
#include "memjit/runtime/buffer.h"
#include "memjit/runtime/variant.h"
#include "memjit/types.h"

namespace memjit::cli {

enum class GeneratorKind { Zeros, Ones, Iota, Random };

/// `zeros`, `ones:128x64`, `iota:8`, `random:4x4:seed=3`.
struct GeneratorSpec {
  GeneratorKind kind = GeneratorKind::Zeros;
  std::optional<std::vector<std::int64_t>> shape;  ///< nullopt: the input's static shape
  std::optional<std::uint64_t> seed;               ///< random only
};

/// `128x64` (dims >= 0, `x`-separated) to {128, 64}.
Expected<std::vector<std::int64_t>> parseShape(std::string_view text);
/// `128x64`, or `()` for rank 0.
std::string shapeText(std::span<const std::int64_t> shape);

/// The generator `text` spells, nullopt when it names none (then it is a
/// path or a literal); an error when it starts like one but is malformed.
Expected<std::optional<GeneratorSpec>> parseGenerator(std::string_view text);

/// A new row-major buffer of `shape` filled as `spec` says (see
/// callHelp()). Random values come from std::mt19937_64 seeded with
/// `seed`, turned into values with explicit bit arithmetic: floats take the
/// top 53 (f64), 24 (f32), 11 (f16) or 8 (bf16) bits times 2^-bits, so they
/// are exact and in [0, 1); integers ((x >> 32) * 100) >> 32 in [0, 100); i1 the top bit.
Expected<runtime::Buffer> generate(GeneratorKind kind, ElementType element, const std::vector<std::int64_t>& shape,
                                   std::uint64_t seed = 0);

/// The value of literal `text` for a scalar input of type `type` named `name`
/// (see callHelp()). Floats are parsed in the input's type (rounded
/// to nearest, once for f32 and f64); an integer literal stays an integer so
/// that the invoker's exact conversion refuses what the type cannot hold.
Expected<runtime::Variant> parseLiteral(std::string_view text, ElementType type, std::string_view name);

/// The value for input `name` of type `type` from `text`: a .npy path, a
/// generator or a literal. `position` is the raw input's index (random's
/// default seed). A Fortran-order array for an identity-layout input is
/// copied to row-major once here, so timed calls do not copy it.
Expected<runtime::Variant> makeArgument(std::string_view text, const Type& type, std::string_view name,
                                      std::size_t position);

}  // namespace memjit::cli
