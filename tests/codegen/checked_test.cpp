// Checked mode (FunctionOptions::checked) on valid inputs: checked kernels
// compute exactly what unchecked ones do (empty, odd-sized and strided
// memrefs, parallel loops, allocations), and unchecked functions contain no
// trace of the checks. The failures themselves: tests/error/checked_errors_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/jit.h"

namespace memjit::codegen {
namespace {

using runtime::StridedMemRef;
using Vec = StridedMemRef<float, 1>;
using Mat = StridedMemRef<float, 2>;

// The same kernels compiled unchecked (index 0) and checked (index 1).
struct Pair {
  std::unique_ptr<jit::Jit> jit;
  jit::LoadedModule modules[2];
  template <typename F>
  jit::TypedFunction<F> get(int checked, const std::string& name) {
    return test::valueOrFail(test::valueOrFail(modules[checked].function(name), name).as<F>(), name);
  }
};

Pair compileBoth(const std::function<void(Module&, bool checked, const std::string& suffix)>& build) {
  Pair p{std::make_unique<jit::Jit>(test::makeJit()), {}};
  for (int checked = 0; checked < 2; ++checked) {
    Module m(checked ? "checked" : "unchecked");
    build(m, checked == 1, checked ? "_c" : "");
    EXPECT_FALSE(m.verify());
    auto mod = p.jit->add(std::move(m));
    EXPECT_TRUE(mod) << mod.error().str();
    if (mod) p.modules[checked] = std::move(*mod);
  }
  return p;
}

std::vector<float> randomFloats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

Vec vec(std::vector<float>& v) { return {v.data(), v.data(), 0, {std::int64_t(v.size())}, {1}}; }
Mat mat(std::vector<float>& v, std::int64_t rows, std::int64_t cols) {
  return {v.data(), v.data(), 0, {rows, cols}, {cols, 1}};
}

TEST(Checked, KernelLibraryComputesTheSameOnValidInputs) {
  Pair p = compileBoth([](Module& m, bool checked, const std::string& s) {
    KernelOptions o;
    o.checked = checked;
    ASSERT_FALSE(addElementwiseAdd(m, "add" + s, o));
    ASSERT_FALSE(addSaxpy(m, "saxpy" + s, o));
    ASSERT_FALSE(addMatmul(m, "matmul" + s, o));
    ASSERT_FALSE(addSum(m, "sum" + s, o));
    ASSERT_FALSE(addTranspose(m, "transpose" + s, o));
    ASSERT_FALSE(addScaledCopy(m, "scaled" + s, o));
  });
  for (std::int64_t n : {0, 1, 7, 33, 1000}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto a = randomFloats(n, 1), b = randomFloats(n, 2);
    std::vector<float> out[2] = {std::vector<float>(n), std::vector<float>(n)};
    float sums[2];
    for (int c = 0; c < 2; ++c) {
      const std::string s = c ? "_c" : "";
      auto add = p.get<void(Vec, Vec, Vec)>(c, "add" + s);
      ASSERT_FALSE(add.call(vec(a), vec(b), vec(out[c])));
      auto saxpy = p.get<void(float, Vec, Vec)>(c, "saxpy" + s);
      ASSERT_FALSE(saxpy.call(0.5f, vec(a), vec(out[c])));
      auto sum = p.get<float(Vec)>(c, "sum" + s);
      auto total = sum.call(vec(out[c]));
      ASSERT_TRUE(total) << total.error().str();
      sums[c] = *total;
      auto scaled = p.get<runtime::OwnedMemRef<float, 1>(Vec, float)>(c, "scaled" + s);
      auto copy = scaled.call(vec(a), 3.0f);
      ASSERT_TRUE(copy) << copy.error().str();
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ((*copy)({i}), 3.0f * a[i]);
    }
    EXPECT_EQ(out[0], out[1]);
    EXPECT_EQ(sums[0], sums[1]);
  }
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{0, 5}, {1, 1}, {17, 33}, {40, 32}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    auto A = randomFloats(rows * cols, 3), B = randomFloats(cols * rows, 4);
    std::vector<float> C[2] = {std::vector<float>(rows * rows), std::vector<float>(rows * rows)};
    std::vector<float> T[2] = {std::vector<float>(rows * cols), std::vector<float>(rows * cols)};
    for (int c = 0; c < 2; ++c) {
      const std::string s = c ? "_c" : "";
      auto matmul = p.get<void(Mat, Mat, Mat)>(c, "matmul" + s);
      ASSERT_FALSE(matmul.call(mat(A, rows, cols), mat(B, cols, rows), mat(C[c], rows, rows)));
      auto transpose = p.get<void(Mat, Mat)>(c, "transpose" + s);
      ASSERT_FALSE(transpose.call(mat(A, rows, cols), mat(T[c], cols, rows)));
    }
    EXPECT_EQ(C[0], C[1]);
    EXPECT_EQ(T[0], T[1]);
  }
}

TEST(Checked, StridedViewsSubviewsAndParallelLoopsComputeTheSame) {
  // strided(x, out, k): out[i] = sum over a k-wide subview of a row-major
  // reinterpretation of x, in a 2-d parallel loop, plus a parallel reduction.
  const char* type = "(memref<?xf32, strided<[?], offset: ?>>, memref<?x?xf32>, index) -> f32";
  Pair p = compileBoth([&](Module& m, bool checked, const std::string& s) {
    FunctionOptions o;
    o.checked = checked;
    FunctionBuilder b(m, "strided" + s, *parseFunctionType(type), o);
    Value x = b.arg(0), out = b.arg(1), k = b.arg(2);
    Value rows = b.dim(out, 0), cols = b.dim(out, 1);
    Value stride = b.wrap(b.ir().CreateExtractValue(x.llvm(), {4, 0}), ElementType::Index);
    Value offset = b.wrap(b.ir().CreateExtractValue(x.llvm(), {2}), ElementType::Index);
    MemRefType view(ElementType::F32, {kDynamic, kDynamic}, StridedLayout{kDynamic, {kDynamic, kDynamic}});
    Value grid = b.reinterpretCast(x, view, offset, {rows, cols + k}, {(cols + k) * stride, stride});
    b.parallelFor({b.index(0), b.index(0)}, {rows, cols}, {b.index(1), b.index(1)}, {},
                  [&](const std::vector<Value>& iv) {
                    Value window = b.subview(grid, {iv[0], iv[1]}, {1, k}, {1, 1});
                    auto acc = b.forLoop(b.index(0), k, b.index(1), {b.f32(0)},
                                         [&](Value j, const std::vector<Value>& a) {
                                           return std::vector<Value>{a[0] + b.load(window, {b.index(0), j})};
                                         });
                    b.store(acc[0], out, iv);
                  });
    auto total = b.parallelReduce(b.index(0), rows * cols, b.index(1), {}, {Reduction::sum(b.f32(0))}, [&](Value i) {
      return std::vector<Value>{b.load(out, {b.div(i, cols), b.rem(i, cols)})};
    });
    b.ret({total[0]});
    ASSERT_FALSE(b.finish()) << b.error().str();
  });
  for (auto [rows, cols, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{0, 3, 2}, {3, 0, 1}, {5, 7, 3}, {64, 9, 4}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " k=" + std::to_string(k));
    const std::int64_t n = rows * (cols + k);
    auto storage = randomFloats(2 * n + 1, 5);
    for (float& v : storage) v = static_cast<float>(static_cast<int>(v * 8));  // integral: exact sums in any order
    Vec x{storage.data(), storage.data(), 1, {n}, {2}};  // every other element from 1
    std::vector<float> out[2] = {std::vector<float>(rows * cols), std::vector<float>(rows * cols)};
    float totals[2];
    for (int c = 0; c < 2; ++c) {
      auto f = p.get<float(Vec, Mat, std::int64_t)>(c, c ? "strided_c" : "strided");
      auto t = f.call(x, mat(out[c], rows, cols), k);
      ASSERT_TRUE(t) << t.error().str();
      totals[c] = *t;
    }
    EXPECT_EQ(out[0], out[1]);
    EXPECT_EQ(totals[0], totals[1]);
    if (rows * cols > 0) {
      float first = 0;
      for (std::int64_t j = 0; j < k; ++j) first += storage[1 + 2 * j];
      EXPECT_EQ(out[0][0], first);
    }
  }
}

// Loop nests whose accesses checked mode proves (docs/checked-mode.md,
// "Proven accesses") or keeps checked, on valid inputs: triangular bounds,
// steps, a subview, a view with a negative stride, a branch, a loop-carried
// index and a 2-d parallel loop compute what the unchecked kernel computes.
TEST(Checked, ProvenLoopNestsComputeTheSame) {
  const char* type = "(memref<?x?xf32>, memref<?xf32, strided<[?], offset: ?>>, memref<?x?xf32>) -> f32";
  Pair p = compileBoth([&](Module& m, bool checked, const std::string& s) {
    FunctionOptions o;
    o.checked = checked;
    FunctionBuilder b(m, "nests" + s, *parseFunctionType(type), o);
    Value A = b.arg(0), v = b.arg(1), out = b.arg(2), n = b.dim(A, 0), zero = b.index(0), one = b.index(1);
    b.forLoop(zero, n, one, [&](Value i) {  // triangular: j <= i
      b.forLoop(zero, i + one, one, [&](Value j) { b.store(b.load(A, {i, j}) * b.f32(2), out, {i, j}); });
    });
    b.forLoop(one, n, b.index(2), [&](Value i) {  // a step, an offset, a bound from a size
      b.store(b.load(out, {i, zero}) + b.load(A, {i - one, n - one}), out, {i, zero});
      b.ifThen(b.cmp(CmpPredicate::Gt, i, one), [&] {  // a branch: its access stays checked
        b.store(b.load(out, {i - b.index(2), one}), out, {i, one});
      });
    });
    Value inner = b.subview(A, {1, 1}, {b.max(n - one, zero), b.max(n - one, zero)}, {1, 1});
    b.forLoop(zero, n - one, one, [&](Value i) {
      Value tileEnd = b.min(i + b.index(3), n - one);  // a min in a bound, as a tile's
      b.forLoop(i, tileEnd, one, [&](Value j) { b.store(b.load(out, {i, j}) + b.load(inner, {i, j}), out, {i, j}); });
    });
    auto sum = b.forLoop(zero, b.dim(v, 0), one, {b.f32(0), zero}, [&](Value k, const std::vector<Value>& c) {
      // c[1] is a loop-carried index: not affine, stays checked.
      Value wrapped = b.select(b.cmp(CmpPredicate::Lt, c[1], n), c[1], zero);
      return std::vector<Value>{c[0] + b.load(v, {k}) + b.load(A, {zero, wrapped}), wrapped + one};
    });
    b.parallelFor({zero, zero}, {n, n}, {one, one}, {}, [&](const std::vector<Value>& iv) {
      b.store(b.load(out, iv) + b.load(A, {iv[1], iv[0]}), out, iv);
    });
    b.ret({sum[0]});
    ASSERT_FALSE(b.finish()) << b.error().str();
  });
  for (std::int64_t n : {0, 1, 2, 5, 17}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto a = randomFloats(static_cast<std::size_t>(n * n), 3);
    for (float& x : a) x = static_cast<float>(static_cast<int>(x * 8));  // integral: exact in any order
    std::vector<float> storage = randomFloats(static_cast<std::size_t>(n + 1), 4);
    for (float& x : storage) x = static_cast<float>(static_cast<int>(x * 8));
    Vec reversed{storage.data(), storage.data(), n, {n}, {-1}};  // a negative stride: elements n .. 1
    std::vector<float> out[2] = {std::vector<float>(n * n, 1.0f), std::vector<float>(n * n, 1.0f)};
    float sums[2];
    for (int c = 0; c < 2; ++c) {
      auto f = p.get<float(Mat, Vec, Mat)>(c, c ? "nests_c" : "nests");
      auto r = f.call(mat(a, n, n), reversed, mat(out[c], n, n));
      ASSERT_TRUE(r) << r.error().str();
      sums[c] = *r;
    }
    EXPECT_EQ(out[0], out[1]);
    EXPECT_EQ(sums[0], sums[1]);
    if (n > 1) {  // out[1][0]: the triangle's 2 a[1][0], the stepped loop's a[0][n-1], the parallel loop's a[0][1]
      const auto at = [&](std::int64_t k) { return a[static_cast<std::size_t>(k)]; };
      EXPECT_EQ(out[1][static_cast<std::size_t>(n)], 2 * at(n) + at(n - 1) + at(1));
    }
  }
}

// The IR of a checked loop `out[i] = in[i + shift]` for i in [0, ub): which checks remain.
// The IR of a function `type` built by `body`, checked or not.
std::string buildIr(const char* type, const std::function<void(FunctionBuilder&)>& body, bool checked = true) {
  Module m("k");
  FunctionOptions o;
  o.checked = checked;
  FunctionBuilder b(m, "k", *parseFunctionType(type), o);
  body(b);
  EXPECT_FALSE(b.finish()) << b.error().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  m.llvm().print(os, nullptr);
  return os.str();
}

std::string buildShiftLoop(const char* type, std::int64_t shift, std::int64_t ub) {
  return buildIr(type, [&](FunctionBuilder& b) {
    Value upper = ub < 0 ? b.dim(b.arg(1), 0) : b.index(ub);
    b.forLoop(b.index(0), upper, b.index(1),
              [&](Value i) { b.store(b.load(b.arg(0), {i + b.index(shift)}), b.arg(1), {i}); });
  });
}

std::size_t reports(const std::string& ir) {
  std::size_t n = 0;
  for (std::size_t at = ir.find("call void @memjit_check_report"); at != std::string::npos;
       at = ir.find("call void @memjit_check_report", at + 1))
    ++n;
  return n;
}

TEST(Checked, ProofsAreMadeWhenBuildingOrGuardTheLoop) {
  // Static sizes and constant bounds: proven when built, no check and no guard left.
  const std::string proven = buildShiftLoop("(memref<9xf32>, memref<8xf32>) -> ()", 1, 8);
  EXPECT_EQ(reports(proven), 0u) << proven;
  EXPECT_EQ(proven.find("proof.guard"), std::string::npos);
  // One past the end in the last iteration: the load stays checked, the store is proven.
  const std::string overrun = buildShiftLoop("(memref<8xf32>, memref<8xf32>) -> ()", 1, 8);
  EXPECT_EQ(overrun.find("proof.guard"), std::string::npos);
  EXPECT_EQ(reports(overrun), 1u) << overrun;
  // Dynamic sizes: a guard before the loop enters an unchecked copy, else the
  // checked loop (both of its checks, and none in the copy).
  const std::string guarded = buildShiftLoop("(memref<?xf32>, memref<?xf32>) -> ()", 1, -1);
  EXPECT_NE(guarded.find("proof.guard"), std::string::npos) << guarded;
  EXPECT_NE(guarded.find(".fast"), std::string::npos);
  EXPECT_EQ(reports(guarded), 2u);
}

// Triangular nests whose indices are in range only through the relation of
// their loops' bounds (docs/checked-mode.md, "Proven accesses"): proven when
// built for static sizes; one past the end stays checked.
TEST(Checked, CorrelatedBoundsAreProven) {
  // nussinov: i from n - 1 down to 0, j in [i + first, n): a[i + 1][j], a[i][j - 1].
  const auto nussinov = [](std::int64_t first) {
    return buildIr("(memref<8x8xf32>) -> ()", [&](FunctionBuilder& b) {
      Value a = b.arg(0), n = b.index(8), one = b.index(1);
      b.forLoop(b.index(0), n, one, [&](Value t) {
        Value i = n - one - t;
        b.forLoop(i + b.index(first), n, one, [&](Value j) {
          b.store(b.load(a, {i + one, j}) + b.load(a, {i, j - one}), a, {i, j});
        });
      });
    });
  };
  EXPECT_EQ(reports(nussinov(1)), 0u) << nussinov(1);
  // From j = i: i = 7 reads a[8][7] and i = 0 reads a[0][-1], those two stay checked.
  EXPECT_EQ(reports(nussinov(0)), 2u) << nussinov(0);
  // durbin: r[k - i - 1] for i in [0, k + extra), k in [1, n).
  const auto durbin = [](std::int64_t extra) {
    return buildIr("(memref<8xf32>) -> ()", [&](FunctionBuilder& b) {
      Value r = b.arg(0), one = b.index(1);
      b.forLoop(one, b.index(8), one, [&](Value k) {
        b.forLoop(b.index(0), k + b.index(extra), one, [&](Value i) { b.store(b.f32(1), r, {k - i - one}); });
      });
    });
  };
  EXPECT_EQ(reports(durbin(0)), 0u) << durbin(0);
  EXPECT_EQ(reports(durbin(1)), 1u) << durbin(1);  // i = k reaches r[-1]
}

TEST(Checked, BranchAccessesAndStaticChecksInAGuardedNest) {
  // A branch's access proven when built goes; one that only the branch keeps in bounds stays.
  const auto branch = [](std::int64_t shift) {
    return buildIr("(memref<8xf32>) -> ()", [&](FunctionBuilder& b) {
      Value a = b.arg(0);
      b.forLoop(b.index(0), b.index(8), b.index(1), [&](Value i) {
        b.ifThen(b.cmp(CmpPredicate::Gt, i, b.index(0)), [&] { b.store(b.f32(1), a, {i - b.index(shift)}); });
      });
    });
  };
  EXPECT_EQ(reports(branch(0)), 0u) << branch(0);
  EXPECT_EQ(reports(branch(1)), 1u) << branch(1);
  // Dynamic sizes: the loop's own access is versioned, the branch's is `proven || compare`
  // in one place (no copy needed for it), and a check proven when built (b[j], j < 8) is
  // in neither copy.
  const std::string guarded = buildIr("(memref<?xf32>, memref<8xf32>) -> ()", [](FunctionBuilder& b) {
    Value a = b.arg(0), c = b.arg(1), one = b.index(1);
    b.forLoop(b.index(0), b.dim(a, 0), one, [&](Value i) {
      b.forLoop(b.index(0), b.index(8), one, [&](Value j) { b.store(b.load(a, {i}) + b.load(c, {j}), c, {j}); });
      b.ifThen(b.cmp(CmpPredicate::Gt, i, b.index(0)), [&] { b.store(b.f32(1), a, {i}); });
    });
  });
  EXPECT_NE(guarded.find(".fast"), std::string::npos) << guarded;
  EXPECT_NE(guarded.find(".proven"), std::string::npos) << guarded;
  // a[i] and the branch's a[i] in the checked copy, the branch's (or'ed with its proof) in the fast one.
  EXPECT_EQ(reports(guarded), 3u) << guarded;
  const std::string branchOnly = buildIr("(memref<?xf32>) -> ()", [](FunctionBuilder& b) {
    Value a = b.arg(0);
    b.forLoop(b.index(0), b.index(8), b.index(1), [&](Value i) {
      b.ifThen(b.cmp(CmpPredicate::Gt, i, b.index(0)), [&] { b.store(b.f32(1), a, {i}); });
    });
  });
  EXPECT_EQ(branchOnly.find(".fast"), std::string::npos) << branchOnly;
  EXPECT_NE(branchOnly.find(".proven"), std::string::npos) << branchOnly;
  EXPECT_NE(branchOnly.find("proof.guard"), std::string::npos) << branchOnly;
}

// Every operation that has a check, unchecked or checked.
std::string buildEveryCheckedOperation(bool checked) {
  return buildIr("(memref<?x?xf32>, memref<*xf32>, i64, i64, index) -> i64", [](FunctionBuilder& b) {
    Value A = b.arg(0), U = b.arg(1), x = b.arg(2), y = b.arg(3), n = b.arg(4);
    Value s = b.divsi(x, y) + b.divui(x, y) + b.remsi(x, y) + b.remui(x, y) + b.ceildivsi(x, y) + b.ceildivui(x, y) +
              b.floordivsi(x, y) + x / y + x % y;
    Value v = b.subview(A, {n, 0}, {n, 2}, {1, 1});
    Value r = b.reinterpretCast(U, MemRefType(ElementType::F32, {kDynamic}), 0, {n}, {1});
    Value al = b.alloc(MemRefType(ElementType::F32, {kDynamic}), {n});
    b.store(b.load(v, {b.index(0), b.index(1)}) + b.load(r, {n}), al, {b.index(0)});
    b.parallelFor(b.index(0), n, b.index(1), {}, [&](Value i) { b.store(b.load(al, {i}), A, {i, i}); });
    b.dealloc(al);
    b.ret({s});
  }, checked);
}

TEST(Checked, UncheckedFunctionsCarryNoCheck) {
  const std::string off = buildEveryCheckedOperation(false), on = buildEveryCheckedOperation(true);
  EXPECT_EQ(off.find("memjit_check"), std::string::npos) << off;
  EXPECT_EQ(off.find("check."), std::string::npos);
  for (const char* what : {"@memjit_check_report", "@memjit_check_scratch", "@memjit_check_pending", "check.fail",
                           "check.return", "c\"divsi\\00\"", "c\"reinterpret_cast\\00\""})
    EXPECT_NE(on.find(what), std::string::npos) << what;
  // Building a checked function leaves the next unchecked one alone.
  EXPECT_EQ(buildEveryCheckedOperation(false), off);
}

}  // namespace
}  // namespace memjit::codegen
