// Expanded entry points compiled on first use (JitOptions::compileExpandedOnFirstUse).
// Internal to jit/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/error.h"

namespace memjit::codegen {
class Module;
}

namespace memjit::jit::detail {

/// Expanded entry points taken out of a module. `buildStubs` makes, in a
/// module of its own, a stub per name (`<name>` storing its descriptors and
/// calling `_mlir_ciface_<name>`); the Jit calls it only when a stub is first
/// looked up, so a module whose expanded entries nobody asks for never pays
/// for building or compiling them.
struct DeferredEntries {
  using Stubs = std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>>;
  std::vector<std::string> names;
  std::function<Expected<Stubs>()> buildStubs;
};

/// For every function of `module` whose only use is the call in its own C
/// interface: inlines the body into the interface, removes the expanded
/// function and records how to build its stub. Other functions (no
/// interface, external, called from elsewhere, not inlinable) stay as they
/// are, so the result is never wrong, only sometimes not deferred.
[[nodiscard]] Expected<DeferredEntries> deferExpandedEntries(codegen::Module& module);

/// An expanded function whose inlining into its C interface waits for the
/// tier-up (tiering.h).
struct LaterInlining {
  std::string expanded;
  std::string cInterface;
};

/// deferExpandedEntries for a module compiled in tiers: nothing is inlined on
/// the first call's path (sgemm's kernel cost 47M instructions there, four
/// fifths of its first tier), nor asked whether it could be (its 15K
/// instructions' walk, a tenth of what was left): every function called only
/// by its interface is deferred, and one that turns out not inlinable stays
/// called by its interface in both tiers. Each deferred expanded function
/// becomes internal, so the stub owns its name, and `later` lists it for
/// spliceDeferredEntries on the first tier's copy and inlineDeferredEntries on
/// the tier-up's.
[[nodiscard]] Expected<DeferredEntries> deferExpandedEntriesToTierUp(codegen::Module& module,
                                                                     std::vector<LaterInlining>& later);

/// The tier-up's half of deferExpandedEntriesToTierUp: inlines each listed
/// expanded function of `module` into its C interface and erases it. One that
/// cannot be inlined stays, internal and called by its interface, which the
/// stub calls: still correct, and on a later cache hit still deferred
/// (deferredEntriesOfObject: the object does not define it).
void inlineDeferredEntries(llvm::Module& module, const std::vector<LaterInlining>& later);

/// The first tier's half: moves each listed expanded function's body into
/// its C interface in place of the call, without copying it (the first tier
/// needs neither inlining's alias scopes nor the original), and erases the
/// function. Where the module has debug info, whose scopes a move would
/// break, it inlines instead; where neither works the call stays (correct).
void spliceDeferredEntries(llvm::Module& module, const std::vector<LaterInlining>& entries);

/// What deferExpandedEntries made of `module` when its object was compiled,
/// told without changing the module (a cache hit skips the inlining, which is
/// most of the cost of adding a cached module): the functions it would try to
/// inline that the object (`objectDefines`, sorted) does not define.
/// nullopt when the object cannot tell (a candidate of local linkage is absent
/// either way); then deferExpandedEntries must run.
std::optional<DeferredEntries> deferredEntriesOfObject(codegen::Module& module,
                                                       const std::vector<std::string>& objectDefines);

/// Claims `entries.names` in the tracker's JITDylib; the stubs are built and
/// compiled (with LLJIT's compile layer) on the first lookup of any of them.
llvm::Error defineDeferredEntries(llvm::orc::LLJIT& lljit, const llvm::orc::ResourceTrackerSP& tracker,
                                  const std::string& moduleName, DeferredEntries& entries);

}  // namespace memjit::jit::detail
