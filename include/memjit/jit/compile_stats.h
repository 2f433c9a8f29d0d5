// Where the time of compiling one module went: LoadedModule::compileStats()
// for the JIT, AotOptions::stats for ahead-of-time emission, and
// `memjit compile --time-phases`. Each phase is measured with
// std::chrono::steady_clock around the work it names; a phase that did not
// run (optimise and code generation on a cache hit, link in AOT) is zero.
#pragma once

#include <chrono>
#include <cstddef>

namespace memjit::jit {

struct CompileStats {
  using Duration = std::chrono::nanoseconds;

  /// llvm::verifyModule on the module as handed over (zero when a loaded
  /// identical module's code is shared, or on a cache hit under a structural
  /// digest: the identical module was verified before it was compiled).
  Duration verify{0};
  /// Preparing the IR for the target: lowering global constructors, setting
  /// triple, data layout and CPU attributes, listing the defined symbols.
  Duration prepare{0};
  /// Computing the object cache key (a structural digest of the module, or
  /// its bitcode where the digest does not cover it, and a BLAKE3) and asking
  /// the cache; zero without JitOptions::cache.
  Duration cacheLookup{0};
  /// The IR pass pipeline at the module's optimisation level. For a module
  /// compiled in parts (`parts` > 1) the sum over the parts, which ran on
  /// several threads at once: it may then exceed `total`.
  Duration optimize{0};
  /// Instruction selection, register allocation and machine code emission
  /// (LLVM's code generator up to the object file's bytes); summed over the
  /// parts as `optimize` is.
  Duration codegen{0};
  /// JIT only: creating the module's symbol table, linking the object into
  /// memory (JITLink: relocations, memory protection) and resolving every
  /// symbol it defines. Zero when the module shares the code of an identical
  /// one already loaded in the Jit (a cache hit that links nothing).
  Duration link{0};
  /// From the start of the add (or of compileAhead) to the module being
  /// usable; more than the phases' sum by what no phase covers (reading the
  /// object file's symbol table, bookkeeping).
  Duration total{0};

  /// Size of the object file (a cached one on a hit); of the archive of
  /// objects for a module compiled in parts.
  std::size_t objectBytes = 0;
  /// The objects the module's code is in: 1, or more for a large module whose
  /// outlined loops compiled in parts (JitOptions::compileThreads).
  std::size_t parts = 1;
  /// Bytes of machine code in it (its executable sections; JIT only).
  std::size_t codeBytes = 0;
  /// True when the object came from the object cache: optimize and codegen
  /// are zero.
  bool cacheHit = false;
};

}  // namespace memjit::jit
