// The kernel library, compiled with LLJIT and called through the C
// interfaces with MLIR-layout descriptors, against plain C++ references.
#include "memjit/codegen/kernels.h"

#include <gtest/gtest.h>

#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <vector>

#include "memjit/runtime/memref.h"
#include "support/llvm_jit.h"

// memjit's descriptors have MLIR's layout (tests/runtime/memref_test.cpp checks
// that against CRunnerUtils.h), so this test needs no MLIR installed.
template <typename T, int N>
using StridedMemRefType = memjit::runtime::StridedMemRef<T, N>;
template <typename T>
using UnrankedMemRefType = memjit::runtime::UnrankedMemRef<T>;

namespace memjit::codegen {
namespace {

template <typename T>
StridedMemRefType<T, 1> view1(std::vector<T>& v) {
  return {v.data(), v.data(), 0, {static_cast<int64_t>(v.size())}, {1}};
}
template <typename T>
StridedMemRefType<T, 2> view2(std::vector<T>& v, int64_t rows, int64_t cols) {
  return {v.data(), v.data(), 0, {rows, cols}, {cols, 1}};
}

std::vector<float> ramp(std::size_t n, float scale, float bias) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 17) + bias;
  return v;
}

struct Compiled {
  test::TestJit jit;
  template <typename F>
  F* get(const std::string& name) {
    auto f = jit.function<F>("_mlir_ciface_" + name);
    EXPECT_TRUE(f.ok()) << f.error().str();
    return f.ok() ? *f : nullptr;
  }
};

std::unique_ptr<Compiled> compile(Module m, bool optimize = true) {
  auto c = std::make_unique<Compiled>();
  Error e = c->jit.add(std::move(m), optimize);
  EXPECT_FALSE(e) << e.str();
  return c;
}

TEST(Kernels, ElementwiseAddMatchesReference) {
  for (bool nontemporal : {false, true}) {
    Module m("k");
    ASSERT_FALSE(addElementwiseAdd(m, "add", {ElementType::F32, true, nontemporal}));
    auto c = compile(std::move(m));
    auto* add = c->get<void(StridedMemRefType<float, 1>*, StridedMemRefType<float, 1>*, StridedMemRefType<float, 1>*)>("add");
    ASSERT_NE(add, nullptr);
    auto a = ramp(1003, 0.5f, 1.0f), b = ramp(1003, -2.0f, 3.0f);
    std::vector<float> out(1003, -1.0f);
    auto va = view1(a), vb = view1(b), vo = view1(out);
    add(&va, &vb, &vo);
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], a[i] + b[i]) << i;
  }
}

TEST(Kernels, SaxpyMatchesReference) {
  Module m("k");
  ASSERT_FALSE(addSaxpy(m, "saxpy"));
  auto c = compile(std::move(m));
  auto* saxpy = c->get<void(float, StridedMemRefType<float, 1>*, StridedMemRefType<float, 1>*)>("saxpy");
  ASSERT_NE(saxpy, nullptr);
  auto x = ramp(515, 1.5f, -4.0f), y = ramp(515, 0.25f, 2.0f);
  auto expect = y;
  for (std::size_t i = 0; i < x.size(); ++i) expect[i] = std::fma(2.5f, x[i], y[i]);
  auto vx = view1(x), vy = view1(y);
  saxpy(2.5f, &vx, &vy);
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_FLOAT_EQ(y[i], expect[i]) << i;
}

TEST(Kernels, MatmulMatchesReference) {
  Module m("k");
  ASSERT_FALSE(addMatmul(m, "matmul", {ElementType::F64}));
  auto c = compile(std::move(m));
  using D = StridedMemRefType<double, 2>;
  auto* mm = c->get<void(D*, D*, D*)>("matmul");
  ASSERT_NE(mm, nullptr);
  const int64_t M = 7, K = 13, N = 5;
  std::vector<double> A(M * K), B(K * N), C(M * N, 99.0), R(M * N, 0.0);
  for (int64_t i = 0; i < M * K; ++i) A[i] = (i % 11) * 0.5 - 2;
  for (int64_t i = 0; i < K * N; ++i) B[i] = (i % 7) * 0.25 + 1;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) R[i * N + j] += A[i * K + k] * B[k * N + j];
  D a = view2(A, M, K), b = view2(B, K, N), cc = view2(C, M, N);
  mm(&a, &b, &cc);
  for (int64_t i = 0; i < M * N; ++i) ASSERT_DOUBLE_EQ(C[i], R[i]) << i;
}

