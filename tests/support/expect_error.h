// Test helper: an error with the expected code whose message names every
// given word (the operation, the types, the value), for the one-test-per-
// diagnostic files under tests/error/.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "memjit/error.h"

namespace memjit::test {

inline void expectError(const Error& e, ErrorCode code, std::initializer_list<const char*> words) {
  ASSERT_TRUE(e) << "expected an error";
  EXPECT_EQ(e.code(), code) << e.str();
  for (const char* w : words)
    EXPECT_NE(e.message().find(w), std::string::npos) << "missing '" << w << "' in " << e.str();
}

}  // namespace memjit::test
