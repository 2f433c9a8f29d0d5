// Internal: the first-tier bodies of the matrix multiplies (addMatmul,
// addSgemm in kernels.h; memjit/metadata_symbols.h, kFirstTierBodyAttribute).
// sgemm's blocked kernel is one function of 13K lines of IR, and matmul's
// O0 code runs one scalar FMA chain at a time; a tiered Jit's first tier
// compiles this loop nest instead, and every other compile drops it.
#pragma once

#include <cstdint>
#include <string>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"

namespace memjit::codegen::detail {

/// Beside the finished kernel `name` (`(A, B, C) -> ()`, C = A * B, and its C
/// interface): internal functions of the same types computing C in the
/// kernel's summation order, named by the kernel's kFirstTierBodyAttribute.
/// The order: per element of C, K cut into blocks of `kc` (0: one block),
/// each block an in-order FMA chain from +0 (fma(A[i][p], B[p][j], acc), p
/// ascending), the first block's chain the sum and each later one's added to
/// it (chain + sum). Vectorised along C's rows (`lanes` independent chains a
/// step) where B has unit column stride, so that its O0 code runs in a
/// fraction of a scalar loop's time. C must not overlap A or B (the kernel's
/// arguments are `noalias`). Does nothing for f16/bf16 elements or a kernel
/// not in the expanded convention (it adds no attribute then).
void addMatmulFirstTierBody(Module& m, const std::string& name, ElementType element, MatrixLayout a,
                            MatrixLayout b, std::int64_t kc, unsigned lanes);

}  // namespace memjit::codegen::detail
