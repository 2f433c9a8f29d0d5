// A function's complete signature metadata: its MLIR type and the three
// metadata forms derived from it. This is what codegen embeds in a module,
// what the JIT and AOT readers hand back, and what the invokers check against.
#pragma once

#include <optional>
#include <string>

#include "memjit/error.h"
#include "memjit/types.h"

namespace memjit::signature {

struct FunctionSignature {
  std::string name;                            ///< the function's symbol name (no `_mlir_ciface_`)
  FunctionType type;                           ///< the MLIR function type
  std::string raw;                             ///< Raw Function ABI signature (`f`), `fv = 1`
  std::string reflection;                      ///< V1 `iree.abi` JSON, compact
  std::optional<std::string> sip;              ///< SIP signature when a structure was declared
  std::optional<std::string> resultAllocator;  ///< `fbr`: the result allocator's name
};

/// The default metadata of a function type: raw signature, default reflection,
/// no SIP structure, no allocator.
Expected<FunctionSignature> describe(std::string name, const FunctionType& type);

}  // namespace memjit::signature
