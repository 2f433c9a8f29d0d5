// Keeping the optimisation of large functions linear in their size
// (internal to jit/): guards optimize() applies at O1 and above, the first two
// before the IR passes, the last after them.
#pragma once

#include <cstddef>
#include <vector>

#include <llvm/ADT/StringMap.h>

#include "llvm_compat.h"
#include "memjit/jit/options.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
class PassInstrumentationCallbacks;
}

namespace memjit::jit::detail {

/// Functions with more IR instructions than this have their loops outlined.
inline constexpr std::size_t kOutlineLoopsAbove = LargeFunctionOptions{}.outlineLoopsAbove;

/// Consecutive top-level loops are outlined together while their function
/// stays within this many IR instructions (before optimisation).
inline constexpr std::size_t kOutlineGroupUpTo = 300;

/// Moves the top-level loops of every function larger than `threshold`
/// instructions (and with two or more top-level loops) into internal
/// `noinline` functions, called where the loops were: as the builder's
/// parallel bodies already are. Consecutive loops, with the code between
/// them, share one function up to `groupUpTo` instructions (0: one function
/// per loop); a loop is grouped with the one before only when control passes
/// from that loop's exits to its preheader through plain code (no other loop,
/// no path from elsewhere). Every loop of such a function is also kept from
/// interleaving and from run-time unrolling (unless the builder's LoopOptions
/// ask for a count).
///
/// Why: many of LLVM's per-loop analyses and transforms (dominator and
/// SCEV queries, loop guards, the vectoriser's legality checks, and the
/// function-wide ConstraintElimination) walk the whole function they are in,
/// so a function of N small loops costs O(N^2) to optimise (16 s and 367 MB
/// for 1,666 loops at O2; a 50K-op function did not finish in 10 minutes).
/// Outlined, each loop is optimised in a small function and the cost is
/// linear. Then the cost is per loop: each function's pipeline set-up, and a
/// 6-operation loop vectorised into a memory check, a vector loop
/// interleaved four times and a scalar remainder unrolled eight times (~120
/// instructions). Grouping ~16 such loops per function and keeping the
/// vector loop single cut 500 loops from 3.9 to 1.2 s of CPU (grouping
/// alone 1.4x, the single vector loop alone 1.7x). What is lost is optimisation across groups (LLVM fuses no loops
/// at O2), interleaving's extra accumulators in these generated loops, and
/// the callers' `noalias` on the outlined loops' pointers, which the
/// vectoriser then guards with run-time checks. Semantics are unchanged.
/// Returns the number of functions outlined.
std::size_t outlineLoopsOfLargeFunctions(llvm::Module& module, std::size_t threshold = kOutlineLoopsAbove,
                                         std::size_t groupUpTo = kOutlineGroupUpTo);

/// The attribute outlineLoopsOfLargeFunctions puts on the functions it makes.
inline constexpr const char* kOutlinedLoopsAttribute = "memjit-outlined-loops";

/// Registers a callback that skips, in the functions outlined from large
/// functions, the optional passes listed in large_functions.cpp, and all but
/// one run of InstCombine and of SimplifyCFG before the loop vectoriser and
/// one after it: passes that cost those loops' compile and change nothing in
/// their code. Keeps per-function state: one callback per pipeline run.
void trimPipelineForOutlinedLoops(llvm::PassInstrumentationCallbacks& callbacks);

/// While it lives, code generation skips, in the functions outlined from
/// large functions, two passes that cost their loops' code generation and
/// change nothing in their code: LoopStrengthReduce (28% of generating a
/// function of 1,666 outlined 6-op loops: 2.10 -> 1.45 s of llc, the same
/// instructions but for the order of one cmp's operands per loop) and
/// X86DomainReassignment (7% more, not one instruction changed). And, given
/// the machine, their instructions are selected by FastISel (switched on
/// `machine` for those functions' selection only; the rest of code
/// generation stays at O2): SelectionDAG was 27% of compiling loops:1000,
/// which took 19% fewer instructions with FastISel (callgrind, 1,205 -> 977
/// M) for 9% less code (the same vector and scalar loop bodies; a remainder
/// loop reloads its constant per iteration) and the same run time. Not where
/// FastISel could give other bits than SelectionDAG: functions with
/// fast-math flags (which let SelectionDAG contract into FMA) and modules
/// with half values (code_emitter.cpp). Every other function, and every
/// module without outlined functions, sees every pass;
/// a pass gate already installed (-opt-bisect-limit) is still asked first.
///
/// Installed as the module context's OptPassGate. The legacy code generator
/// describes a loop to the gate only as "loop"; it runs the whole pipeline on
/// one function after the other in module order, and each function's loop
/// passes come before its first function pass, so a loop belongs to the
/// defined function after the one last described. Were that order ever to
/// change, LSR would run or be skipped in the wrong functions: slower or
/// faster code generation, never different results.
class OutlinedLoopsCodegenGate : public llvm_compat::PassGate {
 public:
  /// `machine`: the one generating `module`'s code (nullptr: no FastISel),
  /// whose FastISel switch is restored when the gate goes.
  explicit OutlinedLoopsCodegenGate(llvm::Module& module, llvm::TargetMachine* machine = nullptr);
  ~OutlinedLoopsCodegenGate() override;
  OutlinedLoopsCodegenGate(const OutlinedLoopsCodegenGate&) = delete;
  OutlinedLoopsCodegenGate& operator=(const OutlinedLoopsCodegenGate&) = delete;

