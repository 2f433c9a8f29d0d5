// Result-allocator companions (`fbr`): the emitted allocator's type and
// metadata agree with the runtime's convention, it allocates exactly the
// shapes the rules state (aligned, freed with free) and leaves data-dependent
// slots absent; functions using destinations run end to end through the
// dynamic invoker with results aliasing the destinations, and nothing leaks.
#include "memjit/codegen/allocator_companion.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "memjit/codegen/metadata.h"
#include "memjit/jit/jit.h"
#include "memjit/metadata_symbols.h"
#include "memjit/runtime/callable.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/result_allocator.h"
#include "memjit/type_syntax.h"
#include "memjit/jit/jit.h"
#include "support/llvm_jit.h"
#include "support/types.h"

using namespace memjit;
using namespace memjit::codegen;
using memjit::test::functionType;
using runtime::StridedMemRef;

namespace {

// add: (a, x, dest) -> memref<?xf32>, out = a + x in the destination (or a fresh buffer).
Error buildAdd(Module& m) {
  FunctionBuilder b(m, "add", functionType("(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> memref<?xf32>"));
  Value a = b.arg(0), x = b.arg(1);
  Value n = b.dim(a, 0);
  Value out = destinationOrAlloc(b, b.arg(2), {n});
  b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(b.load(a, {i}) + b.load(x, {i}), out, {i}); });
  b.ret({out});
  return b.finish();
}

// split: (x, dest0, dest1) -> (2*x, the positive elements of x). The second
// result's size is only known after counting: its destination is data-dependent.
Error buildSplit(Module& m) {
  FunctionBuilder b(m, "split",
                    functionType("(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> (memref<?xf32>, memref<?xf32>)"));
  Value x = b.arg(0);
  Value n = b.dim(x, 0);
  Value twice = destinationOrAlloc(b, b.arg(1), {n});
  b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(b.load(x, {i}) * b.f32(2), twice, {i}); });
  auto positive = [&](Value i) { return b.cmp(CmpPredicate::Gt, b.load(x, {i}), b.f32(0)); };
  auto count = b.forLoop(b.index(0), n, b.index(1), {b.index(0)}, [&](Value i, const std::vector<Value>& c) {
    return std::vector<Value>{b.select(positive(i), c[0] + b.index(1), c[0])};
  });
  Value pos = destinationOrAlloc(b, b.arg(2), {count[0]});
  b.forLoop(b.index(0), n, b.index(1), {b.index(0)}, [&](Value i, const std::vector<Value>& j) {
    Value p = positive(i);
    b.ifThen(p, [&] { b.store(b.load(x, {i}), pos, {j[0]}); });
    return std::vector<Value>{b.select(p, j[0] + b.index(1), j[0])};
  });
  b.ret({twice, pos});
  return b.finish();
}

const signature::FunctionSignature* findSig(const std::vector<signature::FunctionSignature>& sigs,
                                            const std::string& name) {
  for (const auto& s : sigs)
    if (s.name == name) return &s;
  return nullptr;
}

bool aligned(const void* p, std::uintptr_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

}  // namespace

