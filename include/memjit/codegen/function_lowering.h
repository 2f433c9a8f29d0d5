// Function lowering: declaring memjit functions in a codegen Module with
// MLIR's calling convention, their `_mlir_ciface_` C interfaces, and calls
// between them packed exactly as MLIR's call lowering packs them.
#pragma once

#include <string_view>
#include <vector>

#include "memjit/codegen/lowered_function.h"
#include "memjit/codegen/module.h"
#include "memjit/error.h"
#include "memjit/types.h"

namespace llvm {
class Value;
class IRBuilderBase;
}  // namespace llvm

namespace memjit::codegen {

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
