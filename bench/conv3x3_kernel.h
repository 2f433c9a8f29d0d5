// The 2-D 3x3 convolution bench_parallel and bench_checked build: an n x n
// output from an (n+2) x (n+2) input, serial (two forLoops) or with a 2-D
// parallelFor. One definition, so both benchmarks time the same kernel.
#pragma once

#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"

namespace memjit::bench {

inline Error addConv3x3(codegen::Module& m, const std::string& name, const codegen::FunctionOptions& options,
                        bool parallel) {
  using codegen::Value;
  codegen::FunctionBuilder b(m, name, *parseFunctionType("(memref<?x?xf32>, memref<3x3xf32>, memref<?x?xf32>) -> ()"),
                             options);
  Value in = b.arg(0), w = b.arg(1), out = b.arg(2), n = b.dim(out, 0), zero = b.index(0), one = b.index(1);
  auto body = [&](Value i, Value j) {
    Value acc = b.f32(0);
    for (int di = 0; di < 3; ++di)
      for (int dj = 0; dj < 3; ++dj)
        acc = b.fma(b.load(w, {b.index(di), b.index(dj)}), b.load(in, {i + b.index(di), j + b.index(dj)}), acc);
    b.store(acc, out, {i, j});
  };
  if (parallel)
    b.parallelFor({zero, zero}, {n, n}, {one, one}, {}, [&](const std::vector<Value>& iv) { body(iv[0], iv[1]); });
  else
    b.forLoop(zero, n, one, [&](Value i) { b.forLoop(zero, n, one, [&](Value j) { body(i, j); }); });
  return b.finish();
}

}  // namespace memjit::bench
