// Memref descriptors laid out exactly like MLIR's StridedMemRefType and
// UnrankedMemRefType (mlir/ExecutionEngine/CRunnerUtils.h), so a pointer to
// one is what a `_mlir_ciface_` function takes for a memref argument, and
// views that build them over memory the caller already has.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "memjit/runtime/half.h"
#include "memjit/types.h"

namespace memjit::runtime {

/// A ranked memref descriptor `{T* allocated, T* aligned, i64 offset,
/// i64 sizes[N], i64 strides[N]}`. Field names follow MLIR (`basePtr` is the
/// allocated pointer that must be freed, `data` the aligned one indexed with
/// offset and strides) so code written against MLIR's header ports verbatim.
template <typename T, int N>
struct StridedMemRef {
  static_assert(N >= 0, "rank must be non-negative");
  T* basePtr;
  T* data;
  std::int64_t offset;
  std::int64_t sizes[N];
  std::int64_t strides[N];

  static constexpr int rank = N;
  /// The element at `indices` (no bounds checks: hot loops use this).
  T& operator()(const std::array<std::int64_t, N>& indices) const {
    std::int64_t linear = offset;
    for (int i = 0; i < N; ++i) linear += indices[i] * strides[i];
    return data[linear];
  }
  /// Number of elements the shape spans.
  std::int64_t numElements() const {
    std::int64_t n = 1;
    for (int i = 0; i < N; ++i) n *= sizes[i];
    return n;
  }
};

/// Rank 0 has no size or stride arrays (MLIR's struct has none either).
template <typename T>
struct StridedMemRef<T, 0> {
  T* basePtr;
  T* data;
  std::int64_t offset;

