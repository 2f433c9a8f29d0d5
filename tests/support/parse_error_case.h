// Test helper for the parsers' tables of malformed inputs (value-parameterised
// tests): an input, the byte where its parser must stop, and a phrase its
// message must contain; printed readably in GoogleTest's output.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <ostream>

#include "memjit/error.h"
#include "support/expect_error.h"

namespace memjit::test {

struct ParseErrorCase {
  const char* text;
  std::size_t offset;
  const char* mentions;
};

inline void PrintTo(const ParseErrorCase& c, std::ostream* os) {
  *os << ::testing::PrintToString(c.text) << " fails at byte " << c.offset << " mentioning "
      << ::testing::PrintToString(c.mentions);
}

/// `e`, what parsing `c.text` returned, is the parse error `c` describes.
inline void expectParseError(const Error& e, const ParseErrorCase& c) {
  SCOPED_TRACE(c.text);
  expectError(e, ErrorCode::ParseError, c.offset, c.mentions);
}

}  // namespace memjit::test
