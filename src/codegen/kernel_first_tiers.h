// Internal: the first-tier bodies of library kernels (addMatmul, addSgemm and
// addSoftmax in kernels.h; memjit/metadata_symbols.h, kFirstTierBodyAttribute).
// sgemm's blocked kernel is one function of 13K lines of IR, matmul's O0 code
// runs one scalar FMA chain at a time, and softmax's four loops of math calls
// were the slowest first tier of the FirstCall kernels; a tiered Jit's first
// tier calls precompiled code instead, and every other compile drops the call.
#pragma once

#include <cstdint>
#include <string>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"

namespace memjit::codegen::detail {

/// Beside the finished kernel `name` (`(A, B, C) -> ()`, C = A * B, and its C
/// interface): internal functions of the same types, named by the kernel's
/// kFirstTierBodyAttribute, that call the runtime's
/// memjit_first_tier_matmul_f32/f64: C in the kernel's summation order (per
/// element of C, K cut into blocks of `kc`, 0: one block; each block an
/// in-order FMA chain from +0, fma(A[i][p], B[p][j], acc) with p ascending;
/// the first block's chain the sum, each later one's added to it as chain +
/// sum). C must not overlap A or B (the kernel's arguments are `noalias`).
/// A matrix whose type fixes its offset at 0 is read from the descriptor's
/// aligned pointer, whatever offset the descriptor holds, as the kernel reads
/// it. Does nothing for f16/bf16 elements, a kernel not in the expanded
/// convention or a static offset other than 0 (it adds no attribute then).
void addMatmulFirstTierBody(Module& m, const std::string& name, ElementType element, MatrixLayout a,
                            MatrixLayout b, std::int64_t kc);

/// The same for an exact softmax `name` (`(in, out) -> ()`, addSoftmax's rows
/// x cols matrices of f32 or f64): a call of the runtime's
/// memjit_first_tier_softmax_f32/f64, which per row takes the maximum as the
/// O0 first tier selects maxnum, stores exp(x - max) by the C library's
/// expf/exp, sums those in order from +0 and multiplies each by 1 / sum: an
/// O0 compile's bits. Call it only for a kernel without checks or fast-math
/// flags; does nothing for other elements or conventions.
void addSoftmaxFirstTierBody(Module& m, const std::string& name, ElementType element);

}  // namespace memjit::codegen::detail
