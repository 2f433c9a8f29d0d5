// Calling JIT'd code from tests: every call through a function pointer made
// from a JIT address goes through here.
//
// Clang's -fsanitize=function (part of the ASan+UBSan pass) checks an indirect
// call by reading the type signature it expects in the 8 bytes before the
// callee. JIT'd code has no such prefix, and a function that starts its page
// has nothing mapped before it: the check itself segfaults. The call below is
// made without that check, as TypedCallable (the library's typed invoker) does.
#pragma once

#include <utility>

#include "memjit/runtime/typed_callable.h"  // MEMJIT_NO_SANITIZE_FUNCTION

namespace memjit::test {

template <typename F>
class JitFunction;

/// A JIT'd function of C type R(Args...) at a known address.
template <typename R, typename... Args>
class JitFunction<R(Args...)> {
 public:
  explicit JitFunction(void* address) noexcept : address_(address) {}

  MEMJIT_NO_SANITIZE_FUNCTION R operator()(Args... args) const {
    return reinterpret_cast<R (*)(Args...)>(address_)(std::forward<Args>(args)...);
  }

  void* address() const noexcept { return address_; }
  explicit operator bool() const noexcept { return address_ != nullptr; }

 private:
  void* address_;
};

/// Calls the JIT'd function at `address` as an F, e.g. callJit<std::int64_t()>(address).
template <typename F, typename... Ts>
decltype(auto) callJit(void* address, Ts&&... args) {
  return JitFunction<F>(address)(std::forward<Ts>(args)...);
}

}  // namespace memjit::test
