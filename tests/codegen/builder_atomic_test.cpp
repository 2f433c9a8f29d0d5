// Atomics (FunctionBuilder::atomicRMW, genericAtomicRMW, atomicCompareExchange)
// and array reductions (parallelReduce over ArrayReduction): the IR matches
// MLIR 19's lowering of memref.atomic_rmw (kind and acq_rel ordering, read
// off mlir-opt's output), every kind and ordering hammered from a parallel
// loop of 1M iterations into few elements gives exact counts, float min/max
// follow their NaN and -0 rules, and array reductions equal a serial
// reference for every schedule, thread count, layout and empty ranges.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/codegen/builder.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/parallel.h"
#include "support/jit.h"
#include "support/types.h"
#include "support/views.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;
template <typename T, int N = 1>
using M = runtime::StridedMemRef<T, N>;

using test::view;

constexpr std::int64_t kIterations = 1 << 20;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string irOf(Module& m) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  m.llvm().print(os, nullptr);
  return ir;
}

// The first line of `ir` containing `needle` (empty when none).
std::string lineWith(const std::string& ir, const std::string& needle) {
  const std::size_t at = ir.find(needle);
  if (at == std::string::npos) return {};
  const std::size_t begin = ir.rfind('\n', at) + 1, end = ir.find('\n', at);
  return ir.substr(begin, end - begin);
}

// --- the IR: MLIR's lowering ---

TEST(Atomics, LowerAsMLIRDoes) {
  // mlir-opt-19 --finalize-memref-to-llvm turns `memref.atomic_rmw addi` into
  // `atomicrmw add ptr %p, i32 %v acq_rel, align 4`, and so on per kind.
  const std::pair<AtomicKind, const char*> direct[] = {
      {AtomicKind::Addi, "atomicrmw add ptr"},   {AtomicKind::Andi, "atomicrmw and ptr"},
      {AtomicKind::Ori, "atomicrmw or ptr"},     {AtomicKind::Xori, "atomicrmw xor ptr"},
      {AtomicKind::Maxs, "atomicrmw max ptr"},   {AtomicKind::Maxu, "atomicrmw umax ptr"},
      {AtomicKind::Mins, "atomicrmw min ptr"},   {AtomicKind::Minu, "atomicrmw umin ptr"},
      {AtomicKind::Assign, "atomicrmw xchg ptr"}};
  for (auto [kind, want] : direct) {
    Module m("ir");
    FunctionBuilder b(m, "f", functionType("(memref<?xi32>, i32, index) -> i32"));
    b.ret({b.atomicRMW(kind, b.arg(1), b.arg(0), {b.arg(2)})});
    ASSERT_FALSE(b.finish()) << b.error().str();
    const std::string ir = irOf(m);
    EXPECT_NE(lineWith(ir, std::string(want) + " %").find(" acq_rel, align 4"), std::string::npos) << ir;
    EXPECT_EQ(ir.find("cmpxchg"), std::string::npos) << ir;
  }
  Module m("ir");
  FunctionBuilder b(m, "f", functionType("(memref<?xf64>, f64, index) -> (f64, f64)"));
  Value add = b.atomicRMW(AtomicKind::Addf, b.arg(1), b.arg(0), {b.arg(2)});
  // maximumf: MLIR's memref-expand makes it a generic_atomic_rmw over llvm.maximum.
  Value max = b.atomicRMW(AtomicKind::Maximumf, b.arg(1), b.arg(0), {b.arg(2)});
  b.ret({add, max});
  ASSERT_FALSE(b.finish()) << b.error().str();
  const std::string ir = irOf(m);
  EXPECT_NE(lineWith(ir, "atomicrmw fadd ptr %").find(" double %"), std::string::npos) << ir;
  EXPECT_NE(lineWith(ir, "atomicrmw fadd ptr %").find(" acq_rel, align 8"), std::string::npos) << ir;
  EXPECT_NE(lineWith(ir, "load atomic i64, ptr").find(" monotonic, align 8"), std::string::npos) << ir;
  EXPECT_NE(lineWith(ir, "cmpxchg ptr").find(" acq_rel monotonic, align 8"), std::string::npos) << ir;
  EXPECT_NE(ir.find("@llvm.maximum.f64"), std::string::npos) << ir;
}

