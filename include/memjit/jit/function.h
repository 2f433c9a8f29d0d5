// A function compiled by the JIT: its signature (read back from the metadata
// the module embeds), the address of its `_mlir_ciface_` C interface and of the
// expanded function. Resolved once, when the handle is made (the expanded
// entry of a codegen module once, on first use: see
// JitOptions::compileExpandedOnFirstUse): calling through a handle never looks
// anything up by name. A handle keeps the code it points to loaded, even after
// its module was removed from the Jit.
#pragma once

#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "memjit/runtime/callable.h"
#include "memjit/signature/function_signature.h"

namespace memjit::jit {

namespace detail {
struct FunctionRecord;  // what a handle points at (jit/function_record.h)
}  // namespace detail

template <typename F>
class TypedFunction;

class Function {
 public:
  /// An empty handle (valid() is false).
  Function() = default;
  /// Made by LoadedModule::function and Jit::lookup.
  explicit Function(std::shared_ptr<const detail::FunctionRecord> record) noexcept
      : record_(std::move(record)) {}

  bool valid() const noexcept { return record_ != nullptr; }
  /// The function's name (without `_mlir_ciface_`).
  const std::string& name() const noexcept;
  /// Its signature metadata: MLIR type, raw ABI, reflection, SIP, allocator.
  const signature::FunctionSignature& signature() const noexcept;
  /// Address of `_mlir_ciface_<name>` (null when the module defines none).
  void* cInterface() const noexcept;
  /// Address of the expanded function `<name>`. With
  /// JitOptions::compileExpandedOnFirstUse, the first call compiles that entry
  /// (a few hundred microseconds); null if LLVM could not (the error is in
  /// LoadedModule::symbol(name)).
  void* expanded() const noexcept;

  /// The C interface as a function pointer of type `F` (for example
  /// `void(StridedMemRefType<float,1>*, ...)`); the caller vouches for `F`.
  template <typename F>
  F* cInterfaceAs() const noexcept {
    return reinterpret_cast<F*>(cInterface());
  }
  /// The expanded function as a function pointer of type `F`.
  template <typename F>
  F* expandedAs() const noexcept {
    return reinterpret_cast<F*>(expanded());
  }

  /// The runtime's handle (typed and dynamic invokers) for this function. It
  /// does not keep the code loaded: keep this Function (or keepAlive()) too.
  const runtime::Callable& runtime() const noexcept;

  /// A typed invoker for `F` = R(Args...), checked against the metadata once;
  /// it keeps the code loaded. See memjit/runtime/typed_callable.h.
  template <typename F>
  Expected<TypedFunction<F>> as() const;

  /// A dynamic call (arguments checked against the signature on every call).
  Expected<runtime::Variant> invoke(std::initializer_list<runtime::Variant> args) const {
    return runtime().invoke(args);
  }
  /// A dynamic call with keyword arguments, e.g. `f.invoke({x}, {{"scale", 2.0f}})`.
  Expected<runtime::Variant> invoke(std::initializer_list<runtime::Variant> args,
                                  const runtime::KeywordArgs& kwargs,
                                  const runtime::InvokeOptions& options = {}) const {
    return runtime().invoke(args, kwargs, options);
  }
  Expected<runtime::Variant> invoke(std::span<const runtime::Variant> args,
                                  std::span<const std::pair<std::string, runtime::Variant>> kwargs = {},
                                  const runtime::InvokeOptions& options = {}) const {
    return runtime().invoke(args, kwargs, options);
  }

  /// An owner that keeps the function's code loaded for as long as it lives,
  /// for wrappers (such as runtime invokers) that only keep the pointers.
  std::shared_ptr<const void> keepAlive() const noexcept;

 private:
  std::shared_ptr<const detail::FunctionRecord> record_;
};

/// runtime::TypedCallable plus ownership of the JIT'd code it calls.
template <typename R, typename... Args>
class TypedFunction<R(Args...)> {
 public:
  TypedFunction(runtime::TypedCallable<R(Args...)> fn, std::shared_ptr<const void> owner)
      : fn_(std::move(fn)), owner_(std::move(owner)) {}
  /// Calls the function (costs what a direct call costs).
  template <typename... Ts>
  decltype(auto) operator()(Ts&&... args) const {
    return fn_(std::forward<Ts>(args)...);
  }
  /// Calls the function; a failed check of a checked function comes back as
  /// an Error (see runtime::TypedCallable::call).
  template <typename... Ts>
  auto call(Ts&&... args) const {
    return fn_.call(std::forward<Ts>(args)...);
  }
  const runtime::TypedCallable<R(Args...)>& runtime() const noexcept { return fn_; }

 private:
  runtime::TypedCallable<R(Args...)> fn_;
  std::shared_ptr<const void> owner_;
};

template <typename F>
Expected<TypedFunction<F>> Function::as() const {
  if (!record_) return Error(ErrorCode::InvalidArgument, "empty function handle");
  auto typed = runtime().template as<F>();
  if (!typed) return typed.error().withContext("function '" + name() + "'");
  return TypedFunction<F>(std::move(*typed), keepAlive());
}

}  // namespace memjit::jit
