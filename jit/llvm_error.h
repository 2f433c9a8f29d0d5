// Conversions from LLVM's failures to memjit::Error (internal to jit/).
#pragma once

#include <string>
#include <string_view>

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

/// Classifies an ORC failure: unresolved symbols are NotFound, duplicate
/// definitions InvalidArgument, anything else CompileError.
inline Error fromOrc(llvm::Error error, std::string_view context) {
  std::string message = llvm::toString(std::move(error));
  ErrorCode code = ErrorCode::CompileError;
  if (message.find("not found") != std::string::npos ||
      message.find("Symbols not found") != std::string::npos ||
      message.find("symbols not found") != std::string::npos)
    code = ErrorCode::NotFound;
  else if (message.find("Duplicate definition") != std::string::npos ||
           message.find("duplicate definition") != std::string::npos)
    code = ErrorCode::InvalidArgument;
  std::string full(context);
  if (!full.empty()) full += ": ";
  full += message;
  return Error(code, std::move(full));
}

}  // namespace memjit::jit::detail