TEST(Atomics, OrderingsAreLLVMs) {
  const std::pair<AtomicOrdering, const char*> orderings[] = {{AtomicOrdering::Relaxed, " monotonic, align 8"},
                                                              {AtomicOrdering::Acquire, " acquire, align 8"},
                                                              {AtomicOrdering::Release, " release, align 8"},
                                                              {AtomicOrdering::AcqRel, " acq_rel, align 8"},
                                                              {AtomicOrdering::SeqCst, " seq_cst, align 8"}};
  // A failed compare-exchange reads with the acquire part, as C++ derives it.
  const char* failure[] = {" monotonic monotonic, align 8", " acquire acquire, align 8", " release monotonic, align 8",
                           " acq_rel acquire, align 8", " seq_cst seq_cst, align 8"};
  for (std::size_t i = 0; i < std::size(orderings); ++i) {
    Module m("ir");
    FunctionBuilder b(m, "f", functionType("(memref<?xi64>, i64) -> ()"));
    b.atomicRMW(AtomicKind::Addi, b.arg(1), b.arg(0), {b.index(0)}, orderings[i].first);
    b.atomicCompareExchange(b.arg(0), {b.index(0)}, b.arg(1), b.arg(1), orderings[i].first);
    ASSERT_FALSE(b.finish()) << b.error().str();
    const std::string ir = irOf(m);
    EXPECT_NE(lineWith(ir, "atomicrmw add ptr").find(orderings[i].second), std::string::npos) << ir;
    EXPECT_NE(lineWith(ir, "cmpxchg ptr").find(failure[i]), std::string::npos) << ir;
  }
}

// --- hammered from many threads ---

// hammer(bins, seeds): parallel over 1M iterations i, bins[i % bins.size] =
// kind(bins[...], seeds[i % seeds.size]) with the given ordering.
void buildHammer(Module& m, const std::string& name, const char* elem, AtomicKind kind, AtomicOrdering ordering) {
  FunctionBuilder b(m, name, functionType(std::string("(memref<?x") + elem + ">, memref<?x" + elem + ">) -> ()"));
  Value bins = b.arg(0), seeds = b.arg(1);
  b.parallelFor(b.index(0), b.index(kIterations), b.index(1), {}, [&](Value i) {
    Value v = b.load(seeds, {b.rem(i, b.dim(seeds, 0))});
    b.atomicRMW(kind, v, bins, {b.rem(i, b.dim(bins, 0))}, ordering);
  });
  ASSERT_FALSE(b.finish()) << b.error().str();
}

// The serial result, in C++, of what hammer computes.
template <typename T, typename F>
std::vector<T> serialHammer(std::vector<T> bins, const std::vector<T>& seeds, F op) {
  for (std::int64_t i = 0; i < kIterations; ++i) {
    T& bin = bins[static_cast<std::size_t>(i) % bins.size()];
    bin = op(bin, seeds[static_cast<std::size_t>(i) % seeds.size()]);
  }
  return bins;
}

