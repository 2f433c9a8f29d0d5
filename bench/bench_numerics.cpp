// The kernel language against the C++ compiler on kernels users write:
// softmax, layernorm, GELU (tanh and erf forms), an xorshift+popcount hash
// over ui32 and ui64, f16 and bf16 dot products accumulating in f32, a float sum, and
// a bf16 GEMV (y = x^T W, W in bf16; memjit and native only).
// Each is built once with the kernel builder (softmax is the kernel
// library's codegen::addSoftmax) and compiled by memjit::jit at O3 twice:
// exact IEEE (`memjit`) and with FastMath::Fast (`memjit_fast`);
// the same loops in C++ are compiled with -O3 -march=native (`native`) and
// with -ffast-math added (`native_fast`), see native/numerics.inc.
//
//   Kernel/<kernel>/<system>/<size>   systems: memjit native memjit_fast native_fast
//
// Sizes go from L1-resident to memory-bound; rows x cols for the row-wise
// kernels. GB/s counts each input read once and each output written once.
// Every memjit result is checked against its native twin once per run.
#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "native/numerics.h"

using namespace memjit;
using codegen::FastMath;
using codegen::FunctionBuilder;
using codegen::Value;

namespace {

// ------------------------------------------------------------ memjit side ---

using BuildBody = std::function<void(FunctionBuilder&)>;

struct KernelSource {
  const char* name;
  const char* type;
  BuildBody body;
};

// out[i] = f(in[i]) over memref<?xT>.
BuildBody map(const std::function<Value(FunctionBuilder&, Value)>& f) {
  return [f](FunctionBuilder& b) {
    Value in = b.arg(0), out = b.arg(1);
    b.forLoop(b.index(0), b.dim(in, 0), b.index(1), [&](Value i) { b.store(f(b, b.load(in, {i})), out, {i}); });
    b.ret();
  };
}

// A sum over [0, n) of term(i), carried through forLoop.
Value reduceSum(FunctionBuilder& b, Value n, Value zero, const std::function<Value(Value)>& term) {
  return b.forLoop(b.index(0), n, b.index(1), {zero},
                   [&](Value i, const std::vector<Value>& acc) { return std::vector<Value>{acc[0] + term(i)}; })[0];
}

std::vector<KernelSource> kernelSources() {
  return {
      {"layernorm", "(memref<?x?xf32>, memref<?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()",
       [](FunctionBuilder& b) {
         Value in = b.arg(0), gamma = b.arg(1), beta = b.arg(2), out = b.arg(3), cols = b.dim(in, 1);
         Value n = b.cast(cols, ElementType::F32);
         b.forLoop(b.index(0), b.dim(in, 0), b.index(1), [&](Value r) {
           Value mean = reduceSum(b, cols, b.f32(0), [&](Value c) { return b.load(in, {r, c}); }) / n;
           Value var = reduceSum(b, cols, b.f32(0), [&](Value c) {
             Value d = b.load(in, {r, c}) - mean;
             return d * d;
           });
           Value rstd = 1.0f / b.sqrt(var / n + 1e-5f);
           b.forLoop(b.index(0), cols, b.index(1), [&](Value c) {
             b.store((b.load(in, {r, c}) - mean) * rstd * b.load(gamma, {c}) + b.load(beta, {c}), out, {r, c});
           });
         });
         b.ret();
       }},
      {"gelu_tanh", "(memref<?xf32>, memref<?xf32>) -> ()", map([](FunctionBuilder& b, Value x) {
         return 0.5f * x * (1.0f + b.tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
       })},
      {"gelu_erf", "(memref<?xf32>, memref<?xf32>) -> ()",
       map([](FunctionBuilder& b, Value x) { return 0.5f * x * (1.0f + b.erf(x * 0.70710678f)); })},
      {"hash_i32", "(memref<?xui32>, memref<?xui32>) -> ()", map([](FunctionBuilder& b, Value h) {
         h = h ^ (h << 13);
         h = h ^ (h >> 17);
         h = h ^ (h << 5);
         return h + b.ctpop(h);
       })},
      {"hash_i64", "(memref<?xui64>, memref<?xui64>) -> ()", map([](FunctionBuilder& b, Value h) {
         h = h ^ (h << 13);
         h = h ^ (h >> 7);
         h = h ^ (h << 17);
         return h + b.ctpop(h);
       })},
      {"dot_f16", "(memref<?xf16>, memref<?xf16>) -> f32",
       [](FunctionBuilder& b) {
         Value x = b.arg(0), y = b.arg(1);
         b.ret({reduceSum(b, b.dim(x, 0), b.f32(0), [&](Value i) {
           return b.cast(b.load(x, {i}), ElementType::F32) * b.cast(b.load(y, {i}), ElementType::F32);
         })});
       }},
      {"dot_bf16", "(memref<?xbf16>, memref<?xbf16>) -> f32",
       [](FunctionBuilder& b) {
         Value x = b.arg(0), y = b.arg(1);
         b.ret({reduceSum(b, b.dim(x, 0), b.f32(0), [&](Value i) {
           return b.cast(b.load(x, {i}), ElementType::F32) * b.cast(b.load(y, {i}), ElementType::F32);
         })});
       }},
      // y = x^T W over a bf16 matrix, rows in order (the axpy form: exact and vectorisable).
      {"gemv_bf16", "(memref<?x?xbf16>, memref<?xf32>, memref<?xf32>) -> ()",
       [](FunctionBuilder& b) {
         Value w = b.arg(0), x = b.arg(1), y = b.arg(2), cols = b.dim(w, 1);
         b.forLoop(b.index(0), cols, b.index(1), [&](Value c) { b.store(b.f32(0), y, {c}); });
         b.forLoop(b.index(0), b.dim(w, 0), b.index(1), [&](Value r) {
           Value xr = b.load(x, {r});
           b.forLoop(b.index(0), cols, b.index(1), [&](Value c) {
             b.store(b.load(y, {c}) + xr * b.cast(b.load(w, {r, c}), ElementType::F32), y, {c});
           });
         });
         b.ret();
       }},
      {"sum", "(memref<?xf32>) -> f32",
       [](FunctionBuilder& b) {
         Value x = b.arg(0);
         b.ret({reduceSum(b, b.dim(x, 0), b.f32(0), [&](Value i) { return b.load(x, {i}); })});
       }},
  };
}

// Both variants of every kernel, compiled once: `<name>` exact, `<name>_fast`.
class Kernels {
 public:
  static Kernels& get() {
    static Kernels kernels;
    return kernels;
  }
  template <typename F>
  F* function(const std::string& name) const {
    auto f = loaded_.at(name.find("_fast") != std::string::npos ? 1 : 0).function(name);
    if (!f) std::abort();
    return f->cInterfaceAs<F>();
  }

 private:
  Kernels() {
    jit::JitOptions options;
    options.optLevel = jit::OptLevel::O3;
    // MEMJIT_BENCH_OPT=O2 measures the default level instead (issue 27's O2 jam).
    if (const char* level = std::getenv("MEMJIT_BENCH_OPT"); level && std::string(level) == "O2")
      options.optLevel = jit::OptLevel::O2;
    // MEMJIT_BENCH_DUMP=<dir> keeps each module's IR and object for inspection.
    if (const char* dump = std::getenv("MEMJIT_BENCH_DUMP")) options.dumpDirectory = dump;
    jit_ = std::make_unique<jit::Jit>(std::move(*jit::Jit::create(options)));
    for (bool fast : {false, true}) {
      codegen::Module m(fast ? "numerics_fast" : "numerics");
      // softmax is the kernel library's, with the same options as the others.
      codegen::KernelOptions library{.alignment = 64, .fastMath = fast ? FastMath::Fast : FastMath::None};
      if (Error e = codegen::addSoftmax(m, fast ? "softmax_fast" : "softmax", library)) {
        std::fprintf(stderr, "%s\n", e.str().c_str());
        std::abort();
      }
      for (const KernelSource& k : kernelSources()) {
        codegen::FunctionOptions o;
        o.noalias = true;
        // Buffer<T> allocates 64-byte aligned, as the native loops may assume.
        o.arguments.assign(parseFunctionType(k.type)->inputs.size(), {true, 64});
        if (fast) o.fastMath = FastMath::Fast;
        FunctionBuilder b(m, std::string(k.name) + (fast ? "_fast" : ""), *parseFunctionType(k.type), o);
        k.body(b);
        if (Error e = b.finish()) {
          std::fprintf(stderr, "%s\n", e.str().c_str());
          std::abort();
        }
      }
      auto loaded = jit_->add(std::move(m));
      if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().str().c_str());
        std::abort();
      }
      loaded_.push_back(std::move(*loaded));
    }
  }
  std::unique_ptr<jit::Jit> jit_;
  std::vector<jit::LoadedModule> loaded_;
};

