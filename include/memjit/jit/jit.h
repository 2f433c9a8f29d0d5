// memjit's in-process compiler: LLVM ORC's LLJIT over JITLink, with one
// TargetMachine for the host CPU (all its features) reused for every module,
// the new pass manager at O0..O3 with the target's TargetTransformInfo (so
// loops vectorise for the host), an optional object cache, and unloading.
//
//   auto jit = memjit::jit::Jit::create({.optLevel = memjit::jit::OptLevel::O3});
//   auto mod = jit->add(std::move(codegenModule));     // compiled and linked now
//   auto add = mod->function("add");                   // signature from the metadata
//   add->cInterfaceAs<void(Desc*, Desc*, Desc*)>()(&a, &b, &c);
//   jit->remove(*mod);                                 // frees code once unused
//
// Every module has a symbol namespace of its own (an ORC JITDylib): two
// modules may both define `kernel`, and `LoadedModule::function("kernel")`
// is that module's. A module's undefined symbols resolve, in this order, to
// its own definitions, the modules listed in AddOptions::linkAgainst, the
// shared libraries in AddOptions::sharedLibraries (and their dependencies),
// memjit's runner utilities when AddOptions::runnerUtilities asks, the
// symbols given to registerSymbol, memjit's runtime (parallel loops), libmvec
// and the process (libc, libm). Calls LLVM itself emits (memcpy, fmodf, a
// libm function for an intrinsic) resolve the same way, so a module that
// defines `sinf` itself gets its own, as with any static link of one object.
// Jit::lookup(name) finds the one module defining `name` and is an error
// naming the modules when several do.
//
// Every method is thread-safe. Several threads may add modules at once (each
// module has its own LLVMContext); compilation runs outside any lock.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"
#include "memjit/jit/function.h"
#include "memjit/jit/loaded_module.h"
#include "memjit/jit/options.h"
#include "memjit/jit/target.h"
#include "memjit/types.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace memjit::codegen {
class Module;
}

namespace memjit::jit {

namespace detail {
struct JitCore;
struct PrefetchedObject;
}

/// Per-module overrides of JitOptions.
struct AddOptions {
  std::optional<OptLevel> optLevel{};  ///< default: JitOptions::optLevel
  /// Loaded modules of the same Jit whose definitions this module's undefined
  /// symbols (e.g. functions declared with codegen::declareExternalFunction)
  /// resolve to, searched in this order before registered and process
  /// symbols. Each listed module stays loaded while this one is, even after
  /// Jit::remove of it. Modules see nothing of each other without this.
  std::vector<LoadedModule> linkAgainst{};
  /// Shared libraries (paths, dlopen'ed once per Jit and never unloaded)
  /// whose exported symbols, and those of the libraries they depend on, this
  /// module's undefined symbols resolve to, after linkAgainst, in this order.
  /// A path that does not exist is NotFound; one dlopen refuses is IoError.
  std::vector<std::string> sharedLibraries{};
  /// Resolve MLIR's runner utilities (printMemrefF32, printF32, printNewline,
  /// memrefCopy, verifyMemRefF32, rtclock, ...) to memjit's own, after
  /// sharedLibraries (so a library passed there, e.g. MLIR's
  /// libmlir_c_runner_utils.so, wins) and before everything else.
  bool runnerUtilities = false;
  /// false: run no IR optimisation pass at all, not even O0's, and compile
  /// the module as it is (mlir-cpu-runner without -O). Ignored by addObject.
  bool runIRPasses = true;
  /// The code generator's level, when it should differ from optLevel (which
  /// then sets only the IR pipeline). Ignored by addObject.
  std::optional<OptLevel> codegenLevel{};
  /// Compile this module in tiers (JitOptions::tiering) or not; default:
  /// JitOptions::tiering.enabled.
  std::optional<bool> tiered{};
  /// Collect the loop vectoriser's remarks while optimising, for
  /// LoadedModule::remarks() (remarks.h). A cached object has none, so with
  /// this set the object cache is not read (the compiled object is still
  /// stored). Off, it costs nothing. Ignored by addObject.
  bool remarks = false;
};

/// A C or C++ function registered for kernels to call.
struct RegisteredSymbol {
  std::string name;
  void* address = nullptr;
  /// The MLIR function type the kernel declares it with, when given (codegen
  /// uses it to declare the callee; `_mlir_ciface_` callbacks take descriptors).
  std::optional<FunctionType> type;
};

class Jit {
 public:
  /// Makes the engine: LLJIT, JITLink, the host TargetMachine, and the
  /// debugger/profiler plugins the options ask for.
  static Expected<Jit> create(JitOptions options = {});