TEST(Atomics, EveryIntegerKindAndOrderingIsExactUnderContention) {
  struct Case {
    AtomicKind kind;
    std::int64_t (*op)(std::int64_t, std::int64_t);
  };
  const Case cases[] = {
      {AtomicKind::Addi, [](std::int64_t a, std::int64_t b) { return static_cast<std::int64_t>(std::uint64_t(a) + std::uint64_t(b)); }},
      {AtomicKind::Muli, [](std::int64_t a, std::int64_t b) { return static_cast<std::int64_t>(std::uint64_t(a) * std::uint64_t(b)); }},
      {AtomicKind::Andi, [](std::int64_t a, std::int64_t b) { return a & b; }},
      {AtomicKind::Ori, [](std::int64_t a, std::int64_t b) { return a | b; }},
      {AtomicKind::Xori, [](std::int64_t a, std::int64_t b) { return a ^ b; }},
      {AtomicKind::Maxs, [](std::int64_t a, std::int64_t b) { return std::max(a, b); }},
      {AtomicKind::Mins, [](std::int64_t a, std::int64_t b) { return std::min(a, b); }},
      {AtomicKind::Maxu, [](std::int64_t a, std::int64_t b) { return std::int64_t(std::max(std::uint64_t(a), std::uint64_t(b))); }},
      {AtomicKind::Minu, [](std::int64_t a, std::int64_t b) { return std::int64_t(std::min(std::uint64_t(a), std::uint64_t(b))); }},
  };
  const AtomicOrdering orderings[] = {AtomicOrdering::Relaxed, AtomicOrdering::Acquire, AtomicOrdering::Release,
                                      AtomicOrdering::AcqRel, AtomicOrdering::SeqCst};
  Module m("hammer");
  for (std::size_t k = 0; k < std::size(cases); ++k)
    for (std::size_t o = 0; o < std::size(orderings); ++o)
      buildHammer(m, "h" + std::to_string(k) + "_" + std::to_string(o), "i64", cases[k].kind, orderings[o]);
  test::CompiledModule c = test::compileModule(std::move(m));
  runtime::setNumThreads(8);
  // Edge values: INT64_MIN/MAX, -1 (all ones, unsigned max), values above 2^53,
  // single bits; 7 seeds over 5 bins so every bin sees every seed. Muli's seeds
  // are odd so products do not collapse to 0.
  const std::vector<std::int64_t> seeds = {std::numeric_limits<std::int64_t>::min(), -1, 3, (std::int64_t{1} << 53) + 1,
                                           std::numeric_limits<std::int64_t>::max(), 0x5555, -77};
  const std::vector<std::int64_t> mulSeeds = {-1, 3, 5, -7, (std::int64_t{1} << 40) + 1, 9, 1};
  for (std::size_t k = 0; k < std::size(cases); ++k) {
    const auto& s = cases[k].kind == AtomicKind::Muli ? mulSeeds : seeds;
    const std::vector<std::int64_t> init = {0, -1, 1, std::numeric_limits<std::int64_t>::min(), 12345};
    const std::vector<std::int64_t> want = serialHammer(init, s, cases[k].op);
    for (std::size_t o = 0; o < std::size(orderings); ++o) {
      auto* f = c.get<void(M<std::int64_t>*, M<std::int64_t>*)>("h" + std::to_string(k) + "_" + std::to_string(o));
      std::vector<std::int64_t> bins = init, in = s;
      M<std::int64_t> vb = view(bins), vs = view(in);
      f(&vb, &vs);
      EXPECT_EQ(bins, want) << "kind #" << k << ", ordering #" << o;
    }
  }
  runtime::setNumThreads(0);
}

TEST(Atomics, NarrowAndIndexCountersWrapExactly) {
  Module m("narrow");
  buildHammer(m, "i8", "i8", AtomicKind::Addi, AtomicOrdering::Relaxed);
  buildHammer(m, "ui16", "ui16", AtomicKind::Maxu, AtomicOrdering::AcqRel);
  buildHammer(m, "idx", "index", AtomicKind::Addi, AtomicOrdering::SeqCst);
  test::CompiledModule c = test::compileModule(std::move(m));
  runtime::setNumThreads(8);
  {
    std::vector<std::int8_t> bins(3, 0), seeds = {1, -128, 127};
    M<std::int8_t> vb = view(bins), vs = view(seeds);
    c.get<void(M<std::int8_t>*, M<std::int8_t>*)>("i8")(&vb, &vs);
    EXPECT_EQ(bins, serialHammer(std::vector<std::int8_t>(3, 0), seeds, [](std::int8_t a, std::int8_t b) {
                return static_cast<std::int8_t>(std::uint8_t(a) + std::uint8_t(b));
              }));
  }
  {
    std::vector<std::uint16_t> bins(2, 7), seeds = {0, 65535, 32768};
    M<std::uint16_t> vb = view(bins), vs = view(seeds);
    c.get<void(M<std::uint16_t>*, M<std::uint16_t>*)>("ui16")(&vb, &vs);
    EXPECT_EQ(bins, std::vector<std::uint16_t>(2, 65535));
  }
  {
    std::vector<std::int64_t> bins(4, 0), seeds = {1};
    M<std::int64_t> vb = view(bins), vs = view(seeds);
    c.get<void(M<std::int64_t>*, M<std::int64_t>*)>("idx")(&vb, &vs);
    EXPECT_EQ(bins, std::vector<std::int64_t>(4, kIterations / 4));
  }
  runtime::setNumThreads(0);
}

