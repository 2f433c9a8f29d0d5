// An attention block, O = softmax(Q * K^T) * V (seq x d, d = 64; the 1/sqrt(d)
// scale folded into Q), as one memjit function that calls the kernel library
// (addSgemm, addSoftmax, addSgemm) with two seq x seq temporaries it allocs
// (the arena's case: docs/runtime.md, "Temporaries"), against OpenBLAS's
// cblas_sgemm (one thread) with a C++ softmax into buffers made once, and
// against memjit's own parts timed alone. Same run, same inputs:
//
//   Kernel/attention/memjit/<seq>           the one function, temporaries from the arena
//   Kernel/attention/memjit_malloc/<seq>    the same built with FunctionOptions::temporariesOnHeap
//   Kernel/attention/memjit_parts/<seq>     sgemm, softmax, sgemm called from C++ into buffers made once
//   Kernel/attention/native_openblas/<seq>  cblas_sgemm, softmax (g++ -O3 -march=native), cblas_sgemm
//
// Each system's output is checked against a double-precision reference once per size.
// Where OpenBLAS misdetects an AVX-512 CPU the benchmark re-executes itself
// with its AVX-512 kernels (bench/openblas_core.h).
#include <benchmark/benchmark.h>

#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "jit_kernels.h"
#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "openblas_core.h"

using namespace memjit;
using Mat = runtime::StridedMemRef<float, 2>;

namespace {

constexpr std::int64_t kD = 64;
using Block = void(Mat*, Mat*, Mat*, Mat*);
using Binary = void(Mat*, Mat*, Mat*);
using Unary = void(Mat*, Mat*);

[[noreturn]] void die(const Error& e) {
  std::fprintf(stderr, "%s\n", e.str().c_str());
  std::abort();
}

// attention(q, kt, v, out): s = q * kt; p = softmax(s); out = p * v.
void addAttention(codegen::Module& m, const std::string& name, bool heap) {
  auto type = parseFunctionType("(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()");
  if (!type) die(type.error());
  codegen::FunctionOptions o;
  o.temporariesOnHeap = heap;
  codegen::FunctionBuilder b(m, name, *type, o);
  codegen::Value q = b.arg(0), kt = b.arg(1), v = b.arg(2), out = b.arg(3);
  codegen::Value seq = b.dim(q, 0);
  const MemRefType square(ElementType::F32, {kDynamic, kDynamic});
  codegen::Value s = b.alloc(square, {seq, seq});
  codegen::Value p = b.alloc(square, {seq, seq});
  b.call("sgemm", {q, kt, s});
  b.call("softmax", {s, p});
  b.call("sgemm", {p, v, out});
  if (heap) {
    b.dealloc(s);
    b.dealloc(p);
  }
  b.ret();
  if (Error e = b.finish()) die(e);
}

struct Kernels {
  bench::JitKernels jit;
  Block* attention = nullptr;
  Block* attentionMalloc = nullptr;
  Binary* sgemm = nullptr;
  Unary* softmax = nullptr;
};

Kernels& kernels() {
  static Kernels k = [] {
    Kernels r;
    r.jit = bench::JitKernels::make("attention", [](codegen::Module& m) -> Error {
      if (Error e = codegen::addSgemm(m, "sgemm")) return e;
      if (Error e = codegen::addSoftmax(m, "softmax")) return e;
      addAttention(m, "attention", false);
      addAttention(m, "attention_malloc", true);
      return Error::success();
    }, jit::JitOptions{});
    if (!r.jit.error.empty()) {
      std::fprintf(stderr, "bench_attention: %s\n", r.jit.error.c_str());
      std::abort();
    }
    r.attention = reinterpret_cast<Block*>(r.jit.get("attention"));
    r.attentionMalloc = reinterpret_cast<Block*>(r.jit.get("attention_malloc"));
    r.sgemm = reinterpret_cast<Binary*>(r.jit.get("sgemm"));
    r.softmax = reinterpret_cast<Unary*>(r.jit.get("softmax"));
    return r;
  }();
  return k;
}

struct Problem {
  std::int64_t seq;
  std::vector<float> q, kt, v, out, s, p;
  explicit Problem(std::int64_t n) : seq(n), q(n * kD), kt(kD * n), v(n * kD), out(n * kD), s(n * n), p(n * n) {
    std::uint32_t x = static_cast<std::uint32_t>(n) * 2654435761u + 1;
    for (auto* m : {&q, &kt, &v})
      for (float& e : *m) {
        x = x * 1664525u + 1013904223u;
        e = static_cast<float>(static_cast<int>(x >> 20) % 2001 - 1000) / 4096.0f;
      }
  }
  static Mat view(std::vector<float>& b, std::int64_t rows, std::int64_t cols) {
    return {b.data(), b.data(), 0, {rows, cols}, {cols, 1}};
  }
};

void softmaxRows(const float* in, float* out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* r = in + i * cols;
    float* o = out + i * cols;
    float m = -INFINITY;
    for (std::int64_t j = 0; j < cols; ++j) m = std::fmax(m, r[j]);
    float sum = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      o[j] = std::exp(r[j] - m);
      sum += o[j];
    }
    const float scale = 1.0f / sum;
    for (std::int64_t j = 0; j < cols; ++j) o[j] *= scale;
  }
}

