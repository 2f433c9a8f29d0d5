// Keeping the optimisation of large functions linear in their size
// (internal to jit/): guards optimize() applies at O1 and above, the first two
// before the IR passes, the last after them.
#pragma once

#include <cstddef>
#include <vector>

#include "memjit/jit/options.h"

namespace llvm {
class LLVMContext;
class Module;
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
