// Test helper: the value of an Expected that a test needs in order to go on.
// A failure ends the test with the error's message where the helper was
// called; a helper that only did EXPECT_TRUE(x.ok()) and then `*x` would
// abort the whole binary on the failed Expected instead, losing every later
// test's result.
#pragma once

#include <gtest/gtest.h>

#include <source_location>
#include <stdexcept>
#include <string>

#include "memjit/error.h"

namespace memjit::test {

/// Thrown by valueOrFail after it recorded the failure: GoogleTest catches it
/// as the end of the current test, which it reports failed, and goes on.
struct TestStopped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The value of `expected`; on failure a test failure at the caller's line
/// that prints the Error (and `what`, the call that failed), then TestStopped.
/// For helpers that return a value (a test body can ASSERT on the Expected).
template <typename T>
T valueOrFail(Expected<T> expected, const std::string& what = "",
              std::source_location where = std::source_location::current()) {
  if (!expected) {
    const std::string message = (what.empty() ? "" : what + ": ") + expected.error().str();
    ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line())) << message;
    throw TestStopped(message);
  }
  return std::move(*expected);
}

}  // namespace memjit::test
