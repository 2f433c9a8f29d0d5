// A small kernel library written with the kernel builder, for tests,
// examples and benchmarks. Each function adds one kernel (its expanded
// function, `_mlir_ciface_` interface and metadata) to a Module.
#pragma once

#include <string_view>

#include "memjit/codegen/fast_math.h"
#include "memjit/codegen/module.h"
#include "memjit/codegen/vector_target.h"
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
  /// Fast-math flags of the kernel's float operations (FunctionOptions::fastMath).
  FastMath fastMath = FastMath::None;
  /// DWARF for the kernel (FunctionOptions::debugInfo).
  bool debugInfo = false;
};

/// `(memref<?xT>, memref<?xT>, memref<?xT>) -> ()`: out[i] = a[i] + b[i] over dim 0 of out.
Error addElementwiseAdd(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(T, memref<?xT>, memref<?xT>) -> ()`: y[i] = alpha * x[i] + y[i].
Error addSaxpy(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(memref<?x?xT>, memref<?x?xT>, memref<?x?xT>) -> ()`: C = A * B (C is overwritten).
Error addMatmul(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(memref<?xT>) -> T`: the sum of the elements (a loop-carried accumulator).
Error addSum(Module& m, std::string_view name, const KernelOptions& o = {});
/// `(memref<?x?xT>, memref<?x?xT>) -> ()`: out = softmax(in) row by row:
/// m = max(row) (maxnumf: NaNs ignored, -inf for an empty row), e = exp(x - m),
/// out = e * (1 / sum(e)), so large inputs do not overflow. A row holding
/// +inf, or only -inf or NaN, becomes NaN; a NaN anywhere in a row makes the
/// whole row NaN (through the sum). Per row: the max; the exps into `out` and
/// their sum; the scaling. Exact (no FastMath::Reassoc), the exps are a loop of
/// their own (vectorised, glibc's vector math when JitOptions::vectorMath) and
/// the sum reads them back in order; with reassoc one loop computes both, and
/// LLVM vectorises the max and the sum too.
Error addSoftmax(Module& m, std::string_view name, const KernelOptions& o = {});
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

/// How addSgemm reads an operand: RowMajor is `strided<[?, 1]>` (unit
/// column stride: a row-major matrix or its subview), ColumnMajor
/// `strided<[1, ?]>` (unit row stride: the transposed view of a row-major
/// matrix, e.g. Bᵀ passed as B; read in place, no copy by the caller).
enum class MatrixLayout { RowMajor, ColumnMajor };

/// Options of the blocked matrix multiply (addSgemm).
struct SgemmOptions {
  /// f32 (sgemm) or f64.
  ElementType element = ElementType::F32;
  /// The vector unit the micro-kernel is sized for.
  VectorTarget target = VectorTarget::host();
  /// Micro-kernel: `rows` rows of A times `vectors` vectors of B columns,
  /// rows * vectors accumulators in registers. 0 derives them from the
  /// target: two vectors, and as many rows as the registers hold besides
  /// the B vectors and a broadcast (14 with 32 registers, 6 with 16).
  unsigned rows = 0;
  unsigned vectors = 0;
  /// Cache blocks: kc (the depth of a packed panel pair: an A micro-panel
  /// stays in L1 while B's stream from L2), mc rows of packed A (L3,
  /// packed once per kc block), nc columns of packed B (half of
  /// target.l2Bytes). 0 picks defaults (AVX-512 f32: 256, 3066, and 512
  /// with a 1 MiB L2 or 1024 with 2 MiB); mc and nc are rounded to the
  /// micro-kernel's rows and columns.
  std::int64_t kc = 0, mc = 0, nc = 0;
  /// Layouts of A and B (C is row-major).
  MatrixLayout a = MatrixLayout::RowMajor, b = MatrixLayout::RowMajor;
  /// Problems whose B (K x N) takes at most this many bytes run unpacked:
  /// the micro-kernel reads A where it is, and B too up to 32 KiB (a larger
  /// or column-major B is packed once, whole). -1 picks the default (half
  /// of target.l2Bytes: B stays in L2); 0 always packs.
  std::int64_t directBytes = -1;
  /// Spread the column panels (packing B) and the row blocks over the
  /// thread pool (parallelFor).
  bool parallel = false;
  /// Checked mode (FunctionOptions::checked).
  bool checked = false;
};

/// `(A, B, C) -> ()` with A, B, C of type `memref<?x?xT, strided<[?, 1],
/// offset: ?>>` (row-major views with unit column stride, e.g. subviews; A
/// and B `strided<[1, ?], offset: ?>` when SgemmOptions::a / b is
/// ColumnMajor): C = A * B for any M, N, K (C is overwritten; K == 0 zeroes
/// it). Written with the builder's vector ops as BLIS structures a GEMM: A
/// packed by rows of kc (a column-major A into MR x kc panels; rows past M
/// repeat row M - 1, never written), B into kc x NR panels, a register-blocked MR x NR
/// micro-kernel of FMAs, and C's edges written with masks. Problems whose B fits
/// SgemmOptions::directBytes skip the packing: the same micro-kernel reads
/// the operands in place. Mismatched shapes fail: in checked mode with an
/// error, else they are undefined.
///
/// Summation order, the same on every path, layout and thread count: K is
/// cut into blocks of kc; C[i][j] is the first block's in-order FMA chain
/// from +0 (fma(A[i][p], B[p][j], acc), p ascending), then each later
/// block's chain added to it: C = (((b0) + b1) + b2) ... So results depend
/// on kc (and the element type), never on M, N, the path or the micro-kernel.
Error addSgemm(Module& m, std::string_view name, const SgemmOptions& o = {});

}  // namespace memjit::codegen
