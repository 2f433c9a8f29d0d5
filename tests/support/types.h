// Test helper: types written in MLIR's syntax, for tests whose inputs are
// valid types (a typo in one fails the test with the parser's message).
#pragma once

#include <string>

#include "memjit/type_syntax.h"
#include "support/expected.h"

namespace memjit::test {

inline Type type(const std::string& text, std::source_location where = std::source_location::current()) {
  return valueOrFail(parseType(text), text, where);
}

inline FunctionType functionType(const std::string& text,
                                 std::source_location where = std::source_location::current()) {
  return valueOrFail(parseFunctionType(text), text, where);
}

}  // namespace memjit::test
