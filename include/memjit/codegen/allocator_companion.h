// Deferred result allocation (`fbr`), the codegen side: emits the allocator
// companion of a destination-passing function, following the convention in
// memjit/runtime/result_allocator.h exactly.
//
// F has the real type (I1..In, D1..Dk) -> (R1..Rm): one trailing destination
// per ranked memref result D1..Dk. The user states, per Dj, how each of its
// dims follows from the inputs (a constant, or a dim of a ranked memref
// input), or that its shape depends on data. addResultAllocator then defines
//   <F>__allocate_results : (index x d) -> (D1..Dk)
// (d = the dynamic dims of the ranked memref inputs, input order then dim
// order), which mallocs each computable destination (aligned, freed with
// free(allocated)) and returns an absent descriptor (null pointers, zero
// sizes and strides) for a data-dependent one. F's signature then names the
// allocator (`_memjit_fbr_<F>`), so the JIT and the dynamic invoker use it.
//
//   codegen::Module m("k");
//   // ... define "add" : (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> memref<?xf32>
//   auto a = addResultAllocator(m, "add", {ResultShape::of({ResultDim::inputDim(0, 0)})});
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/codegen/module.h"
#include "memjit/error.h"

namespace memjit::codegen {

/// How one dim of a result is obtained.
struct ResultDim {
  enum class Kind { Static, InputDim };
  Kind kind = Kind::Static;
  std::int64_t size = 0;   ///< Static: the size (>= 0)
  std::size_t input = 0;   ///< InputDim: index among F's user inputs I1..In (0-based)
  std::size_t dim = 0;     ///< InputDim: dim of that input

  /// A constant size.
  static ResultDim staticSize(std::int64_t size) noexcept { return {Kind::Static, size, 0, 0}; }
  /// Equal to dim `dim` of user input `input` (a ranked memref).
  static ResultDim inputDim(std::size_t input, std::size_t dim) noexcept { return {Kind::InputDim, 0, input, dim}; }
};

/// How one ranked memref result's destination is obtained.
struct ResultShape {
  /// The shape depends on data: the allocator returns an absent destination
  /// and F allocates the result itself.
  bool dataDependent = false;
  /// One rule per dim of the result (ignored when dataDependent). May be
  /// empty for a result with a fully static shape.
  std::vector<ResultDim> dims;

  static ResultShape of(std::vector<ResultDim> dims) { return {false, std::move(dims)}; }
  static ResultShape dependsOnData() { return {true, {}}; }
};

/// Options of addResultAllocator.
struct ResultAllocatorOptions {
  /// The allocator's name; empty: `<F>__allocate_results`.
  std::string name;
  /// Alignment of each destination's aligned pointer in bytes (a power of two).
  unsigned alignment = 64;
};

/// Defines F's allocator (one ResultShape per ranked memref result of F, in
/// order) with its `_mlir_ciface_` interface and its own metadata (it is an
/// ordinary function: it appears in the manifest and module.signatures()),
/// and records its name as F's `resultAllocator` (`_memjit_fbr_<F>`).
/// F must be defined in `module` with the destination arguments. Errors name
/// the result, dim and input of any inconsistency; on error the module is
/// left unchanged.
Expected<LoweredFunction> addResultAllocator(Module& module, std::string_view function,
                                             const std::vector<ResultShape>& results,
                                             const ResultAllocatorOptions& options = {});

/// For F's body: `destination` when its allocated pointer is non-null, else a
/// fresh allocation (as FunctionBuilder::alloc, one size per dynamic dim) —
/// rule 3 of the convention. The returned value is what F writes and returns.
Value destinationOrAlloc(FunctionBuilder& b, const Value& destination, const std::vector<Value>& dynamicSizes,
                         unsigned alignment = 64);

}  // namespace memjit::codegen
