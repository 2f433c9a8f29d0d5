// Names of the constant globals through which a compiled module describes
// itself. codegen emits them; the JIT, the AOT header writer, the CLI and user
// code read them back. Each is an exported, NUL-terminated `const char[]`.
//
//   _memjit_type_<fn>   the MLIR function type, e.g. "(memref<?xf32>) -> f32" (lossless)
//   _memjit_f_<fn>      the Raw Function ABI signature (the `f` attribute)
//   _memjit_abi_<fn>    the V1 `iree.abi` reflection JSON
//   _memjit_sip_<fn>    the SIP signature, only when a structure was declared
//   _memjit_fbr_<fn>    the name of the result allocator, only when there is one
//   _memjit_manifest_<module>  JSON naming the module's functions (see codegen/metadata.h)
#pragma once

#include <string>
#include <string_view>

namespace memjit::metadata {

inline constexpr std::string_view kTypePrefix = "_memjit_type_";
inline constexpr std::string_view kRawPrefix = "_memjit_f_";
inline constexpr std::string_view kReflectionPrefix = "_memjit_abi_";
inline constexpr std::string_view kSipPrefix = "_memjit_sip_";
inline constexpr std::string_view kAllocatorPrefix = "_memjit_fbr_";
inline constexpr std::string_view kManifestPrefix = "_memjit_manifest_";
/// The C interface prefix MLIR uses for `llvm.emit_c_interface` wrappers.
inline constexpr std::string_view kCInterfacePrefix = "_mlir_ciface_";
/// Not a symbol: the tag (prefix, suffix) with which codegen marks a streaming
/// store (StoreOptions::nontemporal), as `!mmra !{!"memjit", !"nontemporal"}`.
/// It rides on LLVM's memory-model-relaxation kind because LLVM's vectorisers
/// carry that kind onto the vector stores they create (they drop unknown
/// kinds); on a plain store it means nothing to the target. memjit's
/// optimisation pipeline replaces it with `!nontemporal` after vectorisation,
/// where the store's alignment allows a streaming store.
inline constexpr const char* kStreamingStoreTagPrefix = "memjit";
inline constexpr const char* kStreamingStoreTagSuffix = "nontemporal";

/// The dot-product operations (FunctionBuilder::dot) call an internal function
/// named `memjit.dot.<kind>.v<lanes>` whose body is the portable fallback;
/// memjit's pipeline replaces the call with the target's instruction (VNNI's
/// vpdpbusd/vpdpwssd, AVX512_BF16's vdpbf16ps) where the function's target
/// has it, which gives the same bits.
inline constexpr const char* kDotFallbackPrefix = "memjit.dot.";

/// Not a symbol: the function attribute by which codegen names, on a function,
/// an internal function of the same type that computes the same bits with far
/// less code (addSgemm's plain loop nest beside its 13K-line blocked kernel).
/// A tiered Jit's first tier calls that function instead of compiling the
/// body; every other compile drops it (it is named with kFirstTierBodySuffix).
inline constexpr const char* kFirstTierBodyAttribute = "memjit-first-tier-body";
inline constexpr std::string_view kFirstTierBodySuffix = ".memjit.first_tier_body";

inline std::string symbolName(std::string_view prefix, std::string_view name) {
  std::string s(prefix);
  s.append(name);
  return s;
}

}  // namespace memjit::metadata