TEST(Atomics, FloatAddIsExactOnIntegersAndSaturatesInHalves) {
  Module m("fadd");
  buildHammer(m, "f64", "f64", AtomicKind::Addf, AtomicOrdering::Relaxed);
  buildHammer(m, "f32", "f32", AtomicKind::Addf, AtomicOrdering::AcqRel);
  buildHammer(m, "f16", "f16", AtomicKind::Addf, AtomicOrdering::AcqRel);
  buildHammer(m, "mulf", "f64", AtomicKind::Mulf, AtomicOrdering::AcqRel);
  test::CompiledModule c = test::compileModule(std::move(m));
  runtime::setNumThreads(8);
  {
    std::vector<double> bins(4, -0.0), seeds = {1.0, 2.0};
    M<double> vb = view(bins), vs = view(seeds);
    c.get<void(M<double>*, M<double>*)>("f64")(&vb, &vs);
    EXPECT_EQ(bins, serialHammer(std::vector<double>(4, -0.0), seeds, [](double a, double b) { return a + b; }));
  }
  {
    std::vector<float> bins(3, 0.0f), seeds = {1.0f};
    M<float> vb = view(bins), vs = view(seeds);
    c.get<void(M<float>*, M<float>*)>("f32")(&vb, &vs);
    EXPECT_EQ(bins, (std::vector<float>{349526.0f, 349525.0f, 349525.0f}));
  }
  {
    // 2048 + 1 rounds back to 2048 in f16 (ties to even): the count stops there in any order.
    std::vector<std::uint16_t> bins(2, 0), seeds = {0x3C00};  // 1.0
    M<std::uint16_t> vb = view(bins), vs = view(seeds);
    c.get<void(M<std::uint16_t>*, M<std::uint16_t>*)>("f16")(&vb, &vs);
    EXPECT_EQ(bins, (std::vector<std::uint16_t>{0x6800, 0x6800}));  // 2048.0
  }
  {
    // Powers of two multiply exactly in any order.
    std::vector<double> bins(2, 1.0), seeds = {2.0, 0.5, 0.5, 2.0, -1.0, -1.0};
    M<double> vb = view(bins), vs = view(seeds);
    c.get<void(M<double>*, M<double>*)>("mulf")(&vb, &vs);
    EXPECT_EQ(bins, serialHammer(std::vector<double>(2, 1.0), seeds, [](double a, double b) { return a * b; }));
  }
  runtime::setNumThreads(0);
}

TEST(Atomics, FloatMinMaxFollowNaNAndSignedZeroRules) {
  Module m("fminmax");
  const AtomicKind kinds[] = {AtomicKind::Maximumf, AtomicKind::Minimumf, AtomicKind::Maxnumf, AtomicKind::Minnumf};
  for (std::size_t k = 0; k < std::size(kinds); ++k)
    buildHammer(m, "k" + std::to_string(k), "f64", kinds[k], AtomicOrdering::AcqRel);
  test::CompiledModule c = test::compileModule(std::move(m));
  runtime::setNumThreads(8);
  auto run = [&](std::size_t k, std::vector<double> bins, std::vector<double> seeds) {
    M<double> vb = view(bins), vs = view(seeds);
    c.get<void(M<double>*, M<double>*)>("k" + std::to_string(k))(&vb, &vs);
    return bins;
  };
  auto bits = [](double d) { return std::bit_cast<std::uint64_t>(d); };
  // Signed zeros only: maximumf gives +0, minimumf -0 (MLIR: -0 < +0).
  EXPECT_EQ(bits(run(0, {-0.0}, {-0.0, 0.0, -0.0})[0]), bits(0.0));
  EXPECT_EQ(bits(run(1, {0.0}, {0.0, -0.0, 0.0})[0]), bits(-0.0));
  // A NaN among the operands propagates through maximumf/minimumf...
  EXPECT_TRUE(std::isnan(run(0, {1.0}, {-5.0, kNaN, 7.0, 3.0})[0]));
  EXPECT_TRUE(std::isnan(run(1, {1.0}, {-5.0, kNaN, 7.0, 3.0})[0]));
  // ... and is ignored by maxnumf/minnumf, also when the element starts as NaN.
  EXPECT_EQ(run(2, {kNaN}, {-5.0, kNaN, 7.0, 3.0}), std::vector<double>{7.0});
  EXPECT_EQ(run(3, {kNaN}, {-5.0, kNaN, 7.0, 3.0}), std::vector<double>{-5.0});
  // Infinities and denormals compare as values.
  const double denormal = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(run(0, {-INFINITY, -INFINITY}, {denormal, -denormal, 0.0}),
            (std::vector<double>{denormal, denormal}));
  EXPECT_EQ(run(3, {INFINITY}, {denormal, -denormal}), std::vector<double>{-denormal});
  runtime::setNumThreads(0);
}

