// A module the JIT has compiled and linked. Its code stays loaded while the
// Jit holds it (until Jit::remove) or while any Function from it is alive.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"
#include "memjit/jit/compile_stats.h"
#include "memjit/jit/function.h"
#include "memjit/jit/remarks.h"

namespace memjit::jit {

namespace detail {
struct ModuleState;
}

class LoadedModule {
 public:
  /// An empty handle (valid() is false).
  LoadedModule() = default;
  explicit LoadedModule(std::shared_ptr<detail::ModuleState> state) noexcept
      : state_(std::move(state)) {}

  bool valid() const noexcept { return state_ != nullptr; }
  /// The module's name.
  const std::string& name() const;

  /// The function `name` with the signature from its embedded metadata
  /// (`_memjit_type_<name>` and friends). Resolved once and cached: asking
  /// again returns the same record. NotFound when the module does not define
  /// `name` or carries no metadata for it; ParseError when the metadata is bad.
  Expected<Function> function(std::string_view name) const;
  /// Names of the functions whose metadata this module embeds, sorted.
  std::vector<std::string> functionNames() const;
  /// Address of any symbol this module defines (a function, its
  /// `_mlir_ciface_` wrapper, a metadata constant). NotFound otherwise.
  Expected<void*> symbol(std::string_view name) const;
  /// Every symbol the module defines, sorted.
  std::vector<std::string> symbolNames() const;

  /// True when the object came from the object cache (no optimisation or
  /// code generation ran).
  bool fromCache() const;
  /// The object cache key (empty when the Jit has no cache).
  const std::string& cacheKey() const;
  /// Where the time of adding this module went (see compile_stats.h). An
  /// object added with Jit::addObject has only link, total and the sizes.
  const CompileStats& compileStats() const;

  /// The machine code of function `name` as loaded, decoded by LLVM's
  /// disassembler: one instruction a line (AT&T syntax) at its offset in the
  /// function, references the linker resolved (calls, constants) annotated
  /// with the symbol they name, and, when the module has debug info, each
  /// source line (file:line and its text when the file is readable) above its
  /// instructions. Works for every way a module is added (cache hits and
  /// addObject too): the object stays with the module. When `name`'s body was
  /// moved into `_mlir_ciface_<name>` (JitOptions::compileExpandedOnFirstUse)
  /// that function is shown, and the first line says so. NotFound when the
  /// module's object defines neither; InvalidArgument for an empty handle.
  Expected<std::string> assembly(std::string_view name) const;
  /// The loop vectoriser's remarks from optimising this module (remarks.h;
  /// summarise with loopVectorization). Empty unless added with
  /// AddOptions::remarks.
  const std::vector<Remark>& remarks() const;

  /// For Jit::remove.
  const std::shared_ptr<detail::ModuleState>& state() const noexcept { return state_; }

 private:
  std::shared_ptr<detail::ModuleState> state_;
};

}  // namespace memjit::jit
