// The oracles: ways of compiling and calling a batch of programs that must
// all agree with the reference interpreter. One Oracle is one compile of a
// module holding every program of the batch as its own function.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interpreter.h"
#include "memjit/jit/jit.h"
#include "program.h"

namespace memjit::difftest {

enum class Invoker { Typed, Raw, Dynamic };

struct Oracle {
  std::string name;  // "O0", "O3-debuginfo-raw", "aot-O2", ...
  jit::OptLevel level = jit::OptLevel::O0;
  Invoker invoker = Invoker::Typed;
  bool checked = false;
  bool debugInfo = false;
  bool aot = false;
};

/// The oracles a batch runs through: O0..O3 with the typed invoker, then one
/// each for the raw C interface, the dynamic invoker, checked mode, debug
/// info and AOT.
std::vector<Oracle> standardOracles();

/// What a call left behind.
struct Observed {
  std::vector<std::uint64_t> io, fm, im;
  std::uint64_t ret = 0;
  std::string error;  // a failed check, a failed call
};

/// One disagreement with the interpreter.
struct Mismatch {
  std::size_t program = 0;  // index in the batch
  std::string oracle;
  std::string what;  // "output 3 (bf16): expected 0x007f, got 0x0000"
};

struct BatchStats {
  std::size_t programs = 0, compared = 0, unchecked = 0, builderRejected = 0;
};

class Runner {
 public:
  static Expected<Runner> create();
  /// Runs `programs` through every oracle; appends what disagrees.
  void run(const std::vector<Program>& programs, const std::vector<Oracle>& oracles, const KnownBugs& known,
           std::vector<Mismatch>& mismatches, BatchStats& stats);

 private:
  explicit Runner(jit::Jit jit) : jit_(std::make_unique<jit::Jit>(std::move(jit))) {}
  std::unique_ptr<jit::Jit> jit_;
};

/// Compares one call's results with the interpreter's; appends the differences (at most a few per call).
void compare(const Program& p, const Outcome& expected, const Observed& got, std::vector<std::string>& out,
             BatchStats& stats);

}  // namespace memjit::difftest