// Mixed inputs (unranked, scalar, static and dynamic dims), every kind of rule.
TEST(ResultAllocator, TypeMetadataAndShapes) {
  Module m("shapes_mod");
  FunctionType t = functionType(
      "(memref<?x?xf32>, memref<*xf32>, f32, memref<5x?xi32>, memref<?x4x?xf64>, memref<?xi32>, memref<?x?xi32>)"
      " -> (memref<?x4x?xf64>, i32, memref<?xi32>, memref<?x?xi32>)");
  ASSERT_TRUE(defineFunction(m, "shapes", t));
  ASSERT_FALSE(emitZeroBody(m, "shapes"));
  ResultAllocatorOptions o;
  o.alignment = 128;
  auto a = addResultAllocator(m, "shapes",
                              {ResultShape::of({ResultDim::inputDim(3, 1), ResultDim::staticSize(4),
                                                ResultDim::inputDim(3, 0)}),
                               ResultShape::dependsOnData(),
                               ResultShape::of({ResultDim::staticSize(7), ResultDim::inputDim(0, 1)})},
                              o);
  ASSERT_TRUE(a) << a.error().str();
  EXPECT_EQ(a->name, "shapes__allocate_results");
  ASSERT_NE(a->cInterface, nullptr);
  // Exactly the runtime's allocator type for F.
  auto expected = runtime::allocatorType(t);
  ASSERT_TRUE(expected);
  EXPECT_EQ(a->type, *expected);
  EXPECT_EQ(toString(a->type),
            "(index, index, index) -> (memref<?x4x?xf64>, memref<?xi32>, memref<?x?xi32>)");
  // F names it; the allocator is an ordinary function with its own metadata.
  EXPECT_EQ(*readMetadataString(m, "_memjit_fbr_shapes"), "shapes__allocate_results");
  EXPECT_EQ(*readMetadataString(m, "_memjit_type_shapes__allocate_results"), toString(a->type));
  EXPECT_FALSE(readMetadataString(m, "_memjit_fbr_shapes__allocate_results"));
  EXPECT_EQ(*readMetadataString(m, manifestSymbol("shapes_mod")),
            R"({"memjit":1,"module":"shapes_mod","functions":["shapes","shapes__allocate_results"]})");
  const auto* fs = findSig(m.signatures(), "shapes");
  const auto* as = findSig(m.signatures(), "shapes__allocate_results");
  ASSERT_TRUE(fs && as);
  EXPECT_EQ(fs->resultAllocator, std::optional<std::string>("shapes__allocate_results"));
  EXPECT_FALSE(as->resultAllocator);
  EXPECT_FALSE(m.verify());

  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  struct Results {
    StridedMemRef<double, 3> r0;
    StridedMemRef<std::int32_t, 1> r1;
    StridedMemRef<std::int32_t, 2> r2;
  };
  auto alloc = jit.function<void(Results*, std::int64_t, std::int64_t, std::int64_t)>(
      "_mlir_ciface_shapes__allocate_results");
  ASSERT_TRUE(alloc) << alloc.error().str();
  // Dynamic input dims: input 0 is 3 x 9, input 3 is 5 x 6.
  Results r;
  std::memset(&r, 0xff, sizeof r);
  (*alloc)(&r, 3, 9, 6);
  EXPECT_EQ(std::vector<std::int64_t>(r.r0.sizes, r.r0.sizes + 3), (std::vector<std::int64_t>{6, 4, 5}));
  EXPECT_EQ(std::vector<std::int64_t>(r.r0.strides, r.r0.strides + 3), (std::vector<std::int64_t>{20, 5, 1}));
  EXPECT_EQ(r.r0.offset, 0);
  ASSERT_NE(r.r0.basePtr, nullptr);
  EXPECT_TRUE(aligned(r.r0.data, 128));
  EXPECT_GE(reinterpret_cast<char*>(r.r0.data), reinterpret_cast<char*>(r.r0.basePtr));
  EXPECT_LT(reinterpret_cast<char*>(r.r0.data), reinterpret_cast<char*>(r.r0.basePtr) + 128);
  for (std::int64_t i = 0; i < 6 * 4 * 5; ++i) r.r0.data[i] = static_cast<double>(i);  // the whole extent is writable
  // The data-dependent slot is absent.
  EXPECT_EQ(r.r1.basePtr, nullptr);
  EXPECT_EQ(r.r1.data, nullptr);
  EXPECT_EQ(r.r1.offset, 0);
  EXPECT_EQ(r.r1.sizes[0], 0);
  EXPECT_EQ(r.r1.strides[0], 0);
  EXPECT_EQ(r.r2.sizes[0], 7);
  EXPECT_EQ(r.r2.sizes[1], 9);
  EXPECT_EQ(r.r2.strides[0], 9);
  EXPECT_EQ(r.r2.strides[1], 1);
  EXPECT_TRUE(aligned(r.r2.data, 128));
  for (std::int64_t i = 0; i < 7 * 9; ++i) r.r2.data[i] = static_cast<std::int32_t>(i);
  std::free(r.r0.basePtr);  // the allocated pointer releases each buffer
  std::free(r.r2.basePtr);
}

