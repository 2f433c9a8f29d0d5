// Function lowering: declaring memjit functions in a codegen Module with
// MLIR's calling convention, their `_mlir_ciface_` C interfaces, and calls
// between them packed exactly as MLIR's call lowering packs them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/codegen/fast_math.h"
#include "memjit/codegen/lowering.h"
#include "memjit/codegen/module.h"
#include "memjit/error.h"
#include "memjit/signature/function_signature.h"
#include "memjit/types.h"

namespace llvm {
class Function;
class Value;
class IRBuilderBase;
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

/// Declares a function that this module defines: the lowered function (no
/// body yet: the kernel builder or `emitZeroBody` gives it one), its C
/// interface (defined: loads descriptors, unpacks, calls, stores a struct
/// result through the first parameter), and its metadata globals. Errors for
/// a bad name, a duplicate, bad options or bare-pointer misuse.
Expected<LoweredFunction> defineFunction(Module& module, std::string_view name,
                                         const FunctionType& type, const FunctionOptions& options = {});

/// Declares a function defined elsewhere (in another module, an MLIR-compiled
/// object, C code). With a C interface, as MLIR does: `_mlir_ciface_<name>` is
/// declared and `<name>` gets a private body that stores descriptors on the
/// stack and calls it. Without one, `<name>` is a plain declaration.
Expected<LoweredFunction> declareExternalFunction(Module& module, std::string_view name,
                                                  const FunctionType& type,
                                                  const FunctionOptions& options = {});

/// The function declared under `name`, if any.
Expected<LoweredFunction> lookupFunction(const Module& module, std::string_view name);

/// Gives a defined function a body that returns zero values (zeroed
/// descriptors for memrefs); for `memjit lower` and signature tests.
Error emitZeroBody(Module& module, std::string_view name);

/// Emits a call to `callee` at the builder's insertion point. `arguments` are
/// values in the callee's function-internal form (scalars, descriptor
/// structs, `{rank, ptr}` pairs); they are unpacked into the expanded
/// convention. The results come back in the same form; each unranked result
/// is copied from the callee's malloc'd descriptor to the caller's stack and
/// the malloc'd copy freed, as MLIR's call lowering does.
Expected<std::vector<llvm::Value*>> emitCall(Module& module, llvm::IRBuilderBase& builder,
                                             const LoweredFunction& callee,
                                             const std::vector<llvm::Value*>& arguments);

/// True for names usable as memjit function symbols: [A-Za-z_][A-Za-z0-9_.$]*.
bool isValidSymbolName(std::string_view name) noexcept;

}  // namespace memjit::codegen
