// What a jit::Function handle points at, owned by its module's state
// (internal to jit/; the public header sees only an incomplete type, so the
// once_flag and std::function stay out of users' translation units).
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "memjit/runtime/callable.h"
#include "memjit/signature/function_signature.h"

namespace memjit::jit::detail {

/// An address found on first use: the expanded entry point of a codegen
/// module, compiled when somebody first asks for it.
struct LazyAddress {
  std::once_flag once;
  void* address = nullptr;
  std::function<void*()> resolve;  ///< null when the entry cannot be compiled
  void* get() noexcept {
    std::call_once(once, [this] { address = resolve(); });
    return address;
  }
};

struct FunctionRecord {
  signature::FunctionSignature signature;
  void* cInterface = nullptr;  ///< `_mlir_ciface_<name>`, null when the module has none
  void* expanded = nullptr;    ///< `<name>`, the expanded (3+2N) function
  std::shared_ptr<LazyAddress> lazyExpanded;  ///< instead of `expanded` when compiled on first use
  void* resultAllocator = nullptr;  ///< `_mlir_ciface_<fbr>` when the signature names one
  runtime::Callable invoker;   ///< the runtime's call plan, made once
};

}  // namespace memjit::jit::detail
