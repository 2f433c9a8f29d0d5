// An int8 dot product and GEMV (u8 x s8 -> i32) in memjit and in C++ -O3 -march=native, in one run:
//
//   Kernel/dot_u8s8/{memjit,native}/<n>              sum of a[i] * b[i] over n bytes each
//   Kernel/gemv_u8s8/{memjit,native}/<rows>x<cols>   y[r] = sum of A[r][c] * x[c]
//
// Both are the plain scalar loop: g++ 12 turns it into vpdpbusd on a VNNI CPU, memjit's pipeline does the same
// (jit/dot_product.h). n covers L1 (16 KiB per operand), L2 (512 KiB) and memory (32 MiB); the GEMVs likewise.
// Every result is checked against the native one once per run.
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
#include "native/dot.h"

using namespace memjit;
using codegen::Value;

namespace {

using U8 = runtime::StridedMemRef<std::uint8_t, 1>;
using S8 = runtime::StridedMemRef<std::int8_t, 1>;
using U8x2 = runtime::StridedMemRef<std::uint8_t, 2>;
using I32 = runtime::StridedMemRef<std::int32_t, 1>;

// sum over i in [0, n) of i32(a[i]) * i32(b[i]), from `init`
Value dotLoop(codegen::FunctionBuilder& b, const Value& n, const std::function<Value(Value)>& a,
              const std::function<Value(Value)>& x) {
  auto sum = b.forLoop(b.index(0), n, b.index(1), {b.i32(0)}, [&](Value i, const std::vector<Value>& s) {
    return std::vector<Value>{s[0] + b.cast(a(i), ElementType::I32) * b.cast(x(i), ElementType::I32)};
  });
  return sum[0];
}

Error build(codegen::Module& m) {
  codegen::FunctionOptions o;
  o.arguments.assign(2, codegen::ArgumentAttributes{true, 0});
  {
    codegen::FunctionBuilder b(m, "dot", *parseFunctionType("(memref<?xui8>, memref<?xsi8>) -> i32"), o);
    Value a = b.arg(0), x = b.arg(1);
    b.ret({dotLoop(b, b.dim(a, 0), [&](Value i) { return b.load(a, {i}); }, [&](Value i) { return b.load(x, {i}); })});
    if (Error e = b.finish()) return e;
  }
  o.arguments.assign(3, codegen::ArgumentAttributes{true, 0});
  codegen::FunctionBuilder b(m, "gemv", *parseFunctionType("(memref<?x?xui8>, memref<?xsi8>, memref<?xi32>) -> ()"), o);
  Value a = b.arg(0), x = b.arg(1), y = b.arg(2);
  b.forLoop(b.index(0), b.dim(a, 0), b.index(1), [&](Value r) {
    b.store(dotLoop(b, b.dim(a, 1), [&](Value c) { return b.load(a, {r, c}); }, [&](Value c) { return b.load(x, {c}); }),
            y, {r});
  });
  return b.finish();
}

bench::JitKernels& kernels() {
  static bench::JitKernels k = bench::JitKernels::make("bench_dot", [](codegen::Module& m) { return build(m); });
  return k;
}

// Random bytes; signed ones in [-127, 127], so sums stay far from INT32 overflow (undefined in the C++ twin).
template <typename T>
const std::vector<T>& data(long n) {
  static std::map<long, std::vector<T>> cache;
  auto& d = cache[n];
  if (d.empty()) {
    d.resize(static_cast<std::size_t>(n));
    std::uint64_t s = 0x9e3779b97f4a7c15ULL + sizeof(T) + std::is_signed_v<T>;
    for (auto& v : d) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      v = std::is_signed_v<T> ? static_cast<T>(static_cast<int>((s >> 33) % 255) - 127) : static_cast<T>(s >> 56);
    }
  }
  return d;
}

void BM_Dot(benchmark::State& state, bool memjit) {
  auto& k = kernels();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const long n = state.range(0);
  const auto& a = data<std::uint8_t>(n);
  const auto& x = data<std::int8_t>(n);
  U8 va{const_cast<std::uint8_t*>(a.data()), const_cast<std::uint8_t*>(a.data()), 0, {n}, {1}};
  S8 vx{const_cast<std::int8_t*>(x.data()), const_cast<std::int8_t*>(x.data()), 0, {n}, {1}};
  auto f = reinterpret_cast<std::int32_t (*)(U8*, S8*)>(k.get("dot"));
  auto run = [&] { return memjit ? f(&va, &vx) : native::dotU8S8(a.data(), x.data(), n); };
  if (run() != native::dotU8S8(a.data(), x.data(), n)) return state.SkipWithError("differs from the native sum");
  for (auto _ : state) benchmark::DoNotOptimize(run());
  state.SetBytesProcessed(state.iterations() * 2 * n);
}

void BM_Gemv(benchmark::State& state, bool memjit, long rows, long cols) {
  auto& k = kernels();
  if (!k.error.empty()) return state.SkipWithError(k.error.c_str());
  const auto& a = data<std::uint8_t>(rows * cols);
  const auto& x = data<std::int8_t>(cols);
  std::vector<std::int32_t> y(rows), want(rows);
  U8x2 va{const_cast<std::uint8_t*>(a.data()), const_cast<std::uint8_t*>(a.data()), 0, {rows, cols}, {cols, 1}};
  S8 vx{const_cast<std::int8_t*>(x.data()), const_cast<std::int8_t*>(x.data()), 0, {cols}, {1}};
  I32 vy{y.data(), y.data(), 0, {rows}, {1}};
  auto f = reinterpret_cast<void (*)(U8x2*, S8*, I32*)>(k.get("gemv"));
  auto run = [&] { memjit ? f(&va, &vx, &vy) : native::gemvU8S8(a.data(), x.data(), y.data(), rows, cols); };
  run();
  native::gemvU8S8(a.data(), x.data(), want.data(), rows, cols);
  if (y != want) return state.SkipWithError("differs from the native GEMV");
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * rows * cols);
}

const int kRegistered = [] {
  for (bool memjit : {true, false}) {
    const std::string system = memjit ? "memjit" : "native";
    benchmark::RegisterBenchmark(("Kernel/dot_u8s8/" + system).c_str(), BM_Dot, memjit)
        ->Arg(16 << 10)
        ->Arg(512 << 10)
        ->Arg(32 << 20)
        ->Unit(benchmark::kMicrosecond);
    for (auto [rows, cols] : {std::pair{64L, 256L}, {256L, 4096L}, {4096L, 8192L}})
      benchmark::RegisterBenchmark(
          ("Kernel/gemv_u8s8/" + system + "/" + std::to_string(rows) + "x" + std::to_string(cols)).c_str(), BM_Gemv,
          memjit, rows, cols)
          ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
