// The reference interpreter: runs a Program from README's semantics of the
// kernel language, sharing no code with src/codegen. Each value carries how
// far its bits are determined by the documentation, so the comparison checks
// exactly what is promised: bit for bit by default, within an ulp bound for
// transcendental functions, either of two values where the docs allow two
// (minnumf of +0/-0, bf16 denormals flushed by the narrowing instruction), any
// NaN where the docs leave NaN payloads open, and nothing for values computed
// from those (they are counted as unchecked).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program.h"

namespace memjit::difftest {

enum ValFlag : std::uint8_t {
  kExact = 0,
  kLoose = 1,  ///< bits not determined by the docs (derived from a tolerance below): not compared
  kAlt = 2,    ///< either `bits` or `alt`
  kAnyNaN = 4, ///< some NaN of the type (sign and payload open)
  kUlp = 8,    ///< a transcendental result: within `alt` ulp of `bits`
};

struct Val {
  std::uint64_t bits = 0;
  std::uint64_t alt = 0;
  std::uint8_t flags = kExact;
};

struct Outcome {
  std::vector<Val> outputs;
  std::vector<ElementType> outputTypes;
  Val ret;
  std::vector<Val> fm, im;  // every buffer element
  /// Every value's last value (top-level values are set once: what the reducer turns into constants).
  std::vector<Val> values;
  /// The first trap ("out of bounds", "by zero", "overflow"), where the interpreter stopped; empty: none.
  std::string trap;
};

Outcome interpret(const Program& p);

/// The i64 an Output statement stores for a value of type `t`: floats
/// bitcast to their signless integer type and sign-extended, integers
/// extended by their signedness (i1 and ui zero-extended, as `cast` does).
std::uint64_t outputBits(ElementType t, std::uint64_t bits);

}  // namespace memjit::difftest
