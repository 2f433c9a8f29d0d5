// One module of benchmark kernels, built and JIT-compiled once per benchmark
// binary. A benchmark that cannot get its kernels skips with `error` rather
// than aborting, so the native twins in the same binary still run.
#pragma once

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"

namespace memjit::bench {

struct JitKernels {
  std::unique_ptr<jit::Jit> jit;
  std::optional<jit::LoadedModule> mod;
  std::string error;  ///< why the kernels are missing (empty: they are there)

  /// A kernel's `_mlir_ciface_` entry. Only called after `error` was checked,
  /// for names the build made, so a miss is a bug in the benchmark.
  void* get(const std::string& name) {
    auto p = mod->symbol("_mlir_ciface_" + name);
    if (!p) std::abort();
    return *p;
  }

  /// `build(module)` fills the module; the Jit compiles at O3 unless told otherwise. With MEMJIT_BENCH_DUMP=<dir>
  /// set, the compiled objects are left there (JitOptions::dumpDirectory) to disassemble.
  template <typename Build>
  static JitKernels make(const std::string& name, Build&& build,
                         jit::JitOptions options = {.optLevel = jit::OptLevel::O3}) {
    JitKernels k;
    if (const char* dir = std::getenv("MEMJIT_BENCH_DUMP")) options.dumpDirectory = dir;
    auto j = jit::Jit::create(options);
    if (!j) return k.error = j.error().str(), std::move(k);
    k.jit = std::make_unique<jit::Jit>(std::move(*j));
    codegen::Module m(name);
    if (Error e = build(m)) return k.error = e.str(), std::move(k);
    auto loaded = k.jit->add(std::move(m));
    if (!loaded) return k.error = loaded.error().str(), std::move(k);
    k.mod.emplace(std::move(*loaded));
    return k;
  }

  /// The kernels built twice, serial then parallel: `build(module, parallel)`.
  template <typename Build>
  static JitKernels makeSerialAndParallel(const std::string& name, Build&& build) {
    return make(name, [&](codegen::Module& m) -> Error {
      for (bool par : {false, true})
        if (Error e = build(m, par)) return e;
      return Error::success();
    });
  }
};

}  // namespace memjit::bench
