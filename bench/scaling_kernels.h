// Generated kernels of a chosen size in builder operations, for compile-time
// scaling (bench_compile_scaling, tests/jit/compile_scaling_test.cpp): the
// kinds of functions DSL and query compilers hand to a JIT.
//
//   body   one loop whose body is a chain of ~N float operations
//   loops  N/6 loops one after the other, each `out[i] = out[i] * c + in[i]`
//          (loop, two loads, multiply, add, store: six operations)
//   nest   a loop nest kScalingNestDepth deep, each level computing a chain of
//          ~N/depth operations from the level above and storing at the innermost
//
// Every kernel is `(memref<?xf32> in, memref<?xf32> out) -> ()` and reads
// only scalingInputSize(shape) elements of `in` and writes
// scalingOutputSize(shape) of `out`. Exact IEEE arithmetic (no fast-math),
// so every optimisation level must give bit-identical results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"

namespace memjit::bench {

enum class ScalingShape { Body, Loops, Nest };

inline const char* scalingShapeName(ScalingShape shape) {
  switch (shape) {
    case ScalingShape::Body: return "body";
    case ScalingShape::Loops: return "loops";
    case ScalingShape::Nest: return "nest";
  }
  return "?";
}

inline constexpr int kScalingNestDepth = 8;  // each level runs twice: 256 innermost iterations

inline std::size_t scalingInputSize(ScalingShape shape) { return shape == ScalingShape::Nest ? 2 : 64; }
inline std::size_t scalingOutputSize(ScalingShape shape) {
  return shape == ScalingShape::Nest ? std::size_t{1} << kScalingNestDepth : 64;
}

namespace detail {

// `ops` operations on x, cycling through multiply, add, subtract and add of
// `y` so that nothing folds away (no reassociation without fast-math) and the
// values stay finite.
inline codegen::Value scalingChain(codegen::FunctionBuilder& b, codegen::Value x, const codegen::Value& y,
                                   std::size_t ops) {
  for (std::size_t k = 0; k < ops; ++k) {
    switch (k % 4) {
      case 0: x = x * 0.75f; break;
      case 1: x = x + y; break;
      case 2: x = x - 0.5f; break;
      default: x = x + 1.25f; break;
    }
  }
  return x;
}

}  // namespace detail

/// Adds kernel `name` of `shape` with about `ops` builder operations to `m`.
inline Error addScalingKernel(codegen::Module& m, const std::string& name, ScalingShape shape, std::size_t ops) {
  using codegen::Value;
  codegen::FunctionBuilder b(m, name, *parseFunctionType("(memref<?xf32>, memref<?xf32>) -> ()"));
  Value in = b.arg(0), out = b.arg(1), zero = b.index(0), one = b.index(1);
  switch (shape) {
    case ScalingShape::Body:
      b.forLoop(zero, b.dim(in, 0), one, [&](Value i) {
        Value y = b.load(in, {i});
        b.store(detail::scalingChain(b, y, y, ops > 4 ? ops - 4 : 1), out, {i});
      });
      break;
    case ScalingShape::Loops: {
      const std::size_t loops = ops / 6 > 0 ? ops / 6 : 1;
      Value n = b.dim(in, 0);
      for (std::size_t k = 0; k < loops; ++k)
        b.forLoop(zero, n, one, [&](Value i) {
          const float c = 0.5f + static_cast<float>(k % 4) * 0.125f;
          b.store(b.load(out, {i}) * c + b.load(in, {i}), out, {i});
        });
      break;
    }
    case ScalingShape::Nest: {
      // Level `depth` gets the value of the level above and the index so far.
      const std::size_t perLevel = ops / kScalingNestDepth > 4 ? ops / kScalingNestDepth - 4 : 1;
      Value trips = b.dim(in, 0);
      std::function<void(int, Value, Value)> level = [&](int depth, Value x, Value index) {
        b.forLoop(zero, trips, one, [&](Value i) {
          Value y = b.load(in, {i});
          Value next = detail::scalingChain(b, x + y, y, perLevel);
          Value at = index * trips + i;
          if (depth + 1 == kScalingNestDepth)
            b.store(next, out, {at});
          else
            level(depth + 1, next, at);
        });
      };
      level(0, b.f32(0.25f), zero);
      break;
    }
  }
  b.ret();
  return b.finish();
}

}  // namespace memjit::bench
