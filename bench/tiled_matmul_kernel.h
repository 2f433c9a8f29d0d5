// The i-k tiled matmul bench_parallel and bench_checked build: C = A * B for
// n x n matrices (n = C's dim 0) in tiles of `tileI` rows and `tileK` depth,
// each row tile zeroing its rows of C first; the row tiles run serially
// (forLoop) or spread over the thread pool (parallelFor). One definition, so
// both benchmarks time the same loop nest (each with its own tile sizes).
#pragma once

#include <cstdint>
#include <string>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"

namespace memjit::bench {

inline Error addTiledMatmul(codegen::Module& m, const std::string& name, const codegen::FunctionOptions& options,
                            bool parallel, std::int64_t tileI, std::int64_t tileK) {
  using codegen::Value;
  codegen::FunctionBuilder b(m, name, *parseFunctionType("(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()"),
                             options);
  Value A = b.arg(0), B = b.arg(1), C = b.arg(2), n = b.dim(C, 0), zero = b.index(0), one = b.index(1);
  auto rowTile = [&](Value i0) {
    Value iEnd = b.min(i0 + b.index(tileI), n);
    b.forLoop(i0, iEnd, one, [&](Value i) { b.forLoop(zero, n, one, [&](Value j) { b.store(b.f32(0), C, {i, j}); }); });
    b.forLoop(zero, n, b.index(tileK), [&](Value k0) {
      Value kEnd = b.min(k0 + b.index(tileK), n);
      b.forLoop(i0, iEnd, one, [&](Value i) {
        b.forLoop(k0, kEnd, one, [&](Value k) {
          Value a = b.load(A, {i, k});
          b.forLoop(zero, n, one, [&](Value j) { b.store(b.fma(a, b.load(B, {k, j}), b.load(C, {i, j})), C, {i, j}); });
        });
      });
    });
  };
  if (parallel)
    b.parallelFor(zero, n, b.index(tileI), {}, rowTile);
  else
    b.forLoop(zero, n, b.index(tileI), rowTile);
  return b.finish();
}

}  // namespace memjit::bench
