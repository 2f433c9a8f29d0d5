// Test helper: a vector's elements as a contiguous 1-D memref descriptor, the
// argument most JIT tests pass. The vector must outlive the descriptor.
#pragma once

#include <cstdint>
#include <vector>

#include "memjit/runtime/memref.h"

namespace memjit::test {

template <typename T>
using V1 = runtime::StridedMemRef<T, 1>;

template <typename T>
V1<T> view(std::vector<T>& v) {
  return {v.data(), v.data(), 0, {static_cast<std::int64_t>(v.size())}, {1}};
}

}  // namespace memjit::test
