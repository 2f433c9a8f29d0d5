// Generated-kernel speed: memjit's kernels (the codegen kernel library plus a
// tiled matmul written with the builder, compiled by memjit::jit at O3 for the
// host CPU) against the same loops in C++ compiled into this file with
// -O3 -march=native, and against MLIR 19's own pipeline and ExecutionEngine
// (when libmlir-19-dev is installed), from in-cache to memory-bound sizes.
//
//   Kernel/<kernel>/<system>/<size>   kernels: add saxpy sum transpose matmul_naive matmul_tiled
//                                     systems: memjit native mlir, and memjit_nt (streaming stores); add also
//                                     native_memref (g++'s loop called as memjit's kernel is), 2048, 3840, 4352
//   Memcpy/<bytes>                    memcpy moving the same bytes (read + written) as a kernel
//
// Counters: GB/s counts the bytes a kernel must read and write (each input
// read once, each output written once); GFLOP/s for matmul; of_memcpy is GB/s
// over the GB/s of the Memcpy run of the same bytes earlier in this run.
// Every kernel's output is checked against the native loop once per run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

#ifdef MEMJIT_HAVE_MLIR
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include "mlir_peer.h"
#endif

using namespace memjit;
using Vec = runtime::StridedMemRef<float, 1>;
using Mat = runtime::StridedMemRef<float, 2>;

