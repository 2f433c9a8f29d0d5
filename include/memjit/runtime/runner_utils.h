// MLIR's runner utilities, built into memjit: the C functions that
// MLIR-lowered programs call from MLIR's `mlir_c_runner_utils`,
// `mlir_runner_utils` and `mlir_float16_utils` libraries (vector.print's
// printF32/printNewline..., printMemref*, verifyMemRef*, memrefCopy,
// rtclock, the generic allocation functions, ...), with MLIR's names and
// signatures, and output byte-identical to MLIR 19's (and 22's) libraries.
// So a lowered program runs, and prints what it would under MLIR, with no
// MLIR installed.
//
// Library memjit::runner_utils (static; needs memjit::runtime, never LLVM).
// AOT users link it instead of MLIR's libraries; `memjit run` resolves the
// names through runnerUtilitySymbols() below, after any --shared-libs.
//
// Where memjit differs from MLIR, on purpose (only where MLIR's behaviour is
// undefined or plainly broken):
//  - a dimension of size 0 prints `[]` (MLIR prints an element read past
//    the end of the view);
//  - _mlir_ciface_shuffle writes through the view's stride (MLIR ignores the
//    stride and writes consecutive elements); with stride 1 the permutation
//    is the same as MLIR's for the same generator;
//  - mlirAlignedAlloc returns null for an alignment that is 0 or not a
//    power of two (MLIR passes it on to aligned_alloc);
//  - memrefCopy copies overlapping views element by element in row-major
//    order, each element with memmove (MLIR's memcpy of overlapping bytes is
//    undefined), so overlaps give MLIR's result where MLIR's is defined; a
//    negative size copies nothing (MLIR's loop never ends);
//  - verifyMemRef* returns -1 (with the metadata) for a rank-0 `actual` whose
//    rank or offset differs from `expected`'s (MLIR checks the layout only
//    for rank >= 1, then compares the element at actual's offset in both).
//
// Element types follow MLIR: `index` is std::uint64_t (printed unsigned), i8
// is std::int8_t and, as in MLIR, printed as a character by printMemrefI8
// and verifyMemRefI8; f16 and bf16 print as the float they hold, complex as
// `(re,im)`. printMemref* and printF16/printBF16 write to std::cout (printMemref*
// flushes it), verifyMemRef* to std::cerr, printI64...printNewline to C's
// stdout (not flushed), printFlops and rtclock's error to stderr, as MLIR's do.
// With the default std::ios::sync_with_stdio(true), std::cout and C's stdout
// interleave in call order.
//
// Do not include this header and MLIR's RunnerUtils.h/CRunnerUtils.h in one
// translation unit: the same C names are declared with memjit's descriptor
// types (same layout, different C++ types).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <span>

#include "memjit/runtime/half.h"
#include "memjit/runtime/memref.h"

namespace memjit::runtime {

/// MLIR's `index` element type in the runner utilities' signatures.
using RunnerIndex = std::uint64_t;
/// `vector<4x4xf32>` as an element of a memref (MLIR's Vector2D<4, 4, float>:
/// 64 bytes, rows of 4 floats, no padding).
using Vector4x4F32 = std::array<std::array<float, 4>, 4>;

/// One built-in runner utility: its C name and its address.
struct RunnerSymbol {
  const char* name;
  void* address;
};

/// Every function this library provides, by MLIR's name (for a JIT's symbol
/// table). Includes `__truncsfbf2` and `__truncdfbf2` (float/double to bf16,
/// which LLVM calls for `arith.truncf` to bf16 on x86 without AVX512-BF16;
/// MLIR's mlir_float16_utils defines them, this machine's libgcc does not):
/// those two are in the table only, not declared below or defined as C
/// symbols, so they never clash with a compiler runtime's.
std::span<const RunnerSymbol> runnerUtilitySymbols() noexcept;

}  // namespace memjit::runtime