// ------------------------------------------------------------- buffers ---

template <typename T>
struct Buffer {
  explicit Buffer(std::int64_t n) : size(n), data(static_cast<T*>(std::aligned_alloc(64, ((n * sizeof(T) + 63) / 64) * 64))) {}
  ~Buffer() { std::free(data); }
  Buffer(const Buffer&) = delete;
  runtime::StridedMemRef<T, 1> vec() { return {data, data, 0, {size}, {1}}; }
  runtime::StridedMemRef<T, 2> mat(std::int64_t rows, std::int64_t cols) { return {data, data, 0, {rows, cols}, {cols, 1}}; }
  std::int64_t size;
  T* data;
};

template <typename T, typename Gen>
void fill(Buffer<T>& b, Gen gen) {
  std::mt19937_64 rng(42);
  for (std::int64_t i = 0; i < b.size; ++i) b.data[i] = gen(rng);
}

enum class System { Memjit, Native, MemjitFast, NativeFast };
constexpr const char* kSystemNames[] = {"memjit", "native", "memjit_fast", "native_fast"};
bool fastSystem(System s) { return s == System::MemjitFast || s == System::NativeFast; }
bool memjitSystem(System s) { return s == System::Memjit || s == System::MemjitFast; }

// Relative closeness for checks: exact builds differ from native only through
// libmvec's last bits; fast builds also reorder sums.
bool close(double got, double want, double tolerance) {
  return std::fabs(got - want) <= tolerance * std::max(1.0, std::fabs(want));
}

