// Hand-written functions in the `_mlir_ciface_` ABI shared by the runtime
// tests: memref arguments by pointer, a struct result through a first
// pointer parameter, a single scalar result returned directly.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "memjit/runtime/memref.h"

namespace memjit_test {
using memjit::runtime::StridedMemRef;
using memjit::runtime::UnrankedMemRef;

struct MemRefI32Result {  // (memref<?xf32>, i32) -> (memref<?xf32>, i32, f64)
  StridedMemRef<float, 1> m;
  std::int32_t i;
  double d;
};
struct TwoMemRefs {
  StridedMemRef<float, 1> a, b;
};
}  // namespace memjit_test

extern "C" {
// (memref<?xf32>, f32) -> (): x *= s
inline void _mlir_ciface_scale(memjit_test::StridedMemRef<float, 1>* x, float s) {
  for (std::int64_t i = 0; i < x->sizes[0]; ++i) x->data[x->offset + i * x->strides[0]] *= s;
}
// (memref<?xf32>) -> f32
inline float _mlir_ciface_sum(memjit_test::StridedMemRef<float, 1>* x) {
  float s = 0;
  for (std::int64_t i = 0; i < x->sizes[0]; ++i) s += x->data[x->offset + i * x->strides[0]];
  return s;
}
// (memref<?xf32>) -> memref<?xf32>: a malloc'd copy, aligned pointer 16 bytes in
inline void _mlir_ciface_clone(memjit_test::StridedMemRef<float, 1>* out, memjit_test::StridedMemRef<float, 1>* x) {
  auto n = x->sizes[0];
  auto* mem = static_cast<float*>(std::malloc(sizeof(float) * static_cast<std::size_t>(n) + 16));
  out->basePtr = mem;
  out->data = mem + 4;
  out->offset = 0;
  out->sizes[0] = n;
  out->strides[0] = 1;
  for (std::int64_t i = 0; i < n; ++i) out->data[i] = x->data[x->offset + i * x->strides[0]];
}
// (memref<?xf32>) -> memref<?xf32>: returns its argument (aliasing)
inline void _mlir_ciface_identity(memjit_test::StridedMemRef<float, 1>* out, memjit_test::StridedMemRef<float, 1>* x) {
  *out = *x;
}
// (memref<?xf32>, i32) -> (memref<?xf32>, i32, f64)
inline void _mlir_ciface_multi(memjit_test::MemRefI32Result* out, memjit_test::StridedMemRef<float, 1>* x, std::int32_t k) {
  _mlir_ciface_clone(&out->m, x);
  out->i = k * 2;
  out->d = 0.5 * k;
}
// (index) -> (memref<?xf32>, memref<?xf32>): two views of ONE allocation
inline void _mlir_ciface_halves(memjit_test::TwoMemRefs* out, std::int64_t n) {
  auto* mem = static_cast<float*>(std::malloc(sizeof(float) * static_cast<std::size_t>(2 * n)));
  for (std::int64_t i = 0; i < 2 * n; ++i) mem[i] = static_cast<float>(i);
  out->a = {mem, mem, 0, {n}, {1}};
  out->b = {mem, mem, n, {n}, {1}};
}
// () -> memref<2xf32>: a global, marked with MLIR's 0xdeadbeef allocated pointer
inline float memjit_test_global[2] = {3.0f, 4.0f};
inline void _mlir_ciface_global(memjit_test::StridedMemRef<float, 1>* out) {
  out->basePtr = reinterpret_cast<float*>(static_cast<std::uintptr_t>(0xdeadbeef));
  out->data = memjit_test_global;
  out->offset = 0;
  out->sizes[0] = 2;
  out->strides[0] = 1;
}
// (memref<*xf32>) -> memref<*xf32>: returns a malloc'd copy of the descriptor (as MLIR does)
inline void _mlir_ciface_unranked_id(memjit_test::UnrankedMemRef<float>* out, memjit_test::UnrankedMemRef<float>* x) {
  std::size_t bytes = 2 * sizeof(void*) + sizeof(std::int64_t) * static_cast<std::size_t>(1 + 2 * x->rank);
  void* copy = std::malloc(bytes);
  std::memcpy(copy, x->descriptor, bytes);
  out->rank = x->rank;
  out->descriptor = copy;
}
// (memref<2x3xf32>) -> (): adds 10 * row + col to each element (identity layout: ignores strides, as MLIR does)
inline void _mlir_ciface_add_index(memjit_test::StridedMemRef<float, 2>* x) {
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) x->data[i * 3 + j] += static_cast<float>(10 * i + j);
}
// (i8, i16, i32, i64, f32, f64, i1) -> f64: sum (libffi path: floats)
inline double _mlir_ciface_mix(std::int8_t a, std::int16_t b, std::int32_t c, std::int64_t d, float e, double f, bool g) {
  return a + b + c + static_cast<double>(d) + e + f + (g ? 1000 : 0);
}
// (memref<?xi8>) -> i64: counts bytes equal to 'a'
inline std::int64_t _mlir_ciface_count_a(memjit_test::StridedMemRef<std::int8_t, 1>* s) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < s->sizes[0]; ++i) n += s->data[s->offset + i * s->strides[0]] == 'a';
  return n;
}
// (memref<?xi32>) -> i32: sum
inline std::int32_t _mlir_ciface_isum(memjit_test::StridedMemRef<std::int32_t, 1>* s) {
  std::int32_t n = 0;
  for (std::int64_t i = 0; i < s->sizes[0]; ++i) n += s->data[s->offset + i * s->strides[0]];
  return n;
}
// (i32, i32, i32) -> i32: a*100 + b*10 + c (argument order is visible)
inline std::int32_t _mlir_ciface_abc(std::int32_t a, std::int32_t b, std::int32_t c) { return a * 100 + b * 10 + c; }
}

extern "C" {
// (i64 x 10) -> i64: sum of (i+1) * a_i, so argument order matters (10 words: libffi, stack arguments)
inline std::int64_t _mlir_ciface_weighted10(std::int64_t a0, std::int64_t a1, std::int64_t a2, std::int64_t a3,
                                            std::int64_t a4, std::int64_t a5, std::int64_t a6, std::int64_t a7,
                                            std::int64_t a8, std::int64_t a9) {
  return a0 + 2 * a1 + 3 * a2 + 4 * a3 + 5 * a4 + 6 * a5 + 7 * a6 + 8 * a7 + 9 * a8 + 10 * a9;
}
}
