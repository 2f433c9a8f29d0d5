// A whole program from a file: LLVM IR (.ll/.bc, e.g. what
// `mlir-translate --mlir-to-llvmir` prints) or an object file (.o), loaded
// into a Jit the way mlir-cpu-runner loads a module, for test harnesses and
// `memjit run` (a thin layer over this).
//
//   auto jit = memjit::jit::Jit::create({.vectorMath = false});
//   auto program = memjit::jit::loadProgram(*jit, "prog.ll",
//                                           {.sharedLibraries = {"libfoo.so"}});
//   program->runConstructors();
//   auto main = program->symbol("main");               // any symbol, e.g. to call by hand
//   auto f = program->function("f", "(memref<?xf32>) -> f32");  // a typed handle
//   auto r = f->invoke({memjit::runtime::Variant(view)});
//   program->runDestructors();                         // or let ~Program do it
//
// What loading does, as mlir-cpu-runner does with the same program:
//  - the module gets the host's triple, data layout, CPU and features;
//  - without ProgramOptions::optLevel no IR pass runs and the code generator
//    works at O2; with On the O<n> module pipeline runs first (code generation
//    stays at O2 below O3). LLVM options set with llvm::cl (e.g. -enable-matrix,
//    which lowers llvm.matrix.* intrinsics in the O0 pipeline) apply: they are
//    process-global, so set them (memjit run forwards unknown flags) before
//    loading and mind other LLVM users in the process;
//  - undefined symbols resolve to the shared libraries (and their
//    dependencies) in order, then memjit's runner utilities (printMemref*,
//    printF32, memrefCopy, ...), then the process (libc, libm); the module's
//    own definitions come first, also for calls LLVM itself emits;
//  - llvm.global_ctors run in runConstructors, llvm.global_dtors in
//    runDestructors (an object file's .init_array is not run).
// For printed floats to match MLIR's bit for bit, make the Jit with
// JitOptions::vectorMath = false (MLIR does not vectorise math calls).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"
#include "memjit/jit/function.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/loaded_module.h"
#include "memjit/jit/options.h"

namespace memjit::jit {

struct ProgramOptions {
  /// nullopt (default): no IR optimisation pass, code generation at O2
  /// (mlir-cpu-runner without -O). O0..O3: that module pipeline first
  /// (mlir-cpu-runner -O0..-O3). Ignored for object files.
  std::optional<OptLevel> optLevel{};
  /// Searched in this order for the program's undefined symbols, before the
  /// runner utilities (mlir-cpu-runner --shared-libs=a.so,b.so).
  std::vector<std::string> sharedLibraries{};
  /// Resolve MLIR's runner utilities (printMemrefF32, printNewline, ...) to
  /// memjit's own when neither the program nor a shared library defines them.
  bool runnerUtilities = true;
};

/// The LLVM type of a function the program's IR defines, in LLVM's words
/// ("void", "i32", "i64", "float", "ptr", ...).
struct IRFunctionType {
  std::string result;
  std::vector<std::string> parameters;
  bool variadic = false;
};

class Program {
 public:
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  /// Runs the destructors if the constructors ran and runDestructors did not.
  ~Program();

  /// The file the program came from.
  const std::string& path() const noexcept { return path_; }
  /// The loaded module (its name is the file's path).
  const LoadedModule& module() const noexcept { return module_; }

  /// Calls the module's global constructors (llvm.global_ctors, by priority).
  /// Only the first call does anything.
  void runConstructors();
  /// Calls the global destructors (llvm.global_dtors), once, and only if
  /// the constructors ran.
  void runDestructors();

  /// The function `name` with its signature from memjit's metadata (see
  /// LoadedModule::function).
  Expected<Function> function(std::string_view name) const;
  /// The function `name` called through its C interface
  /// (`_mlir_ciface_<name>`, from MLIR's llvm.emit_c_interface) with the MLIR
  /// function type `type`, e.g. "(memref<?xf32>, f32) -> memref<?xf32>".
  /// ParseError for bad type text; NotFound when the module has no
  /// `_mlir_ciface_<name>`. The caller vouches that the type is right.
  Expected<Function> function(std::string_view name, std::string_view type) const;
  /// Address of a symbol the program defines (NotFound otherwise).
  Expected<void*> symbol(std::string_view name) const;
  /// The IR type of a function the program defines; nullopt when it defines
  /// no such function or came from an object file (no types to read).
  std::optional<IRFunctionType> irFunctionType(std::string_view name) const;

 private:
  friend Expected<Program> loadProgram(Jit&, const std::string&, ProgramOptions);
  Program() = default;
  std::string path_;
  LoadedModule module_;
  std::map<std::string, IRFunctionType, std::less<>> irTypes_;
  bool constructed_ = false;
  bool destructed_ = false;
};

/// Reads `path` ("-": standard input; textual IR, bitcode or an ELF object,
/// told apart by their contents) and adds it to `jit`, linked now. Errors: IoError when the file
/// cannot be read, ParseError for bad IR or an unreadable object, NotFound for
/// a missing shared library, and the Jit's compile and link errors (an
/// undefined symbol names the symbol), each naming the file.
Expected<Program> loadProgram(Jit& jit, const std::string& path, ProgramOptions options = {});

}  // namespace memjit::jit