// A signature declared up front with the allocator's name is accepted; the
// default alignment is 64.
TEST(ResultAllocator, PreDeclaredNameAndDefaultAlignment) {
  Module m("k");
  FunctionType t = functionType("(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> memref<?xf32>");
  auto sig = signature::describe("add", t);
  ASSERT_TRUE(sig);
  sig->resultAllocator = "add__allocate_results";
  FunctionOptions fo;
  fo.signature = *sig;
  ASSERT_TRUE(defineFunction(m, "add", t, fo));
  ASSERT_FALSE(emitZeroBody(m, "add"));
  auto a = addResultAllocator(m, "add", {ResultShape::of({ResultDim::inputDim(1, 0)})});
  ASSERT_TRUE(a) << a.error().str();
  EXPECT_EQ(*readMetadataString(m, "_memjit_fbr_add"), "add__allocate_results");
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto alloc = jit.function<void(StridedMemRef<float, 1>*, std::int64_t, std::int64_t)>(
      "_mlir_ciface_add__allocate_results");
  ASSERT_TRUE(alloc);
  StridedMemRef<float, 1> d{};
  (*alloc)(&d, 3, 11);  // dim 0 of input 1
  EXPECT_EQ(d.sizes[0], 11);
  EXPECT_TRUE(aligned(d.data, 64));
  std::free(d.basePtr);
}

namespace {

// The dynamic invoker calls these shims, which call the JIT'd allocators and
// record what they returned, so the test can see the results alias them.
using AddAlloc = void(StridedMemRef<float, 1>*, std::int64_t, std::int64_t);
struct SplitDests {
  StridedMemRef<float, 1> d0, d1;
};
using SplitAlloc = void(SplitDests*, std::int64_t);
AddAlloc* realAddAlloc = nullptr;
SplitAlloc* realSplitAlloc = nullptr;
std::vector<void*> handedOut;

extern "C" void addAllocShim(StridedMemRef<float, 1>* out, std::int64_t n0, std::int64_t n1) {
  realAddAlloc(out, n0, n1);
  handedOut.push_back(out->basePtr);
}
extern "C" void splitAllocShim(SplitDests* out, std::int64_t n) {
  realSplitAlloc(out, n);
  handedOut.push_back(out->d0.basePtr);
  handedOut.push_back(out->d1.basePtr);
}

struct Built {
  test::TestJit jit;
  std::vector<signature::FunctionSignature> sigs;
};

void build(Built& b) {
  Module m("fbr");
  ASSERT_FALSE(buildAdd(m));
  ASSERT_FALSE(buildSplit(m));
  ASSERT_TRUE(addResultAllocator(m, "add", {ResultShape::of({ResultDim::inputDim(0, 0)})}));
  ASSERT_TRUE(addResultAllocator(m, "split",
                                 {ResultShape::of({ResultDim::inputDim(0, 0)}), ResultShape::dependsOnData()}));
  b.sigs = m.signatures();
  ASSERT_FALSE(b.jit.add(std::move(m), true));
}

}  // namespace

