// What every runner utility works on: a memref of any rank read from a
// ranked or unranked descriptor, and how MLIR streams each element type.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <type_traits>

#include "memjit/runtime/runner_utils.h"

namespace memjit::runtime::runner {

/// The element types MLIR's runner utilities name Ind, C32 and C64 in their
/// symbols (printMemrefInd, verifyMemRefC32, ...).
using Index = RunnerIndex;
using C32 = std::complex<float>;
using C64 = std::complex<double>;

/// A descriptor's fields with the rank known only at run time (MLIR's
/// DynamicMemRefType). `sizes`/`strides` point into the descriptor.
template <typename T>
struct View {
  T* data;
  std::int64_t rank;
  std::int64_t offset;
  const std::int64_t* sizes;
  const std::int64_t* strides;
};

/// The view of a ranked descriptor `{T* basePtr, T* data, i64 offset,
/// i64 sizes[rank], i64 strides[rank]}` whose rank is `rank`.
template <typename T>
View<T> viewOf(std::int64_t rank, void* descriptor) {
  auto* words = static_cast<char*>(descriptor);
  View<T> v;
  std::memcpy(&v.data, words + sizeof(void*), sizeof(T*));
  std::memcpy(&v.offset, words + 2 * sizeof(void*), sizeof(std::int64_t));
  v.rank = rank;
  v.sizes = reinterpret_cast<const std::int64_t*>(words + 2 * sizeof(void*) + sizeof(std::int64_t));
  v.strides = v.sizes + rank;
  return v;
}
template <typename T>
View<T> viewOf(UnrankedMemRef<T>* m) {
  return viewOf<T>(m->rank, m->descriptor);
}
template <typename T, int N>
View<T> viewOf(StridedMemRef<T, N>* m) {
  return viewOf<T>(N, m);
}

/// One element as MLIR's runner utilities stream it: with the stream's own
/// operator<< (so an int8_t is a character, a uint64_t index unsigned, a
/// complex `(re,im)`), f16 and bf16 as the float they hold.
template <typename T>
void writeElement(std::ostream& os, const T& v) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    os << static_cast<float>(v);
  else
    os << v;
}
/// MLIR's Vector2D<4, 4, float>: `((a, b, c, d), ` then each middle row after
/// two more spaces, the last after one, then `)` (MLIR's spacing, kept).
void writeElement(std::ostream& os, const Vector4x4F32& v);

}  // namespace memjit::runtime::runner
