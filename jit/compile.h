// The compilation pipeline shared by the JIT and ahead-of-time emission:
// TargetMachine creation, the new-pass-manager optimisation pipeline, and
// object/assembly emission. Internal to jit/.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/Support/CodeGen.h>

#include "code_emitter.h"
#include "memjit/error.h"
#include "memjit/jit/options.h"
#include "memjit/jit/remarks.h"
#include "memjit/jit/target.h"

namespace llvm {
class LLVMContext;
class MemoryBufferRef;
class Module;
class TargetMachine;
}  // namespace llvm

namespace memjit::jit::detail {

/// Registers LLVM's targets once per process (the native one first; all of
/// them for cross compilation).
void initializeNativeTarget();
void initializeAllTargets();

/// LLVM's code generation level for `level`.
llvm::CodeGenOptLevel codegenOptLevel(OptLevel level) noexcept;

/// The relocation model of every machine memjit makes (JIT and AOT), and the
/// names the object cache key gives it and the code model (none is set: the
/// target's default, small on x86-64). A change here must change the names.
inline constexpr llvm::Reloc::Model kRelocationModel = llvm::Reloc::PIC_;
inline constexpr const char* kRelocationModelName = "pic";
inline constexpr const char* kCodeModelName = "default";
/// The byte boundary loops start on in x86 code (TargetOptions::LoopAlignment).
inline constexpr unsigned kLoopAlignment = 64;

/// A TargetMachine for `spec` (kRelocationModel, the default code model) at `level`.
Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const TargetSpec& spec,
                                                                   OptLevel level);
/// Sets the triple and data layout of `module` to the machine's and gives every
/// defined function the machine's CPU and features as attributes (so the
/// per-function TargetTransformInfo matches the machine).
void prepareModule(llvm::Module& module, llvm::TargetMachine& machine);
/// Whether prepareModule gives functions for `cpu` (an LLVM CPU name) with
/// `features` the attribute prefer-vector-width=512: only AVX-512 CPUs on
/// which 512-bit vectors do not cost clock speed (the list and why: compile.cpp).
bool prefers512BitVectors(std::string_view cpu, std::string_view features) noexcept;
/// How a module is optimised (the fields of JitOptions/AotOptions that shape
/// the pipeline).
struct PipelineOptions {
  OptLevel level = OptLevel::O2;
  bool skipVectorEpilogue = true;  ///< as JitOptions::skipVectorEpilogue
  bool vectorMath = true;          ///< as JitOptions::vectorMath
  /// When set, the loop vectoriser's remarks are appended here (remarks.h).
  std::vector<Remark>* remarks = nullptr;
  /// Outline the loops of large functions first (large_functions.h); false
  /// where that was done already (a module compiled in parts, module_parts.h).
  bool outlineLoops = true;
  /// Functions over this many IR instructions have their loops outlined.
  std::size_t outlineLoopsAbove = LargeFunctionOptions{}.outlineLoopsAbove;
};
/// Sets what optimize() sets in LLVM's process-wide options for `options`
/// (once per process): call it before optimising on several threads at once.
void applyProcessWideOptions(const PipelineOptions& options);
/// Runs the default O0..O3 module pipeline with the machine's TTI and
/// memjit's TargetLibraryInfo (vector math library, see vector_math.h).
void optimize(llvm::Module& module, llvm::TargetMachine& machine, const PipelineOptions& options);

/// Runs llvm::verifyModule; the error quotes LLVM's report.
Error verify(const llvm::Module& module);

/// Reads textual IR or bitcode into `context`. A ParseError says `what` the
/// input is, then LLVM's diagnostic (which names the line and column).
Expected<std::unique_ptr<llvm::Module>> parseIR(llvm::MemoryBufferRef input, llvm::LLVMContext& context,
                                                std::string_view what);

/// Textual IR and bitcode of a module.
std::string printIR(const llvm::Module& module);
std::string writeBitcode(const llvm::Module& module);

}  // namespace memjit::jit::detail