TEST(ResultAllocator, FunctionUsesDestinationOrAllocates) {
  Built b;
  build(b);
  auto add = b.jit.function<void(StridedMemRef<float, 1>*, StridedMemRef<float, 1>*, StridedMemRef<float, 1>*,
                                 StridedMemRef<float, 1>*)>("_mlir_ciface_add");
  auto alloc = b.jit.function<AddAlloc>("_mlir_ciface_add__allocate_results");
  ASSERT_TRUE(add && alloc);
  std::vector<float> x{1, 2, 3, 4}, y{10, 20, 30, 40};
  auto xv = runtime::makeView(std::span<float>(x)), yv = runtime::makeView(std::span<float>(y));
  StridedMemRef<float, 1> dest{}, out{};
  (*alloc)(&dest, 4, 4);
  (*add)(&out, &xv, &yv, &dest);
  EXPECT_EQ(out.basePtr, dest.basePtr);  // written into the destination, which it returns
  EXPECT_EQ(out.data, dest.data);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.data[i], x[i] + y[i]);
  std::free(dest.basePtr);
  StridedMemRef<float, 1> absent{}, own{};
  (*add)(&own, &xv, &yv, &absent);  // no destination: it allocates
  ASSERT_NE(own.basePtr, nullptr);
  EXPECT_EQ(own.sizes[0], 4);
  EXPECT_EQ(own.data[3], 44.0f);
  std::free(own.basePtr);
}

TEST(ResultAllocator, DynamicInvokerEndToEnd) {
  Built b;
  build(b);
  auto addPtr = b.jit.lookup("_mlir_ciface_add");
  auto splitPtr = b.jit.lookup("_mlir_ciface_split");
  auto addAlloc = b.jit.function<AddAlloc>("_mlir_ciface_add__allocate_results");
  auto splitAlloc = b.jit.function<SplitAlloc>("_mlir_ciface_split__allocate_results");
  ASSERT_TRUE(addPtr && splitPtr && addAlloc && splitAlloc);
  realAddAlloc = *addAlloc;
  realSplitAlloc = *splitAlloc;
  const auto* addSig = findSig(b.sigs, "add");
  const auto* splitSig = findSig(b.sigs, "split");
  ASSERT_TRUE(addSig && splitSig);
  EXPECT_EQ(addSig->resultAllocator, std::optional<std::string>("add__allocate_results"));

  auto add = runtime::Callable::create(*addPtr, *addSig, reinterpret_cast<void*>(&addAllocShim));
  ASSERT_TRUE(add) << add.error().str();
  std::vector<float> x{1, -2, 3, -4, 5}, y{10, 20, 30, 40, 50};
  handedOut.clear();
  {
    auto r = add->invoke({runtime::makeView(std::span<float>(x)), runtime::makeView(std::span<float>(y))});
    ASSERT_TRUE(r) << r.error().str();
    ASSERT_EQ(handedOut.size(), 1u);  // the invoker called the allocator once
    EXPECT_EQ(r->buffer().allocated(), handedOut[0]);  // the result is the destination
    EXPECT_TRUE(r->buffer().owning());
    ASSERT_EQ(r->buffer().size(0), 5);
    auto* d = static_cast<float*>(r->buffer().data());
    for (int i = 0; i < 5; ++i) EXPECT_EQ(d[i], x[i] + y[i]);
  }  // the result's owner frees the destination (LeakSanitizer checks)

  auto split = runtime::Callable::create(*splitPtr, *splitSig, reinterpret_cast<void*>(&splitAllocShim));
  ASSERT_TRUE(split) << split.error().str();
  handedOut.clear();
  {
    auto r = split->invoke({runtime::makeView(std::span<float>(x))});
    ASSERT_TRUE(r) << r.error().str();
    ASSERT_EQ(handedOut.size(), 2u);
    EXPECT_EQ(handedOut[1], nullptr);  // the data-dependent slot came back absent
    ASSERT_EQ(r->items().size(), 2u);
    const auto& twice = (*r)[0].buffer();
    const auto& pos = (*r)[1].buffer();
    EXPECT_EQ(twice.allocated(), handedOut[0]);
    ASSERT_EQ(twice.size(0), 5);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(static_cast<float*>(twice.data())[i], 2 * x[i]);
    EXPECT_TRUE(pos.owning());  // split allocated it itself
    EXPECT_NE(pos.allocated(), handedOut[0]);
    ASSERT_EQ(pos.size(0), 3);
    auto* p = static_cast<float*>(pos.data());
    EXPECT_EQ(p[0], 1.0f);
    EXPECT_EQ(p[1], 3.0f);
    EXPECT_EQ(p[2], 5.0f);
  }
  // Without the allocator the invoker passes absent destinations and split allocates both.
  auto plain = runtime::Callable::create(*splitPtr, *splitSig);
  ASSERT_TRUE(plain);
  handedOut.clear();
  auto r = plain->invoke({runtime::makeView(std::span<float>(x))});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_TRUE(handedOut.empty());
  EXPECT_EQ(static_cast<float*>((*r)[0].buffer().data())[4], 10.0f);
  EXPECT_EQ((*r)[1].buffer().size(0), 3);
}