  static constexpr int rank = 0;
  T& operator()(const std::array<std::int64_t, 0>& = {}) const { return data[offset]; }
  std::int64_t numElements() const { return 1; }
};

/// An unranked memref `{i64 rank, void* descriptor}`; `descriptor` points at
/// a StridedMemRef<T, rank>. Passed by pointer to `_mlir_ciface_` functions.
template <typename T>
struct UnrankedMemRef {
  std::int64_t rank;
  void* descriptor;
};

/// Bytes of a ranked descriptor of rank `rank` (what an unranked result's
/// descriptor copy occupies: 16 + (2 * rank + 1) * 8 minus alignment slack).
constexpr std::size_t descriptorSize(std::int64_t rank) noexcept {
  return 2 * sizeof(void*) + sizeof(std::int64_t) * static_cast<std::size_t>(1 + 2 * rank);
}

/// The memjit element type a C++ type stands for in a memref or scalar slot.
/// Signed C++ integers name MLIR's signless integers (`i32`), which is what
/// MLIR code uses; `si32`/`ui32` are accepted for them when signatures are
/// checked (see elementTypesCompatible). Half precision is memjit::f16 and
/// memjit::bf16 (half.h), or the compiler's _Float16 and __bf16 where it has
/// them; std::uint16_t is `ui16`, never f16: an integer buffer is not taken
/// for half-precision data (reinterpret it explicitly if that is meant).
template <typename T>
struct ElementTypeOf;
#define MEMJIT_ELEMENT_TYPE_OF_(CT, ET) \
  template <> struct ElementTypeOf<CT> { static constexpr ElementType value = ElementType::ET; }
MEMJIT_ELEMENT_TYPE_OF_(bool, I1);
MEMJIT_ELEMENT_TYPE_OF_(std::int8_t, I8);
MEMJIT_ELEMENT_TYPE_OF_(std::int16_t, I16);
MEMJIT_ELEMENT_TYPE_OF_(std::int32_t, I32);
MEMJIT_ELEMENT_TYPE_OF_(std::int64_t, I64);
MEMJIT_ELEMENT_TYPE_OF_(std::uint8_t, UI8);
MEMJIT_ELEMENT_TYPE_OF_(std::uint16_t, UI16);
MEMJIT_ELEMENT_TYPE_OF_(std::uint32_t, UI32);
MEMJIT_ELEMENT_TYPE_OF_(std::uint64_t, UI64);
MEMJIT_ELEMENT_TYPE_OF_(memjit::f16, F16);
MEMJIT_ELEMENT_TYPE_OF_(memjit::bf16, BF16);
#if defined(MEMJIT_HAS_FLOAT16)
MEMJIT_ELEMENT_TYPE_OF_(_Float16, F16);
#endif
#if defined(MEMJIT_HAS_BF16)
MEMJIT_ELEMENT_TYPE_OF_(__bf16, BF16);
#endif
MEMJIT_ELEMENT_TYPE_OF_(float, F32);
MEMJIT_ELEMENT_TYPE_OF_(double, F64);
MEMJIT_ELEMENT_TYPE_OF_(void*, Ptr);
MEMJIT_ELEMENT_TYPE_OF_(std::complex<float>, ComplexF32);
MEMJIT_ELEMENT_TYPE_OF_(std::complex<double>, ComplexF64);
#undef MEMJIT_ELEMENT_TYPE_OF_

/// True when a value stored as `given` may be passed where `required` is
/// declared: equal types, or integers of the same width where either side is
/// signless (`i32` accepts `si32` and `ui32` data and vice versa), or `index`
/// against a 64-bit integer.
bool elementTypesCompatible(ElementType required, ElementType given) noexcept;

/// Row-major (C-contiguous) strides, in elements, for `shape`.
template <std::size_t N>
std::array<std::int64_t, N> rowMajorStrides(const std::array<std::int64_t, N>& shape) {
  std::array<std::int64_t, N> strides{};
  std::int64_t s = 1;
  for (std::size_t i = N; i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

/// A view of `data` with the given shape and strides (row-major when
/// `strides` is omitted) and an element offset. Nothing is owned: `basePtr`
/// and `data` both point at `data`, as MLIR does for memory it did not allocate.
template <typename T, std::size_t N>
StridedMemRef<T, static_cast<int>(N)> makeView(T* data, const std::array<std::int64_t, N>& shape,
                                               const std::array<std::int64_t, N>& strides,
                                               std::int64_t offset = 0) {
  StridedMemRef<T, static_cast<int>(N)> m;
  m.basePtr = data;
  m.data = data;
  m.offset = offset;
  if constexpr (N > 0) {
    for (std::size_t i = 0; i < N; ++i) {
      m.sizes[i] = shape[i];
      m.strides[i] = strides[i];
    }
  }
  return m;
}
template <typename T, std::size_t N>
StridedMemRef<T, static_cast<int>(N)> makeView(T* data, const std::array<std::int64_t, N>& shape) {
  return makeView(data, shape, rowMajorStrides(shape));
}
/// A 1-D view of a span (and so of a std::vector or std::array).
template <typename T, std::size_t Extent>
StridedMemRef<T, 1> makeView(std::span<T, Extent> values) {
  return makeView<T, 1>(values.data(), {static_cast<std::int64_t>(values.size())});
}
template <typename T>
StridedMemRef<T, 1> makeView(std::vector<T>& values) {
  return makeView(std::span<T>(values));
}
/// An N-D row-major view of a vector; the caller states the shape, whose
/// element count should equal values.size() (not checked: views are free).
template <typename T, std::size_t N>
StridedMemRef<T, static_cast<int>(N)> makeView(std::vector<T>& values,
                                               const std::array<std::int64_t, N>& shape) {
  return makeView(values.data(), shape);
}
/// The unranked form of a ranked descriptor; `ranked` must outlive it.
template <typename T, int N>
UnrankedMemRef<T> makeUnranked(StridedMemRef<T, N>& ranked) {
  return UnrankedMemRef<T>{N, &ranked};
}

}  // namespace memjit::runtime
