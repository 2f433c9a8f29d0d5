// bench_dot's native twins (native/dot.cpp, g++ -O3 -march=native): the plain C++ loops, which g++ 12 compiles
// to vpdpbusd on a CPU with AVX512-VNNI or AVX-VNNI.
#pragma once

#include <cstdint>

namespace native {
std::int32_t dotU8S8(const std::uint8_t* a, const std::int8_t* b, long n);
// y[r] = sum over c of a[r * cols + c] * x[c]
void gemvU8S8(const std::uint8_t* a, const std::int8_t* x, std::int32_t* y, long rows, long cols);
}  // namespace native