namespace {

constexpr std::int64_t kTileI = 32, kTileK = 128, kTileJ = 256;

// ---------------------------------------------------------------- native ---
// The same loops as the memjit kernels, with the same facts stated (no
// aliasing, 64-byte aligned buffers).
#define NATIVE __attribute__((noinline))
#define A64(p) static_cast<decltype(p)>(__builtin_assume_aligned(p, 64))

inline __attribute__((always_inline)) void addLoop(const float* __restrict a, const float* __restrict b,
                                                   float* __restrict out, std::int64_t n) {
  a = A64(a), b = A64(b), out = A64(out);
  for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}
NATIVE void nativeAdd(const float* __restrict a, const float* __restrict b, float* __restrict out, std::int64_t n) {
  addLoop(a, b, out, n);
}
// g++'s loop behind memjit's calling convention: three memref descriptors by pointer, through a function pointer
// (as TypedFunction calls). What the call itself costs at a size, apart from the code each compiler generates.
NATIVE void nativeAddMemref(const runtime::StridedMemRef<float, 1>* a, const runtime::StridedMemRef<float, 1>* b,
                            const runtime::StridedMemRef<float, 1>* out) {
  addLoop(a->data, b->data, out->data, out->sizes[0]);
}
void (*volatile nativeAddMemrefPointer)(const runtime::StridedMemRef<float, 1>*, const runtime::StridedMemRef<float, 1>*,
                                        const runtime::StridedMemRef<float, 1>*) = nativeAddMemref;
NATIVE void nativeSaxpy(float alpha, const float* __restrict x, float* __restrict y, std::int64_t n) {
  x = A64(x), y = A64(y);
  for (std::int64_t i = 0; i < n; ++i) y[i] = std::fma(alpha, x[i], y[i]);
}
NATIVE float nativeSum(const float* __restrict x, std::int64_t n) {
  x = A64(x);
  float s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += x[i];
  return s;
}
// out (cols x rows) = transpose(in (rows x cols)) in the kernel library's
// loop structure: 16 x 16 tiles (one cache line of floats per tile row) with
// both tile loops fully unrolled, then the partial tiles at the edges element
// by element. The compiler vectorises the tiles as it can.
constexpr std::int64_t kTransposeTile = 16;
NATIVE void nativeTranspose(const float* __restrict in, float* __restrict out, std::int64_t rows, std::int64_t cols) {
  in = A64(in), out = A64(out);
  constexpr std::int64_t T = kTransposeTile;
  const std::int64_t colsFull = cols - cols % T, rowsFull = rows - rows % T;
  for (std::int64_t i0 = 0; i0 < colsFull; i0 += T) {
    for (std::int64_t j0 = 0; j0 < rowsFull; j0 += T)
#pragma GCC unroll 16
      for (std::int64_t ii = 0; ii < T; ++ii)
#pragma GCC unroll 16
        for (std::int64_t jj = 0; jj < T; ++jj) out[(i0 + ii) * rows + j0 + jj] = in[(j0 + jj) * cols + i0 + ii];
    for (std::int64_t i = i0; i < i0 + T; ++i)
      for (std::int64_t j = rowsFull; j < rows; ++j) out[i * rows + j] = in[j * cols + i];
  }
  for (std::int64_t i = colsFull; i < cols; ++i)
    for (std::int64_t j = 0; j < rows; ++j) out[i * rows + j] = in[j * cols + i];
}
// The checks' reference: the plain loop, not timed.
void referenceTranspose(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t i = 0; i < cols; ++i)
    for (std::int64_t j = 0; j < rows; ++j) out[i * rows + j] = in[j * cols + i];
}
NATIVE void nativeMatmulNaive(const float* __restrict A, const float* __restrict B, float* __restrict C, std::int64_t M,
                              std::int64_t K, std::int64_t N) {
  A = A64(A), B = A64(B), C = A64(C);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (std::int64_t k = 0; k < K; ++k) acc = std::fma(A[i * K + k], B[k * N + j], acc);
      C[i * N + j] = acc;
    }
}
NATIVE void nativeMatmulTiled(const float* __restrict A, const float* __restrict B, float* __restrict C, std::int64_t M,
                              std::int64_t K, std::int64_t N) {
  A = A64(A), B = A64(B), C = A64(C);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) C[i * N + j] = 0;
  for (std::int64_t i0 = 0; i0 < M; i0 += kTileI)
    for (std::int64_t k0 = 0; k0 < K; k0 += kTileK)
      for (std::int64_t j0 = 0; j0 < N; j0 += kTileJ)
        for (std::int64_t i = i0, iEnd = std::min(i0 + kTileI, M); i < iEnd; ++i) {
          std::int64_t kEnd = std::min(k0 + kTileK, K), jEnd = std::min(j0 + kTileJ, N);
          std::int64_t kFour = k0 + (kEnd - k0) / 4 * 4;
          for (std::int64_t k = k0; k < kFour; k += 4) {
            float a0 = A[i * K + k], a1 = A[i * K + k + 1], a2 = A[i * K + k + 2], a3 = A[i * K + k + 3];
            for (std::int64_t j = j0; j < jEnd; ++j) {
              float c = std::fma(a0, B[k * N + j], C[i * N + j]);
              c = std::fma(a1, B[(k + 1) * N + j], c);
              c = std::fma(a2, B[(k + 2) * N + j], c);
              C[i * N + j] = std::fma(a3, B[(k + 3) * N + j], c);
            }
          }
          for (std::int64_t k = kFour; k < kEnd; ++k) {
            float a = A[i * K + k];
            for (std::int64_t j = j0; j < jEnd; ++j) C[i * N + j] = std::fma(a, B[k * N + j], C[i * N + j]);
          }
        }
}