TEST(Kernels, SumMatchesReference) {
  Module m("k");
  ASSERT_FALSE(addSum(m, "sum", {ElementType::F64}));
  auto c = compile(std::move(m), false);
  auto* sum = c->get<double(StridedMemRefType<double, 1>*)>("sum");
  ASSERT_NE(sum, nullptr);
  std::vector<double> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) * 0.5;
  auto vx = view1(x);
  EXPECT_DOUBLE_EQ(sum(&vx), std::accumulate(x.begin(), x.end(), 0.0));
  std::vector<double> empty;
  auto ve = view1(empty);
  EXPECT_EQ(sum(&ve), 0.0);
}

// softmax(row) computed as the kernel states it: max by fmax (NaNs ignored),
// e = exp(x - max), out = e * (1 / sum(e)), all in float.
std::vector<float> referenceSoftmax(const std::vector<float>& in, int64_t rows, int64_t cols) {
  std::vector<float> out(in.size());
  for (int64_t r = 0; r < rows; ++r) {
    float max = -std::numeric_limits<float>::infinity(), sum = 0;
    for (int64_t c = 0; c < cols; ++c) max = std::fmax(max, in[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) sum += out[r * cols + c] = std::exp(in[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] *= 1.0f / sum;
  }
  return out;
}

using SoftmaxFn = void(StridedMemRefType<float, 2>*, StridedMemRefType<float, 2>*);

// Runs `softmax` on `in` (rows x cols) and compares with the reference: NaN
// where it has NaN, else within a few ulps (exp may be the vector library's).
void expectSoftmax(SoftmaxFn* softmax, std::vector<float> in, int64_t rows, int64_t cols, float tolerance = 4e-7f) {
  std::vector<float> out(in.size(), -1.0f);
  auto vi = view2(in, rows, cols), vo = view2(out, rows, cols);
  softmax(&vi, &vo);
  const auto expected = referenceSoftmax(in, rows, cols);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::isnan(expected[i]))
      ASSERT_TRUE(std::isnan(out[i])) << "at " << i << ": " << out[i];
    else
      ASSERT_NEAR(out[i], expected[i], tolerance * std::fmax(1.0f, std::fabs(expected[i]))) << "at " << i;
  }
}

SoftmaxFn* softmaxOf(Compiled& c) { return c.get<SoftmaxFn>("softmax"); }

TEST(Kernels, SoftmaxMatchesReference) {
  for (bool nontemporal : {false, true}) {
    Module m("k");
    ASSERT_FALSE(addSoftmax(m, "softmax", {ElementType::F32, true, nontemporal}));
    auto c = compile(std::move(m));
    auto* softmax = softmaxOf(*c);
    ASSERT_NE(softmax, nullptr);
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {3, 17}, {16, 1000}, {5, 64}}) {
      auto in = ramp(static_cast<std::size_t>(rows * cols), 1.25f, -10.0f);
      expectSoftmax(softmax, in, rows, cols);
    }
  }
}

TEST(Kernels, SoftmaxEdgeValues) {
  Module m("k");
  ASSERT_FALSE(addSoftmax(m, "softmax"));
  auto c = compile(std::move(m));
  auto* softmax = softmaxOf(*c);
  ASSERT_NE(softmax, nullptr);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // Large values: exp(x - max) cannot overflow, so equal ones share exactly.
  expectSoftmax(softmax, {1000, 1000, 1000, 1000, 3e38f, 0, -3e38f, 3e38f}, 2, 4, 0);
  auto large = ramp(64, 7.0f, 80.0f);  // up to 192: exp overflows float past 88.7
  expectSoftmax(softmax, large, 1, 64);
  // -inf contributes zero; a row of only -inf (or of +inf) is NaN.
  expectSoftmax(softmax, {-inf, 0, -inf, 2, -inf, -inf, -inf, -inf, inf, 1, 2, 3}, 3, 4);
  // A NaN anywhere makes its row NaN; the other rows are untouched by it.
  expectSoftmax(softmax, {1, nan, 2, 3, nan, nan, nan, nan, 0, 1, 2, 3}, 3, 4);
  std::vector<float> oneHot{0, -inf, 0, -inf};
  auto view = view2(oneHot, 2, 2);
  std::vector<float> out(4, -1.0f);
  auto vo = view2(out, 2, 2);
  softmax(&view, &vo);
  EXPECT_EQ(out, (std::vector<float>{1, 0, 1, 0}));
}

