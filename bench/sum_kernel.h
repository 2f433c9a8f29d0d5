// The f64 sum bench_parallel's files build: `name(memref<?xf64>) -> f64`,
// serial (an in-order forLoop) or a parallelReduce with `options` (plain or
// deterministic). One definition, so every figure times the same kernel.
#pragma once

#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"

namespace memjit::bench {

inline Error addSum(codegen::Module& m, const std::string& name, const codegen::FunctionOptions& options,
                    bool parallel, const codegen::ParallelOptions& parallelOptions = {}) {
  using codegen::Value;
  codegen::FunctionBuilder b(m, name, *parseFunctionType("(memref<?xf64>) -> f64"), options);
  Value x = b.arg(0), n = b.dim(x, 0);
  if (parallel)
    b.ret(b.parallelReduce(b.index(0), n, b.index(1), parallelOptions, {codegen::Reduction::sum(b.f64(0))},
                           [&](Value i) { return std::vector<Value>{b.load(x, {i})}; }));
  else
    b.ret(b.forLoop(b.index(0), n, b.index(1), {b.f64(0)}, [&](Value i, const std::vector<Value>& acc) {
      return std::vector<Value>{acc[0] + b.load(x, {i})};
    }));
  return b.finish();
}

}  // namespace memjit::bench
