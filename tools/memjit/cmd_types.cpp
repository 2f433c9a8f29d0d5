// memjit parse-type '<mlir type or function type>': prints the canonical spelling.
#include <iostream>

#include "command.h"
#include "memjit/type_syntax.h"

namespace memjit::cli {
namespace {

/// A function type starts with '(' (after spaces); anything else is a single type.
bool looksLikeFunctionType(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n') continue;
    return c == '(';
  }
  return false;
}

int parseTypeCommand(const Args& args) {
  if (args.size() != 1)
    return usageError("parse-type", "expects exactly one argument: an MLIR type or function type");
  const std::string& text = args[0];
  if (looksLikeFunctionType(text)) {
    auto fn = parseFunctionType(text);
    if (!fn) return fail("parse-type", fn.error());
    std::cout << toString(*fn) << "\n";
    return 0;
  }
  auto type = parseType(text);
  if (!type) return fail("parse-type", type.error());
  std::cout << toString(*type) << "\n";
  return 0;
}

const Registrar registrar({"parse-type", "memjit parse-type '<mlir type or function type>'",
                           "print the canonical MLIR 19 spelling of a type", parseTypeCommand});

}  // namespace
}  // namespace memjit::cli
