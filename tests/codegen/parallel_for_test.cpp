// Parallel loops built with FunctionBuilder::parallelFor/parallelReduce,
// compiled by memjit::Jit (which resolves memjit_parallel_for itself) and
// checked against the same loops run serially in C++.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/parallel.h"
#include "memjit/type_syntax.h"
#include "memjit/runtime/memref.h"
#include "support/jit.h"
#include "support/llvm_jit.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include "support/types.h"

// memjit's descriptors have MLIR's layout (tests/runtime/memref_test.cpp checks
// that against CRunnerUtils.h), so this test needs no MLIR installed.
template <typename T, int N>
using StridedMemRefType = memjit::runtime::StridedMemRef<T, N>;

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

using D1 = StridedMemRefType<std::int64_t, 1>;
using D2 = StridedMemRefType<std::int64_t, 2>;
using D1d = StridedMemRefType<double, 1>;

D1 view(std::vector<std::int64_t>& v) { return D1{v.data(), v.data(), 0, {static_cast<std::int64_t>(v.size())}, {1}}; }
D1d view(std::vector<double>& v) { return D1d{v.data(), v.data(), 0, {static_cast<std::int64_t>(v.size())}, {1}}; }

// fill_<k>(out, lb, ub, step, offset): out[iv + offset] = iv * scale + 1, scale
// computed outside the loop (a captured value).
void buildFill(Module& m, const std::string& name, const ParallelOptions& o) {
  FunctionBuilder b(m, name, functionType("(memref<?xi64>, index, index, index, index) -> ()"));
  Value out = b.arg(0), off = b.arg(4);
  Value scale = b.add(b.i64(2), b.i64(1));
  b.parallelFor(b.arg(1), b.arg(2), b.arg(3), o, [&](Value iv) {
    b.store(b.add(b.mul(b.cast(iv, ElementType::I64), scale), b.i64(1)), out, {b.add(iv, off)});
  });
  ASSERT_FALSE(b.finish()) << b.error().str();
}

using Kernels = test::CompiledModule;
Kernels compile(Module m) { return test::compileModule(std::move(m)); }

const ParallelOptions kOptions[] = {
    {},
    {3, ParallelSchedule::Static, 0},
    {2, ParallelSchedule::Dynamic, 0},
    {0, ParallelSchedule::Dynamic, 2},
    {1000, ParallelSchedule::Static, 0},
};

TEST(ParallelFor, EqualsSerialForEveryRangeShape) {
  Module m("par");
  for (std::size_t i = 0; i < std::size(kOptions); ++i) buildFill(m, "fill" + std::to_string(i), kOptions[i]);
  Kernels k = compile(std::move(m));
  ASSERT_TRUE(k.mod);
  runtime::setNumThreads(4);
  // {lb, ub, step}: empty, reversed, one iteration, fewer than threads, not
  // divisible by the chunk, negative bounds, step > 1.
  const std::int64_t shapes[][3] = {{0, 0, 1},   {5, 3, 1},   {0, 1, 1},     {0, 3, 1},      {0, 1001, 1},
                                    {-7, 10, 1}, {-20, -3, 4}, {-50, 77, 3}, {1, 100000, 7}};
  for (std::size_t i = 0; i < std::size(kOptions); ++i) {
    auto* fill = k.get<void(D1*, std::int64_t, std::int64_t, std::int64_t, std::int64_t)>("fill" + std::to_string(i));
    ASSERT_NE(fill, nullptr);
    for (auto [lb, ub, step] : shapes) {
      const std::int64_t off = 60, size = std::max<std::int64_t>(ub, 0) + off + 1;
      std::vector<std::int64_t> got(static_cast<std::size_t>(size), -1), want = got;
      for (std::int64_t iv = lb; iv < ub; iv += step) want[static_cast<std::size_t>(iv + off)] = iv * 3 + 1;
      D1 d = view(got);
      fill(&d, lb, ub, step, off);
      ASSERT_EQ(got, want) << "options #" << i << " range [" << lb << ", " << ub << ") step " << step;
    }
  }
  runtime::setNumThreads(0);
}

