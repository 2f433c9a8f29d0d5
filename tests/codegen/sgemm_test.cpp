// addSgemm (kernels.h) against a double-precision reference: sizes no block
// divides, skinny shapes, strided subviews, small blocks that force every
// edge, f64, parallel and checked builds; and bit for bit against the
// documented summation order on both paths (packed, unpacked), every layout,
// shapes around the micro-kernel's and kc's edges, NaN, inf and -0.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/parallel.h"
#include "support/call_jit.h"
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
void check(const test::JitFunction<void(View<T>*, View<T>*, View<T>*)>& gemm, Shape s, std::int64_t pad, unsigned seed) {
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
    if (f) fn_ = *f;
  }
  using Fn = test::JitFunction<void(View<T>*, View<T>*, View<T>*)>;
  Fn fn() const { return Fn(fn_); }

 private:
  std::unique_ptr<jit::Jit> jit_;
  std::optional<jit::LoadedModule> module_;
  void* fn_ = nullptr;
};

const Shape kShapes[] = {{1, 1, 1},    {7, 7, 7},     {17, 17, 17},  {63, 65, 63}, {65, 63, 129},
                         {129, 129, 65}, {257, 33, 257}, {1, 300, 70}, {300, 1, 70}, {5, 7, 600},
                         {40, 50, 0},  {0, 5, 5}};

TEST(Sgemm, MatchesDoubleReferenceOnSizesNoBlockDivides) {
  Gemm<float> g(SgemmOptions{});
  ASSERT_NE(g.fn().address(), nullptr);
  unsigned seed = 1;
  for (const Shape& s : kShapes) check(g.fn(), s, 0, seed++);
}

TEST(Sgemm, StridedSubviews) {
  Gemm<float> g(SgemmOptions{});
  ASSERT_NE(g.fn().address(), nullptr);
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
  const test::JitFunction<void(View<float>*, View<float>*, View<float>*)> mm(*f);
  check(mm, {33, 47, 21}, 0, 11);
  check(mm, {1, 1, 1}, 0, 12);
}

TEST(Sgemm, SmallBlocksExerciseEveryEdge) {
  SgemmOptions o;
  o.kc = 5;
  o.mc = 3;   // rounded up to one micro-kernel's rows
  o.nc = 40;  // rounded to the micro-kernel's columns
  Gemm<float> g(o);
  ASSERT_NE(g.fn().address(), nullptr);
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
      ASSERT_NE(g.fn().address(), nullptr);
      check(g.fn(), {37, 45, 29}, 1, 9);
    }
  }
}

TEST(Sgemm, Float64) {
  SgemmOptions o;
  o.element = ElementType::F64;
  Gemm<double> g(o);
  ASSERT_NE(g.fn().address(), nullptr);
  check(g.fn(), {65, 31, 129}, 1, 10);
}

TEST(Sgemm, CheckedBuildComputesTheSame) {
  SgemmOptions o;
  o.checked = true;
  Gemm<float> g(o);
  ASSERT_NE(g.fn().address(), nullptr);
  check(g.fn(), {19, 37, 23}, 2, 11);
}

TEST(Sgemm, ParallelBuildComputesTheSame) {
  SgemmOptions o;
  o.parallel = true;
  o.mc = 20;  // several row blocks per thread
  Gemm<float> g(o);
  ASSERT_NE(g.fn().address(), nullptr);
  runtime::setNumThreads(3);
  check(g.fn(), {101, 77, 45}, 1, 12);
  check(g.fn(), {3, 200, 9}, 0, 13);
  runtime::setNumThreads(0);
}

