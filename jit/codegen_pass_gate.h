// Which of the code generator's optional passes run in which function
// (internal to jit/): installed by CodeEmitter for every compile at O1-O3.
#pragma once

#include <cstddef>
#include <vector>

#include <llvm/ADT/StringMap.h>

#include "llvm_compat.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}

namespace memjit::jit::detail {

/// While it lives, code generation skips passes that cost a function's code
/// generation and change nothing in its code, or nothing its run time shows:
///
/// - LoopStrengthReduce in every function whose innermost loops need none
///   (loopsNeedNoStrengthReduction: each address steps by a legal x86 scale of
///   an induction variable). 20% of compiling a small kernel at O2 (add:
///   callgrind, LSR and the IVUsers analysis it asks for); without it the
///   kernels of bench_kernels, bench_numerics and PolyBench run as fast
///   (docs/benchmarks.md). Loops that step by a run-time stride keep it:
///   matmul_naive ran 2-5% slower without.
/// - In the functions outlined from large functions
///   (outlineLoopsOfLargeFunctions), LoopStrengthReduce whatever their
///   loops (28% of generating a function of 1,666 outlined 6-op loops: 2.10
///   -> 1.45 s of llc, the same instructions but for the order of one cmp's
///   operands per loop) and X86DomainReassignment (7% more, not one
///   instruction changed). And, given the machine, their instructions are
///   selected by FastISel (switched on `machine` for those functions'
///   selection only; the rest of code generation stays at O2): SelectionDAG
///   was 27% of compiling loops:1000, which took 19% fewer instructions with
///   FastISel (callgrind, 1,205 -> 977 M) for 9% less code (the same vector
///   and scalar loop bodies; a remainder loop reloads its constant per
///   iteration) and the same run time. Not where FastISel could give other
///   bits than SelectionDAG: functions with fast-math flags (which let
///   SelectionDAG contract into FMA) and modules with half values
///   (code_emitter.cpp).
///
/// A pass gate already installed (-opt-bisect-limit) is still asked first.
///
/// Installed as the module context's OptPassGate. The legacy code generator
/// describes a loop to the gate only as "loop"; it runs the whole pipeline on
/// one function after the other in module order, and each function's loop
/// passes come before its first function pass, so a loop belongs to the
/// defined function after the one last described. Were that order ever to
/// change, LSR would run or be skipped in the wrong functions: slower or
/// faster code generation, never different results.
class CodegenPassGate : public llvm_compat::PassGate {
 public:
  /// `machine`: the one generating `module`'s code (nullptr: no FastISel),
  /// whose FastISel switch is restored when the gate goes.
  explicit CodegenPassGate(llvm::Module& module, llvm::TargetMachine* machine = nullptr);
  ~CodegenPassGate() override;
  CodegenPassGate(const CodegenPassGate&) = delete;
  CodegenPassGate& operator=(const CodegenPassGate&) = delete;

  bool allows(llvm::StringRef pass, llvm::StringRef description) const override;

  /// For tests: how many loops LSR skipped, in how many functions it skipped
  /// them, and in how many functions domain reassignment was skipped.
  std::size_t skippedLoopPasses() const noexcept { return skippedLoopPasses_; }
  std::size_t functionsWithoutStrengthReduction() const noexcept;
  std::size_t functionsSkippedIn() const noexcept;
  /// For tests: in how many functions instructions were selected by FastISel.
  std::size_t functionsFastSelected() const noexcept;

 private:
  llvm::LLVMContext& context_;
  llvm::OptPassGate& previous_;
  llvm::TargetMachine* machine_;
  bool fastISelBefore_;
  std::vector<bool> outlined_;                 // per defined function, in module order
  std::vector<bool> withoutLsr_;               // per defined function
  std::vector<bool> fastSelectable_;           // per defined function
  llvm::StringMap<std::size_t> positionOf_;    // name -> index in outlined_
  mutable std::size_t loopOwner_ = 0;          // the function the next "loop" belongs to
  mutable std::size_t skippedLoopPasses_ = 0;
  mutable std::vector<bool> lsrSkippedIn_;     // per defined function
  mutable std::vector<bool> skippedIn_;        // per defined function
  mutable std::vector<bool> fastSelectedIn_;   // per defined function
};

}  // namespace memjit::jit::detail
