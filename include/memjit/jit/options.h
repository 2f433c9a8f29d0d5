// Options of the JIT engine: optimisation level, object cache, debugger and
// profiler support, and dumps of what each compilation produced.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace memjit::jit {

class ObjectCache;

/// Optimisation level of the IR pipeline and of code generation (clang's -O0..-O3).
enum class OptLevel : int { O0 = 0, O1 = 1, O2 = 2, O3 = 3 };

/// "O0".."O3".
const char* optLevelName(OptLevel level) noexcept;

/// Tiered compilation (docs/jit-and-aot.md, "Tiered compilation"): a module is
/// compiled first at `firstTier` and is callable at once; its requested level
/// is compiled on the Jit's background thread and swapped in under the same
/// handles. See memjit/jit/tiering.h.
struct TieringOptions {
  /// Off by default; AddOptions::tiered overrides it per module.
  bool enabled = false;
  /// The fast tier: IR pipeline and code generator level. O0 runs no IR
  /// pass at all (memjit emits nothing O0's pipeline would change) and
  /// selects instructions with FastISel.
  OptLevel firstTier = OptLevel::O0;
  /// The tier-up starts once the module's C interfaces were called this many
  /// times in all (counted by the first tier's code); 0 starts it when the
  /// module is added.
  std::uint32_t callThreshold = 0;
  /// ... and no earlier than this long after the module was added.
  std::chrono::milliseconds delay{0};
};

/// Where the guards that keep large functions' compile linear start
/// (docs/jit-and-aot.md, "Large functions"), at O1-O3. The defaults are
/// memjit's measured choices; other values change the code (and the object
/// cache key), never the results.
struct LargeFunctionOptions {
  /// The top-level loops of a function of more IR instructions than this
  /// (with two or more of them) are outlined into functions of their own.
  std::size_t outlineLoopsAbove = 2000;
  /// A module whose outlined loops hold more IR instructions than this, in
  /// all, compiles them in parts (JitOptions::compileThreads).
  std::size_t compileInPartsAbove = 20000;
  /// Each part holds outlined functions up to about this many instructions.
  std::size_t instructionsPerPart = 8000;

  bool operator==(const LargeFunctionOptions&) const = default;
};

/// What `memjit::jit::Jit` does with every module it compiles.
struct JitOptions {
  /// Optimisation level for modules added without their own.
  OptLevel optLevel = OptLevel::O2;
  /// Compiled objects are looked up here before optimising and stored after
  /// compiling. Several Jits (and threads) may share one cache.
  std::shared_ptr<ObjectCache> cache{};
  /// Register every object with GDB's JIT interface (`__jit_debug_register_code`)
  /// so a debugger sees JIT'd functions.
  bool gdbRegistration = false;
  /// Append each JIT'd function to /tmp/perf-<pid>.map so `perf report` names it.
  bool perfMap = false;
  /// Write a jitdump for `perf inject --jit` (code, line tables) in $JITDUMPDIR/.debug/jit/, else $HOME's.
  bool perfJitdump = false;
  /// At O2/O3, skip LLVM's vector epilogue (a second, narrower vector loop for the remainder): a measurable share
  /// of a small kernel's compile (docs/benchmarks.md, "Compile latency") for a gain only on the last few
  /// iterations. LLVM offers this only as the process-wide option
  /// -enable-epilogue-vectorization, so memjit sets it to false once, before
  /// its first O2/O3 compile, unless the application set it itself. It then
  /// holds for every LLVM user in the process; set this to false in every Jit
  /// and AotOptions to leave LLVM's global options untouched.
  bool skipVectorEpilogue = true;
  /// On x86-64 Linux (glibc), loops calling math functions (exp, log, sin,
  /// pow, tanh, erf, ... of f32 and f64) vectorise to calls into glibc's
  /// vector math library libmvec, which the Jit loads (libmvec.so.1) and
  /// resolves. libmvec's functions are accurate to 4 ulp (glibc's manual)
  /// where the scalar libm is within 1-2 ulp, so a vectorised loop may
  /// differ from the scalar one in the last bits. false keeps every call
  /// scalar (libm). No effect on other targets.
  bool vectorMath = true;
  /// Turn a crash inside LLVM's optimiser or code generator into a
  /// CompileError instead of the end of the process: `report_fatal_error`
  /// (e.g. "Cannot select: intrinsic ..." for an intrinsic the target cannot
  /// lower) and crash signals (SIGSEGV, SIGABRT, ...). The error carries LLVM's
  /// message and the module name; the Jit stays usable. Opt-in because the
  /// first such compile changes the process: it installs LLVM's crash-recovery
  /// signal handlers and LLVM's (single, process-wide) fatal error handler,
  /// replacing one the application installed. Outside memjit's compiles both
  /// behave as before (LLVM's message, then the process ends). A recovered
  /// crash leaks the module, its LLVMContext, the TargetMachine used and what
  /// the unwound frames owned; it cannot catch `llvm_unreachable`, which is
  /// undefined behaviour in an LLVM built without assertions.
  bool recoverFromLlvmCrashes = false;
  /// For a codegen module, compile each function's expanded entry point
  /// (`<name>`, MLIR's 3+2N-argument convention) when it is first looked up
  /// instead of with the module. The body moves into `_mlir_ciface_<name>`
  /// (the entry every memjit invoker and C++ harness calls), and `<name>`
  /// becomes a stub that stores its descriptors and calls the interface, as
  /// MLIR's own external-function stubs do. Both symbols keep their ABI and
  /// behaviour. Compiling the wrapper costs part of a small kernel's compile
  /// (docs/benchmarks.md, "Compile latency"), and most programs never call the expanded
  /// entry. The price: the
  /// first lookup of `<name>` compiles the stub, and each call through it
  /// costs a few stores and loads more. Functions that other functions in
  /// the module call stay as they are. Set false for MLIR's exact layout
  /// (body in `<name>`, interface calling it). AOT output never changes.
  bool compileExpandedOnFirstUse = true;
  /// When non-empty, each compiled module leaves `<name>.<key>.before.ll`,
  /// `.after.ll` and `.o` in this directory (created if missing); a module
  /// compiled in parts (compileThreads) leaves `.a`, the archive of its
  /// objects, and each part's `.partN.after.ll` besides.
  std::string dumpDirectory{};
  /// Compile modules in two tiers (off by default).
  TieringOptions tiering{};
  /// Threads that compile one large module at O1-O3, the adding thread
  /// included: a module whose loops were outlined (generated kernels of
  /// thousands of loops, docs/jit-and-aot.md "Large functions") compiles them
  /// in parts of a few thousand instructions on these threads, into one
  /// archive of objects. 0: one per core; 1: every part on the adding thread.
  /// The code does not depend on it (parts are cut by size); every other
  /// module compiles on the adding thread alone.
  unsigned compileThreads = 0;
  /// Where outlining loops and compiling in parts start.
  LargeFunctionOptions largeFunctions{};
};

}  // namespace memjit::jit