TEST(Kernels, SoftmaxOfEmptyRowsWritesNothing) {
  Module m("k");
  ASSERT_FALSE(addSoftmax(m, "softmax"));
  auto c = compile(std::move(m), false);
  auto* softmax = softmaxOf(*c);
  ASSERT_NE(softmax, nullptr);
  // Three rows of no columns, in buffers whose row stride leaves room that
  // must stay as it was; then no rows at all.
  std::vector<float> in(12, 1.0f), out(12, -1.0f);
  StridedMemRefType<float, 2> vi{in.data(), in.data(), 0, {3, 0}, {4, 1}}, vo{out.data(), out.data(), 0, {3, 0}, {4, 1}};
  softmax(&vi, &vo);
  EXPECT_EQ(out, std::vector<float>(12, -1.0f));
  vi.sizes[0] = vo.sizes[0] = 0;
  vi.sizes[1] = vo.sizes[1] = 4;
  softmax(&vi, &vo);
  EXPECT_EQ(out, std::vector<float>(12, -1.0f));
}

// KernelOptions::fastMath and debugInfo reach the function as
// FunctionOptions' do: flags on every float operation, a DISubprogram.
TEST(Kernels, SoftmaxTakesFastMathAndDebugInfo) {
  for (bool on : {false, true}) {
    Module m("k");
    KernelOptions o;
    o.fastMath = on ? FastMath::Fast : FastMath::None;
    o.debugInfo = on;
    ASSERT_FALSE(addSoftmax(m, "softmax", o));
    llvm::Function* f = m.llvm().getFunction("softmax");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->getSubprogram() != nullptr, on);
    int floatOps = 0;
    for (llvm::Instruction& i : llvm::instructions(*f))
      if (llvm::isa<llvm::FPMathOperator>(i)) {
        ++floatOps;
        EXPECT_EQ(i.isFast(), on) << i.getOpcodeName();
      }
    EXPECT_GE(floatOps, 4);  // max, subtract, add, divide, multiply (and exp)
    auto c = compile(std::move(m));
    auto* softmax = softmaxOf(*c);
    ASSERT_NE(softmax, nullptr);
    // Reassociated sums round differently: within 1e-6 on finite inputs.
    expectSoftmax(softmax, ramp(8 * 300, 0.75f, -6.0f), 8, 300, 1e-6f);
  }
}

TEST(Kernels, TransposeThroughStridedViewMatchesReference) {
  Module m("k");
  ASSERT_FALSE(addTranspose(m, "transpose"));
  auto c = compile(std::move(m));
  using D = StridedMemRefType<float, 2>;
  auto* tr = c->get<void(D*, D*)>("transpose");
  ASSERT_NE(tr, nullptr);
  const int64_t R = 6, C = 9;
  auto in = ramp(R * C, 1.0f, 0.0f);
  for (int64_t i = 0; i < R * C; ++i) in[i] = static_cast<float>(i);
  std::vector<float> out(R * C, -1.0f);
  D vi = view2(in, R, C), vo = view2(out, C, R);
  tr(&vi, &vo);
  for (int64_t i = 0; i < C; ++i)
    for (int64_t j = 0; j < R; ++j) ASSERT_EQ(out[i * R + j], in[j * C + i]) << i << "," << j;
}

