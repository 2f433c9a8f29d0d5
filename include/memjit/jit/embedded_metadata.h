// Reading back the signature metadata a module embeds as constant globals
// (see memjit/metadata_symbols.h): from an LLVM module before compilation
// (AOT headers, `memjit compile`) or from loaded memory (the JIT).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memjit/error.h"
#include "memjit/signature/function_signature.h"

namespace llvm {
class Module;
}

namespace memjit::jit {

/// The metadata strings of one function, as found in a module.
struct MetadataStrings {
  std::string type;                            ///< `_memjit_type_<fn>` (required)
  std::optional<std::string> raw;              ///< `_memjit_f_<fn>`
  std::optional<std::string> reflection;       ///< `_memjit_abi_<fn>`
  std::optional<std::string> sip;              ///< `_memjit_sip_<fn>`
  std::optional<std::string> resultAllocator;  ///< `_memjit_fbr_<fn>`
};

/// Builds a signature from metadata strings: parses the function type (the
/// error names the function and the offset), and fills a missing raw or
/// reflection form from the type.
Expected<signature::FunctionSignature> signatureFromMetadata(std::string name,
                                                             const MetadataStrings& strings);

/// Every function whose `_memjit_type_<fn>` constant `module` defines, in
/// name order. A metadata global that is not a NUL-terminated constant
/// string is a ParseError naming it.
Expected<std::vector<signature::FunctionSignature>> readEmbeddedSignatures(
    const llvm::Module& module);

/// Adds the metadata constants for `signature` to `module` (external,
/// constant, NUL-terminated), replacing none: InvalidArgument when one exists.
Error embedSignature(llvm::Module& module, const signature::FunctionSignature& signature);

}  // namespace memjit::jit
