// A module of kernels built twice, serial and parallel (`build(module, par)`),
// JIT-compiled once at O3 for a benchmark binary; `get` returns a kernel's C
// interface. bench_parallel's two files each keep one.
#pragma once

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"

namespace memjit::bench {

struct SerialAndParallelKernels {
  std::unique_ptr<jit::Jit> jit;
  std::optional<jit::LoadedModule> mod;
  std::string error;  ///< why the kernels are missing (empty: they are there)

  void* get(const std::string& name) {
    auto p = mod->symbol("_mlir_ciface_" + name);
    if (!p) std::abort();
    return *p;
  }

  template <typename Build>
  static SerialAndParallelKernels make(const std::string& name, Build&& build) {
    SerialAndParallelKernels k;
    auto j = jit::Jit::create({.optLevel = jit::OptLevel::O3});
    if (!j) return k.error = j.error().str(), std::move(k);
    k.jit = std::make_unique<jit::Jit>(std::move(*j));
    codegen::Module m(name);
    for (bool par : {false, true})
      if (Error e = build(m, par)) return k.error = e.str(), std::move(k);
    auto loaded = k.jit->add(std::move(m));
    if (!loaded) return k.error = loaded.error().str(), std::move(k);
    k.mod.emplace(std::move(*loaded));
    return k;
  }
};

}  // namespace memjit::bench