// ---------------------------------------------------------------- memjit ---
// The tiled matmul, written with the kernel builder (the same loop nest as nativeMatmulTiled).
Error addTiledMatmul(codegen::Module& m, const char* name, unsigned alignment) {
  using codegen::Value;
  MEMJIT_ASSIGN_OR_RETURN(FunctionType type,
                          parseFunctionType("(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()"));
  codegen::FunctionOptions options;
  options.arguments.assign(3, codegen::ArgumentAttributes{true, alignment});
  codegen::FunctionBuilder b(m, name, type, options);
  Value A = b.arg(0), B = b.arg(1), C = b.arg(2);
  Value M = b.dim(C, 0), N = b.dim(C, 1), K = b.dim(A, 1);
  Value zero = b.f32(0.0f), one = b.index(1), lo = b.index(0);
  b.forLoop(lo, M, one, [&](Value i) { b.forLoop(lo, N, one, [&](Value j) { b.store(zero, C, {i, j}); }); });
  b.forLoop(lo, M, b.index(kTileI), [&](Value i0) {
    Value iEnd = b.min(i0 + b.index(kTileI), M);
    b.forLoop(lo, K, b.index(kTileK), [&](Value k0) {
      Value kEnd = b.min(k0 + b.index(kTileK), K);
      b.forLoop(lo, N, b.index(kTileJ), [&](Value j0) {
        Value jEnd = b.min(j0 + b.index(kTileJ), N);
        b.forLoop(i0, iEnd, one, [&](Value i) {
          // k by fours (each C element loaded and stored once per four
          // products), then the remainder of the tile one k at a time.
          Value kFour = k0 + (kEnd - k0) / b.index(4) * b.index(4);
          b.forLoop(k0, kFour, b.index(4), [&](Value k) {
            Value a0 = b.load(A, {i, k}), a1 = b.load(A, {i, k + one});
            Value a2 = b.load(A, {i, k + b.index(2)}), a3 = b.load(A, {i, k + b.index(3)});
            b.forLoop(j0, jEnd, one, [&](Value j) {
              Value c = b.fma(a0, b.load(B, {k, j}), b.load(C, {i, j}));
              c = b.fma(a1, b.load(B, {k + one, j}), c);
              c = b.fma(a2, b.load(B, {k + b.index(2), j}), c);
              b.store(b.fma(a3, b.load(B, {k + b.index(3), j}), c), C, {i, j});
            });
          });
          b.forLoop(kFour, kEnd, one, [&](Value k) {
            Value a = b.load(A, {i, k});
            b.forLoop(j0, jEnd, one, [&](Value j) { b.store(b.fma(a, b.load(B, {k, j}), b.load(C, {i, j})), C, {i, j}); });
          });
        });
      });
    });
  });
  b.ret();
  return b.finish();
}

struct MemjitKernels {
  std::string error;
  jit::Jit jit;  // keeps the handles' code loaded (so do the TypedFunctions)
  std::optional<jit::TypedFunction<void(Vec, Vec, Vec)>> add, addNt;
  std::optional<jit::TypedFunction<void(float, Vec, Vec)>> saxpy;
  std::optional<jit::TypedFunction<float(Vec)>> sum;
  std::optional<jit::TypedFunction<void(Mat, Mat)>> transpose, transposeNt;
  std::optional<jit::TypedFunction<void(Mat, Mat, Mat)>> matmulNaive, matmulTiled;

  static MemjitKernels& get() {
    static MemjitKernels k = make();
    return k;
  }

 private:
  explicit MemjitKernels(jit::Jit j) : jit(std::move(j)) {}
  static MemjitKernels failed(std::string why) {
    auto j = jit::Jit::create();
    MemjitKernels k(std::move(*j));
    k.error = std::move(why);
    return k;
  }
  static MemjitKernels make() {
    // MEMJIT_BENCH_DUMP=<dir> leaves the IR before/after optimisation and the object there.
    const char* dump = std::getenv("MEMJIT_BENCH_DUMP");
    auto j = jit::Jit::create({.optLevel = jit::OptLevel::O3, .dumpDirectory = dump ? dump : ""});
    if (!j) return failed(j.error().str());
    codegen::Module m("bench_kernels");
    codegen::KernelOptions o{ElementType::F32, /*noalias=*/true, /*nontemporal=*/false, /*alignment=*/64};
    codegen::KernelOptions nt = o;
    nt.nontemporal = true;
    for (Error e : {codegen::addElementwiseAdd(m, "add", o), codegen::addElementwiseAdd(m, "add_nt", nt),
                    codegen::addSaxpy(m, "saxpy", o), codegen::addSum(m, "sum", o),
                    codegen::addTranspose(m, "transpose", o), codegen::addTranspose(m, "transpose_nt", nt),
                    codegen::addMatmul(m, "matmul_naive", o), addTiledMatmul(m, "matmul_tiled", 64)})
      if (e) return failed(e.str());
    auto loaded = j->add(std::move(m));
    if (!loaded) return failed(loaded.error().str());
    MemjitKernels k(std::move(*j));
    auto bind = [&](auto& slot, const char* name) {
      using F = typename std::remove_reference_t<decltype(slot)>::value_type;
      auto f = loaded->function(name);
      if (!f) return k.error = f.error().str(), void();
      auto t = f->template as<typename FnTypeOf<F>::type>();
      if (!t) return k.error = t.error().str(), void();
      slot.emplace(std::move(*t));
    };
    bind(k.add, "add");
    bind(k.addNt, "add_nt");
    bind(k.saxpy, "saxpy");
    bind(k.sum, "sum");
    bind(k.transpose, "transpose");
    bind(k.transposeNt, "transpose_nt");
    bind(k.matmulNaive, "matmul_naive");
    bind(k.matmulTiled, "matmul_tiled");
    return k;
  }
  template <typename T>
  struct FnTypeOf;
  template <typename F>
  struct FnTypeOf<jit::TypedFunction<F>> {
    using type = F;
  };
};

