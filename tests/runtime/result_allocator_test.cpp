// Deferred result allocation: the type rules and a full call through an
// allocator, with destinations that are used, and ones left absent.
#include "memjit/runtime/result_allocator.h"

#include <gtest/gtest.h>

#include "memjit/runtime/callable.h"
#include "memjit/type_syntax.h"
#include "support/types.h"

using namespace memjit;
using namespace memjit::runtime;
using memjit::test::functionType;

namespace {
int allocatorCalls = 0;
}  // namespace

extern "C" {
// add: (memref<?xf32>, memref<?xf32>, memref<?xf32> /*dest*/) -> memref<?xf32>, z = x + y
static void _mlir_ciface_add(StridedMemRef<float, 1>* out, StridedMemRef<float, 1>* x, StridedMemRef<float, 1>* y,
                             StridedMemRef<float, 1>* dest) {
  std::int64_t n = x->sizes[0];
  StridedMemRef<float, 1> r = *dest;
  if (!dest->basePtr) {  // absent destination: allocate, as MLIR would
    auto* mem = static_cast<float*>(std::malloc(sizeof(float) * static_cast<std::size_t>(n)));
    r = {mem, mem, 0, {n}, {1}};
  }
  for (std::int64_t i = 0; i < n; ++i) r.data[r.offset + i] = x->data[x->offset + i] + y->data[y->offset + i];
  *out = r;
}
// add__allocate_results: (index, index) -> memref<?xf32>
static void _mlir_ciface_add__allocate_results(StridedMemRef<float, 1>* out, std::int64_t n0, std::int64_t n1) {
  ++allocatorCalls;
  EXPECT_EQ(n0, n1);
  auto* mem = static_cast<float*>(std::malloc(sizeof(float) * static_cast<std::size_t>(n0)));
  *out = {mem, mem, 0, {n0}, {1}};
}
// An allocator that cannot know the shape: returns an absent slot.
static void _mlir_ciface_add__unknown(StridedMemRef<float, 1>* out, std::int64_t, std::int64_t) {
  ++allocatorCalls;
  *out = {nullptr, nullptr, 0, {0}, {0}};
}
}

TEST(ResultAllocator, TypeRules) {
  FunctionType full = functionType("(memref<?x4xf32>, i32, memref<?xf32>, memref<?x4xf32>) -> (memref<?x4xf32>, i32)");
  EXPECT_EQ(numDestinations(full), 1u);
  auto user = userFacingType(full);
  ASSERT_TRUE(user);
  EXPECT_EQ(toString(*user), "(memref<?x4xf32>, i32, memref<?xf32>) -> (memref<?x4xf32>, i32)");
  EXPECT_EQ(withDestinations(*user), full);
  auto alloc = allocatorType(full);
  ASSERT_TRUE(alloc);
  EXPECT_EQ(toString(*alloc), "(index, index) -> memref<?x4xf32>");
  EXPECT_EQ(defaultAllocatorName("add"), "add__allocate_results");
  auto bad = userFacingType(functionType("(memref<?xf32>, memref<?xi32>) -> memref<?xf32>"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(userFacingType(functionType("() -> memref<?xf32>")));
}

namespace {
Callable makeAdd(void* allocator) {
  auto sig = test::valueOrFail(
      signature::describe("add", functionType("(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> memref<?xf32>")));
  sig.resultAllocator = "add__allocate_results";
  return test::valueOrFail(Callable::create(reinterpret_cast<void*>(&_mlir_ciface_add), sig, allocator));
}
}  // namespace

TEST(ResultAllocator, InvokerCallsTheAllocatorAndPassesDestinations) {
  Callable f = makeAdd(reinterpret_cast<void*>(&_mlir_ciface_add__allocate_results));
  std::vector<float> x{1, 2, 3}, y{10, 20, 30};
  allocatorCalls = 0;
  auto r = f.invoke({makeView(x), makeView(y)});  // the user passes only the inputs
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(allocatorCalls, 1);
  EXPECT_TRUE(r->buffer().owning());  // the destination's ownership moved to the result
  EXPECT_EQ(static_cast<float*>(r->buffer().data())[2], 33.0f);
}

TEST(ResultAllocator, AbsentSlotsAndNoAllocator) {
  std::vector<float> x{1, 2}, y{3, 4};
  allocatorCalls = 0;
  Callable unknown = makeAdd(reinterpret_cast<void*>(&_mlir_ciface_add__unknown));
  auto r = unknown.invoke({makeView(x), makeView(y)});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(allocatorCalls, 1);
  EXPECT_EQ(static_cast<float*>(r->buffer().data())[1], 6.0f);
  EXPECT_TRUE(r->buffer().owning());
  Callable none = makeAdd(nullptr);  // no allocator at hand: destinations are absent
  auto r2 = none.invoke({makeView(x), makeView(y)});
  ASSERT_TRUE(r2);
  EXPECT_EQ(static_cast<float*>(r2->buffer().data())[0], 4.0f);
}
