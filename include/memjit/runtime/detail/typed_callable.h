// Internal to the typed invoker (typed_callable.h): what each C++ parameter and
// result type stands for at the C interface, the layout of a multi-result
// struct, and who owns the memref results of one call.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "memjit/error.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/owned_memref.h"
#include "memjit/signature/function_signature.h"

namespace memjit::runtime {
namespace detail {

/// What one C++ parameter or result stands for, for the one-time check.
struct TypedSlot {
  enum class Kind : std::uint8_t { Scalar, Ranked, Unranked } kind;
  ElementType element;
  int rank;
};

/// Checks the C++ slots against the signature; names the first mismatch.
Error checkTypedSignature(const signature::FunctionSignature& sig, const TypedSlot* params,
                          std::size_t numParams, const TypedSlot* results, std::size_t numResults);

/// True for allocated pointers that must never be freed: null and MLIR's
/// marker 0xdeadbeef for memrefs of globals (memref.get_global).
inline bool isUnownedAllocation(const void* p) noexcept {
  return p == nullptr || reinterpret_cast<std::uintptr_t>(p) == 0xdeadbeefu;
}

template <typename T>
inline constexpr bool kNativeScalar = std::is_arithmetic_v<T> || std::is_same_v<T, void*>
#if defined(MEMJIT_HAS_FLOAT16)
                                      || std::is_same_v<T, _Float16>
#endif
#if defined(MEMJIT_HAS_BF16)
                                      || std::is_same_v<T, __bf16>
#endif
    ;

/// How a scalar crosses the C interface by value: native types as
/// themselves, memjit::f16/bf16 as their abi_type (see half.h).
template <typename T>
struct ScalarAbi {
  static constexpr bool supported = kNativeScalar<T>;
  using C = T;
  static C toC(T v) noexcept { return v; }
  static T fromC(C c) noexcept { return c; }
};
template <typename H>
concept HasHalfAbi = requires { typename H::abi_type; };
template <typename H>
struct HalfScalarAbi {
  static_assert(HasHalfAbi<H>, "f16/bf16 scalars by value need the compiler's _Float16/__bf16 or x86-64 SysV "
                               "(see memjit/runtime/half.h); pass them in a memref instead");
  static constexpr bool supported = true;
  using C = typename H::abi_type;
  static C toC(H v) noexcept { return v.toAbi(); }
  static H fromC(C c) noexcept { return H::fromAbi(c); }
};
// A bool result is read as its byte's low bit: an i1 returned by a C interface
// that MLIR lowered has garbage in bits 1-7 (`trunc` leaves them; only
// memjit's own interfaces declare the result zeroext), and a C++ bool of 2 is
// undefined behaviour (`int(b)` gave 2).
template <>
struct ScalarAbi<bool> {
  static constexpr bool supported = true;
  using C = std::uint8_t;
  static C toC(bool v) noexcept { return v; }
  static bool fromC(C c) noexcept { return (c & 1) != 0; }
};
template <>
struct ScalarAbi<f16> : HalfScalarAbi<f16> {};
template <>
struct ScalarAbi<bf16> : HalfScalarAbi<bf16> {};

template <typename A>
struct ArgTraits {
  static_assert(ScalarAbi<A>::supported,
                "typed invoker parameters are StridedMemRef, UnrankedMemRef (or their Owned forms) or scalars");
  using Param = A;
  using C = typename ScalarAbi<A>::C;
  static C toC(Param a) noexcept { return ScalarAbi<A>::toC(a); }
  static const void* base(Param) noexcept { return nullptr; }
  static TypedSlot slot() { return {TypedSlot::Kind::Scalar, ElementTypeOf<A>::value, 0}; }
};
template <typename T, int N>
struct ArgTraits<StridedMemRef<T, N>> {
  using Param = const StridedMemRef<T, N>&;
  using C = StridedMemRef<T, N>*;
  static C toC(Param a) noexcept { return const_cast<C>(&a); }
  static const void* base(Param a) noexcept { return a.basePtr; }
  static TypedSlot slot() { return {TypedSlot::Kind::Ranked, ElementTypeOf<std::remove_cv_t<T>>::value, N}; }
};
template <typename T, int N>
struct ArgTraits<OwnedMemRef<T, N>> : ArgTraits<StridedMemRef<T, N>> {};
template <typename T>
struct ArgTraits<UnrankedMemRef<T>> {
  using Param = const UnrankedMemRef<T>&;
  using C = UnrankedMemRef<T>*;
  static C toC(Param a) noexcept { return const_cast<C>(&a); }
  static const void* base(Param a) noexcept {
    return a.descriptor ? *static_cast<void* const*>(a.descriptor) : nullptr;
  }
  static TypedSlot slot() { return {TypedSlot::Kind::Unranked, ElementTypeOf<std::remove_cv_t<T>>::value, -1}; }
};
template <typename T>
struct ArgTraits<OwnedUnrankedMemRef<T>> : ArgTraits<UnrankedMemRef<T>> {};
template <typename A>
using ArgOf = ArgTraits<std::remove_cvref_t<A>>;

/// One result element: its C storage type (in the result struct) and how it
/// becomes the C++ value.
template <typename R>
struct ResultTraits {
  static_assert(ScalarAbi<R>::supported,
                "typed invoker results are scalars, StridedMemRef, OwnedMemRef, UnrankedMemRef, "
                "OwnedUnrankedMemRef or tuples of them");
  using C = R;
  static constexpr bool isMemRef = false;
  static TypedSlot slot() { return {TypedSlot::Kind::Scalar, ElementTypeOf<R>::value, 0}; }
};
template <typename T, int N>
struct ResultTraits<StridedMemRef<T, N>> {
  using C = StridedMemRef<T, N>;
  static constexpr bool isMemRef = true;
  static TypedSlot slot() { return {TypedSlot::Kind::Ranked, ElementTypeOf<T>::value, N}; }
};
template <typename T, int N>
struct ResultTraits<OwnedMemRef<T, N>> : ResultTraits<StridedMemRef<T, N>> {};
template <typename T>
struct ResultTraits<UnrankedMemRef<T>> {
  using C = UnrankedMemRef<T>;
  static constexpr bool isMemRef = true;
  static TypedSlot slot() { return {TypedSlot::Kind::Unranked, ElementTypeOf<T>::value, -1}; }
};
template <typename T>
struct ResultTraits<OwnedUnrankedMemRef<T>> : ResultTraits<UnrankedMemRef<T>> {};

/// The LLVM struct layout of the results {C0, C1, ...}: C-like, natural alignment.
template <typename... Cs>
struct StructLayout {
  static constexpr std::size_t count = sizeof...(Cs);
  static constexpr std::array<std::size_t, count> sizes{sizeof(Cs)...};
  static constexpr std::array<std::size_t, count> aligns{alignof(Cs)...};
  static constexpr std::array<std::size_t, count> offsets = [] {
    std::array<std::size_t, count> o{};
    std::size_t at = 0;
    for (std::size_t i = 0; i < count; ++i) {
      at = (at + aligns[i] - 1) / aligns[i] * aligns[i];
      o[i] = at;
      at += sizes[i];
    }
    return o;
  }();
  static constexpr std::size_t align = [] {
    std::size_t a = 1;
    for (auto x : aligns) a = a > x ? a : x;
    return a;
  }();
  static constexpr std::size_t size = [] {
    std::size_t end = count ? offsets[count - 1] + sizes[count - 1] : 0;
    return (end + align - 1) / align * align;
  }();
};

/// Ownership bookkeeping while converting one call's memref results.
struct OwnerCache {
  const void* const* argBases;
  std::size_t numArgs;
  std::array<std::pair<const void*, std::shared_ptr<void>>, 8> seen{};
  std::size_t numSeen = 0;