// ------------------------------------------------------------------ mlir ---
#ifdef MEMJIT_HAVE_MLIR
// The same kernels in MLIR (func/scf/memref/arith/math, bench/mlir/<kernel>.mlir),
// lowered by MLIR's own passes and compiled by its ExecutionEngine at O3 for
// the host CPU.
struct MlirKernels {
  std::string error;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  void* add = nullptr;
  void* saxpy = nullptr;
  void* sum = nullptr;
  void* transpose = nullptr;
  void* matmulNaive = nullptr;
  void* matmulTiled = nullptr;

  static MlirKernels& get() {
    static MlirKernels k = make();
    return k;
  }

 private:
  static MlirKernels make() {
    MlirKernels k;
    auto module =
        memjit::bench::loweredPeerModule({"add", "saxpy", "sum", "transpose", "matmul_naive", "matmul_tiled"});
    if (!module) return k.error = llvm::toString(module.takeError()), std::move(k);
    // As mlir-cpu-runner does: O3 for the host CPU, its features and TTI.
    auto tmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!tmb) return k.error = llvm::toString(tmb.takeError()), std::move(k);
    tmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    auto tm = tmb->createTargetMachine();
    if (!tm) return k.error = llvm::toString(tm.takeError()), std::move(k);
    mlir::ExecutionEngineOptions options;
    options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
    options.transformer = mlir::makeOptimizingTransformer(3, 0, tm->get());
    auto engine = mlir::ExecutionEngine::create(**module, options, std::move(*tm));
    if (!engine) return k.error = llvm::toString(engine.takeError()), std::move(k);
    k.engine = std::move(*engine);
    auto look = [&](const char* name, void*& slot) {
      auto p = k.engine->lookup(std::string("_mlir_ciface_") + name);
      if (!p) return k.error = llvm::toString(p.takeError()), void();
      slot = reinterpret_cast<void*>(*p);
    };
    look("add", k.add);
    look("saxpy", k.saxpy);
    look("sum", k.sum);
    look("transpose", k.transpose);
    look("matmul_naive", k.matmulNaive);
    look("matmul_tiled", k.matmulTiled);
    return k;
  }
};
#endif

// --------------------------------------------------------------- harness ---
struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using Floats = std::unique_ptr<float[], AlignedFree>;
void fill(float* p, std::int64_t n, float seed) {
  for (std::int64_t i = 0; i < n; ++i) p[i] = seed + 0.25f * float(i % 61) - 0.125f * float(i % 7);
}
Floats floats(std::int64_t n, float seed) {
  std::size_t bytes = (static_cast<std::size_t>(n) * sizeof(float) + 63) / 64 * 64;
  Floats p(static_cast<float*>(std::aligned_alloc(64, bytes)));
  fill(p.get(), n, seed);
  return p;
}
// A timed buffer, filled as floats() fills it. Up to 1 MiB (the sizes that run from L1 or L2) every system's run at
// one kernel, size and slot gets the same buffer, so twins compare the same addresses (runs that each allocated
// their own got other addresses than their twin in 3-5 of 10 repetitions, and saxpy/262144's ratio spread over
// 0.94-1.07 instead of 0.99-1.01). Larger buffers are allocated per run (each its own pages).
class Buffer {
 public:
  Buffer(const char* kernel, int slot, std::int64_t n, float seed) {
    if (std::size_t(n) * sizeof(float) > (std::size_t{1} << 20)) {
      owned_ = floats(n, seed);
      p_ = owned_.get();
      return;
    }
    static std::map<std::tuple<std::string, int, std::int64_t>, Floats> shared;
    Floats& f = shared[{kernel, slot, n}];
    if (f) fill(f.get(), n, seed);
    else f = floats(n, seed);
    p_ = f.get();
  }
  float* get() const { return p_; }

