// Where FunctionBuilder::alloc's buffers live (temporaries.cpp): escaping ones
// from malloc, small static ones on the stack, the rest from the thread's
// arena (memjit/runtime/arena.h), reused across calls, released at every
// return, nested, recursive, on pool threads and on checked mode's early exit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/runtime/arena.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/memref.h"
#include "support/jit.h"
#include "support/types.h"
#include "support/views.h"

namespace memjit::codegen {
namespace {

using test::functionType;
using D1 = runtime::StridedMemRef<float, 1>;
using SumFn = float(D1*, std::int64_t);

using test::view;

const MemRefType kVector(ElementType::F32, {kDynamic});

// t = alloc(n) (or a static `staticSize`); t[i] = in[i] * 2 for i < n; returns sum(t) + extra(t).
void buildSumOfDoubled(Module& m, const std::string& name, std::int64_t staticSize = 0,
                       const std::function<Value(FunctionBuilder&, Value)>& extra = {}, FunctionOptions o = {}) {
  FunctionBuilder b(m, name, functionType("(memref<?xf32>, index) -> f32"), o);
  Value in = b.arg(0), n = b.arg(1);
  Value t = staticSize ? b.alloc(MemRefType(ElementType::F32, {staticSize})) : b.alloc(kVector, {n});
  b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(b.load(in, {i}) * b.f32(2), t, {i}); });
  auto sum = b.forLoop(b.index(0), n, b.index(1), {b.f32(0)},
                       [&](Value i, const std::vector<Value>& s) { return std::vector<Value>{s[0] + b.load(t, {i})}; });
  Value r = sum[0];
  if (extra) r = r + extra(b, t);
  b.ret({r});
  ASSERT_FALSE(b.finish()) << b.error().str();
}

std::string functionText(Module& m, const std::string& name) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.llvm().getFunction(name)->print(os);
  return s;
}

bool calls(const std::string& ir, const std::string& callee) { return ir.find("@" + callee + "(") != std::string::npos; }

float expectedSum(const std::vector<float>& in) {
  float s = 0;
  for (float x : in) s += x * 2;
  return s;
}

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
  return v;
}

TEST(Temporaries, DynamicAllocComesFromTheArenaReusedAcrossCalls) {
  Module m("t");
  buildSumOfDoubled(m, "sum");
  const std::string ir = functionText(m, "sum");
  EXPECT_TRUE(calls(ir, "memjit_arena_alloc")) << ir;
  EXPECT_TRUE(calls(ir, "memjit_arena_release")) << ir;
  EXPECT_FALSE(calls(ir, "malloc")) << ir;
  auto c = test::compileModule(std::move(m));
  auto* sum = c.get<SumFn>("sum");
  auto in = ramp(5000);
  D1 d = view(in);
  ASSERT_EQ(sum(&d, 5000), expectedSum(in));
  const auto first = runtime::arenaStats();
  EXPECT_EQ(first.bytesInUse, 0u);
  for (int call = 0; call < 5; ++call) {
    ASSERT_EQ(sum(&d, 5000), expectedSum(in));
    const auto now = runtime::arenaStats();
    EXPECT_EQ(now.chunkAllocations, first.chunkAllocations) << "call " << call << " allocated a chunk";
    EXPECT_EQ(now.lastBlock, first.lastBlock) << "call " << call << " got another block";
    EXPECT_EQ(now.blocks, first.blocks + static_cast<std::size_t>(call) + 1);
    EXPECT_EQ(now.bytesInUse, 0u);
  }
  // Empty and one-element temporaries.
  EXPECT_EQ(sum(&d, 0), 0.0f);
  EXPECT_EQ(sum(&d, 1), -6.0f);
}

TEST(Temporaries, SmallStaticAllocIsAnEntryBlockSlotAndLargeOnesUseTheArena) {
  Module m("t");
  buildSumOfDoubled(m, "small", 16);
  buildSumOfDoubled(m, "large", 4096);  // 16 KiB: over the stack limit
  const std::string small = functionText(m, "small"), large = functionText(m, "large");
  EXPECT_FALSE(calls(small, "malloc") || calls(small, "memjit_arena_alloc")) << small;
  EXPECT_NE(small.find("alloca i8, i64 64, align 64"), std::string::npos) << small;
  EXPECT_TRUE(calls(large, "memjit_arena_alloc")) << large;
  auto c = test::compileModule(std::move(m));
  auto in = ramp(4096);
  D1 d = view(in);
  auto first16 = std::vector<float>(in.begin(), in.begin() + 16);
  EXPECT_EQ(c.get<SumFn>("small")(&d, 16), expectedSum(first16));
  EXPECT_EQ(c.get<SumFn>("large")(&d, 4096), expectedSum(in));
}

