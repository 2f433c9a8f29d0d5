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

  /// For Jit::remove.
  const std::shared_ptr<detail::ModuleState>& state() const noexcept { return state_; }

 private:
  std::shared_ptr<detail::ModuleState> state_;
};

}  // namespace memjit::jit