TEST(ParallelFor, TwoDimensionalEqualsSerial) {
  Module m("par2");
  for (std::int64_t chunk : {0, 1, 5}) {
    FunctionBuilder b(m, "fill2_" + std::to_string(chunk), functionType("(memref<?x?xi64>, index, index, index, index) -> ()"));
    Value out = b.arg(0);
    b.parallelFor({b.arg(1), b.arg(2)}, {b.arg(3), b.arg(4)}, {b.index(1), b.index(2)}, {chunk},
                  [&](const std::vector<Value>& iv) {
                    Value v = b.add(b.mul(b.cast(iv[0], ElementType::I64), b.i64(1000)), b.cast(iv[1], ElementType::I64));
                    b.store(v, out, {b.add(iv[0], b.index(10)), b.add(iv[1], b.index(10))});
                  });
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  Kernels k = compile(std::move(m));
  ASSERT_TRUE(k.mod);
  runtime::setNumThreads(3);
  const std::int64_t shapes[][4] = {{0, 0, 0, 0}, {0, 0, 1, 1}, {-3, -10, 4, 9}, {0, 0, 30, 1}, {0, 0, 1, 29}, {-10, 5, 7, 6}};
  for (std::int64_t chunk : {0, 1, 5}) {
    auto* fill = k.get<void(D2*, std::int64_t, std::int64_t, std::int64_t, std::int64_t)>("fill2_" + std::to_string(chunk));
    ASSERT_NE(fill, nullptr);
    for (auto [l0, l1, u0, u1] : shapes) {
      const std::int64_t rows = 41, cols = 41;
      std::vector<std::int64_t> got(rows * cols, -1), want = got;
      for (std::int64_t i = l0; i < u0; ++i)
        for (std::int64_t j = l1; j < u1; j += 2) want[(i + 10) * cols + j + 10] = i * 1000 + j;
      D2 d{got.data(), got.data(), 0, {rows, cols}, {cols, 1}};
      fill(&d, l0, l1, u0, u1);
      ASSERT_EQ(got, want) << "chunk " << chunk << " [" << l0 << ", " << u0 << ") x [" << l1 << ", " << u1 << ")";
    }
  }
  runtime::setNumThreads(0);
}

TEST(ParallelReduce, IntegerReductionsAreExact) {
  Module m("red");
  {
    FunctionBuilder b(m, "sum", functionType("(memref<?xi64>, i64) -> i64"));
    Value a = b.arg(0);
    auto r = b.parallelReduce(b.index(0), b.dim(a, 0), b.index(1), {7}, {Reduction::sum(b.arg(1))},
                              [&](Value i) { return std::vector<Value>{b.load(a, {i})}; });
    b.ret(r);
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  {
    // min, max, product and a custom combiner (max of |x|) at once.
    FunctionBuilder b(m, "four", functionType("(memref<?xi64>) -> (i64, i64, i64, i64)"));
    Value a = b.arg(0);
    auto r = b.parallelReduce(
        b.index(0), b.dim(a, 0), b.index(1), {0, ParallelSchedule::Dynamic},
        {Reduction::min(b.i64(1 << 30)), Reduction::max(b.i64(-(1 << 30))), Reduction::product(b.i64(1)),
         Reduction::custom(b.i64(0), b.i64(0), [&](Value x, Value y) { return b.max(b.abs(x), b.abs(y)); })},
        [&](Value i) {
          Value x = b.load(a, {i});
          Value small = b.add(b.rem(x, b.i64(3)), b.i64(0));
          Value factor = b.select(b.cmp(CmpPredicate::Eq, small, b.i64(0)), b.i64(-1), b.i64(1));
          return std::vector<Value>{x, x, factor, x};
        });
    b.ret(r);
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  {
    FunctionBuilder b(m, "fsum", functionType("(memref<?xf64>) -> f64"));
    Value a = b.arg(0);
    auto r = b.parallelReduce(b.index(0), b.dim(a, 0), b.index(1), {}, {Reduction::sum(b.f64(0))},
                              [&](Value i) { return std::vector<Value>{b.load(a, {i})}; });
    b.ret(r);
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  Kernels k = compile(std::move(m));
  ASSERT_TRUE(k.mod);
  runtime::setNumThreads(4);
  auto* sum = k.get<std::int64_t(D1*, std::int64_t)>("sum");
  for (std::size_t n : {0, 1, 3, 1000, 100003}) {
    std::vector<std::int64_t> v(n);
    std::int64_t want = 17;
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = (std::int64_t{1} << 53) + static_cast<std::int64_t>(i * 7919 % 1000) - 500;  // above 2^53: not exact in f64
      want = static_cast<std::int64_t>(static_cast<std::uint64_t>(want) + static_cast<std::uint64_t>(v[i]));
    }
    D1 d = view(v);
    ASSERT_EQ(sum(&d, 17), want) << n;
  }
  struct R4 { std::int64_t mn, mx, prod, absmax; };
  auto* four = k.get<void(R4*, D1*)>("four");
  for (std::size_t n : {0, 1, 2, 999, 50000}) {
    std::vector<std::int64_t> v(n);
    R4 want{1 << 30, -(1 << 30), 1, 0};
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = static_cast<std::int64_t>((i * 2654435761u) % 200001) - 100000;
      want.mn = std::min(want.mn, v[i]);
      want.mx = std::max(want.mx, v[i]);
      want.prod *= v[i] % 3 == 0 ? -1 : 1;
      want.absmax = std::max(want.absmax, std::abs(v[i]));
    }
    D1 d = view(v);
    R4 got{};
    four(&got, &d);
    EXPECT_EQ(got.mn, want.mn) << n;
    EXPECT_EQ(got.mx, want.mx) << n;
    EXPECT_EQ(got.prod, want.prod) << n;
    EXPECT_EQ(got.absmax, want.absmax) << n;
  }
  auto* fsum = k.get<double(D1d*)>("fsum");
  std::vector<double> x(100000);
  double want = 0;
  for (std::size_t i = 0; i < x.size(); ++i) want += x[i] = 1.0 / static_cast<double>(i + 1);
  D1d dx = view(x);
  EXPECT_NEAR(fsum(&dx), want, 1e-12 * want);  // combined out of serial order: last bits may differ
  runtime::setNumThreads(0);
}

// out[i*n + j] = i + j, with a parallel loop over j inside one over i.
void buildNested(Module& m) {
  FunctionBuilder b(m, "nested", functionType("(memref<?xi64>, index) -> ()"));
  Value out = b.arg(0), n = b.arg(1);
  b.parallelFor(b.index(0), n, b.index(1), {}, [&](Value i) {
    b.parallelFor(b.index(0), n, b.index(1), {1, ParallelSchedule::Dynamic}, [&](Value j) {
      b.store(b.cast(b.add(i, j), ElementType::I64), out, {b.add(b.mul(i, n), j)});
    });
  });
  ASSERT_FALSE(b.finish()) << b.error().str();
}

std::atomic<int> scheduled{0};
void countingScheduler(const runtime::ParallelLoop& loop, void* user) {
  scheduled.fetch_add(1);
  runtime::defaultScheduler(loop, user);
}

// A scheduler on plain std::threads (the ThreadSanitizer pass uses it: libgomp
// is not instrumented, so TSan cannot see its synchronisation).
void stdThreadScheduler(const runtime::ParallelLoop& loop, void*) {
  std::vector<std::thread> workers;
  std::atomic<std::int64_t> next{loop.begin};
  const std::int64_t chunk = loop.chunk > 0 ? loop.chunk : 16;
  auto work = [&] {
    for (std::int64_t b; (b = next.fetch_add(chunk)) < loop.end;) loop.run(b, std::min(b + chunk, loop.end));
  };
  for (int t = 1; t < loop.threads; ++t) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();
}

void checkNested(void (*nested)(D1*, std::int64_t), std::int64_t n) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n * n), -1);
  D1 d = view(out);
  nested(&d, n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) ASSERT_EQ(out[static_cast<std::size_t>(i * n + j)], i + j);
}