TEST(Sgemm, CheckedBuildReportsMismatchedShapes) {
  SgemmOptions o;
  o.checked = true;
  Gemm<float> g(o);
  ASSERT_NE(g.fn().address(), nullptr);
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
  ASSERT_NE(g.fn().address(), nullptr);
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

// --- the summation-order contract (kernels.h), bit for bit ---

// A rows x cols operand in `layout`, inside a buffer with `pad` elements
// around it (offset view), filled from `seed`.
struct Operand {
  std::vector<float> data;
  View<float> view;
  Operand(std::int64_t rows, std::int64_t cols, MatrixLayout layout, std::int64_t pad, unsigned seed) {
    const bool rowMajor = layout == MatrixLayout::RowMajor;
    const std::int64_t ld = (rowMajor ? cols : rows) + 2 * pad;
    data = values<float>(static_cast<std::size_t>(((rowMajor ? rows : cols) + 2 * pad) * ld), seed);
    view = {data.data(), data.data(), pad * ld + pad, {rows, cols}, {rowMajor ? ld : 1, rowMajor ? 1 : ld}};
  }
  float& at(std::int64_t i, std::int64_t j) {
    return data[static_cast<std::size_t>(view.offset + i * view.strides[0] + j * view.strides[1])];
  }
};

// kernels.h's order: per kc block an in-order FMA chain from +0, the blocks
// added left to right.
float contractValue(Operand& a, Operand& b, std::int64_t i, std::int64_t j, std::int64_t k, std::int64_t kc) {
  float c = 0;
  for (std::int64_t pc = 0; pc < k; pc += kc) {
    float acc = 0;
    for (std::int64_t p = pc; p < std::min(k, pc + kc); ++p) acc = std::fma(a.at(i, p), b.at(p, j), acc);
    c = pc == 0 ? acc : c + acc;
  }
  return c;
}

bool sameBits(float x, float y) {
  return (std::isnan(x) && std::isnan(y)) || std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y);
}

// C = A * B on padded operands in the given layouts: every element of C has
// the contract's bits and C's surroundings are untouched.
void checkBits(const test::JitFunction<void(View<float>*, View<float>*, View<float>*)>& gemm, Shape s, MatrixLayout la, MatrixLayout lb,
               std::int64_t kc, unsigned seed, const std::function<void(Operand&, Operand&)>& edit = {}) {
  const std::int64_t pad = 2;
  Operand a(s.m, s.k, la, pad, seed), b(s.k, s.n, lb, pad, seed + 1), c(s.m, s.n, MatrixLayout::RowMajor, pad, 0);
  if (edit) edit(a, b);
  std::fill(c.data.begin(), c.data.end(), 7.0f);
  gemm(&a.view, &b.view, &c.view);
  for (std::int64_t i = -pad; i < s.m + pad; ++i)
    for (std::int64_t j = -pad; j < s.n + pad; ++j) {
      const bool inside = i >= 0 && i < s.m && j >= 0 && j < s.n;
      const float want = inside ? contractValue(a, b, i, j, s.k, kc) : 7.0f;
      ASSERT_TRUE(sameBits(c.at(i, j), want))
          << "C[" << i << "," << j << "] = " << c.at(i, j) << ", want " << want << " (" << s.m << "x" << s.n << "x"
          << s.k << ", A " << (la == MatrixLayout::RowMajor ? "row" : "column") << "-major, B "
          << (lb == MatrixLayout::RowMajor ? "row" : "column") << "-major)";
    }
}

constexpr MatrixLayout kLayouts[] = {MatrixLayout::RowMajor, MatrixLayout::ColumnMajor};
constexpr std::int64_t kAlwaysUnpacked = std::int64_t{1} << 50;

// Both paths, every layout pair, M around MR (packed 14, and 22 = 14 + the
// 8-row edge kernel; unpacked 5 on AVX-512), N around NR (32, unpacked 64),
// K around kc (192), and the empty dims.
TEST(Sgemm, EveryPathAndLayoutSumsInTheDocumentedOrder) {
  for (MatrixLayout la : kLayouts)
    for (MatrixLayout lb : kLayouts)
      for (std::int64_t direct : {std::int64_t{0}, kAlwaysUnpacked}) {
        SgemmOptions o;
        o.a = la;
        o.b = lb;
        o.directBytes = direct;
        o.kc = 192;
        Gemm<float> g(o);
        ASSERT_NE(g.fn().address(), nullptr);
        unsigned seed = 40;
        for (std::int64_t m : {0, 1, 12, 13, 14, 15, 22, 29})
          for (std::int64_t n : {0, 1, 31, 32, 33, 64, 65})
            for (std::int64_t k : {0, 1, 191, 192, 193, 385}) checkBits(g.fn(), {m, n, k}, la, lb, 192, seed++);
      }
}