  /// True when `module` holds a function outlineLoopsOfLargeFunctions made.
  static bool applies(const llvm::Module& module);

  bool allows(llvm::StringRef pass, llvm::StringRef description) const override;

  /// For tests: how many loops LSR skipped, and in how many functions a
  /// function pass was skipped.
  std::size_t skippedLoopPasses() const noexcept { return skippedLoopPasses_; }
  std::size_t functionsSkippedIn() const noexcept;
  /// For tests: in how many functions instructions were selected by FastISel.
  std::size_t functionsFastSelected() const noexcept;

 private:
  llvm::LLVMContext& context_;
  llvm::OptPassGate& previous_;
  llvm::TargetMachine* machine_;
  bool fastISelBefore_;
  std::vector<bool> outlined_;                 // per defined function, in module order
  std::vector<bool> fastSelectable_;           // per defined function
  llvm::StringMap<std::size_t> positionOf_;    // name -> index in outlined_
  mutable std::size_t loopOwner_ = 0;          // the function the next "loop" belongs to
  mutable std::size_t skippedLoopPasses_ = 0;
  mutable std::vector<bool> skippedIn_;        // per defined function
  mutable std::vector<bool> fastSelectedIn_;   // per defined function
};

/// Innermost loops with more IR instructions than this are not vectorised.
inline constexpr std::size_t kVectorizeLoopsUpTo = 4000;

/// Marks every innermost loop larger than `threshold` instructions
/// `llvm.loop.vectorize.enable false`, so LoopVectorize leaves it before its
/// cost model, whose register-usage estimate is quadratic in the loop's size:
/// one loop of 10K float operations spent 70% of its O2 compile there (0.39 s
/// against 0.08 s without it; 1.26 s against 0.19 s at 20K). A loop that
/// large is rare in a hand-written kernel and is what generated code (query
/// and DSL compilers) produces. Returns the number of loops marked.
std::size_t keepHugeLoopsScalar(llvm::Module& module, std::size_t threshold = kVectorizeLoopsUpTo);

/// Blocks with more IR instructions than this get scheduling boundaries.
inline constexpr std::size_t kScheduleBlocksUpTo = 2000;

/// Puts a zero-byte `llvm.experimental.stackmap` (no code, a call to the
/// code generator, so the end of a machine scheduling region) before every
/// `limit`th instruction of blocks longer than `limit` instructions; run on
/// optimised IR, just before code generation.
///
/// Why: the machine scheduler's register-pressure bookkeeping
/// (ScheduleDAGMILive::collectVRegUses) scans, for each use of a virtual
/// register, the uses of it already seen in the region: quadratic in the uses
/// of one value in one block. A 100K-operation loop body, which reuses its
/// loaded value and three constants 25K times each, spent 20 of its 21 s of
/// code generation there; bounded regions took 1.3 s, the same code. Nothing
/// else in the code generator sees the stackmap but as a call without
/// clobbers. Returns the number of boundaries inserted.
std::size_t boundSchedulingRegions(llvm::Module& module, std::size_t limit = kScheduleBlocksUpTo);

}  // namespace memjit::jit::detail