  /// A moved-from Jit holds no engine: its fallible methods return
  /// InvalidArgument naming the method, moduleCount() is 0,
  /// registeredSymbols() empty and options() the defaults.
  Jit(Jit&&) noexcept;
  Jit& operator=(Jit&&) noexcept;
  /// Drops the Jit's own references; modules with live Functions stay loaded
  /// until those are gone.
  ~Jit();

  /// Verifies, optimises, compiles (or takes from the cache) and links a
  /// codegen module, then resolves all of its symbols so that a missing
  /// external or a duplicate definition is reported here, not at call time.
  Expected<LoadedModule> add(codegen::Module module, AddOptions options = {});
  /// The same for an LLVM module and the context it lives in (for modules
  /// built by hand or read from a file).
  Expected<LoadedModule> add(std::unique_ptr<llvm::LLVMContext> context,
                             std::unique_ptr<llvm::Module> module, AddOptions options = {});
  /// Adds several codegen modules, each as add(module, options) would, in
  /// order, after asking JitOptions::cache for all of them at once
  /// (ObjectCache::getMany): with a remote cache, one round trip for the
  /// batch where add() makes one per module, which is most of a cache hit's
  /// wait (a replica loading its kernels at start). All or nothing: when a
  /// module fails, the modules this call added are removed again and the
  /// error names the module and its position. An empty batch adds nothing.
  Expected<std::vector<LoadedModule>> addAll(std::vector<codegen::Module> modules, AddOptions options = {});
  /// The same for textual LLVM IR, such as what `mlir-translate --mlir-to-llvmir` prints.
  Expected<LoadedModule> addIR(std::string_view irText, std::string_view moduleName,
                               AddOptions options = {});

  /// The same for a relocatable object file (ELF on Linux), e.g. from
  /// `llc -filetype=obj -relocation-model=pic` or `memjit compile`, or an `ar`
  /// archive of such objects (what a module compiled in parts leaves in
  /// JitOptions::dumpDirectory), every member of which is linked into the
  /// module. Nothing is optimised or compiled; its .init_array/.fini_array are
  /// not run (see Program for IR modules' constructors).
  Expected<LoadedModule> addObject(std::string_view objectBytes, std::string_view moduleName,
                                   AddOptions options = {});

  /// Removes a module: its symbols disappear from lookups and its code and
  /// data are freed as soon as no Function from it is alive. `module` is
  /// emptied. NotFound when it is not (or no longer) loaded in this Jit.
  Error remove(LoadedModule& module);

  /// The function `name` of the one loaded module that defines it (as
  /// LoadedModule::function, cached per module). NotFound when no module
  /// defines it; InvalidArgument naming the modules when several do ("'kernel'
  /// is defined by modules 'a', 'b': use LoadedModule::function").
  Expected<Function> lookup(std::string_view name) const;
  /// The address of a symbol: defined by the one loaded module that defines
  /// it (InvalidArgument naming the modules when several do), else registered
  /// with registerSymbol, defined by memjit's runtime or exported by the process.
  Expected<void*> lookupSymbol(std::string_view name) const;

  /// Makes `address` callable as `name` from the kernels of every module
  /// added from now on (e.g. a C++ callback declared in the kernel's module).
  /// A name registered already is InvalidArgument; a module defining `name`
  /// itself uses its own definition.
  Error registerSymbol(std::string name, void* address,
                       std::optional<FunctionType> type = std::nullopt);
  /// Everything registered so far, in registration order.
  std::vector<RegisteredSymbol> registeredSymbols() const;

  /// The host target the Jit compiles for.
  const TargetSpec& target() const noexcept;
  const JitOptions& options() const noexcept;
  /// Number of modules currently held by the Jit.
  std::size_t moduleCount() const;

 private:
  explicit Jit(std::shared_ptr<detail::JitCore> core) noexcept;
  // add() for an LLVM module (context and module), or for a codegen module
  // (`builder`, whose expanded entries may then be compiled on first use);
  // `prefetched`: addAll's answer from the cache for it, when it has one.
  Expected<LoadedModule> addModule(std::unique_ptr<llvm::LLVMContext> context,
                                   std::unique_ptr<llvm::Module> module, AddOptions options,
                                   codegen::Module* builder, detail::PrefetchedObject* prefetched = nullptr);
  std::shared_ptr<detail::JitCore> core_;
};

}  // namespace memjit::jit
