// Row-wise softmax from the kernel library (codegen::addSoftmax, written with
// the builder): the same kernel compiled exact (IEEE, the default) and with
// fast-math flags (KernelOptions::fastMath), both checked
// against plain C++ and timed. The exps call glibc's vector math library in
// both builds: the exact one gives them a loop of their own, apart from the
// in-order sum (which, like the max, stays scalar); fast-math computes exps
// and sum in one loop and lets the max and sum reductions vectorise too.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"

using namespace memjit;
using Mat = runtime::StridedMemRef<float, 2>;

int main() {
  // softmax(in) -> out, row by row: m = max(x), e = exp(x - m), y = e / sum(e).
  codegen::Module module("softmax");
  if (Error e = codegen::addSoftmax(module, "softmax")) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  if (Error e = codegen::addSoftmax(module, "softmax_fast", {.fastMath = codegen::FastMath::Fast}))
    return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  jit::JitOptions options;
  options.optLevel = jit::OptLevel::O3;
  auto jit = jit::Jit::create(options);
  if (!jit) return std::fprintf(stderr, "%s\n", jit.error().str().c_str()), 1;
  auto loaded = jit->add(std::move(module));
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().str().c_str()), 1;

  const std::int64_t rows = 256, cols = 1000;
  std::vector<float> in(rows * cols), out(rows * cols), expected(rows * cols);
  std::mt19937 rng(1);
  for (float& v : in) v = std::uniform_real_distribution<float>(-10, 10)(rng);
  for (std::int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (std::int64_t c = 0; c < cols; ++c) m = std::fmax(m, in[r * cols + c]);
    for (std::int64_t c = 0; c < cols; ++c) s += expected[r * cols + c] = std::exp(in[r * cols + c] - m);
    for (std::int64_t c = 0; c < cols; ++c) expected[r * cols + c] /= s;
  }
  Mat a{in.data(), in.data(), 0, {rows, cols}, {cols, 1}};
  Mat y{out.data(), out.data(), 0, {rows, cols}, {cols, 1}};
  for (const char* name : {"softmax", "softmax_fast"}) {
    auto fn = loaded->function(name);
    if (!fn) return std::fprintf(stderr, "%s\n", fn.error().str().c_str()), 1;
    auto* softmax = fn->cInterfaceAs<void(Mat*, Mat*)>();
    softmax(&a, &y);
    double worst = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
      worst = std::max(worst, std::fabs(static_cast<double>(out[i]) - expected[i]) / std::max(1e-30f, expected[i]));
    const auto start = std::chrono::steady_clock::now();
    const int repeats = 20;
    for (int i = 0; i < repeats; ++i) softmax(&a, &y);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / repeats;
    std::printf("%-13s %8.1f us per call, largest relative difference from C++ %.2g\n", name, us, worst);
    if (worst > 1e-5) return std::fprintf(stderr, "%s: wrong result\n", name), 1;
  }
  return 0;
}
