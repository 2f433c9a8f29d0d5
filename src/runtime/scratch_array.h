// Internal: per-call scratch storage of the dynamic invoker. A call needs a
// few arrays whose length is known when the call starts (parameter words,
// bound values, passed buffers, unranked descriptors); most calls are small,
// so each array lives inline up to a limit and on the heap beyond it, and a
// call of a small function allocates nothing.
#pragma once

#include <cstddef>
#include <memory>

namespace memjit::runtime::detail {

template <typename T, std::size_t InlineCapacity>
class ScratchArray {
 public:
  // User-provided so that the inline storage is not zeroed on every call.
  ScratchArray() noexcept {}
  ScratchArray(const ScratchArray&) = delete;
  ScratchArray& operator=(const ScratchArray&) = delete;

  /// Makes room for `n` elements (value-initialised when `clear`); call once
  /// per call, before use. Earlier contents are not kept.
  void reset(std::size_t n, bool clear = false) {
    size_ = n;
    if (n > InlineCapacity) {
      heap_ = clear ? std::make_unique<T[]>(n) : std::make_unique_for_overwrite<T[]>(n);
      data_ = heap_.get();
    } else {
      data_ = inline_;
      if (clear)
        for (std::size_t i = 0; i < n; ++i) inline_[i] = T{};
    }
  }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  T inline_[InlineCapacity];
  std::unique_ptr<T[]> heap_;
  T* data_ = inline_;
  std::size_t size_ = 0;
};

}  // namespace memjit::runtime::detail
