// A function's complete signature metadata: its MLIR type and the three
// metadata forms derived from it. This is what codegen embeds in a module,
// what the JIT and AOT readers hand back, and what the invokers check against.
#pragma once

#include <optional>
#include <string>
#include <vector>

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
/// no SIP structure, no allocator. With `argumentNames` (one per input), each
/// input's reflection record is wrapped in `["named", name, record]`, so the
/// dynamic invoker takes them as keyword arguments and AOT headers name their
/// parameters after them. Names must be non-empty and distinct.
Expected<FunctionSignature> describe(std::string name, const FunctionType& type,
                                     const std::vector<std::string>& argumentNames = {});

/// The input names a signature's reflection gives (its top-level `named`
/// records): one entry per input, empty where an input has no name. All empty
/// when the reflection is absent or does not describe each input by one record.
std::vector<std::string> argumentNames(const FunctionSignature& signature);

}  // namespace memjit::signature
