// Test helpers: a memjit::jit::Jit for tests that need one to go on (a failed
// Jit::create ends the test with its message; see support/expected.h), and a
// codegen module compiled by a Jit of its own, whose C interfaces a test calls.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "support/call_jit.h"
#include "support/expected.h"

namespace memjit::test {

inline jit::Jit makeJit(jit::JitOptions options = {},
                        std::source_location where = std::source_location::current()) {
  return valueOrFail(jit::Jit::create(std::move(options)), "Jit::create", where);
}

/// A module in a Jit of its own: its function names cannot clash with another test's.
struct CompiledModule {
  std::unique_ptr<jit::Jit> jit;
  std::optional<jit::LoadedModule> mod;  ///< empty when Jit::add failed (a test failure already)

  /// `_mlir_ciface_<name>` as an F*; a missing one ends the test.
  template <typename F = void>
  F* get(const std::string& name, std::source_location where = std::source_location::current()) {
    if (!mod) {
      ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line())) << "no module to look '" << name << "' up in";
      throw TestStopped("no module");
    }
    return reinterpret_cast<F*>(valueOrFail(mod->symbol("_mlir_ciface_" + name), name, where));
  }
};

inline CompiledModule compileModule(codegen::Module m, jit::JitOptions options = {}) {
  CompiledModule c{std::make_unique<jit::Jit>(makeJit(std::move(options))), std::nullopt};
  auto mod = c.jit->add(std::move(m));
  EXPECT_TRUE(mod) << mod.takeError().str();
  if (mod) c.mod.emplace(std::move(*mod));
  return c;
}

/// LLVM IR text compiled by a Jit of its own (Jit::addIR); a failure ends the test.
struct CompiledIR {
  std::unique_ptr<jit::Jit> jit;
  jit::LoadedModule mod;

  /// The IR function `symbol` (no `_mlir_ciface_` prefix) as a callable F; a missing one ends the test.
  template <typename F>
  JitFunction<F> function(const std::string& symbol, std::source_location where = std::source_location::current()) {
    return JitFunction<F>(valueOrFail(mod.symbol(symbol), symbol, where));
  }
};

inline CompiledIR compileIR(std::string_view ir, jit::JitOptions options = {}, jit::AddOptions add = {},
                            std::source_location where = std::source_location::current()) {
  auto engine = std::make_unique<jit::Jit>(makeJit(std::move(options), where));
  jit::LoadedModule mod = valueOrFail(engine->addIR(ir, "ir", std::move(add)), "Jit::addIR", where);
  return {std::move(engine), std::move(mod)};
}

}  // namespace memjit::test
