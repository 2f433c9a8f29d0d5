// What LLVM's loop vectoriser decided, as data: its optimisation remarks
// (`-Rpass=loop-vectorize`, `-Rpass-missed`, `-Rpass-analysis` in clang),
// collected while a module is optimised when AddOptions::remarks (JIT),
// AotOptions::remarks (ahead of time) or `memjit compile --remarks` asks.
// Collecting costs nothing when not asked: no diagnostic handler is installed,
// and LLVM builds no remark at all.
//
//   auto mod = jit.add(std::move(m), {.remarks = true});
//   for (const auto& loop : memjit::jit::loopVectorization(mod->remarks()))
//     std::cout << memjit::jit::describe(loop) << "\n";
//   // kernel.cpp:12:5: in 'saxpy': vectorised, width 16, interleave 4
//   // kernel.cpp:20:5: in 'total': not vectorised: cannot prove it is safe to
//   //   reorder floating-point operations (...)
//
// The collected remarks also include memjit's own unroll-and-jam of narrow
// GEMV-like nests (pass "memjit-jam", name "Jammed"; docs/slow-kernels.md).
//
// Locations are those of the loops' debug info (codegen::ModuleOptions'
// debug info, or `!dbg` in IR); without it file is empty and line 0, and the
// loops of one function are told apart only by their order.
#pragma once

#include <string>
#include <vector>

namespace memjit::jit {

enum class RemarkKind {
  Passed,    ///< the transformation happened ("vectorized loop ...")
  Missed,    ///< it did not ("loop not vectorized")
  Analysis,  ///< why: LLVM's reason, emitted just before the Missed remark of the same loop
};

/// "passed", "missed", "analysis".
const char* remarkKindName(RemarkKind kind) noexcept;

/// One of a remark's named values (LLVM's `ore::NV`), e.g. {"VectorizationFactor", "16"}.
struct RemarkArgument {
  std::string key;
  std::string value;
};

/// One remark, as LLVM emitted it.
struct Remark {
  RemarkKind kind = RemarkKind::Analysis;
  std::string pass;      ///< "loop-vectorize"
  std::string name;      ///< LLVM's remark identifier: "Vectorized", "MissedDetails", "CantReorderFPOps", ...
  std::string function;  ///< the IR function the loop is in
  std::string file;      ///< "" without debug info
  unsigned line = 0;
  unsigned column = 0;
  std::string message;  ///< the whole text, e.g. "vectorized loop (vectorization width: 16, interleaved count: 4)"
  std::vector<RemarkArgument> args;
};

/// The loop vectoriser's verdict on one loop, from its remarks.
struct LoopVectorization {
  std::string function;
  std::string file;  ///< "" without debug info
  unsigned line = 0;
  unsigned column = 0;
  bool vectorized = false;
  /// Lanes per vector; 0 when not vectorised (a loop only interleaved has 1).
  unsigned width = 0;
  bool scalable = false;  ///< width is a multiple of the hardware's (SVE, RVV)
  /// Vector (or scalar) iterations interleaved per loop trip; 0 when unknown.
  unsigned interleave = 0;
  /// LLVM's reasons when not vectorised, joined with "; ".
  std::string reason;
  /// What LLVM remarked on the loop besides its verdict (e.g. that a vectorised
  /// loop converts between float widths), joined with "; ".
  std::string notes;
};

/// Groups the loop vectoriser's remarks per loop, in the order LLVM visited
/// the loops (innermost first within a nest). Remarks of other passes are skipped.
std::vector<LoopVectorization> loopVectorization(const std::vector<Remark>& remarks);

/// One line: "file:line:col: in 'f': vectorised, width 16, interleave 4" or
/// "in 'f': not vectorised: <reason>" (without the location when unknown),
/// then " (note: <notes>)" when there are notes.
std::string describe(const LoopVectorization& loop);

}  // namespace memjit::jit
