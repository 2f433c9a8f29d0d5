// Internal: how to call one `_mlir_ciface_` function whose type is known only
// at run time. libffi does the general case; functions whose parameters are
// all integer-class (pointers and integers, at most 8) and whose result is
// void, an integer, f32 or f64 go through a precompiled thunk instead, which
// costs about as much as a direct call.
#pragma once

#include <ffi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memjit/error.h"
#include "memjit/types.h"

namespace memjit::runtime::detail {

/// The C layout of a function's lowered result struct.
struct ResultLayout {
  bool viaPointer = false;          ///< results written through a first pointer parameter
  std::vector<std::size_t> offsets; ///< per result, in the struct (or 0 for a direct result)
  std::size_t size = 0;
  std::size_t align = 1;
};
ResultLayout resultLayout(const FunctionType& type);

class CallShape {
 public:
  /// Prepares calls of a C interface of `type`. Never fails: a type the
  /// dynamic invoker cannot call (complex scalars by value, and f16/bf16
  /// ones off x86-64 SysV) records why in unsupported().
  explicit CallShape(const FunctionType& type);
  CallShape(const CallShape&) = delete;
  CallShape& operator=(const CallShape&) = delete;

  const ResultLayout& results() const noexcept { return results_; }
  /// Number of parameter words (the result pointer included).
  std::size_t numWords() const noexcept { return numWords_; }
  const std::string& unsupported() const noexcept { return unsupported_; }
  bool usesThunk() const noexcept { return thunk_ != nullptr; }

  /// Calls `fn` with one 64-bit word per parameter (pointers, integers
  /// extended, floats (f16/bf16 bits too) in the low bytes); a direct scalar result lands in
  /// `ret` (8 bytes, value at offset 0).
  void call(void* fn, std::uint64_t* words, void* ret) const {
    if (thunk_)
      thunk_(fn, words, ret);
    else
      callThroughLibffi(fn, words, ret);
  }

  using Thunk = void (*)(void* fn, const std::uint64_t* words, void* ret);

 private:
  void callThroughLibffi(void* fn, std::uint64_t* words, void* ret) const;

  ResultLayout results_;
  std::size_t numWords_ = 0;
  std::string unsupported_;
  Thunk thunk_ = nullptr;
  std::vector<ffi_type*> types_;
  ffi_cif cif_{};
};

}  // namespace memjit::runtime::detail
