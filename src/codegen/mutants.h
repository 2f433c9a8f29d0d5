// Mutation testing of the differential tester (tests/difftest/mutants.py,
// docs/running-programs.md): a build configured with -DMEMJIT_MUTANTS=ON
// compiles deliberate codegen bugs into the library, each guarded by
// `if (MEMJIT_MUTANT("name"))` at its site and switched on at run time by the
// environment variable MEMJIT_MUTANT=name, so one build serves every mutant.
// In every other build the guard is the constant false and the bug is dead
// code the compiler drops. src/codegen/CMakeLists.txt defines MEMJIT_MUTANTS
// only on the sources that contain a site; the runner finds the names there.
#pragma once

#ifdef MEMJIT_MUTANTS
#include <cstdlib>
#include <cstring>

namespace memjit::codegen::detail {
inline bool mutantActive(const char* name) {
  static const char* const active = std::getenv("MEMJIT_MUTANT");
  return active != nullptr && std::strcmp(active, name) == 0;
}
}  // namespace memjit::codegen::detail
#define MEMJIT_MUTANT(name) (::memjit::codegen::detail::mutantActive(name))
#else
#define MEMJIT_MUTANT(name) false
#endif