// Either side of the default directBytes (a B of half the host's L2: 512
// columns of K rows) and of a chosen one.
TEST(Sgemm, BothSidesOfTheUnpackedLimit) {
  Gemm<float> byDefault(SgemmOptions{.kc = 192});
  ASSERT_NE(byDefault.fn().address(), nullptr);
  const std::int64_t k = VectorTarget::host().l2Bytes / 2 / (512 * 4);
  for (std::int64_t n : {511, 512, 513})
    checkBits(byDefault.fn(), {15, n, k}, MatrixLayout::RowMajor, MatrixLayout::RowMajor, 192, 3);
  SgemmOptions o{.kc = 192, .b = MatrixLayout::ColumnMajor, .directBytes = 33 * 40 * 4};
  Gemm<float> chosen(o);
  ASSERT_NE(chosen.fn().address(), nullptr);
  for (std::int64_t n : {32, 33, 34})
    checkBits(chosen.fn(), {20, n, 40}, MatrixLayout::RowMajor, MatrixLayout::ColumnMajor, 192, 4);
}

// The L2 size picks nc and directBytes, never the summation order: a 256
// KiB L2 packs B in 160-column blocks (two per row block here), a 4 MiB one
// runs the same problem unpacked, and both give the kc-ordered bits.
TEST(Sgemm, TheL2SizesTheBlocksButNotTheSums) {
  for (std::int64_t l2 : {256 * 1024, 4 * 1024 * 1024}) {
    SgemmOptions o{.kc = 192};
    o.target.l2Bytes = l2;
    Gemm<float> g(o);
    ASSERT_NE(g.fn().address(), nullptr);
    checkBits(g.fn(), {45, 300, 400}, MatrixLayout::RowMajor, MatrixLayout::RowMajor, 192, 21);
  }
}

// The unpacked path reads a B of at most 32 KiB in place and packs a larger
// one whole: both sides, at M around the unpacked kernel's 5 rows (and its
// 3-row edge kernel) and N around its 64 columns, a row-major A in place and
// a column-major one through its strip, on padded (strided) operands.
TEST(Sgemm, BothSidesOfTheInPlaceBLimit) {
  for (MatrixLayout la : kLayouts) {
    Gemm<float> g(SgemmOptions{.kc = 192, .a = la});
    ASSERT_NE(g.fn().address(), nullptr);
    unsigned seed = 60;
    for (std::int64_t m : {1, 3, 4, 5, 6, 13, 14, 15, 63, 64, 65})
      for (const auto& [n, k] : {std::pair<std::int64_t, std::int64_t>{64, 128}, {64, 129}, {65, 126}, {65, 127},
                                 {13, 630}, {13, 631}, {1, 8192}, {1, 8193}})
        checkBits(g.fn(), {m, n, k}, la, MatrixLayout::RowMajor, 192, seed++);
  }
}

