// The oracles: ways of compiling and calling a batch of programs that must
// all agree with the reference interpreter. One Oracle is one compile of a
// module holding every program of the batch as its own function.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "interpreter.h"
#include "memjit/jit/jit.h"
#include "program.h"

namespace memjit::difftest {

enum class Invoker { Typed, Raw, Dynamic };

struct Oracle {
  std::string name;  // "O0", "O3-debuginfo", "aot-O2", ...
  jit::OptLevel level = jit::OptLevel::O0;
  /// Each program of the compiled module is called once per invoker.
  std::vector<Invoker> invokers{Invoker::Typed};
  bool checked = false;
  bool debugInfo = false;
  bool aot = false;
  /// Threads of parallel loops (runtime::setNumThreads); the other oracles use 4.
  int threads = 4;
  /// Compiled in tiers at `level` and called before the tier-up: the first
  /// tier's code (tiering.h), which a direct O0 compile does not run (no IR
  /// pipeline, FastISel rewrites, stubs). The module must be tiered.
  bool firstTier = false;
  /// Compiled by a Jit whose large-function guards start at every function
  /// with two loops: loops outlined, and the module compiled in parts of a
  /// few hundred instructions on two threads (module_parts.h), which real
  /// programs reach only at tens of thousands of instructions.
  bool inParts = false;
};

/// Every oracle: O0..O3 (the typed invoker; the dynamic invoker at O1, the
/// raw C interface at O3), checked mode at O2 and with debug info at O0,
/// debug info at O3, an AOT object at O2 loaded back, the tiered
/// first tier of an O2 module (typed and raw C interface, through the stubs),
/// and modules whose loops are outlined and compiled in parts (at O2, and at
/// O3 with debug info, whose scopes the outlining and the split carry).
std::vector<Oracle> standardOracles();
/// The oracles of batch `k`: O0 and O3 always, and two of the others in
/// turn, so a run spreads every oracle over its programs at a third of the cost.
std::vector<Oracle> oraclesForBatch(std::uint64_t k);

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
  /// Seconds spent per oracle (build, compile, calls), in oracle order.
  std::vector<std::pair<std::string, double>> seconds;
};

class Runner {
 public:
  static Expected<Runner> create();
  /// Runs `programs` through every oracle; appends what disagrees.
  void run(const std::vector<Program>& programs, const std::vector<Oracle>& oracles,
           std::vector<Mismatch>& mismatches, BatchStats& stats);

 private:
  explicit Runner(std::unique_ptr<jit::Jit> jit) : jit_(std::move(jit)) {}
  /// The Jit that compiles `o`'s modules: the shared one, or (made on first
  /// use) the first-tier oracles' (tiering on, its call threshold never
  /// reached) or the in-parts oracles'.
  Expected<jit::Jit*> jitFor(const Oracle& o);
  std::unique_ptr<jit::Jit> jit_;
  std::unique_ptr<jit::Jit> firstTierJit_;
  std::unique_ptr<jit::Jit> partsJit_;
};

/// Compares one call's results with the interpreter's; appends the differences (at most a few per call).
void compare(const Program& p, const Outcome& expected, const Observed& got, std::vector<std::string>& out,
             BatchStats& stats);

}  // namespace memjit::difftest
