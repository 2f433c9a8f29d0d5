// The first-tier body of an exact addSoftmax (codegen/kernel_first_tiers.h)
// calls these: per row of `in`, the maximum (from -inf, each element x taken
// as the O0 first tier selects maxnum: isnan(max) ? x : (x > max ? x : max),
// so NaNs, signalling ones too, are skipped), exp(x - max) into `out` by the C library's expf/exp, their sum in
// order from +0, and each exp times 1 / sum: the kernel's operations in its
// order, compiled ahead of time so that a tiered Jit's first tier compiles a
// call instead of the kernel's four loops. Scalar on purpose: the vector math
// library would give other bits than an O0 compile's libm calls.
#include <cmath>
#include <cstdint>
#include <limits>

#include "memjit/runtime/detail/first_tier.h"
#include "memjit/runtime/memref.h"

namespace {

// The kernel's matrices are memref<?x?xT>: the identity layout's static
// offset 0 and unit column stride are what it uses, whatever the descriptor
// says, and the row stride is the descriptor's (as MLIR lowers such a load).
template <typename T>
void softmax(const memjit::runtime::StridedMemRef<T, 2>& in, const memjit::runtime::StridedMemRef<T, 2>& out) {
  const std::int64_t rows = in.sizes[0], cols = in.sizes[1];
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* row = in.data + r * in.strides[0];
    T* result = out.data + r * out.strides[0];
    T max = -std::numeric_limits<T>::infinity();
    for (std::int64_t c = 0; c < cols; ++c) max = std::isnan(max) ? row[c] : (row[c] > max ? row[c] : max);
    for (std::int64_t c = 0; c < cols; ++c) result[c] = std::exp(row[c] - max);
    T sum = T(0);
    for (std::int64_t c = 0; c < cols; ++c) sum = sum + result[c];
    const T inverse = T(1) / sum;
    for (std::int64_t c = 0; c < cols; ++c) result[c] = result[c] * inverse;
  }
}

}  // namespace

extern "C" void memjit_first_tier_softmax_f32(const void* in, void* out) {
  softmax(*static_cast<const memjit::runtime::StridedMemRef<float, 2>*>(in),
          *static_cast<const memjit::runtime::StridedMemRef<float, 2>*>(out));
}

extern "C" void memjit_first_tier_softmax_f64(const void* in, void* out) {
  softmax(*static_cast<const memjit::runtime::StridedMemRef<double, 2>*>(in),
          *static_cast<const memjit::runtime::StridedMemRef<double, 2>*>(out));
}
