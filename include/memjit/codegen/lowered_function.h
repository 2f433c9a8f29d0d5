// A function as declared in a codegen Module: how it was asked for
// (FunctionOptions) and what its declaration made (LoweredFunction). The
// module keeps one per declared function, so this value type sits below
// both the module's state and function_lowering.h, which makes them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memjit/codegen/fast_math.h"
#include "memjit/codegen/lowering.h"
#include "memjit/signature/function_signature.h"
#include "memjit/types.h"

namespace llvm {
class Function;
}  // namespace llvm

namespace memjit::codegen {

/// What the caller knows about one memref argument. MLIR spells these
/// `llvm.noalias` and `llvm.align`.
struct ArgumentAttributes {
  /// The argument's data is reached through no other argument.
  bool noalias = false;
  /// Known alignment of the aligned data pointer in bytes (0: unknown; else a power of two).
  unsigned alignment = 0;
};

/// How a function is declared.
struct FunctionOptions {
  LoweringOptions lowering;
  /// Emit `_mlir_ciface_<name>` (MLIR's `llvm.emit_c_interface`). Ignored for
  /// bare pointers, for which MLIR emits none.
  bool emitCInterface = true;
  /// Shorthand: every memref argument is `noalias`.
  bool noalias = false;
  /// Per input (empty, or one entry per input; ignored for scalars).
  std::vector<ArgumentAttributes> arguments;
  /// Metadata to embed instead of `signature::describe(name, type)`, e.g. with
  /// a SIP structure or a result allocator. Its name and type must match.
  std::optional<signature::FunctionSignature> signature;
  /// Names of the inputs (empty, or one distinct non-empty name per input).
  /// They become `named` records of the V1 reflection (keyword arguments for
  /// the dynamic invoker), FunctionBuilder::arg(name), and the parameter names
  /// of AOT headers. Give them here or in `signature`, not both.
  std::vector<std::string> argumentNames;
  /// Fast-math flags of every floating-point operation the kernel builder
  /// emits in this function (see fast_math.h; default: exact IEEE). Also
  /// sets the function attributes clang sets for them ("no-nans-fp-math",
  /// ...), which some LLVM passes read instead of the instruction flags.
  FastMath fastMath = FastMath::None;
  /// Checked mode (see memjit/runtime/checks.h): the kernel builder makes the
  /// function verify at run time every load/store index against the memref's
  /// sizes, integer division and remainder by zero and signed INT_MIN / -1,
  /// alloc sizes, and subview/reinterpret_cast bounds. A failed check reports
  /// through memjit_check_report (memjit::runtime) and the function returns
  /// at once with zero results; the invokers turn that into an Error. Off:
  /// not one instruction more. Code built through FunctionBuilder::ir() is
  /// not checked.
  bool checked = false;
  /// DWARF for the kernel builder's function (builder.h, "Source locations"):
  /// a compile unit and subprogram, each instruction at the generator's
  /// `file:line` that built it, the inputs as parameter variables (memref
  /// descriptors with their fields), and FunctionBuilder::name's variables.
  /// The JIT (JitOptions::gdbRegistration, perfJitdump) and AOT objects carry
  /// it. Off: no debug metadata at all. Generated code is the same either way.
  bool debugInfo = false;
  /// Every `alloc` from malloc, as MLIR's lowering does. Off (the default): allocs that do not escape the function
  /// are temporaries, from the stack (small static sizes) or the thread's arena (memjit/runtime/arena.h), released
  /// when it returns; see "Temporaries" in docs/runtime.md.
  bool temporariesOnHeap = false;
};

/// A declared function: the lowered function and its C interface.
struct LoweredFunction {
  std::string name;
  FunctionType type;
  FunctionOptions options;
  llvm::Function* function = nullptr;    ///< the expanded-convention function
  llvm::Function* cInterface = nullptr;  ///< `_mlir_ciface_<name>`, or null
  bool external = false;
};

}  // namespace memjit::codegen
