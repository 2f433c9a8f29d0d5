// verifyMemRef* of mlir_runner_utils: counts the elements of `actual` that
// differ from `expected`, describing the first few on std::cerr.
#include <cmath>
#include <complex>
#include <iostream>

#include "../memref_text.h"
#include "view.h"

namespace memjit::runtime::runner {
namespace {

// MLIR's printLimit: more differences are counted but not described.
constexpr std::int64_t kDescribed = 10;

// Floats within a relative error of `epsilon`, computed in T's precision;
// NaN and inf never match, even themselves; an expected 0 needs an exact 0.
template <typename T>
bool close(T actual, T expected, T epsilon) {
  if (!std::isfinite(actual) || !std::isfinite(expected)) return false;
  return std::abs(actual - expected) <= epsilon * std::abs(expected);
}

template <typename T>
bool same(const T& actual, const T& expected) {
  if constexpr (std::is_same_v<T, float>)
    return close(actual, expected, 1e-6f);
  else if constexpr (std::is_same_v<T, double>)
    return close(actual, expected, 1e-12);
  else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    return actual.bits() == expected.bits();  // as MLIR's f16/bf16 operator==: bit patterns
  else
    return actual == expected;
}

template <typename T>
struct Verifier {
  const View<T>& actual;
  const View<T>& expected;
  std::int64_t described = 0;

  std::int64_t count(std::int64_t dim, std::int64_t offset, const std::int64_t* sizes, const std::int64_t* strides) {
    if (dim == 0) {
      if (same(actual.data[offset], expected.data[offset])) return 0;
      if (described < kDescribed) {
        writeElement(std::cerr, actual.data[offset]);
        std::cerr << " != ";
        writeElement(std::cerr, expected.data[offset]);
        std::cerr << " offset = " << offset << "\n";
        ++described;
      }
      return 1;
    }
    std::int64_t errors = 0;
    for (std::int64_t i = 0; i < sizes[0]; ++i)
      errors += count(dim - 1, offset + i * strides[0], sizes + 1, strides + 1);
    return errors;
  }
};

void writeMetadata(const auto& v) {
  detail::writeMemrefMetadata(std::cerr, v.data, v.rank, v.offset, v.sizes, v.strides);
}

template <typename T>
std::int64_t verify(const View<T>& actual, const View<T>& expected) {
  // Both views must have one layout; element offsets are shared. (MLIR skips
  // this check for a rank-0 `actual`; memjit also rejects a rank mismatch there.)
  bool sameLayout = actual.rank == expected.rank && actual.offset == expected.offset;
  for (std::int64_t i = 0; sameLayout && i < actual.rank; ++i)
    sameLayout = actual.sizes[i] == expected.sizes[i] && actual.strides[i] == expected.strides[i];
  if (!sameLayout) {
    writeMetadata(actual);
    writeMetadata(expected);
    return -1;
  }
  return Verifier<T>{actual, expected}.count(actual.rank, actual.offset, actual.sizes, actual.strides);
}

template <typename T>
std::int64_t verifyUnranked(UnrankedMemRef<T>* actual, UnrankedMemRef<T>* expected) {
  return verify(viewOf(actual), viewOf(expected));
}

template <typename T>
std::int64_t verifyParts(std::int64_t rank, void* actual, void* expected) {
  return verify(viewOf<T>(rank, actual), viewOf<T>(rank, expected));
}

}  // namespace
}  // namespace memjit::runtime::runner

// The C symbols: one line each over verifyUnranked and verifyParts.
using namespace memjit::runtime;
using namespace memjit::runtime::runner;

// `symbol` compares two unranked memrefs of T.
#define MEMJIT_VERIFY_UNRANKED_(symbol, T)                                  \
  std::int64_t symbol(UnrankedMemRef<T>* actual, UnrankedMemRef<T>* expected) { \
    return verifyUnranked(actual, expected);                                  \
  }

extern "C" {

MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefI8, std::int8_t)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefI16, std::int16_t)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefI32, std::int32_t)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefI64, std::int64_t)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefBF16, memjit::bf16)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefF16, memjit::f16)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefF32, float)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefF64, double)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefInd, Index)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefC32, C32)
MEMJIT_VERIFY_UNRANKED_(_mlir_ciface_verifyMemRefC64, C64)

std::int64_t verifyMemRefI32(std::int64_t rank, void* a, void* e) { return verifyParts<std::int32_t>(rank, a, e); }
std::int64_t verifyMemRefF32(std::int64_t rank, void* a, void* e) { return verifyParts<float>(rank, a, e); }
std::int64_t verifyMemRefF64(std::int64_t rank, void* a, void* e) { return verifyParts<double>(rank, a, e); }
std::int64_t verifyMemRefInd(std::int64_t rank, void* a, void* e) { return verifyParts<Index>(rank, a, e); }
std::int64_t verifyMemRefC32(std::int64_t rank, void* a, void* e) { return verifyParts<C32>(rank, a, e); }
std::int64_t verifyMemRefC64(std::int64_t rank, void* a, void* e) { return verifyParts<C64>(rank, a, e); }

}  // extern "C"

#undef MEMJIT_VERIFY_UNRANKED_
