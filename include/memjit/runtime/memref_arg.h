// MemRefArg<T, N>: a memref parameter taken by value, as the wrappers of
// generated AOT headers take them. It accepts whatever names memory of that
// element type and rank: a StridedMemRef descriptor, an OwnedMemRef, and for
// rank 1 a std::span or std::vector (contiguous, offset 0). Copying it copies
// the descriptor (3 + 2N words), never the data; nothing is owned.
#pragma once

#include <span>
#include <vector>

#include "memjit/runtime/memref.h"
#include "memjit/runtime/owned_memref.h"

namespace memjit::runtime {

template <typename T, int N>
class MemRefArg {
 public:
  MemRefArg(const StridedMemRef<T, N>& m) noexcept : desc_(m) {}
  MemRefArg(const OwnedMemRef<T, N>& m) noexcept : desc_(m.get()) {}
  MemRefArg(std::span<T> values) noexcept
    requires(N == 1)
      : desc_(makeView(values)) {}
  MemRefArg(std::vector<T>& values) noexcept
    requires(N == 1)
      : desc_(makeView(values)) {}

  const StridedMemRef<T, N>& descriptor() const noexcept { return desc_; }
  operator const StridedMemRef<T, N>&() const noexcept { return desc_; }

 private:
  StridedMemRef<T, N> desc_;
};

}  // namespace memjit::runtime
