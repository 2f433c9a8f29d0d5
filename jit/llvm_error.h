// Conversions from LLVM's failures to memjit::Error (internal to jit/).
// ORC failures are told apart by their LLVM error types, not by their text,
// which changes between the LLVM versions memjit builds with.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <llvm/Support/Error.h>

#include "memjit/error.h"

namespace memjit::jit::detail {

/// LLVM's message, with `context` in front, as an Error of kind `code`.
inline Error fromLLVM(llvm::Error error, ErrorCode code, std::string_view context) {
  std::string message = llvm::toString(std::move(error));
  std::string full(context);
  if (!full.empty()) full += ": ";
  full += message;
  return Error(code, std::move(full));
}

/// One ORC failure, classified.
struct OrcFailure {
  enum class Kind {
    SymbolsNotFound,           ///< llvm::orc::SymbolsNotFound: NotFound
    DuplicateDefinition,       ///< llvm::orc::DuplicateDefinition: InvalidArgument
    SymbolsCouldNotBeRemoved,  ///< llvm::orc::SymbolsCouldNotBeRemoved: Internal
    FailedToMaterialize,       ///< llvm::orc::FailedToMaterialize (a consequence of another failure): CompileError
    Other,                     ///< anything else, with LLVM's message: CompileError
  };
  Kind kind = Kind::Other;
  ErrorCode code = ErrorCode::CompileError;
  std::string message;               ///< for users: "undefined symbol 'f'"
  std::vector<std::string> symbols;  ///< the symbols it is about, sorted
};

/// "'f'", or for a C interface "'_mlir_ciface_f' (the C interface of function 'f')".
std::string describeSymbol(std::string_view symbol);

/// One entry per failure in `error` (an llvm::ErrorList holds several), in
/// order; none for success.
std::vector<OrcFailure> classifyOrc(llvm::Error error);

/// The failures as one Error with `context` in front: NotFound when a symbol
/// is missing, else InvalidArgument for a duplicate, else the first one's
/// code; the messages joined by "; ".
Error combineOrc(const std::vector<OrcFailure>& failures, std::string_view context);

/// classifyOrc and combineOrc in one.
inline Error fromOrc(llvm::Error error, std::string_view context) {
  return combineOrc(classifyOrc(std::move(error)), context);
}

}  // namespace memjit::jit::detail