// NaN and inf reach exactly the elements whose sums they enter, also from
// the last row and column (for the rows past M, both paths re-read row
// M - 1 of a row-major A; lanes past N are zero-padded, or repeat column
// N - 1 of a column-major B where it is packed); -0 products
// sum as the contract says.
TEST(Sgemm, NanInfAndNegativeZeroPropagateAsInTheContract) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (MatrixLayout la : kLayouts)
    for (MatrixLayout lb : kLayouts)
      for (std::int64_t direct : {std::int64_t{0}, kAlwaysUnpacked}) {
        SgemmOptions o{.kc = 192, .a = la, .b = lb, .directBytes = direct};
        Gemm<float> g(o);
        ASSERT_NE(g.fn().address(), nullptr);
        // N 70: a column-major A is copied into zero-padded strips (N > NR),
        // and unpacked, a row-major B of 56 KB is packed (33 columns: 26 KB, in place).
        for (const Shape s : {Shape{29, 33, 200}, Shape{29, 70, 200}})
          checkBits(g.fn(), s, la, lb, 192, 5, [&](Operand& a, Operand& b) {
            a.at(s.m - 1, 3) = inf;  // row M - 1: also what the rows past M re-read
            a.at(4, 195) = nan;      // in the second kc block
            b.at(7, s.n - 1) = -inf;  // column N - 1: the last, partial vector
            b.at(0, 0) = 0.0f;
            for (std::int64_t p = 0; p < s.k; ++p) a.at(2, p) = -0.0f;  // row 2: -0 products only
          });
      }
}

TEST(Sgemm, CheckedAndParallelBuildsKeepTheOrderOnBothPaths) {
  for (bool checked : {true, false})
    for (std::int64_t direct : {std::int64_t{0}, kAlwaysUnpacked}) {
      SgemmOptions o{.kc = 192, .a = MatrixLayout::ColumnMajor, .b = MatrixLayout::ColumnMajor,
                     .directBytes = direct, .parallel = !checked, .checked = checked};
      Gemm<float> g(o);
      ASSERT_NE(g.fn().address(), nullptr);
      runtime::setNumThreads(3);
      checkBits(g.fn(), {45, 70, 230}, o.a, o.b, 192, 6);
      runtime::setNumThreads(0);
    }
}

// The packed path's blocks: kc 20 (a row-major A's packed rows are 32
// long: 16 copied whole, 4 through a masked read), two A panels per row
// block (mc 28: several row blocks, and the next panel's prefetch past the
// block), two B panels per column block (nc 64: A re-read from its pack in
// later column blocks; B's row-ordered packing with a partial last panel),
// every layout, serial and parallel, on padded (strided) operands.
TEST(Sgemm, PackedBlocksSumInTheDocumentedOrder) {
  for (MatrixLayout la : kLayouts)
    for (MatrixLayout lb : kLayouts)
      for (bool parallel : {false, true}) {
        SgemmOptions o{.kc = 20, .mc = 28, .nc = 64, .a = la, .b = lb, .directBytes = 0, .parallel = parallel};
        Gemm<float> g(o);
        ASSERT_NE(g.fn().address(), nullptr);
        runtime::setNumThreads(parallel ? 3 : 0);
        unsigned seed = 80;
        for (std::int64_t m : {1, 14, 15, 29, 43})
          for (std::int64_t n : {1, 32, 33, 64, 65, 129})
            for (std::int64_t k : {1, 16, 20, 21, 41, 57}) checkBits(g.fn(), {m, n, k}, la, lb, 20, seed++);
        runtime::setNumThreads(0);
      }
}

// The packed path for f64 and for narrower targets (their B prefetches
// cover every other vector), against the double-precision reference.
TEST(Sgemm, PackedPathOnOtherElementsAndTargets) {
  SgemmOptions f64{.element = ElementType::F64, .kc = 40, .nc = 48, .directBytes = 0};
  Gemm<double> g64(f64);
  ASSERT_NE(g64.fn().address(), nullptr);
  check(g64.fn(), {65, 31, 129}, 1, 14);
  check(g64.fn(), {29, 97, 83}, 0, 15);
  for (VectorTarget target : {VectorTarget{128, 16, false}, VectorTarget{256, 16, true}}) {
    SgemmOptions o{.kc = 24, .nc = 40, .directBytes = 0};
    o.target = target;
    Gemm<float> g(o);
    ASSERT_NE(g.fn().address(), nullptr);
    check(g.fn(), {37, 45, 61}, 1, 16);
  }
}

}  // namespace
}  // namespace memjit::codegen