TEST(Atomics, CompareExchangeLetsExactlyOneThreadClaimEachSlot) {
  // claim(owner, wins, bad): iteration i tries owner[i % n]: -1 -> i; a
  // success counts in wins[i % n]. Exactly one success per slot, by an i of
  // that slot; a failure never finds -1 (a claimed slot stays claimed).
  Module m("cas");
  {
    FunctionBuilder b(m, "claim", functionType("(memref<?xi64>, memref<?xi64>, memref<1xi64>) -> ()"));
    Value owner = b.arg(0), wins = b.arg(1), bad = b.arg(2);
    b.parallelFor(b.index(0), b.index(kIterations), b.index(1), {0, ParallelSchedule::Dynamic}, [&](Value i) {
      Value slot = b.rem(i, b.dim(owner, 0));
      auto [found, stored] = b.atomicCompareExchange(owner, {slot}, b.i64(-1), b.cast(i, ElementType::I64));
      b.atomicRMW(AtomicKind::Addi, b.select(stored, b.i64(1), b.i64(0)), wins, {slot}, AtomicOrdering::Relaxed);
      Value wrong = b.andi(b.noti(stored), found == -1);
      b.atomicRMW(AtomicKind::Addi, b.select(wrong, b.i64(1), b.i64(0)), bad, {b.index(0)});
    });
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  {
    // Floats compare bits: a NaN equals itself, +0 does not equal -0.
    FunctionBuilder b(m, "fcas", functionType("(memref<2xf32>) -> (f32, i32, f32, i32)"));
    Value x = b.arg(0);
    Value nan = b.bitcast(b.i32(0x7fc00001), ElementType::F32);
    auto [a, okA] = b.atomicCompareExchange(x, {b.index(0)}, nan, b.f32(1.5f));
    auto [z, okZ] = b.atomicCompareExchange(x, {b.index(1)}, b.f32(0.0f), b.f32(2.5f));
    b.ret({a, b.select(okA, b.i32(1), b.i32(0)), z, b.select(okZ, b.i32(1), b.i32(0))});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  test::CompiledModule c = test::compileModule(std::move(m));
  runtime::setNumThreads(8);
  std::vector<std::int64_t> owner(13, -1), wins(13, 0), bad(1, 0);
  M<std::int64_t> vo = view(owner), vw = view(wins), vbad = view(bad);
  c.get<void(M<std::int64_t>*, M<std::int64_t>*, M<std::int64_t>*)>("claim")(&vo, &vw, &vbad);
  EXPECT_EQ(bad[0], 0);
  for (std::size_t s = 0; s < owner.size(); ++s) {
    EXPECT_EQ(owner[s] % 13, static_cast<std::int64_t>(s));
    EXPECT_EQ(wins[s], 1) << "slot " << s;
  }
  runtime::setNumThreads(0);
  struct Out {
    float a;
    std::int32_t okA;
    float z;
    std::int32_t okZ;
  } out{};
  float xs[2] = {std::bit_cast<float>(0x7fc00001u), -0.0f};
  M<float> vx{xs, xs, 0, {2}, {1}};
  c.get<void(Out*, M<float>*)>("fcas")(&out, &vx);
  EXPECT_EQ(out.okA, 1);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(out.a), 0x7fc00001u);
  EXPECT_EQ(xs[0], 1.5f);
  EXPECT_EQ(out.okZ, 0);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(out.z), 0x80000000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(xs[1]), 0x80000000u);
}