TEST(ParallelFor, NestedLoopsAndCustomScheduler) {
  Module m("nest");
  buildNested(m);
  Kernels k = compile(std::move(m));
  ASSERT_TRUE(k.mod);
  auto* nested = k.get<void(D1*, std::int64_t)>("nested");
  runtime::setNumThreads(4);
  checkNested(nested, 37);
  scheduled = 0;
  runtime::setScheduler(countingScheduler);
  checkNested(nested, 37);
  runtime::resetScheduler();
  EXPECT_EQ(scheduled.load(), 1);  // the inner loops ran serially inside the outer's chunks
  runtime::setNumThreads(0);
}

#ifdef _OPENMP
TEST(ParallelFor, InsideTheApplicationsOpenMPRegionRunsSerially) {
  Module m("omp");
  buildNested(m);
  Kernels k = compile(std::move(m));
  ASSERT_TRUE(k.mod);
  auto* nested = k.get<void(D1*, std::int64_t)>("nested");
  scheduled = 0;
  runtime::setScheduler(countingScheduler);
  std::atomic<int> regionThreads{0};
#pragma omp parallel num_threads(2)
  {
    regionThreads.fetch_add(1);
    checkNested(nested, 23);
  }
  runtime::resetScheduler();
  EXPECT_EQ(regionThreads.load(), 2);
  EXPECT_EQ(scheduled.load(), 0);  // no second level of threads
}
#endif

