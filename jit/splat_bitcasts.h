// Splats of a loaded f32 keep their order with stores through the x86 back
// end. SelectionDAG compiles `sext (bitcast <N x float> splat(load p) to
// <N x i32>)` with a second use of the loaded value as a broadcast load from p
// that is not ordered after stores to p: a store between the load and its uses
// changes the vector's lanes (LLVM 19 and 22, O1-O3, any AVX2/AVX-512 CPU;
// difftest seed 2700000005206, where a gather whose lanes all read one element
// was compiled that way). InstCombine writes such a splat as a shuffle of
// `bitcast (insertelement poison, %x, 0)`, so the shape to avoid is a vector
// bitcast of lanes inserted from scalars. The same values with the bitcast on
// the scalar compile in order. So, just before code generation, a lane-wise
// vector bitcast of insertelements and shuffles becomes insertelements and
// shuffles of bitcast scalars and vectors, and a masked gather whose lanes all
// read one address under an all-true mask becomes a scalar load and a splat
// (what SelectionDAG makes of it anyway). Values are unchanged: a bitcast
// between vectors of as many lanes acts on each lane alone.
// Internal to jit/.
#pragma once

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// Rewrites the shapes above in `module`. Returns how many gathers and
/// bitcasts it replaced.
int splatBitcastsOfScalars(llvm::Module& module);

}  // namespace memjit::jit::detail
