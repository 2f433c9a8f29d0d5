// `memjit call`: the names by which the command line reaches
// a function's raw inputs and results, from its SIP structure or its V1
// reflection, and the flat signature through which it calls the function.
//
// A raw input or result is known by its key path, keys joined by '.': a V1
// `named` record's name, an sdict key or an slist/stuple position below it; a
// SIP dict key or sequence position. An unnamed V1 root structure is known by
// its position, an unnamed root leaf by no label. Every raw input is also
// `argN` (N its raw position) and every result its index.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"
#include "memjit/signature/function_signature.h"
#include "memjit/types.h"

namespace memjit::cli {

struct CallLabels {
  std::vector<std::string> inputs;   ///< per raw user input: its key path, "" when it has none
  std::vector<std::string> results;  ///< per raw result: its key path, "" when it has none
};

/// The labels of `sig`'s raw inputs and results; `userType` is its type
/// without result-allocator destinations. SIP wins over V1, as in the invoker.
Expected<CallLabels> callLabels(const signature::FunctionSignature& sig, const FunctionType& userType);

/// `label` where it has one, else `argN` (inputs).
std::string inputName(const CallLabels& labels, std::size_t index);
/// The raw input `key` names (a label, else `argN`); nullopt when none does.
std::optional<std::size_t> findInput(const CallLabels& labels, std::string_view key);
/// The result `key` names (a label, else its index); nullopt when none does.
std::optional<std::size_t> findResult(const CallLabels& labels, std::string_view key);

/// `sig` with its structure flattened: no SIP, and a V1 reflection of one
/// `named` record per raw input (named as inputName) and one record per raw
/// result, so the dynamic invoker takes the raw inputs positionally and
/// names them in its diagnostics. Type and result allocator are kept.
signature::FunctionSignature flatSignature(const signature::FunctionSignature& sig, const FunctionType& userType,
                                           const CallLabels& labels);

}  // namespace memjit::cli
