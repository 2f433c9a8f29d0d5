// Test helper: an error with the expected code whose message says what it
// must (every given word, or the whole text, and for parse errors the byte
// offset), for the one-test-per-diagnostic files under tests/error/.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "memjit/error.h"

namespace memjit::test {

/// `e` has `code` and its message names every word in `words`.
inline void expectError(const Error& e, ErrorCode code, std::initializer_list<const char*> words) {
  ASSERT_TRUE(e) << "expected an error";
  EXPECT_EQ(e.code(), code) << e.str();
  for (const char* w : words)
    EXPECT_NE(e.message().find(w), std::string::npos) << "missing '" << w << "' in " << e.str();
}

/// `e` has `code`, the byte offset `offset` (none: std::nullopt) and a
/// message containing `words`.
inline void expectError(const Error& e, ErrorCode code, std::optional<std::size_t> offset, std::string_view words) {
  ASSERT_TRUE(e) << "expected an error mentioning: " << words;
  EXPECT_EQ(e.code(), code) << e.str();
  EXPECT_EQ(e.offset(), offset) << e.str();
  EXPECT_NE(e.message().find(words), std::string::npos) << e.str();
}

/// `e` has `code` and exactly the message `message`.
inline void expectErrorMessage(const Error& e, ErrorCode code, std::string_view message) {
  ASSERT_TRUE(e) << "expected an error: " << message;
  EXPECT_EQ(e.code(), code) << e.str();
  EXPECT_EQ(e.message(), message);
}
template <typename T>
void expectErrorMessage(const Expected<T>& r, ErrorCode code, std::string_view message) {
  expectErrorMessage(r.takeError(), code, message);
}

}  // namespace memjit::test
