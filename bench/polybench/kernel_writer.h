// Shorthands for writing PolyBench's loop nests with memjit's kernel builder, so each kernel reads as its C:
// `w.loop(lo, hi, body)` is `for (i = lo; i < hi; i++)`, `w.outer` the same loop made a parallelFor in the
// kernel's parallel build, `w.sum` a loop carrying one value (PolyBench's accumulations kept in a register: the
// same additions in the same order as the C's accumulation in memory), `w.down` a loop counting down.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "polybench.h"

namespace memjit::polybench {

using codegen::Value;

class KernelWriter {
 public:
  KernelWriter(codegen::Module& m, const std::string& name, const Kernel& k, const codegen::FunctionOptions& o,
               bool parallel)
      : b(m, name, *parseFunctionType(functionType(k)), o), parallel_(parallel), zero(b.index(0)), one(b.index(1)) {}

  codegen::FunctionBuilder b;

 private:
  bool parallel_;

 public:
  Value zero, one;

  Value arg(std::size_t i) { return b.arg(i); }
  Value idx(std::int64_t v) { return b.index(v); }
  Value f64(double v) { return b.f64(v); }
  Value ld(const Value& m, const std::vector<Value>& i) { return b.load(m, i); }
  void st(const Value& v, const Value& m, const std::vector<Value>& i) { b.store(v, m, i); }
  /// An index size as f64 (PolyBench's `(DATA_TYPE)n`).
  Value asF64(const Value& i) { return b.cast(b.cast(i, ElementType::I64), ElementType::F64); }

  void loop(const Value& lo, const Value& hi, const std::function<void(Value)>& body) { b.forLoop(lo, hi, one, body); }
  void loop(const Value& lo, const Value& hi, const codegen::LoopOptions& o, const std::function<void(Value)>& body) {
    b.forLoop(lo, hi, one, o, body);
  }
  /// A loop whose iterations are independent: parallel in the parallel build.
  void outer(const Value& lo, const Value& hi, const std::function<void(Value)>& body) {
    if (parallel_)
      b.parallelFor(lo, hi, one, {}, body);
    else
      b.forLoop(lo, hi, one, body);
  }
  /// `for (i = hi - 1; i >= lo; i--)`.
  void down(const Value& lo, const Value& hi, const std::function<void(Value)>& body) {
    Value last = lo + hi - 1;
    b.forLoop(lo, hi, one, [&](Value t) { body(last - t); });
  }
  /// `acc = init; for (i = lo; i < hi; i++) acc = f(i, acc);` returning acc.
  Value sum(const Value& lo, const Value& hi, const Value& init, const std::function<Value(Value, Value)>& f) {
    return b.forLoop(lo, hi, one, {init}, [&](Value i, const std::vector<Value>& c) {
      return std::vector<Value>{f(i, c[0])};
    })[0];
  }
  /// The same carrying several values.
  std::vector<Value> carry(const Value& lo, const Value& hi, std::vector<Value> init,
                           const std::function<std::vector<Value>(Value, const std::vector<Value>&)>& f) {
    return b.forLoop(lo, hi, one, std::move(init), f);
  }
  /// out(j, acc) for every j in [lo, hi), where acc = init(j) then acc = step(j, k, acc) for k in [0, K): a
  /// reduction over k per j, with `width` consecutive j's in flight together (unroll-and-jam, as PolyBench's C
  /// cannot ask its compiler for): each j's own additions stay in k order, so the result is the same, but `width`
  /// independent chains hide the latency of the adds.
  /// With `parallel`, the blocks of `width` j's are the iterations of a parallel loop in the parallel build. The
  /// k range may be [kLo, kHi) (jamFrom).
  void jam(const Value& lo, const Value& hi, const Value& K, std::int64_t width,
           const std::function<Value(Value)>& init, const std::function<Value(Value, Value, Value)>& step,
           const std::function<void(Value, Value)>& out, bool parallel = false) {
    jamFrom(lo, hi, zero, K, width, init, step, out, parallel);
  }
  void jamFrom(const Value& lo, const Value& hi, const Value& kLo, const Value& kHi, std::int64_t width,
               const std::function<Value(Value)>& init, const std::function<Value(Value, Value, Value)>& step,
               const std::function<void(Value, Value)>& out, bool parallel = false) {
    Value full = lo + (hi - lo) / width * width;
    auto block = [&](Value j0) {
      std::vector<Value> js, accs;
      for (std::int64_t l = 0; l < width; ++l) {
        js.push_back(j0 + l);
        accs.push_back(init(js.back()));
      }
      auto r = carry(kLo, kHi, accs, [&](Value k, const std::vector<Value>& c) {
        std::vector<Value> next;
        for (std::int64_t l = 0; l < width; ++l) next.push_back(step(js[l], k, c[l]));
        return next;
      });
      for (std::int64_t l = 0; l < width; ++l) out(js[l], r[l]);
    };
    if (parallel && parallel_)
      b.parallelFor(lo, full, idx(width), {}, block);
    else
      b.forLoop(lo, full, idx(width), block);
    loop(full, hi, [&](Value j) { out(j, sum(kLo, kHi, init(j), [&](Value k, Value acc) { return step(j, k, acc); })); });
  }

  /// jam's triangular form, for a row of a factorisation: out(j, acc) for j in [lo, hi), where acc = init(j) then
  /// acc = step(j, k, acc) for k in [0, j), and step(j, k, ...) may read what out(k, ...) wrote. `width` j's share
  /// the steps with k below the first of them (independent chains); the triangle between them follows in order.
  void jamTriangle(const Value& lo, const Value& hi, std::int64_t width, const std::function<Value(Value)>& init,
                   const std::function<Value(Value, Value, Value)>& step, const std::function<void(Value, Value)>& out) {
    Value full = lo + (hi - lo) / width * width;
    b.forLoop(lo, full, idx(width), [&](Value j0) {
      std::vector<Value> js, accs;
      for (std::int64_t l = 0; l < width; ++l) {
        js.push_back(j0 + l);
        accs.push_back(init(js.back()));
      }
      accs = carry(zero, j0, accs, [&](Value k, const std::vector<Value>& c) {
        std::vector<Value> next;
        for (std::int64_t l = 0; l < width; ++l) next.push_back(step(js[l], k, c[l]));
        return next;
      });
      for (std::int64_t l = 0; l < width; ++l) {
        Value acc = accs[l];
        for (std::int64_t m = 0; m < l; ++m) acc = step(js[l], js[m], acc);
        out(js[l], acc);
      }
    });
    loop(full, hi, [&](Value j) { out(j, sum(zero, j, init(j), [&](Value k, Value acc) { return step(j, k, acc); })); });
  }

  Error finish() { return b.finish(); }
};

}  // namespace memjit::polybench