enum class System { Memjit, MemjitMalloc, MemjitParts, NativeOpenblas };

void run(System system, Problem& pr) {
  const std::int64_t n = pr.seq;
  Mat q = Problem::view(pr.q, n, kD), kt = Problem::view(pr.kt, kD, n), v = Problem::view(pr.v, n, kD),
      out = Problem::view(pr.out, n, kD), s = Problem::view(pr.s, n, n), p = Problem::view(pr.p, n, n);
  Kernels& k = kernels();
  switch (system) {
    case System::Memjit: k.attention(&q, &kt, &v, &out); break;
    case System::MemjitMalloc: k.attentionMalloc(&q, &kt, &v, &out); break;
    case System::MemjitParts:
      k.sgemm(&q, &kt, &s);
      k.softmax(&s, &p);
      k.sgemm(&p, &v, &out);
      break;
    case System::NativeOpenblas:
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(n), kD, 1.0f,
                  pr.q.data(), kD, pr.kt.data(), static_cast<int>(n), 0.0f, pr.s.data(), static_cast<int>(n));
      softmaxRows(pr.s.data(), pr.p.data(), n, n);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), kD, static_cast<int>(n), 1.0f,
                  pr.p.data(), static_cast<int>(n), pr.v.data(), kD, 0.0f, pr.out.data(), kD);
      break;
  }
}

// The largest error of `out` against a double-precision attention, relative to the largest output.
double errorOf(const Problem& pr) {
  const std::int64_t n = pr.seq;
  double worst = 0, largest = 0;
  std::vector<double> row(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    double m = -INFINITY, sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (std::int64_t c = 0; c < kD; ++c) dot += double(pr.q[i * kD + c]) * pr.kt[c * n + j];
      row[j] = dot;
      m = std::max(m, dot);
    }
    for (auto& e : row) sum += (e = std::exp(e - m));
    for (std::int64_t c = 0; c < kD; ++c) {
      double o = 0;
      for (std::int64_t j = 0; j < n; ++j) o += row[j] / sum * pr.v[j * kD + c];
      worst = std::max(worst, std::abs(o - pr.out[i * kD + c]));
      largest = std::max(largest, std::abs(o));
    }
  }
  return worst / largest;
}

void BM_Attention(benchmark::State& state, System system, std::int64_t seq) {
  Problem pr(seq);
  run(system, pr);
  if (const double e = errorOf(pr); !(e < 1e-4)) {
    state.SkipWithError(("wrong result: relative error " + std::to_string(e)).c_str());
    return;
  }
  for (auto _ : state) {
    run(system, pr);
    benchmark::DoNotOptimize(pr.out.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(4.0 * double(seq) * double(seq) * kD, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  const bool openblasTwin = openblas_core::ensureAvx512Kernels(argv);
  openblas_set_num_threads(1);
  const std::pair<const char*, System> systems[] = {{"memjit", System::Memjit},
                                                    {"memjit_malloc", System::MemjitMalloc},
                                                    {"memjit_parts", System::MemjitParts},
                                                    {"native_openblas", System::NativeOpenblas}};
  for (std::int64_t seq : {128, 512, 1024})
    for (auto [name, system] : systems)
      if (system != System::NativeOpenblas || openblasTwin)
        benchmark::RegisterBenchmark(("Kernel/attention/" + std::string(name) + "/" + std::to_string(seq)).c_str(),
                                     BM_Attention, system, seq)
            ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