 private:
  Floats owned_;
  float* p_ = nullptr;
};
Vec vec(const Buffer& p, std::int64_t n) { return runtime::makeView<float, 1>(p.get(), {n}); }
Mat mat(const Floats& p, std::int64_t r, std::int64_t c) { return runtime::makeView<float, 2>(p.get(), {r, c}); }

// This thread's CPU time: on a shared machine, wall time also counts the
// time other processes held the core.
double cpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

std::map<double, double>& memcpyGBs() {  // traffic bytes -> GB/s of the Memcpy run
  static std::map<double, double> m;
  return m;
}

// Runs `body` in the benchmark loop and reports GB/s (and of_memcpy) for `traffic` bytes per call.
template <typename F>
void timed(benchmark::State& state, double traffic, F&& body) {
  double t0 = cpuSeconds();
  for (auto _ : state) {
    body();
    benchmark::ClobberMemory();
  }
  double seconds = cpuSeconds() - t0;
  double gbs = traffic * double(state.iterations()) / seconds * 1e-9;
  state.counters["GB/s"] = gbs;
  auto it = memcpyGBs().find(traffic);
  if (it != memcpyGBs().end()) state.counters["of_memcpy"] = gbs / it->second;
}

bool close(float a, float b) { return std::fabs(a - b) <= 1e-3f * std::max(1.0f, std::fabs(b)); }
bool same(const float* a, const float* b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    if (!close(a[i], b[i])) return false;
  return true;
}

enum class System { Memjit, MemjitNt, Native, NativeMemref, Mlir };
const char* systemName(System s) {
  switch (s) {
    case System::Memjit: return "memjit";
    case System::MemjitNt: return "memjit_nt";
    case System::Native: return "native";
    case System::NativeMemref: return "native_memref";
    case System::Mlir: return "mlir";
  }
  return "?";
}

// Null (with the benchmark skipped) when the system cannot run.
bool ready(benchmark::State& state, System s) {
  if (s == System::Mlir) {
#ifdef MEMJIT_HAVE_MLIR
    if (!MlirKernels::get().error.empty()) return state.SkipWithError(MlirKernels::get().error.c_str()), false;
    return true;
#else
    return state.SkipWithError("built without MLIR"), false;
#endif
  }
  if (s != System::Native && s != System::NativeMemref && !MemjitKernels::get().error.empty())
    return state.SkipWithError(MemjitKernels::get().error.c_str()), false;
  return true;
}

template <typename F, typename... A>
void mlirCall(void* fn, A... args) {
  reinterpret_cast<F*>(fn)(args...);
}

void benchMemcpy(benchmark::State& state) {
  const double traffic = double(state.range(0));
  const std::int64_t n = state.range(0) / 2 / std::int64_t(sizeof(float));
  Floats src = floats(n, 1.0f), dst = floats(n, 0.0f);
  double t0 = cpuSeconds();
  for (auto _ : state) {
    std::memcpy(dst.get(), src.get(), std::size_t(n) * sizeof(float));
    benchmark::ClobberMemory();
  }
  double seconds = cpuSeconds() - t0;
  double gbs = traffic * double(state.iterations()) / seconds * 1e-9;
  state.counters["GB/s"] = gbs;
  memcpyGBs()[traffic] = gbs;
}

void benchAdd(benchmark::State& state, System s) {
  if (!ready(state, s)) return;
  const std::int64_t n = state.range(0);
  Buffer a("add", 0, n, 1.0f), b("add", 1, n, 2.0f), out("add", 2, n, 0.0f);
  Floats ref = floats(n, 0.0f);
  Vec va = vec(a, n), vb = vec(b, n), vo = vec(out, n);
  auto& k = MemjitKernels::get();
  auto run = [&] {
    switch (s) {
      case System::Memjit: (*k.add)(va, vb, vo); break;
      case System::MemjitNt: (*k.addNt)(va, vb, vo); break;
      case System::Native: nativeAdd(a.get(), b.get(), out.get(), n); break;
      case System::NativeMemref: nativeAddMemrefPointer(&va, &vb, &vo); break;
      case System::Mlir:
#ifdef MEMJIT_HAVE_MLIR
        mlirCall<void(Vec*, Vec*, Vec*)>(MlirKernels::get().add, &va, &vb, &vo);
#endif
        break;
    }
  };
  run();
  nativeAdd(a.get(), b.get(), ref.get(), n);
  if (!same(out.get(), ref.get(), n)) return state.SkipWithError("wrong result");
  timed(state, 3.0 * 4 * double(n), run);
}

