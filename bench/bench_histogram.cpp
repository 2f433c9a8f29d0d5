// A byte histogram (256 int64 bins over n uint8 values) in memjit and in
// C++ -O3 -march=native, serially and on every core, in one run:
//
//   Kernel/histogram/{memjit,native}/<n>                 serial loads and stores
//   Kernel/histogram_atomic/{memjit,native}/<n>          serial, relaxed atomic adds
//   Kernel/histogram_reduce/{memjit_par,native_omp}/<n>  parallelReduce(ArrayReduction::sum) against
//                                                        `#pragma omp parallel for reduction(+: bins[:256])`
//   Kernel/histogram_atomic/{memjit_par,native_omp}/<n>  parallelFor + atomicRMW against `#pragma omp atomic`
//
// n from 1M to 64M bytes of uniform random data. Every result is checked
// against the serial native one once per run (exact counts).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "jit_kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "native/histogram.h"

using namespace memjit;
using codegen::Value;
using Bytes = runtime::StridedMemRef<std::uint8_t, 1>;
using Bins = runtime::StridedMemRef<std::int64_t, 1>;

namespace {

enum class Form { Plain, Atomic, Reduce };
enum System { Memjit, Native, MemjitPar, NativeOmp };
const char* kSystems[] = {"memjit", "native", "memjit_par", "native_omp"};

Error build(codegen::Module& m, const std::string& name, Form form, bool par) {
  codegen::FunctionOptions o;
  o.arguments.assign(2, codegen::ArgumentAttributes{true, 64});
  codegen::FunctionBuilder b(m, name, *parseFunctionType("(memref<?xui8>, memref<256xi64>) -> ()"), o);
  Value x = b.arg(0), bins = b.arg(1);
  auto bump = [&](Value i, const Value& into) {
    Value bin = b.cast(b.load(x, {i}), ElementType::Index);  // ui8 zero-extends
    if (form == Form::Atomic)
      b.atomicRMW(codegen::AtomicKind::Addi, b.i64(1), into, {bin}, codegen::AtomicOrdering::Relaxed);
    else
      b.store(b.load(into, {bin}) + 1, into, {bin});
  };
  if (form == Form::Reduce)
    b.parallelReduce(b.index(0), b.dim(x, 0), b.index(1), {}, {codegen::ArrayReduction::sum(bins)},
                     [&](Value i, const std::vector<Value>& own) { bump(i, own[0]); });
  else if (par)
    b.parallelFor(b.index(0), b.dim(x, 0), b.index(1), {}, [&](Value i) { bump(i, bins); });
  else
    b.forLoop(b.index(0), b.dim(x, 0), b.index(1), [&](Value i) { bump(i, bins); });
  return b.finish();
}

using Fn = void (*)(Bytes*, Bins*);

bench::JitKernels& kernels() {
  static bench::JitKernels k = bench::JitKernels::make("bench_histogram", [](codegen::Module& m) -> Error {
    for (auto [name, form, par] : {std::tuple{"plain", Form::Plain, false}, {"atomic", Form::Atomic, false},
                                   {"atomic_par", Form::Atomic, true}, {"reduce_par", Form::Reduce, true}})
      if (Error e = build(m, name, form, par)) return e;
    return Error::success();
  });
  return k;
}

const std::vector<std::uint8_t>& data(long n) {
  static std::map<long, std::vector<std::uint8_t>> cache;
  auto& d = cache[n];
  if (d.empty()) {
    d.resize(static_cast<std::size_t>(n));
    std::uint64_t s = 0x9e3779b97f4a7c15ULL;
    for (auto& v : d) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      v = static_cast<std::uint8_t>(s >> 56);
    }
  }
  return d;
}

void BM_Histogram(benchmark::State& state, Form form, System sys) {
  auto& k = kernels();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const long n = state.range(0);
  const auto& x = data(n);
  std::vector<std::int64_t> bins(native::kBins), want(native::kBins);
  Bytes vx{const_cast<std::uint8_t*>(x.data()), const_cast<std::uint8_t*>(x.data()), 0, {n}, {1}};
  Bins vb{bins.data(), bins.data(), 0, {native::kBins}, {1}};
  const char* names[] = {"plain", "atomic", "reduce_par"};
  auto f = reinterpret_cast<Fn>(k.get(sys == MemjitPar && form == Form::Atomic ? "atomic_par" : names[static_cast<int>(form)]));
  auto run = [&] {
    if (sys == Native) form == Form::Atomic ? native::histogramAtomic(x.data(), n, bins.data())
                                            : native::histogram(x.data(), n, bins.data());
    else if (sys == NativeOmp) form == Form::Atomic ? native::histogramAtomicOmp(x.data(), n, bins.data())
                                                    : native::histogramReduceOmp(x.data(), n, bins.data());
    else f(&vx, &vb);
  };
  run();
  native::histogram(x.data(), n, want.data());
  if (bins != want) return state.SkipWithError("counts differ from the serial native histogram");
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n);
}

const int kRegistered = [] {
  const std::pair<const char*, Form> kernels[] = {
      {"histogram", Form::Plain}, {"histogram_atomic", Form::Atomic}, {"histogram_reduce", Form::Reduce}};
  for (auto [kernel, form] : kernels)
    for (int s = 0; s < 4; ++s) {
      const bool par = s >= MemjitPar;
      if ((form == Form::Plain && par) || (form == Form::Reduce && !par)) continue;
      const std::string name = std::string("Kernel/") + kernel + "/" + kSystems[s];
      benchmark::RegisterBenchmark(name.c_str(), BM_Histogram, form, static_cast<System>(s))
          ->RangeMultiplier(4)
          ->Range(1 << 20, 64 << 20)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
