// Test helper: a DLTensor in host memory (kDLCPU) over a test's own arrays,
// as a DLPack producer would hand it over.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <vector>

namespace memjit::test {

/// `shape` (and `strides`, null: row-major) must outlive the tensor.
inline DLTensor hostTensor(void* data, std::vector<std::int64_t>& shape, std::int64_t* strides, DLDataType dtype,
                           std::uint64_t byteOffset = 0) {
  DLTensor t{};
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int>(shape.size());
  t.dtype = dtype;
  t.shape = shape.data();
  t.strides = strides;
  t.byte_offset = byteOffset;
  return t;
}

}  // namespace memjit::test