void benchSaxpy(benchmark::State& state, System s) {
  if (!ready(state, s)) return;
  const std::int64_t n = state.range(0);
  Buffer x("saxpy", 0, n, 1.0f), y("saxpy", 1, n, 2.0f);
  Floats ref = floats(n, 2.0f);
  Vec vx = vec(x, n), vy = vec(y, n);
  auto& k = MemjitKernels::get();
  // alpha = 1 and -1 alternately keep y bounded over many iterations.
  float alpha = 1.0f;
  auto run = [&] {
    switch (s) {
      case System::Native: nativeSaxpy(alpha, x.get(), y.get(), n); break;
      case System::Mlir:
#ifdef MEMJIT_HAVE_MLIR
        mlirCall<void(float, Vec*, Vec*)>(MlirKernels::get().saxpy, alpha, &vx, &vy);
#endif
        break;
      default: (*k.saxpy)(alpha, vx, vy); break;
    }
    alpha = -alpha;
  };
  run();
  nativeSaxpy(1.0f, x.get(), ref.get(), n);
  if (!same(y.get(), ref.get(), n)) return state.SkipWithError("wrong result");
  timed(state, 3.0 * 4 * double(n), run);
}

void benchSum(benchmark::State& state, System s) {
  if (!ready(state, s)) return;
  const std::int64_t n = state.range(0);
  Buffer x("sum", 0, n, 1.0f);
  Vec vx = vec(x, n);
  auto& k = MemjitKernels::get();
  float result = 0;
  auto run = [&] {
    switch (s) {
      case System::Native: result = nativeSum(x.get(), n); break;
      case System::Mlir:
#ifdef MEMJIT_HAVE_MLIR
        result = reinterpret_cast<float (*)(Vec*)>(MlirKernels::get().sum)(&vx);
#endif
        break;
      default: result = (*k.sum)(vx); break;
    }
    benchmark::DoNotOptimize(result);
  };
  run();
  if (result != nativeSum(x.get(), n)) return state.SkipWithError("wrong result");  // same order: bit-equal
  timed(state, 4.0 * double(n), run);
}

void benchTranspose(benchmark::State& state, System s) {
  if (!ready(state, s)) return;
  const std::int64_t n = state.range(0);  // n x n
  Floats in = floats(n * n, 1.0f), out = floats(n * n, 0.0f), ref = floats(n * n, 0.0f);
  Mat vi = mat(in, n, n), vo = mat(out, n, n);
  auto& k = MemjitKernels::get();
  auto run = [&] {
    switch (s) {
      case System::Memjit: (*k.transpose)(vi, vo); break;
      case System::MemjitNt: (*k.transposeNt)(vi, vo); break;
      case System::Native: nativeTranspose(in.get(), out.get(), n, n); break;
      case System::NativeMemref: break;  // registered for add only
      case System::Mlir:
#ifdef MEMJIT_HAVE_MLIR
        mlirCall<void(Mat*, Mat*)>(MlirKernels::get().transpose, &vi, &vo);
#endif
        break;
    }
  };
  run();
  referenceTranspose(in.get(), ref.get(), n, n);
  if (!same(out.get(), ref.get(), n * n)) return state.SkipWithError("wrong result");
  timed(state, 2.0 * 4 * double(n * n), run);
}