void concurrentCallers(runtime::Scheduler scheduler) {
  Module m("conc");
  buildNested(m);
  {
    FunctionBuilder b(m, "sum", functionType("(memref<?xi64>) -> i64"));
    Value a = b.arg(0);
    b.ret(b.parallelReduce(b.index(0), b.dim(a, 0), b.index(1), {64}, {Reduction::sum(b.i64(0))},
                           [&](Value i) { return std::vector<Value>{b.load(a, {i})}; }));
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  Kernels k = compile(std::move(m));
  ASSERT_TRUE(k.mod);
  auto* nested = k.get<void(D1*, std::int64_t)>("nested");
  auto* sum = k.get<std::int64_t(D1*)>("sum");
  runtime::setNumThreads(2);
  runtime::setScheduler(scheduler);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t)
    callers.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        const std::int64_t n = 10 + t + rep;
        std::vector<std::int64_t> out(static_cast<std::size_t>(n * n), -1);
        D1 d = view(out);
        nested(&d, n);
        std::int64_t want = 0;
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < n; ++j) {
            if (out[static_cast<std::size_t>(i * n + j)] != i + j) failures.fetch_add(1);
            want += i + j;
          }
        if (sum(&d) != want) failures.fetch_add(1);
      }
    });
  for (auto& c : callers) c.join();
  runtime::resetScheduler();
  runtime::setNumThreads(0);
  EXPECT_EQ(failures.load(), 0);
}

TEST(ParallelFor, EightHostThreadsCallOneKernel) { concurrentCallers(nullptr); }
TEST(ParallelFor, EightHostThreadsCallOneKernelStdThreadScheduler) { concurrentCallers(stdThreadScheduler); }

// The outlined body keeps the parent's noalias facts: its loop vectorises at
// O3 without runtime alias checks, as the serial loop does.
TEST(ParallelFor, OutlinedBodyVectorisesWithoutAliasChecks) {
  Module m("vec");
  FunctionOptions o;
  o.arguments.assign(3, ArgumentAttributes{true, 64});
  FunctionBuilder b(m, "add", functionType("(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()"), o);
  Value x = b.arg(0), y = b.arg(1), z = b.arg(2);
  b.parallelFor(b.index(0), b.dim(x, 0), b.index(1), {},
                [&](Value i) { b.store(b.load(x, {i}) + b.load(y, {i}), z, {i}); });
  ASSERT_FALSE(b.finish()) << b.error().str();
  ASSERT_FALSE(test::optimizeForHost(m));
  const llvm::Function* body = nullptr;
  for (const llvm::Function& f : m.llvm())
    if (f.getName().starts_with("add.parallel")) body = &f;
  ASSERT_NE(body, nullptr);
  std::string ir;
  llvm::raw_string_ostream os(ir);
  body->print(os);
  EXPECT_NE(ir.find("fadd <"), std::string::npos) << "no vector fadd in the outlined loop:\n" << ir;
  EXPECT_EQ(ir.find("vector.memcheck"), std::string::npos) << "runtime alias check emitted:\n" << ir;
}

}  // namespace
}  // namespace memjit::codegen
