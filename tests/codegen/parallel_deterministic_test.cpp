// Deterministic parallel reductions (ParallelOptions::deterministic): the same
// bits for every thread count, schedule and scheduler, equal to the documented
// order (blocks folded in order from the identity, a pairwise tree, then init)
// computed here in C++, on edge values: NaN, -0, infinities, denormals and
// cancellation.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/parallel.h"
#include "support/jit.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;
using D1d = runtime::StridedMemRef<double, 1>;
using D1f = runtime::StridedMemRef<float, 1>;

constexpr int kThreadCounts[] = {1, 2, 3, 4, 7, 16};

// The documented order, for a combiner `op` with identity `id`.
template <typename T>
T documented(const std::vector<T>& x, std::int64_t block, T init, T id, const std::function<T(T, T)>& op) {
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  if (block == 0) block = std::max<std::int64_t>(1024, (n + 1023) / 1024);
  std::vector<T> slot;
  for (std::int64_t b = 0; b < n; b += block) {
    T p = id;
    for (std::int64_t i = b; i < std::min(n, b + block); ++i) p = op(p, x[static_cast<std::size_t>(i)]);
    slot.push_back(p);
  }
  if (slot.empty()) return init;
  for (std::size_t s = 1; s < slot.size(); s *= 2)
    for (std::size_t i = 0; i + s < slot.size(); i += 2 * s) slot[i] = op(slot[i], slot[i + s]);
  return op(init, slot[0]);
}

template <typename T>
std::uint64_t bitsOf(T v) {
  if constexpr (sizeof(T) == 8) return std::bit_cast<std::uint64_t>(v);
  else return std::bit_cast<std::uint32_t>(v);
}

// sum_<block> (f64), sumf_<block> (f32), product, min and max (f64) at once,
// and a custom, non-associative combiner (a - b), all deterministic.
Module build() {
  Module m("det");
  for (std::int64_t block : {0, 1, 7}) {
    const std::string s = std::to_string(block);
    for (ParallelSchedule sched : {ParallelSchedule::Static, ParallelSchedule::Dynamic}) {
      const std::string name = s + (sched == ParallelSchedule::Dynamic ? "d" : "");
      const ParallelOptions o{.chunk = block, .schedule = sched, .deterministic = true};
      {
        FunctionBuilder b(m, "sum_" + name, functionType("(memref<?xf64>, f64) -> f64"));
        Value x = b.arg(0);
        b.ret(b.parallelReduce(b.index(0), b.dim(x, 0), b.index(1), o, {Reduction::sum(b.arg(1))},
                               [&](Value i) { return std::vector<Value>{b.load(x, {i})}; }));
        EXPECT_FALSE(b.finish()) << b.error().str();
      }
      {
        FunctionBuilder b(m, "sumf_" + name, functionType("(memref<?xf32>) -> f32"));
        Value x = b.arg(0);
        b.ret(b.parallelReduce(b.index(0), b.dim(x, 0), b.index(1), o, {Reduction::sum(b.f32(0))},
                               [&](Value i) { return std::vector<Value>{b.load(x, {i})}; }));
        EXPECT_FALSE(b.finish()) << b.error().str();
      }
      {
        FunctionBuilder b(m, "four_" + name, functionType("(memref<?xf64>) -> (f64, f64, f64, f64)"));
        Value x = b.arg(0);
        b.ret(b.parallelReduce(
            b.index(0), b.dim(x, 0), b.index(1), o,
            {Reduction::product(b.f64(1)), Reduction::min(b.f64(std::nan(""))), Reduction::max(b.f64(-1e300)),
             Reduction::custom(b.f64(0.5), b.f64(0), [&](Value p, Value q) { return b.sub(p, q); })},
            [&](Value i) {
              Value v = b.load(x, {i});
              return std::vector<Value>{v, v, v, v};
            }));
        EXPECT_FALSE(b.finish()) << b.error().str();
      }
    }
  }
  return m;
}

// Wide exponents (cancellation between huge terms of both signs) and
// denormals, with -0 and, when `specials`, NaN and infinities sprinkled in.
std::vector<double> data(std::size_t n, bool specials, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> exp(-1074, 300);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::ldexp(mant(rng), exp(rng) % 60);
    if (i % 97 == 0) x[i] = 1e300 * ((i / 97) % 2 ? -1 : 1);
    if (i % 89 == 0) x[i] = std::numeric_limits<double>::denorm_min() * static_cast<double>(i % 1000);
    if (i % 83 == 0) x[i] = -0.0;
  }
  if (specials && n > 50000) {
    x[12345] = std::numeric_limits<double>::quiet_NaN();
    x[50000] = std::numeric_limits<double>::infinity();
  }
  return x;
}

void stdThreadScheduler(const runtime::ParallelLoop& loop, void*) {
  // One block at a time, from the far end first: the order differs from any
  // other scheduler's.
  std::atomic<std::int64_t> next{loop.end};
  auto work = [&] {
    for (std::int64_t e; (e = next.fetch_sub(1)) > loop.begin;) loop.run(e - 1, e);
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < loop.threads; ++t) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();
}

class Deterministic : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { kernels_ = new test::CompiledModule(test::compileModule(build())); }
  static void TearDownTestSuite() {
    delete kernels_;
    runtime::setNumThreads(0);
    runtime::resetScheduler();
  }
  // f() under every thread count, the default scheduler and the std::thread one.
  template <typename F>
  static void everyWay(F&& f) {
    for (bool custom : {false, true}) {
      if (custom) runtime::setScheduler(stdThreadScheduler);
      for (int threads : kThreadCounts) {
        runtime::setNumThreads(threads);
        SCOPED_TRACE(testing::Message() << threads << " threads" << (custom ? ", std::thread scheduler" : ""));
        f();
      }
      runtime::resetScheduler();
    }
  }
  static test::CompiledModule* kernels_;
};
test::CompiledModule* Deterministic::kernels_ = nullptr;

