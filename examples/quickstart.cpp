// memjit in one file: build a kernel, look at its signature metadata, compile
// it in-process, call it like a C++ function, check it, and time it against
// the same loop compiled by the C++ compiler.   Run: ./dev.sh demo
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/signature/raw_signature.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using Vec = runtime::StridedMemRef<float, 1>;  // laid out like MLIR's StridedMemRefType<float, 1>

// The same loop in plain C++. The examples are not built with -march=native,
// so on x86-64 the compiler makes one clone per ISA level and the loader
// picks the best for this CPU (what -march=native would have chosen).
// (Not under sanitizers: ifunc resolvers run before their runtime starts.)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define QUICKSTART_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && defined(__ELF__) && !defined(__SANITIZE_ADDRESS__) && !defined(QUICKSTART_SANITIZED)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
__attribute__((noinline)) void nativeSaxpy(float alpha, const float* __restrict x, const float* __restrict y,
                                           float* __restrict out, long n) {
  for (long i = 0; i < n; ++i) out[i] = alpha * x[i] + y[i];
}

static int fail(const Error& e) {
  std::fprintf(stderr, "quickstart: %s\n", e.str().c_str());
  return 1;
}

// Best of `reps` timings of `f`, in nanoseconds.
template <typename F>
static double bestNs(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

int main() {
  // 1. State the function's type in MLIR syntax and build its body.
  auto type = parseFunctionType("(f32, memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()");
  if (!type) return fail(type.error());
  codegen::Module module("quickstart");
  codegen::FunctionOptions options;
  options.noalias = true;  // the buffers never overlap: lets LLVM vectorise without runtime checks
  {
    codegen::FunctionBuilder b(module, "saxpy", *type, options);
    codegen::Value alpha = b.arg(0), x = b.arg(1), y = b.arg(2), out = b.arg(3);
    b.forLoop(b.index(0), b.dim(out, 0), b.index(1), [&](codegen::Value i) {
      b.store(alpha * b.load(x, {i}) + b.load(y, {i}), out, {i});  // out[i] = alpha * x[i] + y[i]
    });
    b.ret();
    if (Error e = b.finish()) return fail(e);
  }

  // 2. Compile it for this CPU at O3 and get a handle carrying its metadata.
  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O3});
  if (!jit) return fail(jit.error());
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error());
  auto saxpy = loaded->function("saxpy");
  if (!saxpy) return fail(saxpy.error());
  const signature::FunctionSignature& sig = saxpy->signature();
  std::printf("function   %s : %s\n", sig.name.c_str(), toString(sig.type).c_str());
  auto raw = signature::parseRawSignature(sig.raw);
  if (!raw) return fail(raw.error());
  std::printf("raw ABI    %s   = %s\n", sig.raw.c_str(), signature::toString(*raw).c_str());
  std::printf("iree.abi   %s\n", sig.reflection.c_str());
  std::printf("host CPU   %s\n\n", jit->target().cpu.c_str());

  // 3. A typed invoker: the C++ signature is checked against the metadata
  //    once; each call is then a direct call of `_mlir_ciface_saxpy`.
  auto call = saxpy->as<void(float, Vec, Vec, Vec)>();
  if (!call) return fail(call.error());

  // 4. Call it and check every element against plain C++.
  const long n = 1000;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (long i = 0; i < n; ++i) x[i] = 0.5f * float(i % 97), y[i] = 3.0f - float(i % 13);
  (*call)(2.5f, runtime::makeView(x), runtime::makeView(y), runtime::makeView(out));
  for (long i = 0; i < n; ++i) {
    float expect = 2.5f * x[i] + y[i];
    if (std::fabs(out[i] - expect) > 1e-5f * std::max(1.0f, std::fabs(expect))) {
      std::fprintf(stderr, "quickstart: out[%ld] = %g, expected %g\n", i, double(out[i]), double(expect));
      return 1;
    }
  }
  std::printf("checked    %ld elements against C++: all equal\n\n", n);

  // 5. Time memjit against the C++ compiler's build of the same loop.
  std::printf("%10s %14s %14s %8s\n", "elements", "memjit GB/s", "C++ GB/s", "ratio");
  for (long size : {4096L, 262144L, 4194304L}) {
    std::vector<float> a(size, 1.0f), c(size, 2.0f), r(size), r2(size);
    Vec va = runtime::makeView(a), vc = runtime::makeView(c), vr = runtime::makeView(r);
    int reps = int(std::clamp(200000000L / size, 10L, 20000L));
    double jitNs = bestNs(reps, [&] { (*call)(2.0f, va, vc, vr); });
    double cppNs = bestNs(reps, [&] { nativeSaxpy(2.0f, a.data(), c.data(), r2.data(), size); });
    if (r != r2) {
      std::fprintf(stderr, "quickstart: memjit and C++ disagree at size %ld\n", size);
      return 1;
    }
    double bytes = 3.0 * sizeof(float) * double(size);  // two reads, one write per element
    std::printf("%10ld %14.1f %14.1f %7.2fx\n", size, bytes / jitNs, bytes / cppNs, cppNs / jitNs);
  }
  std::printf("\n(ratio > 1: memjit faster; best of many runs, noisy on a shared machine)\n");
  return 0;
}
