// A small kernel library written with the kernel builder, for tests,
// examples and benchmarks. Each function adds one kernel (its expanded
// function, `_mlir_ciface_` interface and metadata) to a Module.
#pragma once

#include <string_view>

#include "memjit/codegen/module.h"
#include "memjit/error.h"
#include "memjit/types.h"

namespace memjit::codegen {

/// Options shared by the kernels.
struct KernelOptions {
  /// Element type of the buffers and scalars: a float type (f16, bf16, f32, f64).
  ElementType element = ElementType::F32;
  /// The buffers do not overlap: the data pointers carry `noalias`.
  bool noalias = true;
  /// Streaming (non-temporal) stores for the output.
  bool nontemporal = false;
  /// Known alignment of every buffer's aligned pointer (0: unknown).
  unsigned alignment = 0;
  /// Checked mode (FunctionOptions::checked).
  bool checked = false;
};

/// `(memref<?xT>, memref<?xT>, memref<?xT>) -> ()`: out[i] = a[i] + b[i] over dim 0 of out.
Error addElementwiseAdd(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(T, memref<?xT>, memref<?xT>) -> ()`: y[i] = alpha * x[i] + y[i].
Error addSaxpy(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(memref<?x?xT>, memref<?x?xT>, memref<?x?xT>) -> ()`: C = A * B (C is overwritten).
Error addMatmul(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(memref<?xT>) -> T`: the sum of the elements (a loop-carried accumulator).
Error addSum(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(memref<?x?xT>, memref<?x?xT>) -> ()`: out = transpose(in). Full tiles (one
/// cache line of T per row, at most 16 elements) are transposed in registers
/// with vector shuffles; the edges read a strided view of `in`
/// (reinterpret_cast with swapped strides). Row strides come from the descriptors.
Error addTranspose(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(memref<?xT>, T) -> memref<?xT>`: a newly allocated (malloc, 64-byte
/// aligned) buffer holding scale * x; the caller frees its allocated pointer.
Error addScaledCopy(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(memref<?xT>, T) -> memref<*xT>`: the same returned as an unranked memref;
/// the caller frees the descriptor and the data's allocated pointer.
Error addScaledCopyUnranked(Module& m, std::string_view name, const KernelOptions& o = {});

}  // namespace memjit::codegen