// memjit::Jit reads `_memjit_fbr_` and wires the allocator into its handles.
TEST(ResultAllocator, ThroughMemjitJit) {
  auto jit = jit::Jit::create();
  ASSERT_TRUE(jit) << jit.error().str();
  Module m("fbr_jit");
  ASSERT_FALSE(buildAdd(m));
  ASSERT_TRUE(addResultAllocator(m, "add", {ResultShape::of({ResultDim::inputDim(1, 0)})}));
  auto mod = jit->add(std::move(m));
  ASSERT_TRUE(mod) << mod.error().str();
  auto add = mod->function("add");
  ASSERT_TRUE(add) << add.error().str();
  EXPECT_EQ(add->signature().resultAllocator, std::optional<std::string>("add__allocate_results"));
  auto allocFn = mod->function("add__allocate_results");  // listed in the manifest, callable on its own
  ASSERT_TRUE(allocFn) << allocFn.error().str();
  EXPECT_EQ(toString(allocFn->signature().type), "(index, index) -> memref<?xf32>");
  std::vector<float> x{1, 2, 3}, y{4, 5, 6};
  auto r = add->invoke({runtime::makeView(std::span<float>(x)), runtime::makeView(std::span<float>(y))});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(static_cast<float*>(r->buffer().data())[2], 9.0f);
  auto d = allocFn->invoke({runtime::Variant(3LL), runtime::Variant(8LL)});
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_EQ(d->buffer().size(0), 8);
  EXPECT_TRUE(d->buffer().owning());
}

// The allocator's sizes come from the ranked inputs by their raw position,
// also when a scalar comes first (the invoker once read them from the list of
// passed buffers, which skips scalars: the size came from the wrong buffer).
TEST(ResultAllocator, ScalarBeforeTheMemrefTheSizeComesFrom) {
  auto jit = jit::Jit::create();
  ASSERT_TRUE(jit) << jit.error().str();
  Module m("fbr_scalar_first");
  {
    FunctionBuilder b(m, "scale", functionType("(f32, memref<?xf32>, memref<?xf32>) -> memref<?xf32>"));
    Value s = b.arg(0), x = b.arg(1);
    Value n = b.dim(x, 0);
    Value out = destinationOrAlloc(b, b.arg(2), {n});
    b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(b.load(x, {i}) * s, out, {i}); });
    b.ret({out});
    ASSERT_FALSE(b.finish());
  }
  ASSERT_TRUE(addResultAllocator(m, "scale", {ResultShape::of({ResultDim::inputDim(1, 0)})}));
  auto mod = jit->add(std::move(m));
  ASSERT_TRUE(mod) << mod.error().str();
  auto scale = mod->function("scale");
  ASSERT_TRUE(scale) << scale.error().str();
  std::vector<float> x{1, 2, 3, 4, 5};
  auto r = scale->invoke({runtime::Variant(2.0f), runtime::makeView(std::span<float>(x))});
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->buffer().size(0), 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(static_cast<float*>(r->buffer().data())[i], 2.0f * x[i]) << i;
}