TEST(Atomics, GenericUpdateRetriesUntilItsValueLands) {
  // Every iteration's update lands exactly once, however often its body runs.
  Module m("generic");
  FunctionBuilder b(m, "g", functionType("(memref<?xi64>, memref<?xi64>) -> ()"));
  Value counters = b.arg(0), last = b.arg(1);
  b.parallelFor(b.index(0), b.index(kIterations), b.index(1), {}, [&](Value i) {
    Value old = b.genericAtomicRMW(counters, {b.rem(i, b.index(2))}, [&](Value v) { return b.add(v, b.i64(3)); });
    b.atomicRMW(AtomicKind::Maxs, old, last, {b.index(0)}, AtomicOrdering::Relaxed);
  });
  ASSERT_FALSE(b.finish()) << b.error().str();
  test::CompiledModule c = test::compileModule(std::move(m));
  runtime::setNumThreads(8);
  std::vector<std::int64_t> bins = {0, 100}, maxOld = {std::numeric_limits<std::int64_t>::min()};
  M<std::int64_t> vb = view(bins), vl = view(maxOld);
  c.get<void(M<std::int64_t>*, M<std::int64_t>*)>("g")(&vb, &vl);
  EXPECT_EQ(bins, (std::vector<std::int64_t>{3 * kIterations / 2, 100 + 3 * kIterations / 2}));
  // Each update returned the value it replaced: the largest is the last one's.
  EXPECT_EQ(maxOld[0], 100 + 3 * (kIterations / 2 - 1));
  runtime::setNumThreads(0);
}

// --- array reductions ---

TEST(ArrayReductions, HistogramEqualsTheSerialOneForEverySchedule) {
  const ParallelOptions options[] = {
      {}, {3, ParallelSchedule::Static, 0}, {1000, ParallelSchedule::Dynamic, 0}, {0, ParallelSchedule::Static, 1}};
  Module m("hist");
  for (std::size_t o = 0; o < std::size(options); ++o) {
    FunctionBuilder b(m, "hist" + std::to_string(o), functionType("(memref<?xui8>, memref<256xi64>, index, index) -> ()"));
    Value x = b.arg(0), bins = b.arg(1);
    b.parallelReduce(b.arg(2), b.arg(3), b.index(1), options[o], {ArrayReduction::sum(bins)},
                     [&](Value i, const std::vector<Value>& own) {
                       Value bin = b.cast(b.load(x, {i}), ElementType::Index);
                       b.store(b.load(own[0], {bin}) + 1, own[0], {bin});
                     });
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  test::CompiledModule c = test::compileModule(std::move(m));
  std::vector<std::uint8_t> data(1000003);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 13);
  M<std::uint8_t> vx = view(data);
  for (int threads : {1, 3, 8}) {
    runtime::setNumThreads(threads);
    for (std::size_t o = 0; o < std::size(options); ++o)
      for (auto [lb, ub] : {std::pair<std::int64_t, std::int64_t>{0, 1000003}, {5, 5}, {9, 2}, {17, 18}, {1, 4096}}) {
        // The accumulator keeps its initial values (OpenMP's reduction does too).
        std::vector<std::int64_t> bins(256), want(256);
        for (std::size_t k = 0; k < 256; ++k) bins[k] = want[k] = static_cast<std::int64_t>(k) - 100;
        for (std::int64_t i = lb; i < ub; ++i) ++want[data[static_cast<std::size_t>(i)]];
        M<std::int64_t> vb = view(bins);
        c.get<void(M<std::uint8_t>*, M<std::int64_t>*, std::int64_t, std::int64_t)>("hist" + std::to_string(o))(
            &vx, &vb, lb, ub);
        EXPECT_EQ(bins, want) << threads << " threads, options #" << o << ", [" << lb << ", " << ub << ")";
      }
  }
  runtime::setNumThreads(0);
}

