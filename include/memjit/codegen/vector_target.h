// What a target's vector unit offers explicit vector code: the width of a
// vector register and how many there are, and the cache beside it. Kernels
// size their register blocks from it (e.g. sgemm's micro-kernel: rows x
// vectors accumulators) and their cache blocks from the L2 it reports.
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
  /// Bytes of one core's L2 cache. fromFeatures cannot know it and assumes 1
  /// MiB (Zen 4 and 5; Intel's server cores have 2 MiB); host() asks the OS.
  std::int64_t l2Bytes = 1024 * 1024;

  /// Lanes of `t` in one register (at least 1).
  std::uint32_t lanes(ElementType t) const noexcept {
    const unsigned bits = t == ElementType::I1 ? 8 : bitWidth(t);
    return bits == 0 || bits >= registerBits ? 1 : registerBits / bits;
  }

  /// From an LLVM triple and feature string ("+avx2,+fma,-avx512f", as
  /// jit::TargetSpec holds them).
  static VectorTarget fromFeatures(std::string_view triple, std::string_view features) noexcept;
  /// The running CPU (detected once; the L2 size from sysconf, kept if it
  /// lies between 256 KiB and 16 MiB).
  static const VectorTarget& host();
};

}  // namespace memjit::codegen
