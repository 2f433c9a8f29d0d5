// The typed invoker: Callable::as<R(Args...)>() checks a C++ signature against
// the function's metadata once and returns a callable that is a direct call
// of the `_mlir_ciface_` function (no per-call checks, no allocation).
//
// Parameter types: StridedMemRef<T, N> (passed by pointer to the descriptor;
// OwnedMemRef<T, N> converts to it), UnrankedMemRef<T> (OwnedUnrankedMemRef<T>
// converts to it), and scalars (bool, [u]int8..64_t, float, double, void*,
// memjit::f16 and memjit::bf16, and _Float16/__bf16 where the compiler has
// them). Result types: void, a scalar, StridedMemRef<T, N> (raw descriptor,
// caller owns), OwnedMemRef<T, N> (freed once; not owned when it aliases an
// argument), UnrankedMemRef<T> (raw: the caller frees the descriptor the
// callee malloc'd, and the memory), OwnedUnrankedMemRef<T> (both handled), or
// std::tuple of those. f16/bf16 scalars cross the call in the registers the C
// ABI gives half types (half.h, abi_type). Static dims and layouts are not
// checked per call: use the dynamic invoker (or bufferDescriptionOracle) for
// untrusted buffers. call() is operator() plus checked mode's report: it
// returns a failed check as an Error.
#pragma once

#include <cstddef>
#include <type_traits>

#include "memjit/error.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/detail/typed_callable.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/owned_memref.h"
#include "memjit/signature/function_signature.h"

#if defined(__clang__)
// Calls through a pointer of a type the callee was not declared with (the
// result struct pointer) are the C interface itself; -fsanitize=function
// would flag them.
#define MEMJIT_NO_SANITIZE_FUNCTION __attribute__((no_sanitize("function")))
#else
#define MEMJIT_NO_SANITIZE_FUNCTION
#endif

namespace memjit::runtime {

/// The typed invoker of a function of C++ type `F` = R(Args...).
template <typename F>
class TypedCallable;

template <typename R, typename... Args>
class TypedCallable<R(Args...)> {
 public:
  /// Checks `R(Args...)` against the function's signature.
  static Expected<TypedCallable> make(void* cInterface, const signature::FunctionSignature& sig) {
    if (!cInterface) return Error(ErrorCode::InvalidArgument, "typed invoker: null function pointer");
    detail::TypedSlot params[sizeof...(Args) + 1] = {detail::ArgOf<Args>::slot()...};
    detail::TypedSlot results[resultCount() + 1];
    if constexpr (!detail::kDirectResult<R>) detail::Results<R>::slots(results);
    else if constexpr (!std::is_void_v<R>) results[0] = detail::ResultTraits<R>::slot();
    MEMJIT_TRY(detail::checkTypedSignature(sig, params, sizeof...(Args), results, resultCount()));
    TypedCallable f;
    f.fn_ = cInterface;
    return f;
  }

  /// Wraps a C interface known to have this type without a signature to
  /// check it against: for generated code (AOT headers), where both come
  /// from the same metadata.
  static TypedCallable trusted(void* cInterface) noexcept {
    TypedCallable f;
    f.fn_ = cInterface;
    return f;
  }

  /// Calls the function; costs what a direct call costs.
  MEMJIT_NO_SANITIZE_FUNCTION R operator()(typename detail::ArgOf<Args>::Param... args) const {
    if constexpr (std::is_void_v<R>) {
      using Fn = void (*)(typename detail::ArgOf<Args>::C...);
      reinterpret_cast<Fn>(fn_)(detail::ArgOf<Args>::toC(args)...);
    } else if constexpr (detail::kDirectResult<R>) {
      using Abi = detail::ScalarAbi<R>;
      using Fn = typename Abi::C (*)(typename detail::ArgOf<Args>::C...);
      return Abi::fromC(reinterpret_cast<Fn>(fn_)(detail::ArgOf<Args>::toC(args)...));
    } else {
      using Layout = typename detail::Results<R>::Layout;
      alignas(Layout::align) unsigned char storage[Layout::size];
      using Fn = void (*)(void*, typename detail::ArgOf<Args>::C...);
      reinterpret_cast<Fn>(fn_)(storage, detail::ArgOf<Args>::toC(args)...);
      const void* bases[sizeof...(Args) + 1] = {detail::ArgOf<Args>::base(args)...};
      detail::OwnerCache cache{bases, sizeof...(Args)};
      return detail::Results<R>::convert(storage, cache);
    }
  }

  /// What call() returns: an Error for a void function, else Expected<R>.
  using Checked = std::conditional_t<std::is_void_v<R>, Error, Expected<R>>;

  /// Calls the function like operator() and returns the failed check of a
  /// checked-mode function (FunctionOptions::checked) as an
  /// ErrorCode::RuntimeCheckFailed Error (see checks.h). Costs two reads of
  /// a thread-local flag more than operator(), which ignores failed checks.
  Checked call(typename detail::ArgOf<Args>::Param... args) const {
    clearCheckFailure();
    if constexpr (std::is_void_v<R>) {
      (*this)(args...);
      return takeCheckFailure();
    } else {
      R result = (*this)(args...);
      if (checkFailed()) return takeCheckFailure();
      return result;
    }
  }

  void* cInterface() const noexcept { return fn_; }

 private:
  static constexpr std::size_t resultCount() {
    if constexpr (std::is_void_v<R>) return 0;
    else if constexpr (detail::kDirectResult<R>) return 1;
    else return detail::Results<R>::count;
  }
  void* fn_ = nullptr;
};

}  // namespace memjit::runtime
