// A byte histogram on every core, two ways: atomic increments of shared bins
// (atomicRMW in a parallelFor) and an array reduction (parallelReduce over
// the bins, OpenMP's `reduction(+: bins[:256])`); plus a running maximum kept
// with a compare-exchange loop (genericAtomicRMW). Each is checked against
// serial C++.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using codegen::Value;
using Bytes = runtime::StridedMemRef<std::uint8_t, 1>;
using Bins = runtime::StridedMemRef<std::int64_t, 1>;

int main() {
  codegen::Module m("histogram_example");
  const FunctionType type = *parseFunctionType("(memref<?xui8>, memref<256xi64>) -> ()");
  {
    // [docs:atomics]
    // histogram_atomic(x, bins): bins[x[i]] += 1 from every thread at once. Each
    // increment is one `atomicrmw add` (relaxed: the loop's end orders them
    // before the caller reads the bins). Simple, but threads contend for bins.
    codegen::FunctionBuilder b(m, "histogram_atomic", type);
    Value x = b.arg(0), bins = b.arg(1);
    b.parallelFor(b.index(0), b.dim(x, 0), b.index(1), {}, [&](Value i) {
      Value bin = b.cast(b.load(x, {i}), ElementType::Index);  // ui8 zero-extends
      b.atomicRMW(codegen::AtomicKind::Addi, b.i64(1), bins, {bin}, codegen::AtomicOrdering::Relaxed);
    });
    // [docs:end]
    if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  }
  {
    // [docs:reduce]
    // histogram_reduce(x, bins): each thread counts into a private copy of the
    // bins (zeros, the identity of sum) with plain loads and stores, then adds
    // it into `bins` once. `bins` keeps its initial counts, as in OpenMP.
    codegen::FunctionBuilder b(m, "histogram_reduce", type);
    Value x = b.arg(0), bins = b.arg(1);
    b.parallelReduce(b.index(0), b.dim(x, 0), b.index(1), {}, {codegen::ArrayReduction::sum(bins)},
                     [&](Value i, const std::vector<Value>& own) {
                       Value bin = b.cast(b.load(x, {i}), ElementType::Index);
                       b.store(b.load(own[0], {bin}) + 1, own[0], {bin});
                     });
    // [docs:end]
    if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  }
  {
    // [docs:generic]
    // peak(x, best): best[0] = max(best[0], x[i] * 3 % 251) in parallel, with
    // the update written as a body (any function of the current value); it is
    // retried until no other thread changed the element in between.
    codegen::FunctionBuilder b(m, "peak", *parseFunctionType("(memref<?xui8>, memref<1xi64>) -> ()"));
    Value x = b.arg(0), best = b.arg(1);
    b.parallelFor(b.index(0), b.dim(x, 0), b.index(1), {}, [&](Value i) {
      Value score = b.cast(b.load(x, {i}), ElementType::I64) * 3 % 251;
      b.genericAtomicRMW(best, {b.index(0)}, [&](Value current) { return b.max(current, score); });
    });
    // [docs:end]
    if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  }
  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O3});
  if (!jit) return std::fprintf(stderr, "%s\n", jit.error().str().c_str()), 1;
  auto mod = jit->add(std::move(m));
  if (!mod) return std::fprintf(stderr, "%s\n", mod.error().str().c_str()), 1;
  using Fn = void (*)(Bytes*, Bins*);
  auto atomic = reinterpret_cast<Fn>(*mod->symbol("_mlir_ciface_histogram_atomic"));
  auto reduce = reinterpret_cast<Fn>(*mod->symbol("_mlir_ciface_histogram_reduce"));
  auto peak = reinterpret_cast<Fn>(*mod->symbol("_mlir_ciface_peak"));

  std::vector<std::uint8_t> data(1 << 20);
  std::uint32_t s = 1;
  for (auto& v : data) v = static_cast<std::uint8_t>((s = s * 1664525u + 1013904223u) >> 24);
  std::vector<std::int64_t> want(256), viaAtomics(256), viaReduction(256), best(1, 0);
  std::int64_t wantBest = 0;
  for (std::uint8_t v : data) {
    ++want[v];
    wantBest = std::max<std::int64_t>(wantBest, v * 3 % 251);
  }
  Bytes x{data.data(), data.data(), 0, {static_cast<std::int64_t>(data.size())}, {1}};
  Bins a{viaAtomics.data(), viaAtomics.data(), 0, {256}, {1}};
  Bins r{viaReduction.data(), viaReduction.data(), 0, {256}, {1}};
  Bins p{best.data(), best.data(), 0, {1}, {1}};
  atomic(&x, &a);
  reduce(&x, &r);
  peak(&x, &p);
  const bool ok = viaAtomics == want && viaReduction == want && best[0] == wantBest;
  std::printf("%zu bytes: bin 0 has %lld (atomics %lld, reduction %lld), peak %lld: %s\n", data.size(),
              static_cast<long long>(want[0]), static_cast<long long>(viaAtomics[0]),
              static_cast<long long>(viaReduction[0]), static_cast<long long>(best[0]), ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