TEST_F(Deterministic, SumIsTheDocumentedOrderForEveryThreadCount) {
  const std::function<double(double, double)> add = [](double a, double b) { return a + b; };
  for (std::size_t n : {0, 1, 5, 1023, 1025, 100003, 2100000}) {
    for (bool specials : {false, true}) {
      std::vector<double> x = data(n, specials, static_cast<unsigned>(n));
      D1d d{x.data(), x.data(), 0, {static_cast<std::int64_t>(n)}, {1}};
      for (std::int64_t block : {0, 1, 7}) {
        if (block == 1 && n > 200000) continue;
        const double want = documented<double>(x, block, 0.25, -0.0, add);
        for (const char* sched : {"", "d"}) {
          auto* sum = kernels_->get<double(D1d*, double)>("sum_" + std::to_string(block) + sched);
          SCOPED_TRACE(testing::Message() << "n " << n << " block " << block << sched << " specials " << specials);
          everyWay([&] { ASSERT_EQ(bitsOf(sum(&d, 0.25)), bitsOf(want)) << sum(&d, 0.25) << " vs " << want; });
        }
      }
    }
  }
}

TEST_F(Deterministic, SignedZeroInfinityAndNaN) {
  auto* sum = kernels_->get<double(D1d*, double)>("sum_7");
  auto run = [&](std::vector<double> x, double init, double want) {
    D1d d{x.data(), x.data(), 0, {static_cast<std::int64_t>(x.size())}, {1}};
    everyWay([&] { ASSERT_EQ(bitsOf(sum(&d, init)), bitsOf(want)); });
  };
  run(std::vector<double>(100, -0.0), -0.0, -0.0);  // -0 + -0 stays -0: the identity is -0
  run(std::vector<double>(100, -0.0), 0.0, 0.0);
  run({}, -0.0, -0.0);  // an empty loop gives init itself
  run({}, std::nan(""), std::nan(""));
  std::vector<double> infs(50, std::numeric_limits<double>::infinity());
  infs.push_back(-std::numeric_limits<double>::infinity());
  const double nan = documented<double>(infs, 7, 0, -0.0, [](double a, double b) { return a + b; });
  ASSERT_TRUE(std::isnan(nan));
  run(infs, 0, nan);
  // Cancellation: 1e16 + 1 - 1e16 depends on the order; the documented one holds.
  std::vector<double> cancel;
  for (int i = 0; i < 300; ++i) cancel.insert(cancel.end(), {1e16, 1.0, -1e16});
  run(cancel, 0, documented<double>(cancel, 7, 0, -0.0, [](double a, double b) { return a + b; }));
}

TEST_F(Deterministic, FloatSumsDenormalsAndCancellation) {
  const std::function<float(float, float)> add = [](float a, float b) { return a + b; };
  std::vector<float> x(300007);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = i % 5 == 0 ? std::numeric_limits<float>::denorm_min() * static_cast<float>(i % 100)
                      : std::ldexp(u(rng), static_cast<int>(i % 50) - 10);
  D1f d{x.data(), x.data(), 0, {static_cast<std::int64_t>(x.size())}, {1}};
  for (std::int64_t block : {0, 7}) {
    const float want = documented<float>(x, block, 0.0f, -0.0f, add);
    auto* sum = kernels_->get<float(D1f*)>("sumf_" + std::to_string(block));
    everyWay([&] { ASSERT_EQ(bitsOf(sum(&d)), bitsOf(want)); });
  }
}

struct Four {
  double product, min, max, custom;
};

TEST_F(Deterministic, ProductMinMaxAndANonAssociativeCombiner) {
  // Near 1 (a finite product over 100k elements), then the edge values.
  std::vector<double> near(100003);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1e-3, 1e-3);
  for (double& v : near) v = 1 + u(rng);
  std::vector<double> edges = data(100003, true, 3);
  for (std::int64_t block : {0, 7}) {
    auto* four = kernels_->get<void(Four*, D1d*)>("four_" + std::to_string(block));
    for (std::vector<double>* x : {&near, &edges}) {
      D1d d{x->data(), x->data(), 0, {static_cast<std::int64_t>(x->size())}, {1}};
      Four first{};
      runtime::setNumThreads(1);
      four(&first, &d);
      if (x == &near) {
        EXPECT_EQ(bitsOf(first.product),
                  bitsOf(documented<double>(near, block, 1, 1, [](double a, double b) { return a * b; })));
        EXPECT_EQ(bitsOf(first.custom),
                  bitsOf(documented<double>(near, block, 0.5, 0, [](double a, double b) { return a - b; })));
      } else {
        EXPECT_EQ(first.min, -1e300);  // the NaN init and the NaN element are ignored, as in every min
        EXPECT_EQ(first.max, std::numeric_limits<double>::infinity());
      }
      everyWay([&] {
        Four got{};
        four(&got, &d);
        ASSERT_EQ(bitsOf(got.product), bitsOf(first.product));
        ASSERT_EQ(bitsOf(got.min), bitsOf(first.min));
        ASSERT_EQ(bitsOf(got.max), bitsOf(first.max));
        ASSERT_EQ(bitsOf(got.custom), bitsOf(first.custom));
      });
    }
  }
}

}  // namespace
}  // namespace memjit::codegen
