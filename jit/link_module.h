// Linking a compiled object into the Jit as a new module (internal to jit/).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/ExecutionEngine/Orc/Core.h>

#include "deferred_entries.h"
#include "engine.h"
#include "memjit/jit/compile_stats.h"
#include "memjit/jit/remarks.h"

namespace memjit::jit::detail {

/// What a new module links against besides its own definitions and the
/// Jit's shared links: AddOptions::linkAgainst (checked to be loaded here),
/// its shared libraries and the runner utilities.
struct ModuleLinks {
  std::vector<std::shared_ptr<ModuleState>> modules;
  llvm::orc::JITDylibSearchOrder tables;
};

/// ORC's own reading of an object, as the linker will see it, and the symbols
/// it defines in it (sorted; not the init symbol ORC makes up for an object
/// with .init_array, which is no definition). ParseError when ORC cannot read it.
/// For an archive of objects (object_archive.h): no interface, and the
/// symbols its first member defines and those the others export (the parts of
/// a module define hidden functions only its first object calls).
struct ObjectInterface {
  std::optional<llvm::orc::MaterializationUnit::Interface> interface;
  std::vector<std::string> defined;
};
[[nodiscard]] Expected<ObjectInterface> objectInterface(JitCore& core, std::string_view bytes, const std::string& name);

/// Checks and loads what `options` asks module `name` to link against.
[[nodiscard]] Expected<ModuleLinks> resolveLinks(JitCore& core, const std::string& name, const AddOptions& options);

/// A compiled object and what is known of it before it is linked.
struct ObjectToLink {
  std::string name;
  std::string_view bytes;            ///< copied by linkObject; an object or an archive of them
  /// The bytes' owner when shared (kept for LoadedModule::assembly); else linkObject keeps a copy.
  std::shared_ptr<const std::string> owner;
  std::vector<Remark> remarks;  ///< AddOptions::remarks' collection
  std::vector<std::string> defined;  ///< the symbols it defines, to resolve now
  /// ORC's reading of the object (what objectInterface returned), when the
  /// add read it already: the link then does not read it again.
  std::optional<llvm::orc::MaterializationUnit::Interface> interface;
  std::string cacheKey;              ///< empty when the Jit has no cache
  bool fromCache = false;
  /// Later adds of the same key may share the linked code (no links of its
  /// own; linkObject also checks the object has no writable data).
  bool shareable = false;
  DeferredEntries* deferred = nullptr;  ///< expanded entries compiled on first use, or null
  /// The phases so far and when the add began; linkObject adds the link
  /// phase, the total and the sizes, and keeps them as the module's.
  CompileStats stats;
  std::chrono::steady_clock::time_point started;
  /// Called once linked, before the module is findable (tiering.h's stubs).
  std::function<Error(const std::shared_ptr<ModuleState>&)> beforePublish;
};

/// When a module linked from `object.cacheKey` is still alive in this Jit and
/// shares its code (see JitCore::linkedByKey) and this add links against
/// nothing of its own: a new module using that code, with `object`'s name and
/// the stats of a cache hit that linked nothing. Else nullopt.
std::optional<LoadedModule> shareLinkedTwin(const std::shared_ptr<JitCore>& core, ObjectToLink& object,
                                            ModuleLinks& links);

/// Links `object` into a new module namespace and resolves the symbols it
/// defines now, so that a missing external or a duplicate definition is
/// reported here; then makes the module findable by Jit::lookup.
[[nodiscard]] Expected<LoadedModule> linkObject(const std::shared_ptr<JitCore>& core, ObjectToLink object,
                                                ModuleLinks links);

}  // namespace memjit::jit::detail
