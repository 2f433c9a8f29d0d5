// Random, well-typed, UB-free programs from a seed. The same seed gives the
// same program on every platform (splitmix64, no std:: distributions).
// Undefined behaviour is excluded by construction, with ops the program
// itself contains: divisors equal to 0 (or -1 under INT_MIN) are replaced
// by 1 through a select, float-to-integer casts see 0 unless the value is in
// range, memref indices are reduced modulo the dim (remui), index add/sub/mul
// operands are masked to 16 bits (index arithmetic is nsw).
#pragma once

#include <cstdint>

#include "program.h"

namespace memjit::difftest {

struct GeneratorOptions {
  int statements = 24;  ///< top-level statement budget (nested ones come on top; 24 keeps >= 12 programs/s)
  bool controlFlow = true;
  bool memrefs = true;
  /// Ops applied lane by lane to vectors of 2-8 lanes (fromElements, the op, extract), and the vector
  /// operations beyond that (splat, insert/extract at a dynamic lane, reductions, masked load/store,
  /// gather/scatter, transfer_read/write; program.h's LaneOp).
  bool vectors = true;
  /// parallelReduce with exact integer reductions, parallelFor storing to disjoint rows.
  bool parallel = true;
  /// Atomic updates of the memrefs (serial, and commutative ones in parallel loops) and array reductions.
  bool atomics = true;
  /// Helper functions (scalars and a memref in, scalars out) that the main function calls.
  bool calls = true;
  /// Signalling NaNs among the inputs and constants.
  bool signallingNaN = true;
  /// Transcendental functions (compared within an ulp bound).
  bool transcendentals = true;
  /// One deliberate trap for checked mode: "out of bounds" (a load, a store, a masked or gather/scatter lane),
  /// "by zero", "overflow" (see Program::trap).
  std::string trap;
};

Program generate(std::uint64_t seed, const GeneratorOptions& options = {});

/// splitmix64: the generator's and the runner's source of randomness.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  bool chance(unsigned percent) { return below(100) < percent; }
};

}  // namespace memjit::difftest