extern "C" {

// Sections follow the files of src/runtime/runner_utils/ that define them; each names the MLIR library the
// functions come from and where they write.

// ---- print_scalar.cpp: mlir_c_runner_utils' vector.print helpers (C's stdout, unflushed)
void printI64(std::int64_t i);
void printU64(std::uint64_t u);
void printF32(float f);   // printf's %g (negative NaN: "-nan")
void printF64(double d);  // printf's %lg
void printString(const char* s);
void printOpen();     // "( "
void printClose();    // " )"
void printComma();    // ", "
void printNewline();            // "\n"
void printFlops(double flops);  // stderr: "%lf GFLOPS\n" of flops / 1e9
// mlir_float16_utils (std::cout, unflushed)
void printF16(std::uint16_t bits);
void printBF16(std::uint16_t bits);

// ---- clock_random.cpp: mlir_c_runner_utils' clocks, random numbers (std::mt19937) and std::sort
double rtclock();                                        // gettimeofday, in seconds
std::int64_t _mlir_ciface_nanoTime();                    // mlir_runner_utils': system_clock, in nanoseconds
void* rtsrand(std::uint64_t seed);                       // a generator seeded with the low 32 bits
std::uint64_t rtrand(void* generator, std::uint64_t m);  // uniform in [0, m] (inclusive, as MLIR's)
void rtdrand(void* generator);                           // deletes it
void _mlir_ciface_shuffle(memjit::runtime::StridedMemRef<std::uint64_t, 1>* m, void* generator);
void _mlir_ciface_stdSortI64(std::uint64_t n, memjit::runtime::StridedMemRef<std::int64_t, 1>* v);
void _mlir_ciface_stdSortF64(std::uint64_t n, memjit::runtime::StridedMemRef<double, 1>* v);
void _mlir_ciface_stdSortF32(std::uint64_t n, memjit::runtime::StridedMemRef<float, 1>* v);

// ---- memory.cpp: mlir_c_runner_utils' memref.copy of non-contiguous views, allocation
void memrefCopy(std::int64_t elemSize, memjit::runtime::UnrankedMemRef<char>* src,
                memjit::runtime::UnrankedMemRef<char>* dst);
void* mlirAlloc(std::uint64_t size);
void* mlirAlignedAlloc(std::uint64_t alignment, std::uint64_t size);
void mlirFree(void* ptr);
void mlirAlignedFree(void* ptr);

// ---- print_memref.cpp: mlir_runner_utils' printMemrefShape* (std::cout: the metadata line, unflushed)
void _mlir_ciface_printMemrefShapeI8(memjit::runtime::UnrankedMemRef<std::int8_t>* m);
void _mlir_ciface_printMemrefShapeI32(memjit::runtime::UnrankedMemRef<std::int32_t>* m);
void _mlir_ciface_printMemrefShapeI64(memjit::runtime::UnrankedMemRef<std::int64_t>* m);
void _mlir_ciface_printMemrefShapeF32(memjit::runtime::UnrankedMemRef<float>* m);
void _mlir_ciface_printMemrefShapeF64(memjit::runtime::UnrankedMemRef<double>* m);
void _mlir_ciface_printMemrefShapeInd(memjit::runtime::UnrankedMemRef<memjit::runtime::RunnerIndex>* m);
void _mlir_ciface_printMemrefShapeC32(memjit::runtime::UnrankedMemRef<std::complex<float>>* m);
void _mlir_ciface_printMemrefShapeC64(memjit::runtime::UnrankedMemRef<std::complex<double>>* m);

// ---- print_memref.cpp: mlir_runner_utils' printMemref* (std::cout, flushed)
void _mlir_ciface_printMemrefI8(memjit::runtime::UnrankedMemRef<std::int8_t>* m);
void _mlir_ciface_printMemrefI16(memjit::runtime::UnrankedMemRef<std::int16_t>* m);
void _mlir_ciface_printMemrefI32(memjit::runtime::UnrankedMemRef<std::int32_t>* m);
void _mlir_ciface_printMemrefI64(memjit::runtime::UnrankedMemRef<std::int64_t>* m);
void _mlir_ciface_printMemrefF16(memjit::runtime::UnrankedMemRef<memjit::f16>* m);
void _mlir_ciface_printMemrefBF16(memjit::runtime::UnrankedMemRef<memjit::bf16>* m);
void _mlir_ciface_printMemrefF32(memjit::runtime::UnrankedMemRef<float>* m);
void _mlir_ciface_printMemrefF64(memjit::runtime::UnrankedMemRef<double>* m);
void _mlir_ciface_printMemrefInd(memjit::runtime::UnrankedMemRef<memjit::runtime::RunnerIndex>* m);
void _mlir_ciface_printMemrefC32(memjit::runtime::UnrankedMemRef<std::complex<float>>* m);
void _mlir_ciface_printMemrefC64(memjit::runtime::UnrankedMemRef<std::complex<double>>* m);
// The same without the C interface: an unranked memref passed as its two fields.
void printMemrefI32(std::int64_t rank, void* descriptor);
void printMemrefI64(std::int64_t rank, void* descriptor);
void printMemrefF32(std::int64_t rank, void* descriptor);
void printMemrefF64(std::int64_t rank, void* descriptor);
void printMemrefInd(std::int64_t rank, void* descriptor);
void printMemrefC32(std::int64_t rank, void* descriptor);
void printMemrefC64(std::int64_t rank, void* descriptor);
// Ranked forms ("Memref " instead of "Unranked Memref ").
void _mlir_ciface_printMemref0dF32(memjit::runtime::StridedMemRef<float, 0>* m);
void _mlir_ciface_printMemref1dF32(memjit::runtime::StridedMemRef<float, 1>* m);
void _mlir_ciface_printMemref2dF32(memjit::runtime::StridedMemRef<float, 2>* m);
void _mlir_ciface_printMemref3dF32(memjit::runtime::StridedMemRef<float, 3>* m);
void _mlir_ciface_printMemref4dF32(memjit::runtime::StridedMemRef<float, 4>* m);
void _mlir_ciface_printMemref1dI8(memjit::runtime::StridedMemRef<std::int8_t, 1>* m);
void _mlir_ciface_printMemref1dI32(memjit::runtime::StridedMemRef<std::int32_t, 1>* m);
void _mlir_ciface_printMemref1dI64(memjit::runtime::StridedMemRef<std::int64_t, 1>* m);
void _mlir_ciface_printMemref1dF64(memjit::runtime::StridedMemRef<double, 1>* m);
void _mlir_ciface_printMemref1dInd(memjit::runtime::StridedMemRef<memjit::runtime::RunnerIndex, 1>* m);
void _mlir_ciface_printMemref1dC32(memjit::runtime::StridedMemRef<std::complex<float>, 1>* m);
void _mlir_ciface_printMemref1dC64(memjit::runtime::StridedMemRef<std::complex<double>, 1>* m);
void _mlir_ciface_printMemrefVector4x4xf32(memjit::runtime::StridedMemRef<memjit::runtime::Vector4x4F32, 2>* m);

// ---- verify.cpp: mlir_runner_utils' verifyMemRef* — the number of elements of `actual`
// that differ from `expected` (floats: relative error above 1e-6 for f32,
// 1e-12 for f64, any NaN or inf differs; f16/bf16: different bits; others:
// !=), describing the first 10 on std::cerr; -1 (and both descriptors'
// metadata on std::cerr) when the shapes, strides or offsets differ.
std::int64_t _mlir_ciface_verifyMemRefI8(memjit::runtime::UnrankedMemRef<std::int8_t>* actual,
                                         memjit::runtime::UnrankedMemRef<std::int8_t>* expected);
std::int64_t _mlir_ciface_verifyMemRefI16(memjit::runtime::UnrankedMemRef<std::int16_t>* actual,
                                          memjit::runtime::UnrankedMemRef<std::int16_t>* expected);
std::int64_t _mlir_ciface_verifyMemRefI32(memjit::runtime::UnrankedMemRef<std::int32_t>* actual,
                                          memjit::runtime::UnrankedMemRef<std::int32_t>* expected);
std::int64_t _mlir_ciface_verifyMemRefI64(memjit::runtime::UnrankedMemRef<std::int64_t>* actual,
                                          memjit::runtime::UnrankedMemRef<std::int64_t>* expected);
std::int64_t _mlir_ciface_verifyMemRefBF16(memjit::runtime::UnrankedMemRef<memjit::bf16>* actual,
                                           memjit::runtime::UnrankedMemRef<memjit::bf16>* expected);
std::int64_t _mlir_ciface_verifyMemRefF16(memjit::runtime::UnrankedMemRef<memjit::f16>* actual,
                                          memjit::runtime::UnrankedMemRef<memjit::f16>* expected);
std::int64_t _mlir_ciface_verifyMemRefF32(memjit::runtime::UnrankedMemRef<float>* actual,
                                          memjit::runtime::UnrankedMemRef<float>* expected);
std::int64_t _mlir_ciface_verifyMemRefF64(memjit::runtime::UnrankedMemRef<double>* actual,
                                          memjit::runtime::UnrankedMemRef<double>* expected);
std::int64_t _mlir_ciface_verifyMemRefInd(memjit::runtime::UnrankedMemRef<memjit::runtime::RunnerIndex>* actual,
                                          memjit::runtime::UnrankedMemRef<memjit::runtime::RunnerIndex>* expected);
std::int64_t _mlir_ciface_verifyMemRefC32(memjit::runtime::UnrankedMemRef<std::complex<float>>* actual,
                                          memjit::runtime::UnrankedMemRef<std::complex<float>>* expected);
std::int64_t _mlir_ciface_verifyMemRefC64(memjit::runtime::UnrankedMemRef<std::complex<double>>* actual,
                                          memjit::runtime::UnrankedMemRef<std::complex<double>>* expected);
std::int64_t verifyMemRefI32(std::int64_t rank, void* actualDescriptor, void* expectedDescriptor);
std::int64_t verifyMemRefF32(std::int64_t rank, void* actualDescriptor, void* expectedDescriptor);
std::int64_t verifyMemRefF64(std::int64_t rank, void* actualDescriptor, void* expectedDescriptor);
std::int64_t verifyMemRefInd(std::int64_t rank, void* actualDescriptor, void* expectedDescriptor);
std::int64_t verifyMemRefC32(std::int64_t rank, void* actualDescriptor, void* expectedDescriptor);
std::int64_t verifyMemRefC64(std::int64_t rank, void* actualDescriptor, void* expectedDescriptor);

}  // extern "C"
