// LeakSanitizer around calls whose leaks are documented and accepted (a
// recovered LLVM crash leaks what the unwound frames owned; see
// JitOptions::recoverFromLlvmCrashes): only those calls are exempt.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define MEMJIT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMJIT_TEST_ASAN 1
#endif
#endif
#ifdef MEMJIT_TEST_ASAN
#include <sanitizer/lsan_interface.h>
#endif

namespace memjit::test {

/// Runs `crashingCall` with leak detection off and returns its result.
template <class F>
auto acceptingLeaks(F&& crashingCall) {
#ifdef MEMJIT_TEST_ASAN
  __lsan_disable();
  auto result = crashingCall();
  __lsan_enable();
  return result;
#else
  return crashingCall();
#endif
}

}  // namespace memjit::test