// Full tiles are transposed in registers and the edges by scalar loops: sizes
// the tile (16 for f32, 8 for f64) does not divide, smaller than one tile and
// exact multiples, through row strides wider than the rows (padding must stay
// untouched), with and without streaming stores, optimised and not.
template <typename T>
void checkTransposeShapes(ElementType element) {
  for (bool nontemporal : {false, true})
    for (bool optimize : {true, false}) {
      Module m("k");
      ASSERT_FALSE(addTranspose(m, "transpose", {element, true, nontemporal}));
      auto c = compile(std::move(m), optimize);
      auto* tr = c->get<void(StridedMemRefType<T, 2>*, StridedMemRefType<T, 2>*)>("transpose");
      ASSERT_NE(tr, nullptr);
      const std::vector<std::pair<int64_t, int64_t>> shapes{{1, 1},  {3, 5},   {8, 8},   {16, 16}, {17, 33},
                                                            {33, 17}, {31, 16}, {16, 31}, {40, 7},  {48, 64}};
      for (auto [R, C] : shapes) {
        const int64_t inPad = 3, outPad = 5, inStride = C + inPad, outStride = R + outPad;
        std::vector<T> in(R * inStride), out(C * outStride, T(-1));
        for (int64_t i = 0; i < R * inStride; ++i) in[i] = T(i);
        StridedMemRefType<T, 2> vi{in.data(), in.data(), 0, {R, C}, {inStride, 1}};
        StridedMemRefType<T, 2> vo{out.data(), out.data(), 0, {C, R}, {outStride, 1}};
        tr(&vi, &vo);
        for (int64_t i = 0; i < C; ++i)
          for (int64_t j = 0; j < outStride; ++j)
            ASSERT_EQ(out[i * outStride + j], j < R ? in[j * inStride + i] : T(-1))
                << R << "x" << C << " at " << i << "," << j << " nt=" << nontemporal << " opt=" << optimize;
      }
    }
}

TEST(Kernels, TransposeHandlesPartialTilesAndRowPadding) {
  checkTransposeShapes<float>(ElementType::F32);
  checkTransposeShapes<double>(ElementType::F64);
}

TEST(Kernels, ScaledCopyReturnsANewAlignedBuffer) {
  Module m("k");
  ASSERT_FALSE(addScaledCopy(m, "scaled"));
  auto c = compile(std::move(m));
  using D = StridedMemRefType<float, 1>;
  auto* f = c->get<void(D*, D*, float)>("scaled");
  ASSERT_NE(f, nullptr);
  auto x = ramp(100, 1.0f, 0.5f);
  D vx = view1(x), r{};
  f(&r, &vx, 3.0f);
  ASSERT_NE(r.basePtr, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(r.data) % 64, 0u);
  EXPECT_EQ(r.offset, 0);
  EXPECT_EQ(r.sizes[0], 100);
  EXPECT_EQ(r.strides[0], 1);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(r.data[i], 3.0f * x[i]);
  std::free(r.basePtr);  // malloc-based, like MLIR's default allocation
}

TEST(Kernels, ScaledCopyUnrankedReturnsAHeapDescriptor) {
  Module m("k");
  ASSERT_FALSE(addScaledCopyUnranked(m, "scaled_u"));
  auto c = compile(std::move(m));
  using D = StridedMemRefType<float, 1>;
  auto* f = c->get<void(::UnrankedMemRefType<float>*, D*, float)>("scaled_u");
  ASSERT_NE(f, nullptr);
  auto x = ramp(33, 2.0f, -1.0f);
  D vx = view1(x);
  ::UnrankedMemRefType<float> u{};
  f(&u, &vx, -1.5f);
  ASSERT_EQ(u.rank, 1);
  auto* d = static_cast<D*>(u.descriptor);
  ASSERT_EQ(d->sizes[0], 33);
  for (int i = 0; i < 33; ++i) ASSERT_EQ(d->data[i], -1.5f * x[i]);
  std::free(d->basePtr);
  std::free(u.descriptor);  // the callee's malloc'd descriptor copy
}

TEST(Kernels, RejectNonFloatElements) {
  Module m("k");
  Error e = addSum(m, "sum", {ElementType::I32});
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("i32"), std::string::npos);
}

}  // namespace
}  // namespace memjit::codegen
