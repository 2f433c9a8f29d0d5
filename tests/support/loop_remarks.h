// Test helpers for the passes that choose loop widths (jit/*_width.h,
// prefer-vector-width in jit/compile.cpp): a module compiled with remarks on, and one
// kernel's loop verdict found by name.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/remarks.h"
#include "support/jit.h"

namespace memjit::test {

/// The loop vectoriser's verdicts on every loop of `m`, compiled at `level`.
inline std::vector<jit::LoopVectorization> loopVerdicts(codegen::Module m, jit::OptLevel level = jit::OptLevel::O3) {
  jit::Jit engine = makeJit({.optLevel = level});
  auto mod = engine.add(std::move(m), {.remarks = true});
  EXPECT_TRUE(mod.ok()) << mod.error().message();
  return mod.ok() ? jit::loopVectorization(mod->remarks()) : std::vector<jit::LoopVectorization>{};
}

/// The first verdict on a loop of `kernel` (or its `_mlir_ciface_` wrapper); a test failure when there is none.
inline const jit::LoopVectorization* findLoop(const std::vector<jit::LoopVectorization>& loops,
                                              const std::string& kernel) {
  for (const jit::LoopVectorization& loop : loops)
    if (loop.function == kernel || loop.function == "_mlir_ciface_" + kernel) return &loop;
  ADD_FAILURE() << "no verdict on " << kernel;
  return nullptr;
}

}  // namespace memjit::test