void benchMatmul(benchmark::State& state, System s, bool tiled) {
  if (!ready(state, s)) return;
  const std::int64_t n = state.range(0);
  Floats A = floats(n * n, 1.0f), B = floats(n * n, -1.0f), C = floats(n * n, 0.0f), ref = floats(n * n, 0.0f);
  Mat va = mat(A, n, n), vb = mat(B, n, n), vc = mat(C, n, n);
  auto& k = MemjitKernels::get();
  auto run = [&] {
    switch (s) {
      case System::Native:
        (tiled ? nativeMatmulTiled : nativeMatmulNaive)(A.get(), B.get(), C.get(), n, n, n);
        break;
      case System::Mlir:
#ifdef MEMJIT_HAVE_MLIR
        mlirCall<void(Mat*, Mat*, Mat*)>(tiled ? MlirKernels::get().matmulTiled : MlirKernels::get().matmulNaive, &va,
                                         &vb, &vc);
#endif
        break;
      default: (*(tiled ? k.matmulTiled : k.matmulNaive))(va, vb, vc); break;
    }
  };
  run();
  nativeMatmulNaive(A.get(), B.get(), ref.get(), n, n, n);
  if (!same(C.get(), ref.get(), n * n)) return state.SkipWithError("wrong result");
  double t0 = cpuSeconds();
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  double seconds = cpuSeconds() - t0;
  state.counters["GFLOP/s"] = 2.0 * double(n) * double(n) * double(n) * double(state.iterations()) / seconds * 1e-9;
}

int registerAll() {
  const std::vector<std::int64_t> vecSizes{4096, 262144, 4194304, 16777216};
  const std::vector<std::int64_t> transposeSizes{64, 512, 2048, 4096};
  // The Memcpy baselines first, so the kernels find them: one per memory-bound traffic size.
  for (std::int64_t n : {std::int64_t{4194304}, std::int64_t{16777216}}) {
    for (double traffic : {3.0 * 4 * double(n), 4.0 * double(n)})
      benchmark::RegisterBenchmark("Memcpy", benchMemcpy)->Arg(std::int64_t(traffic));
  }
  for (std::int64_t n : {std::int64_t{2048}, std::int64_t{4096}})
    benchmark::RegisterBenchmark("Memcpy", benchMemcpy)->Arg(2 * 4 * n * n);

  const System all[] = {System::Memjit, System::Native, System::Mlir};
  auto reg = [](const std::string& kernel, System s, std::int64_t size, auto fn) {
    std::string name = "Kernel/" + kernel + "/" + systemName(s);  // Arg appends "/<size>"
    benchmark::RegisterBenchmark(name.c_str(), fn)->Arg(size)->Unit(benchmark::kMicrosecond);
  };
  // add at 4096 floats fills the 48 KiB L1D of Sapphire Rapids with its three buffers; 3840 and 4352 are either
  // side of it, 2048 half of it (docs/benchmarks.md, "add at 4096").
  for (std::int64_t n : {std::int64_t{2048}, std::int64_t{3840}, std::int64_t{4352}})
    for (System s : {System::Memjit, System::Native, System::NativeMemref})
      reg("add", s, n, [s](benchmark::State& st) { benchAdd(st, s); });
  for (std::int64_t n : vecSizes) {
    for (System s : all) reg("add", s, n, [s](benchmark::State& st) { benchAdd(st, s); });
    if (n <= 262144) reg("add", System::NativeMemref, n, [](benchmark::State& st) { benchAdd(st, System::NativeMemref); });
    if (n >= 4194304) reg("add", System::MemjitNt, n, [](benchmark::State& st) { benchAdd(st, System::MemjitNt); });
  }
  for (std::int64_t n : vecSizes)
    for (System s : all) reg("saxpy", s, n, [s](benchmark::State& st) { benchSaxpy(st, s); });
  for (std::int64_t n : vecSizes)
    for (System s : all) reg("sum", s, n, [s](benchmark::State& st) { benchSum(st, s); });
  for (std::int64_t n : transposeSizes) {
    for (System s : all) reg("transpose", s, n, [s](benchmark::State& st) { benchTranspose(st, s); });
    if (n >= 2048)
      reg("transpose", System::MemjitNt, n, [](benchmark::State& st) { benchTranspose(st, System::MemjitNt); });
  }
  for (std::int64_t n : {64, 128, 256})
    for (System s : all) reg("matmul_naive", s, n, [s](benchmark::State& st) { benchMatmul(st, s, false); });
  for (std::int64_t n : {64, 256, 512, 1024})
    for (System s : all) reg("matmul_tiled", s, n, [s](benchmark::State& st) { benchMatmul(st, s, true); });
  return 0;
}
const int registered = registerAll();

}  // namespace

BENCHMARK_MAIN();