template <typename T>
bool allClose(const Buffer<T>& a, const Buffer<T>& b, double tolerance) {
  for (std::int64_t i = 0; i < a.size; ++i)
    if (!close(a.data[i], b.data[i], tolerance)) return false;
  return true;
}

void timed(benchmark::State& state, double bytes, const std::function<void()>& body) {
  for (auto _ : state) body();
  state.counters["GB/s"] = benchmark::Counter(bytes * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

std::string kernelName(const char* kernel, System s) {
  return std::string(kernel) + (s == System::MemjitFast ? "_fast" : "");
}

// ------------------------------------------------------------ benchmarks ---

using Size = std::vector<std::int64_t>;

void benchRowwise(benchmark::State& state, const char* kernel, System s, const Size& size) {
  const std::int64_t rows = size[0], cols = size[1], n = rows * cols;
  Buffer<float> in(n), out(n), ref(n), gamma(cols), beta(cols);
  fill(in, [](auto& r) { return std::uniform_real_distribution<float>(-8, 8)(r); });
  fill(gamma, [](auto& r) { return std::uniform_real_distribution<float>(0.5f, 1.5f)(r); });
  fill(beta, [](auto& r) { return std::uniform_real_distribution<float>(-1, 1)(r); });
  const bool softmax = std::string(kernel) == "softmax";
  auto a = in.mat(rows, cols), y = out.mat(rows, cols);
  auto g = gamma.vec(), bt = beta.vec();
  std::function<void()> run;
  if (memjitSystem(s)) {
    if (softmax) {
      auto* f = Kernels::get().function<void(decltype(a)*, decltype(y)*)>(kernelName(kernel, s));
      run = [&, f] { f(&a, &y); };
    } else {
      auto* f = Kernels::get().function<void(decltype(a)*, decltype(g)*, decltype(bt)*, decltype(y)*)>(
          kernelName(kernel, s));
      run = [&, f] { f(&a, &g, &bt, &y); };
    }
  } else if (softmax) {
    auto* f = fastSystem(s) ? native_fast::softmax : native::softmax;
    run = [&, f] { f(in.data, out.data, rows, cols); };
  } else {
    auto* f = fastSystem(s) ? native_fast::layernorm : native::layernorm;
    run = [&, f] { f(in.data, gamma.data, beta.data, out.data, rows, cols); };
  }
  run();
  if (softmax) native::softmax(in.data, ref.data, rows, cols);
  else native::layernorm(in.data, gamma.data, beta.data, ref.data, rows, cols);
  if (!allClose(out, ref, 1e-4)) state.SkipWithError("result differs from the native loop");
  timed(state, 2.0 * n * sizeof(float), run);
}

void benchMap(benchmark::State& state, const char* kernel, System s, const Size& size) {
  const std::int64_t n = size[0];
  Buffer<float> in(n), out(n), ref(n);
  fill(in, [](auto& r) { return std::uniform_real_distribution<float>(-6, 6)(r); });
  auto a = in.vec(), y = out.vec();
  const bool isTanh = std::string(kernel) == "gelu_tanh";
  std::function<void()> run;
  if (memjitSystem(s)) {
    auto* f = Kernels::get().function<void(decltype(a)*, decltype(y)*)>(kernelName(kernel, s));
    run = [&, f] { f(&a, &y); };
  } else {
    auto* f = isTanh ? (fastSystem(s) ? native_fast::geluTanh : native::geluTanh)
                     : (fastSystem(s) ? native_fast::geluErf : native::geluErf);
    run = [&, f] { f(in.data, out.data, n); };
  }
  run();
  (isTanh ? native::geluTanh : native::geluErf)(in.data, ref.data, n);
  if (!allClose(out, ref, 1e-5)) state.SkipWithError("result differs from the native loop");
  timed(state, 2.0 * n * sizeof(float), run);
}

template <typename T>
void benchHash(benchmark::State& state, const char* kernel, System s, const Size& size) {
  const std::int64_t n = size[0];
  Buffer<T> in(n), out(n), ref(n);
  fill(in, [](auto& r) { return static_cast<T>(r()); });
  auto a = in.vec(), y = out.vec();
  std::function<void()> run;
  void (*native)(const T*, T*, std::int64_t);
  void (*nativeFast)(const T*, T*, std::int64_t);
  if constexpr (sizeof(T) == 4) native = native::hash32, nativeFast = native_fast::hash32;
  else native = native::hash64, nativeFast = native_fast::hash64;
  if (memjitSystem(s)) {
    auto* f = Kernels::get().function<void(decltype(a)*, decltype(y)*)>(kernelName(kernel, s));
    run = [&, f] { f(&a, &y); };
  } else {
    auto* f = fastSystem(s) ? nativeFast : native;
    run = [&, f] { f(in.data, out.data, n); };
  }
  run();
  native(in.data, ref.data, n);
  if (std::memcmp(out.data, ref.data, n * sizeof(T)) != 0) state.SkipWithError("hash differs from the native loop");
  timed(state, 2.0 * n * sizeof(T), run);
}

// The exact (in-order) dot product of two half vectors, f16 or bf16 (stored
// as its bits): it cannot vectorise, so each element's widening is the loop.
float bf16Value(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

template <typename Half>
void benchDot(benchmark::State& state, const char* kernel, System s, const Size& size) {
  constexpr bool kF16 = std::is_same_v<Half, _Float16>;
  const std::int64_t n = size[0];
  Buffer<Half> x(n), y(n);
  auto make = [](auto& r) {
    const float v = std::uniform_real_distribution<float>(-1, 1)(r);
    if constexpr (kF16) return static_cast<_Float16>(v);
    else return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v) >> 16);
  };
  fill(x, make);
  fill(y, make);
  auto value = [](Half h) -> double {
    if constexpr (kF16) return static_cast<double>(h);
    else return bf16Value(h);
  };
  double want = 0;
  for (std::int64_t i = 0; i < n; ++i) want += value(x.data[i]) * value(y.data[i]);
  using V = runtime::StridedMemRef<std::uint16_t, 1>;
  auto* xBits = reinterpret_cast<std::uint16_t*>(x.data);
  auto* yBits = reinterpret_cast<std::uint16_t*>(y.data);
  V a{xBits, xBits, 0, {n}, {1}};
  V b{yBits, yBits, 0, {n}, {1}};
  float result = 0;
  std::function<void()> run;
  if (memjitSystem(s)) {
    auto* f = Kernels::get().function<float(V*, V*)>(kernelName(kernel, s));
    run = [&, f] { benchmark::DoNotOptimize(result = f(&a, &b)); };
  } else if constexpr (kF16) {
    auto* f = fastSystem(s) ? native_fast::dotF16 : native::dotF16;
    run = [&, f] { benchmark::DoNotOptimize(result = f(x.data, y.data, n)); };
  } else {
    auto* f = fastSystem(s) ? native_fast::dotBf16 : native::dotBf16;
    run = [&, f] { benchmark::DoNotOptimize(result = f(x.data, y.data, n)); };
  }
  run();
  if (!close(result, want, 1e-3 * std::sqrt(static_cast<double>(n)))) state.SkipWithError("dot product is off");
  timed(state, 2.0 * n * sizeof(Half), run);
}

void benchSum(benchmark::State& state, const char*, System s, const Size& size) {
  const std::int64_t n = size[0];
  Buffer<float> x(n);
  fill(x, [](auto& r) { return std::uniform_real_distribution<float>(0, 1)(r); });
  double want = 0;
  for (std::int64_t i = 0; i < n; ++i) want += x.data[i];
  auto a = x.vec();
  float result = 0;
  std::function<void()> run;
  if (memjitSystem(s)) {
    auto* f = Kernels::get().function<float(decltype(a)*)>(kernelName("sum", s));
    run = [&, f] { benchmark::DoNotOptimize(result = f(&a)); };
  } else {
    auto* f = fastSystem(s) ? native_fast::sum : native::sum;
    run = [&, f] { benchmark::DoNotOptimize(result = f(x.data, n)); };
  }
  run();
  if (!close(result, want, 1e-2)) state.SkipWithError("sum is off by more than 1%");
  timed(state, 1.0 * n * sizeof(float), run);
}

void benchGemvBf16(benchmark::State& state, const char*, System s, const Size& size) {
  const std::int64_t rows = size[0], cols = size[1];
  Buffer<std::uint16_t> w(rows * cols);
  Buffer<float> x(rows), y(cols), ref(cols);
  // bf16 values in [-1, 1]: the high halves of floats.
  fill(w, [](auto& r) {
    return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(std::uniform_real_distribution<float>(-1, 1)(r)) >> 16);
  });
  fill(x, [](auto& r) { return std::uniform_real_distribution<float>(-1, 1)(r); });
  auto a = w.mat(rows, cols);
  auto xv = x.vec(), yv = y.vec();
  std::function<void()> run;
  if (memjitSystem(s)) {
    auto* f = Kernels::get().function<void(decltype(a)*, decltype(xv)*, decltype(yv)*)>(kernelName("gemv_bf16", s));
    run = [&, f] { f(&a, &xv, &yv); };
  } else {
    run = [&] { native::gemvBf16(w.data, x.data, y.data, rows, cols); };
  }
  run();
  native::gemvBf16(w.data, x.data, ref.data, rows, cols);
  // g++ contracts x * w + y into one fma, memjit's exact build does not: last bits differ.
  if (!allClose(y, ref, 1e-3)) state.SkipWithError("result differs from the native loop");
  timed(state, 2.0 * rows * cols, run);
}

