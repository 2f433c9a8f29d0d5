// addSgemm (kernels.h) against a double-precision reference: sizes no block
// divides, skinny shapes, strided subviews, small blocks that force every
// edge, f64, parallel and checked builds.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/parallel.h"
#include "support/leaks.h"

namespace memjit::codegen {
namespace {

template <typename T>
using View = runtime::StridedMemRef<T, 2>;

// A rows x cols view at (r0, c0) of a row-major buffer with `ld` columns.
template <typename T>
View<T> view(std::vector<T>& buffer, std::int64_t ld, std::int64_t r0, std::int64_t c0, std::int64_t rows,
             std::int64_t cols) {
  return {buffer.data(), buffer.data(), r0 * ld + c0, {rows, cols}, {ld, 1}};
}

template <typename T>
std::vector<T> values(std::size_t n, unsigned seed) {
  std::vector<T> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = static_cast<T>(static_cast<int>(x >> 20) % 2001 - 1000) / T(256);
  }
  return v;
}

struct Shape {
  std::int64_t m, n, k;
};

// Runs C = A * B on views with padding around each operand (so a read or
// write outside the view changes a value the check sees) and compares with
// a double-precision product.
template <typename T>
void check(void (*gemm)(View<T>*, View<T>*, View<T>*), Shape s, std::int64_t pad, unsigned seed) {
  const std::int64_t lda = s.k + 2 * pad, ldb = s.n + 2 * pad, ldc = s.n + 2 * pad;
  auto a = values<T>(static_cast<std::size_t>((s.m + 2 * pad) * lda), seed);
  auto bm = values<T>(static_cast<std::size_t>((s.k + 2 * pad) * ldb), seed + 1);
  std::vector<T> c(static_cast<std::size_t>((s.m + 2 * pad) * ldc), T(7));
  const auto cBefore = c;
  auto va = view(a, lda, pad, pad, s.m, s.k), vb = view(bm, ldb, pad, pad, s.k, s.n), vc = view(c, ldc, pad, pad, s.m, s.n);
  gemm(&va, &vb, &vc);
  for (std::int64_t i = 0; i < s.m + 2 * pad; ++i)
    for (std::int64_t j = 0; j < s.n + 2 * pad; ++j) {
      const auto at = static_cast<std::size_t>(i * ldc + j);
      const bool inside = i >= pad && i < pad + s.m && j >= pad && j < pad + s.n;
      if (!inside) {
        ASSERT_EQ(c[at], cBefore[at]) << "outside the view at " << i << "," << j;
        continue;
      }
      double ref = 0, magnitude = 0;
      for (std::int64_t p = 0; p < s.k; ++p) {
        const double x = a[static_cast<std::size_t>((i) * lda + pad + p)];
        const double y = bm[static_cast<std::size_t>((pad + p) * ldb + j)];
        ref += x * y;
        magnitude += std::abs(x * y);
      }
      const double eps = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
      ASSERT_NEAR(c[at], ref, 2 * eps * (s.k + 2) * magnitude + 1e-30)
          << "C[" << i - pad << "," << j - pad << "] of " << s.m << "x" << s.n << "x" << s.k;
    }
}

// Compiled through memjit::Jit, which resolves the runtime entry points of
// checked and parallel builds.
template <typename T>
class Gemm {
 public:
  explicit Gemm(const SgemmOptions& o) {
    Module m("gemm");
    Error e = addSgemm(m, "gemm", o);
    EXPECT_FALSE(e) << e.str();
    auto j = jit::Jit::create();
    EXPECT_TRUE(j) << j.error().str();
    if (!j) return;
    jit_ = std::make_unique<jit::Jit>(std::move(*j));
    auto mod = jit_->add(std::move(m));
    EXPECT_TRUE(mod) << mod.error().str();
    if (!mod) return;
    module_.emplace(std::move(*mod));
    auto f = module_->symbol("_mlir_ciface_gemm");
    EXPECT_TRUE(f) << f.error().str();
    if (f) fn_ = reinterpret_cast<void (*)(View<T>*, View<T>*, View<T>*)>(*f);
  }
  void (*fn() const)(View<T>*, View<T>*, View<T>*) { return fn_; }

