// Typed memrefs that own their memory, ranked (OwnedMemRef) and unranked
// (OwnedUnrankedMemRef): allocated with a chosen alignment, or adopted from a
// function result. Both free the ALLOCATED pointer (basePtr),
// never the aligned one: MLIR 19's OwningMemRef frees the aligned pointer,
// which is wrong whenever alignment moved it.
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "memjit/error.h"
#include "memjit/runtime/buffer.h"
#include "memjit/runtime/memref.h"

namespace memjit::runtime {

/// An owned StridedMemRef<T, N>. Move-only in spirit but copyable as a
/// shared owner: copies share the memory, which is freed when the last goes.
template <typename T, int N>
class OwnedMemRef {
 public:
  /// An empty memref (null pointers, zero sizes) that owns nothing.
  OwnedMemRef() { std::memset(&desc_, 0, sizeof(desc_)); }

  /// Zero-filled row-major memory for `shape`, its first element aligned to
  /// `alignment` (a power of two, at least alignof(T)).
  static Expected<OwnedMemRef> allocate(const std::array<std::int64_t, static_cast<std::size_t>(N)>& shape,
                                        std::size_t alignment = 64) {
    std::vector<std::int64_t> dims(shape.begin(), shape.end());
    MEMJIT_ASSIGN_OR_RETURN(Buffer b, Buffer::allocate(ElementTypeOf<T>::value, dims, alignment));
    return fromBuffer(b);
  }
  /// Takes ownership of a descriptor whose `basePtr` came from malloc (as
  /// MLIR's default allocation does): `free(basePtr)` runs once, at the end.
  static OwnedMemRef adopt(const StridedMemRef<T, N>& m) {
    OwnedMemRef r;
    r.desc_ = m;
    r.owner_ = std::shared_ptr<void>(static_cast<void*>(m.basePtr), [](void* p) { std::free(p); });
    return r;
  }
  /// A descriptor this object does not own (e.g. a result that aliases an
  /// argument, or a global): nothing is freed.
  static OwnedMemRef borrow(const StridedMemRef<T, N>& m) {
    OwnedMemRef r;
    r.desc_ = m;
    return r;
  }
  /// Takes `m` sharing an existing owner (two results of one allocation).
  static OwnedMemRef share(const StridedMemRef<T, N>& m, std::shared_ptr<void> owner) {
    OwnedMemRef r;
    r.desc_ = m;
    r.owner_ = std::move(owner);
    return r;
  }
  /// Shares the memory of a type-erased buffer; fails on element type or rank.
  static Expected<OwnedMemRef> fromBuffer(const Buffer& b) {
    MEMJIT_ASSIGN_OR_RETURN(auto m, (b.as<T, N>()));
    OwnedMemRef r;
    r.desc_ = m;
    r.owner_ = b.owner();
    return r;
  }

  const StridedMemRef<T, N>& get() const noexcept { return desc_; }
  StridedMemRef<T, N>& get() noexcept { return desc_; }
  operator const StridedMemRef<T, N>&() const noexcept { return desc_; }
  const StridedMemRef<T, N>* operator->() const noexcept { return &desc_; }
  T& operator()(const std::array<std::int64_t, static_cast<std::size_t>(N)>& idx) const { return desc_(idx); }
  /// True when this object (or a copy) frees the memory.
  bool owning() const noexcept { return owner_ != nullptr; }
  const std::shared_ptr<void>& owner() const noexcept { return owner_; }
  /// The type-erased form, sharing ownership.
  Buffer toBuffer() const { return Buffer::fromMemRef(desc_, owner_); }

 private:
  StridedMemRef<T, N> desc_;
  std::shared_ptr<void> owner_;
};

/// An owned unranked memref (`memref<*xT>`): the rank known at run time, a
/// private copy of the ranked descriptor, and a share of the memory's
/// ownership (none for memory it does not own). What the typed invoker
/// returns for an unranked result; converts to UnrankedMemRef<T> for a call.
template <typename T>
class OwnedUnrankedMemRef {
 public:
  /// Empty: rank 0, a null descriptor, owns nothing.
  OwnedUnrankedMemRef() = default;
  OwnedUnrankedMemRef(const OwnedUnrankedMemRef& o) : buffer_(o.buffer_) { repoint(); }
  OwnedUnrankedMemRef(OwnedUnrankedMemRef&& o) noexcept : buffer_(std::move(o.buffer_)) {
    repoint();
    o.repoint();
  }
  OwnedUnrankedMemRef& operator=(const OwnedUnrankedMemRef& o) {
    buffer_ = o.buffer_;
    repoint();
    return *this;
  }
  OwnedUnrankedMemRef& operator=(OwnedUnrankedMemRef&& o) noexcept {
    buffer_ = std::move(o.buffer_);
    repoint();
    o.repoint();
    return *this;
  }

  /// Copies the rank-`rank` descriptor at `descriptor` (MLIR's layout);
  /// `owner` (may be empty) keeps the memory alive.
  static OwnedUnrankedMemRef fromDescriptor(std::int64_t rank, const void* descriptor,
                                            std::shared_ptr<void> owner = {}) {
    OwnedUnrankedMemRef r;
    r.buffer_ = Buffer::fromDescriptor(ElementTypeOf<T>::value, rank, descriptor, std::move(owner));
    r.repoint();
    return r;
  }
  /// Shares the memory of a type-erased buffer; fails on element type.
  static Expected<OwnedUnrankedMemRef> fromBuffer(const Buffer& b) {
    if (!b.valid() || !elementTypesCompatible(ElementTypeOf<T>::value, b.elementType()))
      return Error(ErrorCode::TypeMismatch, "buffer " + b.describe() + " is not a memref<*x" +
                                                std::string(spelling(ElementTypeOf<T>::value)) + ">");
    return fromDescriptor(b.rank(), b.descriptor(), b.owner());
  }

  std::int64_t rank() const noexcept { return view_.rank; }
  /// False for the empty value (e.g. a null unranked result).
  bool valid() const noexcept { return view_.descriptor != nullptr; }
  /// {rank, pointer to this object's descriptor}: valid while this object lives.
  const UnrankedMemRef<T>& get() const noexcept { return view_; }
  operator const UnrankedMemRef<T>&() const noexcept { return view_; }
  /// The ranked form, sharing ownership; an error when the rank is not N.
  template <int N>
  Expected<OwnedMemRef<T, N>> ranked() const {
    return OwnedMemRef<T, N>::fromBuffer(buffer_);
  }
  bool owning() const noexcept { return buffer_.owning(); }
  const std::shared_ptr<void>& owner() const noexcept { return buffer_.owner(); }
  /// The type-erased form, sharing ownership.
  const Buffer& toBuffer() const noexcept { return buffer_; }

 private:
  void repoint() noexcept {
    view_.rank = buffer_.valid() ? buffer_.rank() : 0;
    view_.descriptor = buffer_.valid() ? buffer_.descriptor() : nullptr;
  }
  Buffer buffer_;
  UnrankedMemRef<T> view_{0, nullptr};
};

}  // namespace memjit::runtime