// Registers the given systems of one kernel at every size, twins side by side.
template <typename F>
void registerKernel(const char* kernel, const std::vector<Size>& sizes, F bench,
                    std::vector<System> systems = {System::Memjit, System::Native, System::MemjitFast,
                                                   System::NativeFast}) {
  for (const auto& size : sizes)
    for (System s : systems) {
      std::string label;
      for (std::int64_t v : size) label += (label.empty() ? "" : "x") + std::to_string(v);
      // The size goes in the name only (Args would append it a second time).
      benchmark::RegisterBenchmark(
          ("Kernel/" + std::string(kernel) + "/" + kSystemNames[static_cast<int>(s)] + "/" + label).c_str(),
          [=](benchmark::State& state) { bench(state, kernel, s, size); })
          ->Unit(benchmark::kMicrosecond);
    }
}

const int kRegistered = [] {
  const std::vector<Size> rowSizes{{16, 256}, {256, 1024}, {2048, 4096}};
  const std::vector<Size> flatSizes{{4096}, {262144}, {16777216}};
  registerKernel("softmax", rowSizes, benchRowwise);
  registerKernel("layernorm", rowSizes, benchRowwise);
  registerKernel("gelu_tanh", flatSizes, benchMap);
  registerKernel("gelu_erf", flatSizes, benchMap);
  registerKernel("hash_i32", flatSizes, benchHash<std::uint32_t>);
  registerKernel("hash_i64", flatSizes, benchHash<std::uint64_t>);
  registerKernel("dot_f16", flatSizes, benchDot<_Float16>);
  registerKernel("dot_bf16", flatSizes, benchDot<std::uint16_t>);
  registerKernel("sum", flatSizes, benchSum);
  // No fast-math pair: the exact loop needs no reassociation to vectorise.
  registerKernel("gemv_bf16", {{4096, 4096}, {11008, 4096}}, benchGemvBf16, {System::Memjit, System::Native});
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
