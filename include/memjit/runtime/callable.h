// A callable compiled function: a `_mlir_ciface_` pointer plus its signature
// metadata. The JIT hands these out, and any AOT-linked or MLIR-compiled
// function becomes one from its pointer and its signature (as metadata or as
// MLIR type text). Two ways to call it:
//
//   auto add = fn.as<float(StridedMemRef<float, 1>, float)>();  // typed: checked once
//   float s = (*add)(makeView(v), 2.0f);                       // ~ a direct call
//
//   Expected<Variant> r = fn.invoke({Variant(buf), 2.0});           // dynamic: checked per call
//
// See docs/runtime.md ("The dynamic invoker", "Ownership") for the argument mapping and ownership rules.
#pragma once

#include <initializer_list>
#include <memory>
#include <span>
#include <string_view>

#include "memjit/error.h"
#include "memjit/runtime/typed_callable.h"
#include "memjit/runtime/variant.h"
#include "memjit/signature/function_signature.h"

namespace memjit::runtime {

namespace detail {
struct Plan;
}

/// Options of one dynamic call.
struct InvokeOptions {
  /// When a buffer's layout does not suit the function (a transposed view
  /// where the identity layout is required), copy it into a suitable buffer
  /// and back after the call. When false, that is an error instead.
  bool allowCopies = true;
};

/// A handle to a compiled function. Cheap to copy (shares its call plan).
class Callable {
 public:
  Callable() = default;

  /// Makes a handle for the C-interface function `cInterface` described by
  /// `signature`. `resultAllocator` is the C-interface pointer of the `fbr`
  /// allocator when the signature names one (see result_allocator.h); without
  /// it a function with an allocator still works (it allocates its results).
  /// Errors: null pointer, reflection or SIP metadata that does not parse or
  /// does not match the type's raw arity.
  static Expected<Callable> create(void* cInterface, signature::FunctionSignature signature,
                                   void* resultAllocator = nullptr);
  /// The same from MLIR function type text, e.g. "(memref<?xf32>) -> f32",
  /// with default metadata (signature::describe).
  static Expected<Callable> fromTypeText(void* cInterface, std::string name, std::string_view type);

  bool valid() const noexcept { return plan_ != nullptr; }
  void* cInterface() const noexcept;
  const signature::FunctionSignature& signature() const;

  /// The typed invoker for `F` = R(Args...), checked against the metadata
  /// once (see typed_function.h).
  template <typename F>
  Expected<TypedCallable<F>> as() const;

  /// Calls with positional and keyword arguments, mapped onto the raw
  /// arguments by the SIP structure or the V1 reflection, each checked against
  /// the raw type (element type, rank, static dims, layout). Results: None
  /// for no result, the value for one, a tuple for several (or the SIP/V1
  /// result structure). Memref results the callee allocated come back owned.
  Expected<Variant> invoke(std::span<const Variant> args, std::span<const std::pair<std::string, Variant>> kwargs = {},
                         const InvokeOptions& options = {}) const;
  Expected<Variant> invoke(std::initializer_list<Variant> args) const {
    return invoke(std::span<const Variant>(args.begin(), args.size()));
  }
  Expected<Variant> invoke(std::initializer_list<Variant> args, const KeywordArgs& kwargs,
                         const InvokeOptions& options = {}) const {
    return invoke(std::span<const Variant>(args.begin(), args.size()),
                  std::span<const std::pair<std::string, Variant>>(kwargs), options);
  }

 private:
  std::shared_ptr<const detail::Plan> plan_;
};

template <typename F>
Expected<TypedCallable<F>> Callable::as() const {
  if (!valid()) return Error(ErrorCode::InvalidArgument, "typed invoker: empty function handle");
  return TypedCallable<F>::make(cInterface(), signature());
}

}  // namespace memjit::runtime