 private:
  std::unique_ptr<jit::Jit> jit_;
  std::optional<jit::LoadedModule> module_;
  void (*fn_)(View<T>*, View<T>*, View<T>*) = nullptr;
};

const Shape kShapes[] = {{1, 1, 1},    {7, 7, 7},     {17, 17, 17},  {63, 65, 63}, {65, 63, 129},
                         {129, 129, 65}, {257, 33, 257}, {1, 300, 70}, {300, 1, 70}, {5, 7, 600},
                         {40, 50, 0},  {0, 5, 5}};

TEST(Sgemm, MatchesDoubleReferenceOnSizesNoBlockDivides) {
  Gemm<float> g(SgemmOptions{});
  ASSERT_NE(g.fn(), nullptr);
  unsigned seed = 1;
  for (const Shape& s : kShapes) check(g.fn(), s, 0, seed++);
}

TEST(Sgemm, StridedSubviews) {
  Gemm<float> g(SgemmOptions{});
  ASSERT_NE(g.fn(), nullptr);
  check(g.fn(), {33, 47, 21}, 3, 5);
  check(g.fn(), {64, 64, 64}, 1, 6);
}

// Library kernels compose: a function whose memrefs have the identity layout
// calls the strided sgemm with no cast written (call casts as memref.cast).
TEST(Sgemm, IdentityLayoutCallerCallsItWithNoCast) {
  Module m("compose");
  ASSERT_FALSE(addSgemm(m, "gemm"));
  {
    const MemRefType mat(ElementType::F32, {kDynamic, kDynamic});
    FunctionBuilder b(m, "mm", FunctionType{{mat, mat, mat}, {}});
    b.call("gemm", {b.arg(0), b.arg(1), b.arg(2)});
    b.ret({});
    Error e = b.finish();
    ASSERT_FALSE(e) << e.str();
  }
  auto j = jit::Jit::create();
  ASSERT_TRUE(j) << j.error().str();
  auto mod = j->add(std::move(m));
  ASSERT_TRUE(mod) << mod.error().str();
  auto f = mod->symbol("_mlir_ciface_mm");
  ASSERT_TRUE(f) << f.error().str();
  auto mm = reinterpret_cast<void (*)(View<float>*, View<float>*, View<float>*)>(*f);
  check(mm, {33, 47, 21}, 0, 11);
  check(mm, {1, 1, 1}, 0, 12);
}

TEST(Sgemm, SmallBlocksExerciseEveryEdge) {
  SgemmOptions o;
  o.kc = 5;
  o.mc = 3;   // rounded up to one micro-kernel's rows
  o.nc = 40;  // rounded to the micro-kernel's columns
  Gemm<float> g(o);
  ASSERT_NE(g.fn(), nullptr);
  check(g.fn(), {257, 129, 17}, 2, 7);
  check(g.fn(), {31, 97, 11}, 0, 8);
}

TEST(Sgemm, MicroKernelShapesAndTargets) {
  for (VectorTarget target : {VectorTarget{128, 16, false}, VectorTarget{256, 16, true}, VectorTarget{512, 32, true}}) {
    for (unsigned rows : {0u, 1u, 3u}) {
      SgemmOptions o;
      o.target = target;
      o.rows = rows;
      o.vectors = rows == 3 ? 1 : 0;
      Gemm<float> g(o);
      ASSERT_NE(g.fn(), nullptr);
      check(g.fn(), {37, 45, 29}, 1, 9);
    }
  }
}

TEST(Sgemm, Float64) {
  SgemmOptions o;
  o.element = ElementType::F64;
  Gemm<double> g(o);
  ASSERT_NE(g.fn(), nullptr);
  check(g.fn(), {65, 31, 129}, 1, 10);
}

TEST(Sgemm, CheckedBuildComputesTheSame) {
  SgemmOptions o;
  o.checked = true;
  Gemm<float> g(o);
  ASSERT_NE(g.fn(), nullptr);
  check(g.fn(), {19, 37, 23}, 2, 11);
}

TEST(Sgemm, ParallelBuildComputesTheSame) {
  SgemmOptions o;
  o.parallel = true;
  o.mc = 20;  // several row blocks per thread
  Gemm<float> g(o);
  ASSERT_NE(g.fn(), nullptr);
  runtime::setNumThreads(3);
  check(g.fn(), {101, 77, 45}, 1, 12);
  check(g.fn(), {3, 200, 9}, 0, 13);
  runtime::setNumThreads(0);
}

TEST(Sgemm, CheckedBuildReportsMismatchedShapes) {
  SgemmOptions o;
  o.checked = true;
  Gemm<float> g(o);
  ASSERT_NE(g.fn(), nullptr);
  // A is 4 x 3 but B has only 2 rows (the packing of B would read past it).
  std::vector<float> a(12, 1), bm(2 * 5, 1), c(4 * 5, 0);
  auto va = view(a, 3, 0, 0, 4, 3), vb = view(bm, 5, 0, 0, 2, 5), vc = view(c, 5, 0, 0, 4, 5);
  // A failed check returns at once, past the frees of the packing buffers:
  // checked mode's known leak on failure (docs/checked-mode.md), accepted here.
  test::acceptingLeaks([&] {
    g.fn()(&va, &vb, &vc);
    return 0;
  });
  Error e = runtime::takeCheckFailure();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::RuntimeCheckFailed);
  EXPECT_EQ(e.message(),
            "kernel 'gemm': sgemm (A: M x K, B: K x N, C: M x N): mismatched shapes: A is 4x3, B is 2x5, C is 4x5");
}

TEST(Sgemm, CheckedBuildReportsMismatchedShapesEvenWhenEveryAccessIsInBounds) {
  SgemmOptions o;
  o.checked = true;
  Gemm<float> g(o);
  ASSERT_NE(g.fn(), nullptr);
  // A 2 x 3, B 4 x 3, C 2 x 2: B has more rows than A columns and more
  // columns than C, so every access is in bounds and the unchecked kernel
  // computes from B's first rows.
  std::vector<float> a(6, 1), bm(12, 1), c(4, 0);
  auto va = view(a, 3, 0, 0, 2, 3), vb = view(bm, 3, 0, 0, 4, 3), vc = view(c, 2, 0, 0, 2, 2);
  g.fn()(&va, &vb, &vc);
  Error e = runtime::takeCheckFailure();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::RuntimeCheckFailed);
  EXPECT_EQ(e.message(),
            "kernel 'gemm': sgemm (A: M x K, B: K x N, C: M x N): mismatched shapes: A is 2x3, B is 4x3, C is 2x2");
  EXPECT_EQ(c, std::vector<float>(4, 0));  // nothing computed
}

TEST(Sgemm, RefusesOtherElementTypes) {
  Module m("gemm");
  SgemmOptions o;
  o.element = ElementType::I32;
  Error e = addSgemm(m, "gemm", o);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  EXPECT_EQ(e.message(), "kernel 'gemm': element type i32 is not f32 or f64");
}

}  // namespace
}  // namespace memjit::codegen
