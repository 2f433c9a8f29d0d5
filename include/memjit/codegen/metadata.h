// Self-describing modules: the constant globals through which every module
// memjit builds carries its functions' signatures (names in
// memjit/metadata_symbols.h). Each global is an externally visible,
// NUL-terminated `const char[]` (an LLVM `constant [N x i8]` with external
// linkage), so a JIT lookup or `dlsym` of the name yields the C string.
//
// For each defined function `fn`:
//   _memjit_type_<fn>  MLIR function type text, e.g. "(memref<?xf32>) -> f32"
//   _memjit_f_<fn>     Raw Function ABI signature (`f`, `fv = 1`)
//   _memjit_abi_<fn>   V1 `iree.abi` reflection JSON, compact
//   _memjit_sip_<fn>   SIP signature, only when a structure was declared
//   _memjit_fbr_<fn>   result allocator name, only when the function has one
// For the module `m`:
//   _memjit_manifest_<m>  compact JSON: {"memjit":1,"module":"m","functions":["f","g"]}
//                         listing defined functions in definition order.
// External functions get no metadata: the module that defines them carries it.
// A module name that is not a C identifier is spelled with '_' for every
// other character in the manifest's symbol (see manifestSymbol).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memjit/codegen/module.h"
#include "memjit/error.h"
#include "memjit/signature/function_signature.h"

namespace memjit::codegen {

/// The manifest JSON text for a module and its function names.
std::string manifestJson(std::string_view moduleName, const std::vector<std::string>& functions);

/// `_memjit_manifest_` followed by the module name with every character
/// outside [A-Za-z0-9_] replaced by '_'.
std::string manifestSymbol(std::string_view moduleName);

/// Emits the function's metadata globals into the module, records the
/// signature in `module.signatures()` and rewrites the manifest. Errors when
/// the function already has metadata.
Error emitFunctionMetadata(Module& module, const signature::FunctionSignature& signature);

/// The string held by one of memjit's metadata globals in an LLVM module, for
/// tests and tools that read IR rather than compiled code.
Expected<std::string> readMetadataString(const Module& module, std::string_view symbol);

}  // namespace memjit::codegen
