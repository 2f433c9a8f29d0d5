// memrefCopy (memref.copy of views that are not one contiguous block) and
// the allocation functions of finalize-memref-to-llvm's
// use-generic-functions mode, from mlir_c_runner_utils.
#include <bit>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "view.h"

namespace memjit::runtime::runner {
namespace {

// Elements a row-major view of `sizes` spans, or 0 if any size is <= 0.
std::int64_t elementCount(const View<char>& v) {
  std::int64_t n = 1;
  for (std::int64_t i = 0; i < v.rank; ++i) {
    if (v.sizes[i] <= 0) return 0;
    n *= v.sizes[i];
  }
  return n;
}

bool isRowMajor(const View<char>& v, const std::int64_t* sizes) {
  std::int64_t expected = 1;
  for (std::int64_t i = v.rank; i-- > 0;) {
    if (sizes[i] != 1 && v.strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

}  // namespace
}  // namespace memjit::runtime::runner

extern "C" {

// dst takes src's shape (the op requires equal shapes); elements are copied
// in row-major order of that shape, so overlapping views give what copying
// one element at a time gives (memmove keeps a partly overlapping element intact).
void memrefCopy(std::int64_t elemSize, memjit::runtime::UnrankedMemRef<char>* srcArg,
                memjit::runtime::UnrankedMemRef<char>* dstArg) {
  using memjit::runtime::runner::viewOf;
  const auto src = viewOf<char>(srcArg->rank, srcArg->descriptor);
  const auto dst = viewOf<char>(srcArg->rank, dstArg->descriptor);
  const std::int64_t count = memjit::runtime::runner::elementCount(src);
  if (count == 0 || elemSize <= 0) return;
  char* from = src.data + src.offset * elemSize;
  char* to = dst.data + dst.offset * elemSize;
  const std::int64_t bytes = count * elemSize;
  if (memjit::runtime::runner::isRowMajor(src, src.sizes) && memjit::runtime::runner::isRowMajor(dst, src.sizes) &&
      (to + bytes <= from || from + bytes <= to)) {
    std::memcpy(to, from, static_cast<std::size_t>(bytes));
    return;
  }
  const std::int64_t rank = src.rank;
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
  std::int64_t read = 0, write = 0;  // in elements, from `from` and `to`
  for (std::int64_t n = 0; n < count; ++n) {
    std::memmove(to + write * elemSize, from + read * elemSize, static_cast<std::size_t>(elemSize));
    // Advance the innermost index; carry into outer ones like an odometer.
    for (std::int64_t axis = rank - 1; axis >= 0; --axis) {
      const auto a = static_cast<std::size_t>(axis);
      read += src.strides[axis];
      write += dst.strides[axis];
      if (++index[a] < src.sizes[axis]) break;
      read -= src.sizes[axis] * src.strides[axis];
      write -= src.sizes[axis] * dst.strides[axis];
      index[a] = 0;
    }
  }
}

void* mlirAlloc(std::uint64_t size) { return std::malloc(size); }

// aligned_alloc's alignment must be a power of two (null otherwise, as for
// any allocation that cannot be made) and, for C11 and sanitizers' checking
// allocators, the size a multiple of it: rounded up here.
void* mlirAlignedAlloc(std::uint64_t alignment, std::uint64_t size) {
  if (!std::has_single_bit(alignment)) return nullptr;
  const std::uint64_t padded = (size + alignment - 1) & ~(alignment - 1);
  if (padded < size) return nullptr;  // wrapped around
  return std::aligned_alloc(alignment, padded);
}

void mlirFree(void* ptr) { std::free(ptr); }
void mlirAlignedFree(void* ptr) { std::free(ptr); }

}  // extern "C"
