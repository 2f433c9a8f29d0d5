// A function compiled by the JIT: its signature (read back from the metadata
// the module embeds), the address of its `_mlir_ciface_` C interface and of the
// expanded function. Resolved once, when the handle is made: calling through
// a handle never looks anything up by name. A handle keeps the code it points
// to loaded, even after its module was removed from the Jit.
#pragma once

#include <memory>
#include <string>

#include "memjit/signature/function_signature.h"

namespace memjit::jit {

namespace detail {
/// What a Function points at; owned by its module's state.
struct FunctionRecord {
  signature::FunctionSignature signature;
  void* cInterface = nullptr;  ///< `_mlir_ciface_<name>`, null when the module has none
  void* expanded = nullptr;    ///< `<name>`, the expanded (3+2N) function
};
}  // namespace detail

class Function {
 public:
  /// An empty handle (operator bool is false).
  Function() = default;
  /// Made by LoadedModule::function and Jit::lookup.
  explicit Function(std::shared_ptr<const detail::FunctionRecord> record) noexcept
      : record_(std::move(record)) {}

  explicit operator bool() const noexcept { return record_ != nullptr; }
  /// The function's name (without `_mlir_ciface_`).
  const std::string& name() const noexcept { return record_->signature.name; }
  /// Its signature metadata: MLIR type, raw ABI, reflection, SIP, allocator.
  const signature::FunctionSignature& signature() const noexcept { return record_->signature; }
  /// Address of `_mlir_ciface_<name>` (null when the module defines none).
  void* cInterface() const noexcept { return record_->cInterface; }
  /// Address of the expanded function `<name>`.
  void* expanded() const noexcept { return record_->expanded; }

  /// The C interface as a function pointer of type `F` (for example
  /// `void(StridedMemRefType<float,1>*, ...)`); the caller vouches for `F`.
  template <typename F>
  F* cInterfaceAs() const noexcept {
    return reinterpret_cast<F*>(record_->cInterface);
  }
  /// The expanded function as a function pointer of type `F`.
  template <typename F>
  F* expandedAs() const noexcept {
    return reinterpret_cast<F*>(record_->expanded);
  }

  /// An owner that keeps the function's code loaded for as long as it lives,
  /// for wrappers (such as runtime invokers) that only keep the pointers.
  std::shared_ptr<const void> keepAlive() const noexcept { return record_; }

 private:
  std::shared_ptr<const detail::FunctionRecord> record_;
};

}  // namespace memjit::jit
