// A type-erased ranked memref: element type, descriptor in MLIR's layout and
// an optional share of ownership of the memory. This is the buffer the
// dynamic invoker passes and returns, and what DLPack tensors, typed views
// and owned results convert to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "memjit/error.h"
#include "memjit/runtime/memref.h"
#include "memjit/types.h"

namespace memjit::runtime {

/// A ranked memref of any element type. Copies share the memory (and its
/// ownership, if any); the descriptor itself is copied.
class Buffer {
 public:
  /// An empty buffer (no element type, no memory); `valid()` is false.
  Buffer() = default;

  /// A non-owning view of `data`: row-major when `strides` is empty, else the
  /// given strides in elements; `offset` in elements. Checks that shape and
  /// strides have the same length and sizes are non-negative.
  static Expected<Buffer> view(ElementType element, void* data, std::vector<std::int64_t> shape,
                               std::vector<std::int64_t> strides = {}, std::int64_t offset = 0);
  /// A buffer from raw descriptor parts; `owner` (may be empty) keeps the
  /// memory alive. Unchecked: for callers that already hold a descriptor.
  static Buffer fromParts(ElementType element, void* allocated, void* aligned, std::int64_t offset,
                          std::span<const std::int64_t> sizes, std::span<const std::int64_t> strides,
                          std::shared_ptr<void> owner = {});
  /// A buffer from a descriptor in MLIR's layout (`rank` sizes then strides).
  static Buffer fromDescriptor(ElementType element, std::int64_t rank, const void* descriptor,
                               std::shared_ptr<void> owner = {});
  /// A new zero-filled row-major buffer whose aligned pointer is a multiple of
  /// `alignment` (a power of two). The memory comes from malloc with slack;
  /// the allocated pointer, not the aligned one, is what gets freed.
  static Expected<Buffer> allocate(ElementType element, std::vector<std::int64_t> shape,
                                   std::size_t alignment = 64);
  /// A non-owning buffer over a typed descriptor.
  template <typename T, int N>
  static Buffer fromMemRef(const StridedMemRef<T, N>& m, std::shared_ptr<void> owner = {}) {
    return fromDescriptor(ElementTypeOf<std::remove_cv_t<T>>::value, N, &m, std::move(owner));
  }

  bool valid() const noexcept { return !words_.empty(); }
  ElementType elementType() const noexcept { return element_; }
  std::int64_t rank() const noexcept { return rank_; }
  void* allocated() const noexcept;
  void* aligned() const noexcept;
  std::int64_t offset() const noexcept { return words_[2]; }
  std::span<const std::int64_t> sizes() const noexcept { return {words_.data() + 3, static_cast<std::size_t>(rank_)}; }
  std::span<const std::int64_t> strides() const noexcept {
    return {words_.data() + 3 + rank_, static_cast<std::size_t>(rank_)};
  }
  std::int64_t size(std::size_t dim) const { return sizes()[dim]; }
  std::int64_t numElements() const noexcept;
  /// Bytes one element takes.
  std::size_t elementSize() const noexcept { return storageSize(element_); }
  /// Address of the first element (aligned + offset).
  void* data() const noexcept;
  /// Address of the element at `indices` (size must equal rank; unchecked).
  void* at(std::span<const std::int64_t> indices) const noexcept;

  /// The descriptor in MLIR's layout; a `_mlir_ciface_` function takes this
  /// pointer for a ranked memref argument.
  void* descriptor() noexcept { return words_.data(); }
  const void* descriptor() const noexcept { return words_.data(); }

  /// True when the elements are row-major and densely packed (strides of
  /// size-1 dims are ignored, as MLIR's static identity layout ignores them).
  bool isRowMajorContiguous() const noexcept;
  /// The memory's keep-alive, empty for views.
  const std::shared_ptr<void>& owner() const noexcept { return owner_; }
  bool owning() const noexcept { return owner_ != nullptr; }

  /// The typed descriptor; an error when element type or rank differ.
  template <typename T, int N>
  Expected<StridedMemRef<T, N>> as() const {
    if (!valid() || rank_ != N || !elementTypesCompatible(ElementTypeOf<T>::value, element_))
      return Error(ErrorCode::TypeMismatch, "buffer " + describe() + " is not a memref<" +
                                                std::string(spelling(ElementTypeOf<T>::value)) +
                                                "> of rank " + std::to_string(N));
    StridedMemRef<T, N> m;
    std::memcpy(&m, words_.data(), sizeof(m));
    return m;
  }

  /// A row-major, densely packed copy with its own memory.
  Expected<Buffer> copy(std::size_t alignment = 64) const;
  /// Copies the elements of `from` (same element size and shape) into this
  /// buffer's layout; the layouts may differ.
  Error copyFrom(const Buffer& from) const;

  /// `float32[2x?x3]`-style text: the raw ABI element name and the sizes,
  /// as diagnostics print a received buffer.
  std::string describe() const;

 private:
  ElementType element_ = ElementType::F32;
  std::int64_t rank_ = 0;
  // allocated, aligned, offset, sizes[rank], strides[rank]: MLIR's layout.
  std::vector<std::int64_t> words_;
  std::shared_ptr<void> owner_;
};

/// The raw ABI's element name (`float32`, `sint32`, `uint8`, ...), or MLIR's
/// spelling for types the raw ABI cannot name (`i1`, `index`, `!llvm.ptr`).
std::string rawElementName(ElementType t);

/// Copies elements between two strided regions of equal shape. `elementSize`
/// bytes each; pointers address element 0 (offset already applied).
void stridedCopy(void* dst, std::span<const std::int64_t> dstStrides, const void* src,
                 std::span<const std::int64_t> srcStrides, std::span<const std::int64_t> sizes,
                 std::size_t elementSize) noexcept;

}  // namespace memjit::runtime
