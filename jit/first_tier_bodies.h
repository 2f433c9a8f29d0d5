// First-tier bodies (memjit/metadata_symbols.h, kFirstTierBodyAttribute): a
// function may name an internal function of its own type that computes the
// same bits with far less code, such as addSgemm's plain loop nest beside its
// 13K-line blocked kernel. Internal to jit/.
#pragma once

#include <memory>

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// Whether a function of `module` names a first-tier body.
bool hasFirstTierBodies(const llvm::Module& module);

/// A copy of `module` (in its context) without the bodies of the functions
/// that name a first-tier body: they are declarations of the original's
/// linkage, which useFirstTierBodies defines.
std::unique_ptr<llvm::Module> cloneForFirstTier(const llvm::Module& module);

/// The first tier: each function naming a first-tier body becomes a call to
/// it, and the internal functions only the replaced bodies called go.
/// Returns whether a body was replaced.
bool useFirstTierBodies(llvm::Module& module);

/// Every other compile (prepareModule): the attributes and the first-tier
/// bodies (and their constants) that nothing uses go, so they cost nothing there.
void dropFirstTierBodies(llvm::Module& module);

}  // namespace memjit::jit::detail
