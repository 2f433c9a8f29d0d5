// Internal: the vector math library memjit's pipeline maps math calls to.
//
// On x86-64 Linux with glibc, loops calling math functions vectorise to
// glibc's libmvec (the library `g++ -ffast-math` uses): the loop vectoriser
// finds the vector variants through the TargetLibraryInfo of memjit's own
// pass pipeline, never through LLVM's process-wide -vector-library option.
// LLVM 19's built-in libmvec table has six functions at SSE and AVX2 widths;
// memjit's has every one-result function libmvec exports, at the widths the
// target's features allow (AVX-512 included).
#pragma once

#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetLibraryInfoImpl;
class TargetMachine;
class Triple;
namespace orc {
class JITDylib;
class LLJIT;
}
}  // namespace llvm

namespace memjit::jit::detail {

/// Whether memjit maps math calls to libmvec for this target.
bool hasVectorMathLibrary(const llvm::Triple& triple);

/// Adds the libmvec variants the machine can call to `tli`.
void addVectorMathLibrary(llvm::TargetLibraryInfoImpl& tli, const llvm::TargetMachine& machine);

/// Makes libmvec's symbols resolvable in `dylib` (on hosts that have it;
/// elsewhere nothing to do). The library is loaded by the first lookup of one
/// of them; if it cannot be, that lookup fails with an error naming it.
void addVectorMathSymbols(llvm::orc::LLJIT& jit, llvm::orc::JITDylib& dylib);

/// Every libmvec symbol memjit may call on a CPU with every feature (for tests).
std::vector<std::string> vectorMathSymbols();

/// Keeps the frame pointer in every function of `module` that calls a
/// function (not an intrinsic) with a vector argument or result of 32 bytes
/// or more, such as libmvec's. Such a call clobbers every vector register, so
/// vectors live across it are spilled; LLVM aligns a spill slot wider than the
/// stack's 16 bytes only where it can realign the frame, which needs the frame
/// pointer. Unaligned, a 64-byte spill straddles a cache line for half the
/// stack positions, and on AMD Zen 4 reloading it made fast softmax's exp loop
/// 1.55x slower (docs/benchmarks.md). Returns whether anything changed.
bool keepFramePointerAroundVectorCalls(llvm::Module& module);

/// The shared library providing them ("libmvec.so.1").
inline constexpr const char* kVectorMathLibrary = "libmvec.so.1";

}  // namespace memjit::jit::detail