TEST(Temporaries, AllocInALoopReusesItsSlotOrPopsItsArenaBlock) {
  // Each iteration allocs a buffer, fills and sums it; with dealloc (arena: the block is popped at once) or
  // without (the stack slot is the same every iteration).
  for (bool dynamic : {true, false}) {
    Module m("t");
    FunctionBuilder b(m, "loop", functionType("(memref<?xf32>, index) -> f32"));
    Value in = b.arg(0), n = b.arg(1);
    auto total = b.forLoop(b.index(0), b.index(2000), b.index(1), {b.f32(0)}, [&](Value it, const std::vector<Value>& s) {
      Value t = dynamic ? b.alloc(kVector, {n}) : b.alloc(MemRefType(ElementType::F32, {8}));
      b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(b.load(in, {i}) + b.cast(it, ElementType::F32), t, {i}); });
      Value v = b.load(t, {b.index(0)});
      if (dynamic) b.dealloc(t);
      return std::vector<Value>{s[0] + v};
    });
    b.ret({total[0]});
    ASSERT_FALSE(b.finish()) << b.error().str();
    const std::string ir = functionText(m, "loop");
    EXPECT_EQ(calls(ir, "memjit_arena_free"), dynamic) << ir;
    EXPECT_FALSE(calls(ir, "malloc") || calls(ir, "free")) << ir;
    auto c = test::compileModule(std::move(m));
    std::vector<float> ones(8, 1.0f);
    float expected = 0;
    for (int it = 0; it < 2000; ++it) expected += 1.0f + static_cast<float>(it);
    // On a thread of its own: a fresh arena, whose peak is this call's.
    std::thread([&] {
      D1 d = view(ones);
      EXPECT_EQ(c.get<SumFn>("loop")(&d, 8), expected);
      const auto stats = runtime::arenaStats();
      EXPECT_EQ(stats.blocks, dynamic ? 2000u : 0u);
      // 2,000 blocks of 32 bytes (each with its header and alignment) would need far more without the pops.
      EXPECT_LT(stats.peakBytesInUse, 256u);
    }).join();
  }
}

// Double buffering: each iteration allocs `next` from the carried `cur`. One slot for both would make the reversal
// read what it has just written, so allocs a phi mixes stay distinct blocks (the arena).
TEST(Temporaries, LoopCarriedAllocsAreDistinctBlocks) {
  Module m("t");
  FunctionBuilder b(m, "reverse", functionType("(index) -> f32"));
  const MemRefType small(ElementType::F32, {16});
  Value first = b.alloc(small);
  b.forLoop(b.index(0), b.index(16), b.index(1), [&](Value i) { b.store(b.cast(i, ElementType::F32), first, {i}); });
  auto last = b.forLoop(b.index(0), b.arg(0), b.index(1), {first}, [&](Value, const std::vector<Value>& cur) {
    Value next = b.alloc(small);
    b.forLoop(b.index(0), b.index(16), b.index(1), [&](Value i) {
      b.store(b.load(cur[0], {b.index(15) - i}) + b.f32(1), next, {i});
    });
    return std::vector<Value>{next};
  });
  b.ret({b.load(last[0], {b.index(0)}) * b.f32(100) + b.load(last[0], {b.index(15)})});
  ASSERT_FALSE(b.finish()) << b.error().str();
  const std::string ir = functionText(m, "reverse");
  EXPECT_TRUE(calls(ir, "memjit_arena_alloc")) << ir;
  EXPECT_EQ(ir.find("alloca i8, i64 64"), std::string::npos) << ir;
  auto c = test::compileModule(std::move(m));
  auto* reverse = c.get<float(std::int64_t)>("reverse");
  EXPECT_EQ(reverse(0), 0.0f * 100 + 15.0f);
  EXPECT_EQ(reverse(1), 16.0f * 100 + 1.0f);  // [16, 15, ..., 1]
  EXPECT_EQ(reverse(3), 18.0f * 100 + 3.0f);
  EXPECT_EQ(runtime::arenaStats().bytesInUse, 0u);
}

TEST(Temporaries, ReturnedAllocStaysOwnedByTheCaller) {
  Module m("t");
  ASSERT_FALSE(addScaledCopy(m, "scaled"));
  const std::string ir = functionText(m, "scaled");
  EXPECT_TRUE(calls(ir, "malloc")) << ir;
  EXPECT_FALSE(calls(ir, "memjit_arena_alloc")) << ir;
  auto c = test::compileModule(std::move(m));
  auto* scaled = c.get<void(D1*, D1*, float)>("scaled");
  auto in = ramp(100);
  D1 x = view(in), out{};
  const auto before = runtime::arenaStats();
  scaled(&out, &x, 3.0f);
  EXPECT_EQ(runtime::arenaStats().blocks, before.blocks);
  for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out.data[i], in[i] * 3.0f);
  std::free(out.basePtr);  // the caller's, as before
}

