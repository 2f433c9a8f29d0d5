// Ahead-of-time emission: a module compiled for the host or any triple/CPU/
// features LLVM supports, written as an object file, assembly, textual IR or
// bitcode, plus a C++ header declaring every `_mlir_ciface_` function with
// memjit::runtime's descriptor types and accessors for the embedded metadata.
// Declarations of external functions are fine (they stay undefined symbols
// for the final link), unlike MLIR's ExecutionEngine::dumpToObjectFile.
#pragma once

#include <string>
#include <vector>

#include "memjit/error.h"
#include "memjit/jit/compile_stats.h"
#include "memjit/jit/options.h"
#include "memjit/jit/remarks.h"
#include "memjit/jit/target.h"
#include "memjit/signature/function_signature.h"

namespace llvm {
class Module;
}

namespace memjit::codegen {
class Module;
}

namespace memjit::jit {

/// How to compile.
struct AotOptions {
  TargetSpec target = TargetSpec::host();
  OptLevel optLevel = OptLevel::O2;
  /// As JitOptions::skipVectorEpilogue: false leaves LLVM's process-wide options untouched.
  bool skipVectorEpilogue = true;
  /// As JitOptions::vectorMath. An object that calls libmvec needs `-lmvec`
  /// at link time: the header says so, and memjit_add_aot_library links it.
  bool vectorMath = true;
  /// As JitOptions::recoverFromLlvmCrashes: a crash inside LLVM becomes a
  /// CompileError (no object is written) instead of ending the process. To
  /// keep the caller's module safe to destroy after a crash, compileAhead then
  /// compiles a copy in an LLVMContext of its own (a bitcode round trip) and
  /// leaves the module passed in unoptimised; a crashed copy is leaked.
  bool recoverFromLlvmCrashes = false;
  /// When set, compileAhead records where its time went here (verify,
  /// prepare, optimize, codegen, total and objectBytes; see compile_stats.h).
  CompileStats* stats = nullptr;
  /// When set, compileAhead replaces its contents with the loop vectoriser's
  /// remarks (remarks.h; `memjit compile --remarks` prints them per loop).
  std::vector<Remark>* remarks = nullptr;
};

/// Where to write; an empty path skips that output.
struct AotOutputs {
  std::string object{};  ///< `.o`
  std::string assembly{};///< `.s`
  std::string ir{};      ///< `.ll` (after optimisation)
  std::string bitcode{}; ///< `.bc` (after optimisation)
  std::string header{};  ///< `.h` (see HeaderOptions)
};

/// Names in the generated header.
struct HeaderOptions {
  /// The namespace of the inline wrappers and metadata accessors; by default
  /// the module name with non-identifier characters replaced by '_'.
  std::string cppNamespace{};
  /// The module name quoted in the header's comment and in the manifest symbol.
  std::string moduleName{};
};

/// Verifies, optimises and writes the requested outputs. The header lists the
/// functions whose metadata the module embeds. The module is modified
/// (optimised), unless options.recoverFromLlvmCrashes. IoError names a file
/// that could not be written.
Error compileAhead(llvm::Module& module, const AotOutputs& outputs, const AotOptions& options = {},
                   const HeaderOptions& header = {});
/// The same for a codegen module.
Error compileAhead(codegen::Module& module, const AotOutputs& outputs,
                   const AotOptions& options = {}, const HeaderOptions& header = {});

/// The header for `functions` as text. Unsupported when a signature has a
/// type that has no C spelling at the C interface (complex scalars passed by
/// value). Half-precision elements are memjit::f16/bf16; f16/bf16 scalars by
/// value are `memjit::f16::abi_type`/`memjit::bf16::abi_type` (half.h).
Expected<std::string> generateHeader(const std::vector<signature::FunctionSignature>& functions,
                                     const HeaderOptions& options);

/// The C++ type of one function's C interface, e.g.
/// `void(memjit::runtime::StridedMemRef<float, 1>*, float)`.
Expected<std::string> cInterfaceType(const signature::FunctionSignature& function);

}  // namespace memjit::jit
