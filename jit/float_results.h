// A function's float results keep their bits when another function of the
// module calls it. LLVM's x86-64 convention returns a struct's f32 and f64
// members in xmm0 and xmm1, and once both are taken (by floats, halves or
// vectors) the next two on the x87 stack, whose load quiets a signalling NaN:
// `h() -> (f64, bf16, f32)` returning the f32 0xffab1761 gave 0xffeb1761 to its
// caller at O0, where the call is not inlined (difftest seed 2700000002178;
// MLIR's lowering returns the same struct). The exported function keeps that
// convention (it is the ABI MLIR's callers expect), so memjit moves such a
// function's body into an internal one that returns those members as integers
// of the same width, which the exported function and every call in the module
// call, converting back with bitcasts. Internal to jit/.
#pragma once

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// Rewrites every function of `module` whose struct result would put an f32
/// or f64 on the x87 stack and which the module calls. Returns how many.
int returnFloatsAsBitsToCallers(llvm::Module& module);

}  // namespace memjit::jit::detail
