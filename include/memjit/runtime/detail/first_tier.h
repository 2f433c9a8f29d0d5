// Internal: the runtime functions library kernels' first-tier bodies call
// (codegen's kernel_first_tiers.h emits the calls, jit/runtime_symbols.cpp
// resolves them, src/runtime/first_tier_*.cpp defines them). Only a tiered
// Jit's first tier calls them; every other compile drops the bodies.
// Descriptors are rank-2 StridedMemRef<float or double, 2>, passed untyped
// as the generated code passes them.
#pragma once

#include <cstdint>

namespace memjit::runtime::first_tier {

/// memjit_first_tier_matmul_*'s `layout` bits: what the kernel's memref types
/// fix, which the body follows whatever a descriptor says.
enum MatmulLayout : std::int32_t {
  kColumnMajorA = 1,  ///< A's unit stride is its rows' (else its columns')
  kColumnMajorB = 2,
  kZeroOffsetA = 4,  ///< A's type fixes its offset at 0 (memref<?x?xT>)
  kZeroOffsetB = 8,
  kZeroOffsetC = 16,
};

}  // namespace memjit::runtime::first_tier

extern "C" {
/// C = A * B in the kernels' summation order (codegen/kernel_first_tiers.h):
/// K in blocks of `kc` (0: one block), `layout` of MatmulLayout bits.
void memjit_first_tier_matmul_f32(const void* a, const void* b, void* c, std::int64_t kc, std::int32_t layout);
void memjit_first_tier_matmul_f64(const void* a, const void* b, void* c, std::int64_t kc, std::int32_t layout);
/// An exact softmax of `in`'s rows into `out` with an O0 compile's bits.
void memjit_first_tier_softmax_f32(const void* in, void* out);
void memjit_first_tier_softmax_f64(const void* in, void* out);
}
