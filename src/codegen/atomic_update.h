// Internal: the compare-exchange loop behind the atomics that have no
// `atomicrmw` (builder_atomic.cpp) and behind parallel reductions' merge of a
// chunk's partial into the loop's accumulator (builder_parallel.cpp).
#pragma once

#include <functional>

#include "builder_impl.h"

namespace llvm {
class Value;
}  // namespace llvm

namespace memjit::codegen::detail {

/// Replaces the element of type `e` at `addr` by update(current) atomically: reads it (monotonic), builds `update`
/// on it, and retries while another thread changed the element in between; the exchange is of the element's bits
/// as an integer. Returns the value replaced, invalid when `update` failed (the builder's error set).
Value atomicUpdate(FunctionBuilder& self, llvm::Value* addr, ElementType e, AtomicOrdering ordering,
                   const std::function<Value(Value)>& update);

}  // namespace memjit::codegen::detail