TEST(ArrayReductions, MinMaxProductAndFloatSumIntoStridedAndTwoDimensionalAccumulators) {
  // Over x (i64) with step 3: into a 2-D accumulator's column view and a 2-D
  // accumulator, min/max/product of small values, and a float sum of
  // integers (exact in any order).
  Module m("mixed");
  FunctionBuilder b(m, "mixed", functionType("(memref<?xi64>, memref<?x3xi64>, memref<2x4xui8>, memref<4xf64>, "
                                             "memref<?xf32>, index) -> ()"));
  Value x = b.arg(0), table = b.arg(1), u = b.arg(2), fsum = b.arg(3), fmax = b.arg(4);
  Value column = b.subview(table, {0, 1}, {IndexOperand(b.dim(table, 0)), 1}, {1, 1});  // strided, 2-D
  b.parallelReduce(b.index(0), b.arg(5), b.index(3), {0, ParallelSchedule::Dynamic},
                   {ArrayReduction::min(column), ArrayReduction::max(u), ArrayReduction::sum(fsum),
                    ArrayReduction::max(fmax), ArrayReduction::product(b.subview(table, {0, 2}, {2, 1}, {1, 1}))},
                   [&](Value i, const std::vector<Value>& own) {
                     Value v = b.load(x, {i});
                     Value r = b.rem(i, b.index(2));
                     Value slot = b.rem(i, b.index(4));
                     b.store(b.min(b.load(own[0], {r, b.index(0)}), v), own[0], {r, b.index(0)});
                     Value uv = b.cast(v, ElementType::UI8);
                     b.store(b.max(b.load(own[1], {r, slot}), uv), own[1], {r, slot});
                     b.store(b.load(own[2], {slot}) + b.cast(v, ElementType::F64), own[2], {slot});
                     Value fv = b.select(b.cmp(CmpPredicate::Eq, b.rem(v, b.i64(7)), b.i64(0)),
                                         b.bitcast(b.i32(0x7fc00000), ElementType::F32), b.cast(v, ElementType::F32));
                     b.store(b.max(b.load(own[3], {r}), fv), own[3], {r});
                     Value sign = b.select(b.cmp(CmpPredicate::Lt, v, b.i64(0)), b.i64(-1), b.i64(1));
                     b.store(b.load(own[4], {r, b.index(0)}) * sign, own[4], {r, b.index(0)});
                   });
  ASSERT_FALSE(b.finish()) << b.error().str();
  test::CompiledModule c = test::compileModule(std::move(m));
  const std::int64_t n = 100000;
  std::vector<std::int64_t> xs(n);
  for (std::int64_t i = 0; i < n; ++i) xs[static_cast<std::size_t>(i)] = ((i * 7919) % 2001) - 1000;
  for (int threads : {1, 8}) {
    runtime::setNumThreads(threads);
    std::vector<std::int64_t> table = {5, 50, 1, 6, 60, -1, 7, 70, 1};  // 3x3, the view covers rows 0-1
    std::vector<std::uint8_t> u(8, 3);
    std::vector<double> fsum = {0.5, 0, 0, 0};
    std::vector<float> fmax(2, -1e30f);
    auto wantTable = table;
    auto wantU = u;
    auto wantSum = fsum;
    auto wantMax = fmax;
    for (std::int64_t i = 0; i < n; i += 3) {
      const std::int64_t v = xs[static_cast<std::size_t>(i)], r = i % 2, slot = i % 4;
      auto& mn = wantTable[static_cast<std::size_t>(r * 3 + 1)];
      mn = std::min(mn, v);
      auto& mx = wantU[static_cast<std::size_t>(r * 4 + slot)];
      mx = std::max(mx, static_cast<std::uint8_t>(v));
      wantSum[static_cast<std::size_t>(slot)] += static_cast<double>(v);
      if (v % 7 != 0) wantMax[static_cast<std::size_t>(r)] = std::max(wantMax[static_cast<std::size_t>(r)], float(v));
      if (v < 0) wantTable[static_cast<std::size_t>(r * 3 + 2)] *= -1;
    }
    M<std::int64_t> vx = view(xs);
    M<std::int64_t, 2> vt{table.data(), table.data(), 0, {3, 3}, {3, 1}};
    M<std::uint8_t, 2> vu{u.data(), u.data(), 0, {2, 4}, {4, 1}};
    M<double> vs = view(fsum);
    M<float> vm = view(fmax);
    c.get<void(M<std::int64_t>*, M<std::int64_t, 2>*, M<std::uint8_t, 2>*, M<double>*, M<float>*, std::int64_t)>(
        "mixed")(&vx, &vt, &vu, &vs, &vm, n);
    EXPECT_EQ(table, wantTable) << threads;
    EXPECT_EQ(u, wantU) << threads;
    EXPECT_EQ(fsum, wantSum) << threads;
    EXPECT_EQ(fmax, wantMax) << threads;  // NaN contributions ignored (max is maxnumf)
  }
  runtime::setNumThreads(0);
}

}  // namespace
}  // namespace memjit::codegen
