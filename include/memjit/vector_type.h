// MLIR's one-dimensional vector type, `vector<16xf32>`: a fixed number of
// lanes of one scalar element type. A value type of the kernel builder only
// (codegen/builder.h): vectors are not function argument or result types.
#pragma once

#include <cstdint>

#include "memjit/error.h"
#include "memjit/types.h"

namespace memjit {

struct VectorType {
  ElementType element = ElementType::F32;
  std::uint32_t lanes = 1;

  /// The most lanes a vector may have: far beyond any register file, small
  /// enough that LLVM's legaliser stays fast.
  static constexpr std::uint32_t kMaxLanes = 1024;
  /// Checks the parts: an integer (i1 included), index or float element and
  /// 1 to kMaxLanes lanes, as MLIR's vector dialect takes them.
  static Expected<VectorType> get(ElementType element, std::int64_t lanes);
  friend bool operator==(const VectorType&, const VectorType&) = default;
};

/// Whether `t` may be a vector's element (integer, index or float).
bool isVectorElement(ElementType t) noexcept;

}  // namespace memjit