  // Who frees `allocated`: nobody (a global, or an argument's memory), the
  // owner made for an earlier result of the same allocation, or a new one.
  std::shared_ptr<void> ownerOf(void* allocated, bool& borrowed) {
    borrowed = true;
    if (isUnownedAllocation(allocated)) return {};
    for (std::size_t i = 0; i < numArgs; ++i)
      if (argBases[i] == allocated) return {};
    borrowed = false;
    for (std::size_t i = 0; i < numSeen; ++i)
      if (seen[i].first == allocated) return seen[i].second;
    std::shared_ptr<void> owner(allocated, [](void* q) { std::free(q); });
    if (numSeen < seen.size()) seen[numSeen++] = {allocated, owner};
    return owner;
  }

  template <typename T, int N>
  OwnedMemRef<T, N> own(const StridedMemRef<T, N>& m) {
    bool borrowed;
    auto owner = ownerOf(static_cast<void*>(m.basePtr), borrowed);
    return borrowed ? OwnedMemRef<T, N>::borrow(m) : OwnedMemRef<T, N>::share(m, std::move(owner));
  }
  template <typename T>
  OwnedUnrankedMemRef<T> own(const UnrankedMemRef<T>& u) {
    if (!u.descriptor) return {};
    void* allocated;
    std::memcpy(&allocated, u.descriptor, sizeof allocated);
    bool borrowed;
    auto owner = ownerOf(allocated, borrowed);
    auto r = OwnedUnrankedMemRef<T>::fromDescriptor(u.rank, u.descriptor, std::move(owner));
    std::free(u.descriptor);  // the callee malloc'd this copy of the descriptor for us
    return r;
  }
};

template <typename R>
struct Convert {  // scalars and raw descriptors: as stored
  static R run(const typename ResultTraits<R>::C& c, OwnerCache&) { return c; }
};
template <typename T, int N>
struct Convert<OwnedMemRef<T, N>> {
  static OwnedMemRef<T, N> run(const StridedMemRef<T, N>& c, OwnerCache& cache) { return cache.own(c); }
};
template <typename T>
struct Convert<OwnedUnrankedMemRef<T>> {
  static OwnedUnrankedMemRef<T> run(const UnrankedMemRef<T>& c, OwnerCache& cache) { return cache.own(c); }
};

template <typename R>
R convertResult(const unsigned char* at, OwnerCache& cache) {
  typename ResultTraits<R>::C c;
  std::memcpy(&c, at, sizeof(c));
  return Convert<R>::run(c, cache);
}

template <typename R>
struct Results {  // a single result (void or scalar handled by the caller)
  using Layout = StructLayout<typename ResultTraits<R>::C>;
  static constexpr std::size_t count = 1;
  static void slots(TypedSlot* out) { out[0] = ResultTraits<R>::slot(); }
  static R convert(const unsigned char* storage, OwnerCache& cache) { return convertResult<R>(storage, cache); }
};
template <typename... Rs>
struct Results<std::tuple<Rs...>> {
  using Layout = StructLayout<typename ResultTraits<Rs>::C...>;
  static constexpr std::size_t count = sizeof...(Rs);
  static void slots(TypedSlot* out) {
    std::size_t i = 0;
    ((out[i++] = ResultTraits<Rs>::slot()), ...);
  }
  static std::tuple<Rs...> convert(const unsigned char* storage, OwnerCache& cache) {
    return convertAll(storage, cache, std::index_sequence_for<Rs...>{});
  }
  template <std::size_t... I>
  static std::tuple<Rs...> convertAll(const unsigned char* storage, OwnerCache& cache, std::index_sequence<I...>) {
    // Braced initialisation runs the conversions left to right, so results
    // sharing an allocation share the owner made for the first.
    return std::tuple<Rs...>{convertResult<Rs>(storage + Layout::offsets[I], cache)...};
  }
};

template <typename R>
inline constexpr bool kScalarResult = kNativeScalar<R> || std::is_same_v<R, f16> || std::is_same_v<R, bf16>;
template <typename R>
inline constexpr bool kDirectResult = std::is_void_v<R> || kScalarResult<R>;

}  // namespace detail

}  // namespace memjit::runtime
