#include "llvm_error.h"

#include <algorithm>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/Shared/OrcError.h>

#include "memjit/metadata_symbols.h"

namespace memjit::jit::detail {

namespace {

template <typename Names>
std::vector<std::string> sortedNames(const Names& names) {
  std::vector<std::string> out;
  for (const llvm::orc::SymbolStringPtr& name : names) out.push_back((*name).str());
  std::sort(out.begin(), out.end());
  return out;
}

// "symbol 'a'" or "symbols 'a', 'b'".
std::string listSymbols(const std::vector<std::string>& symbols) {
  std::string out = symbols.size() == 1 ? "symbol " : "symbols ";
  for (std::size_t i = 0; i < symbols.size(); ++i) out += (i ? ", " : "") + describeSymbol(symbols[i]);
  return out;
}

OrcFailure failure(OrcFailure::Kind kind, ErrorCode code, std::string message,
                   std::vector<std::string> symbols = {}) {
  return {kind, code, std::move(message), std::move(symbols)};
}

}  // namespace

std::string describeSymbol(std::string_view symbol) {
  std::string out = "'" + std::string(symbol) + "'";
  if (symbol.substr(0, metadata::kCInterfacePrefix.size()) == metadata::kCInterfacePrefix &&
      symbol.size() > metadata::kCInterfacePrefix.size())
    out += " (the C interface of function '" + std::string(symbol.substr(metadata::kCInterfacePrefix.size())) + "')";
  return out;
}

std::vector<OrcFailure> classifyOrc(llvm::Error error) {
  using Kind = OrcFailure::Kind;
  std::vector<OrcFailure> out;
  llvm::Error rest = llvm::handleErrors(
      std::move(error),
      [&](const llvm::orc::SymbolsNotFound& e) {
        auto names = sortedNames(e.getSymbols());
        out.push_back(failure(Kind::SymbolsNotFound, ErrorCode::NotFound, "undefined " + listSymbols(names), names));
      },
      [&](const llvm::orc::DuplicateDefinition& e) {
        std::vector<std::string> names{e.getSymbolName()};
        out.push_back(failure(Kind::DuplicateDefinition, ErrorCode::InvalidArgument,
                              "duplicate definition of " + listSymbols(names), names));
      },
      [&](const llvm::orc::SymbolsCouldNotBeRemoved& e) {
        auto names = sortedNames(e.getSymbols());
        out.push_back(failure(Kind::SymbolsCouldNotBeRemoved, ErrorCode::Internal,
                              "cannot remove " + listSymbols(names) + " (still in use)", names));
      },
      [&](const llvm::orc::FailedToMaterialize& e) {
        std::vector<std::string> names;
        for (const auto& [dylib, symbols] : e.getSymbols())
          for (auto& name : sortedNames(symbols)) names.push_back(std::move(name));
        std::sort(names.begin(), names.end());
        out.push_back(failure(Kind::FailedToMaterialize, ErrorCode::CompileError,
                              "cannot materialize " + listSymbols(names), names));
      },
      [&](const llvm::ErrorInfoBase& e) {
        out.push_back(failure(Kind::Other, ErrorCode::CompileError, e.message()));
      });
  // Every error type matched the last handler.
  llvm::consumeError(std::move(rest));
  return out;
}

Error combineOrc(const std::vector<OrcFailure>& failures, std::string_view context) {
  if (failures.empty()) return Error::success();
  auto has = [&](ErrorCode code) {
    return std::any_of(failures.begin(), failures.end(), [&](const OrcFailure& f) { return f.code == code; });
  };
  ErrorCode code = has(ErrorCode::NotFound)          ? ErrorCode::NotFound
                   : has(ErrorCode::InvalidArgument) ? ErrorCode::InvalidArgument
                                                     : failures.front().code;
  std::string message(context);
  if (!message.empty()) message += ": ";
  for (std::size_t i = 0; i < failures.size(); ++i) message += (i ? "; " : "") + failures[i].message;
  return Error(code, std::move(message));
}

}  // namespace memjit::jit::detail