// Escapes by the rule: stored, passed to a callee that returns it, returned as an unranked memref.
TEST(Temporaries, EscapingUsesKeepMalloc) {
  Module m("t");
  {
    FunctionBuilder b(m, "identity", functionType("(memref<?xf32>) -> memref<?xf32>"));
    b.ret({b.arg(0)});
    ASSERT_FALSE(b.finish());
  }
  {
    FunctionBuilder b(m, "passes", functionType("(index) -> f32"));
    Value t = b.alloc(kVector, {b.arg(0)});
    b.store(b.f32(5), t, {b.index(0)});
    Value back = b.call("identity", {t})[0];
    Value v = b.load(back, {b.index(0)});
    b.dealloc(back);
    b.ret({v});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  const std::string ir = functionText(m, "passes");
  EXPECT_TRUE(calls(ir, "malloc")) << ir;
  EXPECT_TRUE(calls(ir, "free")) << ir;
  EXPECT_FALSE(calls(ir, "memjit_arena_alloc")) << ir;
  auto c = test::compileModule(std::move(m));
  EXPECT_EQ(c.get<float(std::int64_t)>("passes")(4), 5.0f);
}

// A callee of the same module that only reads its memref keeps the caller's temporary in the arena; the callee's
// own temporary stacks above it, and a recursive function's temporaries stack per level.
TEST(Temporaries, NestedAndRecursiveCallsStackTheirBlocks) {
  Module m("t");
  buildSumOfDoubled(m, "inner");
  {
    // rec(in, n) = sum over t = in * 2 of t + rec(t, n - 1) while n > 0: each level allocs its own.
    FunctionBuilder b(m, "rec", functionType("(memref<?xf32>, index) -> f32"));
    Value in = b.arg(0), n = b.arg(1);
    Value size = b.dim(in, 0);
    Value t = b.alloc(kVector, {size});
    b.forLoop(b.index(0), size, b.index(1), [&](Value i) { b.store(b.load(in, {i}) * b.f32(2), t, {i}); });
    auto r = b.ifElse(n > b.index(0), [&] { return std::vector<Value>{b.call("rec", {t, n - b.index(1)})[0]}; },
                      [&] { return std::vector<Value>{b.f32(0)}; });
    b.ret({r[0] + b.call("inner", {t, size})[0]});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  const std::string ir = functionText(m, "rec");
  EXPECT_FALSE(calls(ir, "malloc")) << ir;
  auto c = test::compileModule(std::move(m));
  auto* rec = c.get<SumFn>("rec");
  auto in = ramp(300);
  D1 d = view(in);
  std::vector<float> results;
  for (int calls = 0; calls < 3; ++calls) results.push_back(rec(&d, 6));
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[1], results[2]);
  // The same computed in C++ with the kernel's order of float operations.
  std::function<float(const std::vector<float>&, int)> reference = [&](const std::vector<float>& v, int n) {
    std::vector<float> t(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) t[i] = v[i] * 2;
    const float deeper = n > 0 ? reference(t, n - 1) : 0.0f;
    float inner = 0;
    for (float x : t) inner += x * 2;
    return deeper + inner;
  };
  EXPECT_EQ(results[0], reference(in, 6));
  EXPECT_EQ(runtime::arenaStats().bytesInUse, 0u);
}

// The attention block of bench_attention: temporaries the kernel library's sgemm and softmax only read and write
// (through casts, transposed views and masked vector accesses) stay in the arena.
TEST(Temporaries, TemporariesPassedToLibraryKernelsStayInTheArena) {
  Module m("t");
  ASSERT_FALSE(addSgemm(m, "sgemm"));
  ASSERT_FALSE(addSoftmax(m, "softmax"));
  FunctionBuilder b(m, "attention", functionType("(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()"));
  Value q = b.arg(0), kt = b.arg(1), out = b.arg(2);
  Value seq = b.dim(q, 0);
  Value s = b.alloc(MemRefType(ElementType::F32, {kDynamic, kDynamic}), {seq, seq});
  b.call("sgemm", {q, kt, s});
  b.call("softmax", {s, out});
  b.ret();
  ASSERT_FALSE(b.finish()) << b.error().str();
  const std::string ir = functionText(m, "attention");
  EXPECT_TRUE(calls(ir, "memjit_arena_alloc")) << ir;
  EXPECT_FALSE(calls(ir, "malloc")) << ir;
  auto c = test::compileModule(std::move(m));
  using M2 = runtime::StridedMemRef<float, 2>;
  const std::int64_t n = 37, d = 5;
  std::vector<float> qv(n * d), ktv(d * n), outv(n * n);
  for (std::size_t i = 0; i < qv.size(); ++i) qv[i] = static_cast<float>(i % 5) / 4.0f, ktv[i] = static_cast<float>(i % 3) / 2.0f;
  M2 qd{qv.data(), qv.data(), 0, {n, d}, {d, 1}}, ktd{ktv.data(), ktv.data(), 0, {d, n}, {n, 1}},
      od{outv.data(), outv.data(), 0, {n, n}, {n, 1}};
  c.get<void(M2*, M2*, M2*)>("attention")(&qd, &ktd, &od);
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<double> row(n);
    double m = -1e300, sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t k = 0; k < d; ++k) row[j] += double(qv[i * d + k]) * ktv[k * n + j];
      m = std::max(m, row[j]);
    }
    for (double& e : row) sum += (e = std::exp(e - m));
    for (std::int64_t j = 0; j < n; ++j) ASSERT_NEAR(outv[i * n + j], row[j] / sum, 1e-6) << i << ", " << j;
  }
  EXPECT_EQ(runtime::arenaStats().bytesInUse, 0u);
}

