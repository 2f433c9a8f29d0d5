// Code generation (object or assembly) with a pass pipeline built once and
// run on many modules. Internal to jit/.
#pragma once

#include <memory>
#include <string>

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/error.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace memjit::jit::detail {

enum class EmitKind { Object, Assembly };

/// LLVM's code generator for one TargetMachine at one optimisation level.
///
/// Building the codegen pipeline (`addPassesToEmitFile`: ~150 passes and their
/// analysis dependencies) costs about 7% of compiling a small kernel at O2, and
/// it is the same pipeline every time; so the JIT keeps one emitter per pooled
/// TargetMachine and level and runs it on module after module. Each run is
/// self-contained: the machine-code context is reset at the end of every
/// module (LLVM's MachineModuleInfo and AsmPrinter finalisation), and the output
/// buffer is emptied before each. Julia's JIT ran its codegen pipelines the
/// same way for years. A test checks the objects are byte-identical to those
/// of a fresh pipeline.
///
/// Not thread-safe: one module at a time, on a machine nobody else is using.
class CodeEmitter {
 public:
  /// Builds the pipeline for `machine` at the optimisation level it has now.
  [[nodiscard]] static Expected<std::unique_ptr<CodeEmitter>> create(llvm::TargetMachine& machine,
                                                                     EmitKind kind);
  CodeEmitter(const CodeEmitter&) = delete;
  CodeEmitter& operator=(const CodeEmitter&) = delete;

  /// Generates code for `module` (which code generation changes). Errors LLVM
  /// reports through the module context's diagnostic handler (bad inline asm,
  /// unsupported operations) become CompileError; after one, callers should
  /// build a new emitter rather than trust this one's state.
  [[nodiscard]] Expected<std::string> emit(llvm::Module& module);

  /// The level the pipeline was built for.
  llvm::CodeGenOptLevel level() const noexcept { return level_; }

 private:
  CodeEmitter(llvm::TargetMachine& machine, llvm::CodeGenOptLevel level) : machine_(machine), level_(level) {}
  llvm::TargetMachine& machine_;
  llvm::CodeGenOptLevel level_;
  // Declared before the pass manager: its AsmPrinter writes here until destroyed.
  llvm::SmallVector<char, 0> buffer_;
  llvm::raw_svector_ostream stream_{buffer_};
  llvm::legacy::PassManager passes_;
};

/// Generates code for one module with a pipeline of its own (AOT, and any
/// machine not from the JIT's pool).
[[nodiscard]] Expected<std::string> emitCode(llvm::Module& module, llvm::TargetMachine& machine,
                                             EmitKind kind);

}  // namespace memjit::jit::detail
