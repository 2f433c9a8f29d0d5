// Test helper: runs one builder operation elementwise over arrays of edge
// values, compiled by LLVM's JIT as written (no IR passes) and at O3 for the
// host (where the loop vectorises), so both scalar and vector code paths are
// checked against the C++ reference.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "support/llvm_jit.h"

namespace memjit::test {

/// A rank-1 descriptor as MLIR lays it out.
template <typename T>
struct Descriptor1D {
  T* allocated;
  T* aligned;
  std::int64_t offset, size, stride;
};
template <typename T>
Descriptor1D<T> describe(std::vector<T>& v) {
  return {v.data(), v.data(), 0, static_cast<std::int64_t>(v.size()), 1};
}

using UnaryOp = std::function<codegen::Value(codegen::FunctionBuilder&, codegen::Value)>;
using BinaryOp = std::function<codegen::Value(codegen::FunctionBuilder&, codegen::Value, codegen::Value)>;

/// out[i] = op(a[i], b[i]) for `in` elements and `out` results (MLIR type
/// names), or the builder's error. `optimize` runs O3 first.
template <typename In, typename Out>
Expected<std::vector<Out>> runBinary(const std::string& in, const std::string& out, const BinaryOp& op,
                                     std::vector<In> a, std::vector<In> b, bool optimize) {
  codegen::Module m("elementwise");
  {
    auto type = parseFunctionType("(memref<?x" + in + ">, memref<?x" + in + ">, memref<?x" + out + ">) -> ()");
    if (!type) return type.error();
    codegen::FunctionOptions options;
    options.noalias = true;
    codegen::FunctionBuilder f(m, "op", *type, options);
    codegen::Value x = f.arg(0), y = f.arg(1), r = f.arg(2);
    f.forLoop(f.index(0), f.dim(x, 0), f.index(1), [&](codegen::Value i) {
      f.store(op(f, f.load(x, {i}), f.load(y, {i})), r, {i});
    });
    f.ret();
    if (Error e = f.finish()) return e;
  }
  TestJit jit;
  if (Error e = jit.add(std::move(m), optimize)) return e;
  auto fn = jit.function<void(Descriptor1D<In>*, Descriptor1D<In>*, Descriptor1D<Out>*)>("_mlir_ciface_op");
  if (!fn) return fn.error();
  std::vector<Out> result(a.size());
  auto da = describe(a), db = describe(b);
  auto dr = describe(result);
  (*fn)(&da, &db, &dr);
  return result;
}

template <typename In, typename Out>
Expected<std::vector<Out>> runUnary(const std::string& in, const std::string& out, const UnaryOp& op,
                                    const std::vector<In>& a, bool optimize) {
  return runBinary<In, Out>(
      in, out, [&](codegen::FunctionBuilder& f, codegen::Value x, codegen::Value) { return op(f, x); }, a, a,
      optimize);
}

/// Every ordered pair of `values`, as two arrays.
template <typename T>
std::pair<std::vector<T>, std::vector<T>> allPairs(const std::vector<T>& values) {
  std::pair<std::vector<T>, std::vector<T>> p;
  for (T x : values)
    for (T y : values) {
      p.first.push_back(x);
      p.second.push_back(y);
    }
  return p;
}

}  // namespace memjit::test