TEST(Temporaries, ThreadsAndParallelBodiesUseTheirOwnArenas) {
  Module m("t");
  buildSumOfDoubled(m, "sum");
  {
    // out[r] = sum of a temporary of n elements, each parallel iteration on whichever pool thread runs it.
    FunctionBuilder b(m, "rows", functionType("(memref<?xf32>, memref<?xf32>, index) -> ()"));
    Value in = b.arg(0), out = b.arg(1), n = b.arg(2);
    b.parallelFor(b.index(0), b.dim(out, 0), b.index(1), {}, [&](Value r) {
      Value t = b.alloc(kVector, {n});
      b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(b.load(in, {i}) + b.cast(r, ElementType::F32), t, {i}); });
      auto s = b.forLoop(b.index(0), n, b.index(1), {b.f32(0)},
                         [&](Value i, const std::vector<Value>& acc) { return std::vector<Value>{acc[0] + b.load(t, {i})}; });
      b.store(s[0], out, {r});
    });
    b.ret();
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  std::string module;
  llvm::raw_string_ostream os(module);
  m.llvm().print(os, nullptr);
  EXPECT_EQ(module.find("call ptr @malloc("), std::string::npos) << "the parallel body's temporary is not the arena's:\n" << module;
  auto c = test::compileModule(std::move(m));
  auto* sum = c.get<SumFn>("sum");
  auto* rows = c.get<void(D1*, D1*, std::int64_t)>("rows");
  auto in = ramp(2000);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<float> local = in;
      D1 d = view(local);
      for (int call = 0; call < 50; ++call) {
        const std::int64_t n = 1000 + t * 250 + call;
        std::vector<float> prefix(local.begin(), local.begin() + n);
        if (sum(&d, n) != expectedSum(prefix)) ++failures[static_cast<std::size_t>(t)];
      }
      if (runtime::arenaStats().bytesInUse != 0) ++failures[static_cast<std::size_t>(t)];
    });
  for (auto& t : threads) t.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  std::vector<float> out(64);
  D1 din = view(in), dout = view(out);
  rows(&din, &dout, 2000);
  for (std::size_t r = 0; r < out.size(); ++r) {
    float s = 0;
    for (float x : in) s += x + static_cast<float>(r);
    ASSERT_EQ(out[r], s) << "row " << r;
  }
}

TEST(Temporaries, CheckedModeCatchesAnOverflowAndReleasesTheArenaOnItsEarlyReturn) {
  Module m("t");
  FunctionOptions o;
  o.checked = true;
  // Writes one element past a temporary of n elements.
  buildSumOfDoubled(m, "over", 0,
                    [](FunctionBuilder& b, Value t) {
                      b.store(b.f32(1), t, {b.dim(t, 0)});
                      return b.f32(0);
                    },
                    o);
  auto c = test::compileModule(std::move(m));
  auto in = ramp(100);
  D1 d = view(in);
  memjit_check_clear();
  c.get<SumFn>("over")(&d, 100);
  const char* failure = memjit_check_message();
  ASSERT_NE(failure, nullptr);
  EXPECT_NE(std::string(failure).find("store of memref<?xf32> at [100] is out of bounds [100]"), std::string::npos)
      << failure;
  memjit_check_clear();
  EXPECT_EQ(runtime::arenaStats().bytesInUse, 0u);
}

TEST(Temporaries, HeapOptionKeepsMalloc) {
  Module m("t");
  FunctionOptions o;
  o.temporariesOnHeap = true;
  buildSumOfDoubled(m, "heap", 0, {}, o);
  const std::string ir = functionText(m, "heap");
  EXPECT_TRUE(calls(ir, "malloc")) << ir;
  EXPECT_FALSE(calls(ir, "memjit_arena_alloc")) << ir;
}

}  // namespace
}  // namespace memjit::codegen
