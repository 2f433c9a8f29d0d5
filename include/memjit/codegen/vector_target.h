// What a target's vector unit offers explicit vector code: the width of a
// vector register and how many there are. Kernels size their register
// blocks from it (e.g. sgemm's micro-kernel: rows x vectors accumulators).
#pragma once

#include <cstdint>
#include <string_view>

#include "memjit/types.h"

namespace memjit::codegen {

struct VectorTarget {
  /// Bits of the widest vector register arithmetic uses (512 with AVX-512F,
  /// 256 with AVX/AVX2, 128 with SSE2 or NEON).
  unsigned registerBits = 128;
  /// Architectural vector registers (32 with AVX-512 or AArch64, else 16).
  unsigned registers = 16;
  /// Fused multiply-add in hardware.
  bool fma = false;

  /// Lanes of `t` in one register (at least 1).
  std::uint32_t lanes(ElementType t) const noexcept {
    const unsigned bits = t == ElementType::I1 ? 8 : bitWidth(t);
    return bits == 0 || bits >= registerBits ? 1 : registerBits / bits;
  }

  /// From an LLVM triple and feature string ("+avx2,+fma,-avx512f", as
  /// jit::TargetSpec holds them).
  static VectorTarget fromFeatures(std::string_view triple, std::string_view features) noexcept;
  /// The running CPU (detected once).
  static const VectorTarget& host();
};

}  // namespace memjit::codegen
