// The scalar printers vector.print lowers to (mlir_c_runner_utils: C's
// stdout, never flushed here), printF16/printBF16 (mlir_float16_utils:
// std::cout) and printFlops (stderr).
#include <cmath>
#include <cstdio>
#include <iostream>

#include "view.h"

extern "C" {

void printI64(std::int64_t i) { std::fprintf(stdout, "%lld", static_cast<long long>(i)); }
void printU64(std::uint64_t u) { std::fprintf(stdout, "%llu", static_cast<unsigned long long>(u)); }

// A C library may print a negative NaN as "nan"; MLIR's prints "-nan".
void printF32(float f) {
  if (std::isnan(f) && std::signbit(f))
    std::fputs("-nan", stdout);
  else
    std::fprintf(stdout, "%g", static_cast<double>(f));
}
void printF64(double d) {
  if (std::isnan(d) && std::signbit(d))
    std::fputs("-nan", stdout);
  else
    std::fprintf(stdout, "%g", d);
}

void printString(const char* s) { std::fputs(s, stdout); }
void printOpen() { std::fputs("( ", stdout); }
void printClose() { std::fputs(" )", stdout); }
void printComma() { std::fputs(", ", stdout); }
void printNewline() { std::fputc('\n', stdout); }

void printFlops(double flops) { std::fprintf(stderr, "%lf GFLOPS\n", flops / 1.0e9); }

void printF16(std::uint16_t bits) { std::cout << static_cast<float>(memjit::f16::fromBits(bits)); }
void printBF16(std::uint16_t bits) { std::cout << static_cast<float>(memjit::bf16::fromBits(bits)); }

}  // extern "C"
