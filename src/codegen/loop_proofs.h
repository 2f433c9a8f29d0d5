// Internal: checked mode's loop proofs (docs/checked-mode.md, "Proven
// accesses"). While the outermost forLoop of a nest is built, its load/store
// index checks are recorded; when it closes, each checked index whose value
// range follows from the nest's loop bounds (intervals, and for affine
// indices bounds correlated through the loops' bounds; min/max in bounds)
// gets a range condition in a guard block before the nest. The nest is then
// versioned: the guard enters a copy whose proven compares are `true`, else
// the original, fully checked nest, so a failing program reports exactly what
// it reported before, after exactly the same side effects. A check inside a
// branch of the nest becomes `proof || compare` instead (its proof must not
// decide the copy). Conditions that fold to true at build time (static sizes,
// constant bounds) need no copy: those compares go from the nest at once.
#pragma once

#include <vector>

#include "builder_impl.h"

namespace llvm {
class BasicBlock;
class PHINode;
class Value;
}  // namespace llvm

namespace memjit::codegen::detail {

/// Before a forLoop opens: starts a nest when checking and none is open.
/// Returns whether this loop is the nest's outermost.
bool beginProofLoop(FunctionBuilder& self);

/// After the loop opened: its induction variable and bounds.
void addProofLoop(FunctionBuilder& self, llvm::PHINode* iv, llvm::Value* lb, llvm::Value* ub, llvm::Value* step);

/// After the loop closed at `exit` (header null: it failed). The outermost
/// versions the nest; `carried` (the header's loop-carried values) then
/// become the values merged at `exit`.
void endProofLoop(FunctionBuilder& self, bool outermost, llvm::BasicBlock* header, llvm::BasicBlock* exit,
                  std::vector<Value>& carried);

/// A load/store check: per dim the index, the size and the compare `index <
/// size` (null when not an instruction: nothing to prove).
void recordIndexCheck(FunctionBuilder& self, const std::vector<llvm::Value*>& indices,
                      const std::vector<llvm::Value*>& sizes, const std::vector<llvm::Value*>& compares);

/// While alive (a parallel chunk, built inline and outlined into another
/// function), the open nest records nothing; the chunk's loops make their own.
class SuspendProofNest {
 public:
  explicit SuspendProofNest(FunctionBuilder& self) noexcept;
  ~SuspendProofNest();
  SuspendProofNest(const SuspendProofNest&) = delete;
  SuspendProofNest& operator=(const SuspendProofNest&) = delete;

 private:
  BuilderOps::Impl& impl_;
  std::shared_ptr<ProofNest> saved_;
};

}  // namespace memjit::codegen::detail
