// The typed invoker: checked once against the metadata, then direct calls.
#include "memjit/runtime/callable.h"
#include "memjit/runtime/typed_callable.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "test_kernels.h"

using namespace memjit;
using namespace memjit::runtime;

extern "C" {
// (memref<*xf32>) -> memref<*xf32>: a fresh malloc'd copy of a rank-1 input, descriptor malloc'd too
static void _mlir_ciface_unranked_clone(UnrankedMemRef<float>* out, UnrankedMemRef<float>* x) {
  auto* in = static_cast<StridedMemRef<float, 1>*>(x->descriptor);
  auto* copy = static_cast<StridedMemRef<float, 1>*>(std::malloc(sizeof(StridedMemRef<float, 1>)));
  auto n = in->sizes[0];
  auto* mem = static_cast<float*>(std::malloc(sizeof(float) * static_cast<std::size_t>(n)));
  for (std::int64_t i = 0; i < n; ++i) mem[i] = in->data[in->offset + i * in->strides[0]];
  *copy = {mem, mem, 0, {n}, {1}};
  out->rank = 1;
  out->descriptor = copy;
}
#if defined(MEMJIT_HAS_FLOAT16)
// (memref<?xf16>, f16) -> f16: stores x at [0], returns [1] (bits only, no arithmetic)
static _Float16 _mlir_ciface_half_swap(StridedMemRef<_Float16, 1>* m, _Float16 x) {
  m->data[0] = x;
  return m->data[1];
}
#endif
}

namespace {
Callable make(void* fn, const char* type) {
  auto f = Callable::fromTypeText(fn, "f", type);
  EXPECT_TRUE(f) << (f ? "" : f.error().str());
  return f ? *f : Callable();
}
}  // namespace

TEST(Typed, VoidAndScalarResults) {
  Callable scale = make(reinterpret_cast<void*>(&_mlir_ciface_scale), "(memref<?xf32>, f32) -> ()");
  auto s = scale.as<void(StridedMemRef<float, 1>, float)>();
  ASSERT_TRUE(s) << s.error().str();
  std::vector<float> v{1, 2, 3};
  (*s)(makeView(v), 3.0f);
  EXPECT_EQ(v[2], 9.0f);

  Callable sum = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "(memref<?xf32>) -> f32");
  auto t = sum.as<float(StridedMemRef<float, 1>)>();
  ASSERT_TRUE(t);
  EXPECT_EQ((*t)(makeView(v)), 18.0f);
}

TEST(Typed, OwnedMemRefResult) {
  Callable clone = make(reinterpret_cast<void*>(&_mlir_ciface_clone), "(memref<?xf32>) -> memref<?xf32>");
  auto c = clone.as<OwnedMemRef<float, 1>(StridedMemRef<float, 1>)>();
  ASSERT_TRUE(c) << c.error().str();
  std::vector<float> v{4, 5};
  OwnedMemRef<float, 1> r = (*c)(makeView(v));
  EXPECT_TRUE(r.owning());
  EXPECT_EQ(r({1}), 5.0f);
  // The result can be passed back in (OwnedMemRef converts to the descriptor).
  OwnedMemRef<float, 1> again = (*c)(r);
  EXPECT_EQ(again({0}), 4.0f);
}

TEST(Typed, AliasingResultIsBorrowed) {
  Callable id = make(reinterpret_cast<void*>(&_mlir_ciface_identity), "(memref<?xf32>) -> memref<?xf32>");
  auto f = id.as<OwnedMemRef<float, 1>(StridedMemRef<float, 1>)>();
  ASSERT_TRUE(f);
  std::vector<float> v{1};
  auto r = (*f)(makeView(v));
  EXPECT_FALSE(r.owning());
  EXPECT_EQ(r->data, v.data());
}

TEST(Typed, TupleResults) {
  Callable multi = make(reinterpret_cast<void*>(&_mlir_ciface_multi), "(memref<?xf32>, i32) -> (memref<?xf32>, i32, f64)");
  auto f = multi.as<std::tuple<OwnedMemRef<float, 1>, std::int32_t, double>(StridedMemRef<float, 1>, std::int32_t)>();
  ASSERT_TRUE(f) << f.error().str();
  std::vector<float> v{1, 2, 3};
  auto [m, i, d] = (*f)(makeView(v), 5);
  EXPECT_TRUE(m.owning());
  EXPECT_EQ(m->sizes[0], 3);
  EXPECT_EQ(i, 10);
  EXPECT_EQ(d, 2.5);
}

TEST(Typed, TupleResultsSharingAnAllocation) {
  Callable halves = make(reinterpret_cast<void*>(&_mlir_ciface_halves), "(index) -> (memref<?xf32>, memref<?xf32>)");
  auto f = halves.as<std::tuple<OwnedMemRef<float, 1>, OwnedMemRef<float, 1>>(std::int64_t)>();
  ASSERT_TRUE(f);
  auto [a, b] = (*f)(2);
  EXPECT_EQ(a.owner(), b.owner());  // one free, when both go
  EXPECT_EQ(b({1}), 3.0f);
}

TEST(Typed, ScalarsOfEveryWidth) {
  Callable mix = make(reinterpret_cast<void*>(&_mlir_ciface_mix), "(i8, i16, i32, i64, f32, f64, i1) -> f64");
  auto f = mix.as<double(std::int8_t, std::int16_t, std::int32_t, std::int64_t, float, double, bool)>();
  ASSERT_TRUE(f) << f.error().str();
  EXPECT_EQ((*f)(1, 2, 3, 4, 0.5f, 0.25, true), 1010.75);
}

TEST(Typed, MismatchesAreReportedOnce) {
  Callable sum = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "(memref<?xf32>) -> f32");
  auto wrongElem = sum.as<float(StridedMemRef<double, 1>)>();
  ASSERT_FALSE(wrongElem);
  EXPECT_EQ(wrongElem.error().code(), ErrorCode::TypeMismatch);
  EXPECT_NE(wrongElem.error().message().find("parameter 0 is memref<?xf32>, the C++ signature passes StridedMemRef<f64, 1>"),
            std::string::npos)
      << wrongElem.error().str();
  EXPECT_EQ((sum.as<float(StridedMemRef<float, 2>)>().error().code()), ErrorCode::TypeMismatch);
  EXPECT_EQ((sum.as<float(StridedMemRef<float, 1>, int)>().error().code()), ErrorCode::ArityMismatch);
  EXPECT_EQ((sum.as<void(StridedMemRef<float, 1>)>().error().code()), ErrorCode::ArityMismatch);
  EXPECT_EQ((sum.as<double(StridedMemRef<float, 1>)>().error().code()), ErrorCode::TypeMismatch);
  EXPECT_FALSE((Callable().as<void()>()));
}

TEST(Typed, UnrankedParameter) {
  Callable uid = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "(memref<*xf32>) -> f32");
  // Type-checks as an unranked parameter (the kernel itself reads rank 1).
  EXPECT_TRUE((uid.as<float(UnrankedMemRef<float>)>()));
  EXPECT_FALSE((uid.as<float(StridedMemRef<float, 1>)>()));
}

TEST(Typed, OwnedUnrankedResults) {
  Callable uid = make(reinterpret_cast<void*>(&_mlir_ciface_unranked_id), "(memref<*xf32>) -> memref<*xf32>");
  auto id = uid.as<OwnedUnrankedMemRef<float>(UnrankedMemRef<float>)>();
  ASSERT_TRUE(id) << id.error().str();
  std::vector<float> v{1, 2, 3};
  auto view = makeView(v);
  OwnedUnrankedMemRef<float> same = (*id)(makeUnranked(view));
  EXPECT_FALSE(same.owning());  // aliases the argument: borrowed (and its descriptor copy freed)
  EXPECT_EQ(same.rank(), 1);
  EXPECT_EQ(same.ranked<1>()->get().data, v.data());

  Callable uclone = make(reinterpret_cast<void*>(&_mlir_ciface_unranked_clone), "(memref<*xf32>) -> memref<*xf32>");
  auto clone = uclone.as<OwnedUnrankedMemRef<float>(UnrankedMemRef<float>)>();
  ASSERT_TRUE(clone);
  OwnedUnrankedMemRef<float> fresh = (*clone)(makeUnranked(view));
  EXPECT_TRUE(fresh.owning());  // LeakSanitizer checks it is freed
  auto r = fresh.ranked<1>();
  ASSERT_TRUE(r);
  EXPECT_NE(r->get().data, v.data());
  EXPECT_EQ((*r)({2}), 3.0f);
  // An owned unranked memref is an argument too.
  OwnedUnrankedMemRef<float> again = (*clone)(fresh);
  EXPECT_EQ(again.ranked<1>()->get().data[1], 2.0f);

  // The raw form leaves the descriptor copy and the memory to the caller.
  auto raw = uclone.as<UnrankedMemRef<float>(UnrankedMemRef<float>)>();
  ASSERT_TRUE(raw);
  UnrankedMemRef<float> u = (*raw)(makeUnranked(view));
  auto* d = static_cast<StridedMemRef<float, 1>*>(u.descriptor);
  EXPECT_EQ(d->data[0], 1.0f);
  std::free(d->basePtr);
  std::free(d);

  EXPECT_FALSE((uid.as<OwnedUnrankedMemRef<double>(UnrankedMemRef<float>)>()));
  EXPECT_FALSE((uid.as<OwnedMemRef<float, 1>(UnrankedMemRef<float>)>()));
}

#if defined(MEMJIT_HAS_FLOAT16)
TEST(Typed, HalfScalarsAndBuffers) {
  Callable swap = make(reinterpret_cast<void*>(&_mlir_ciface_half_swap), "(memref<?xf16>, f16) -> f16");
  auto f = swap.as<f16(StridedMemRef<f16, 1>, f16)>();
  ASSERT_TRUE(f) << f.error().str();
  std::vector<f16> v{f16(1.0), f16::fromBits(0x7d01)};
  EXPECT_EQ((*f)(makeView(v), f16::fromBits(0x8001)).bits(), 0x7d01);
  EXPECT_EQ(v[0].bits(), 0x8001);
  // The compiler's type works the same way, and mixes with memjit's.
  auto g = swap.as<_Float16(StridedMemRef<f16, 1>, _Float16)>();
  ASSERT_TRUE(g) << g.error().str();
  v[1] = f16::fromBits(0x8001);
  EXPECT_EQ(static_cast<float>((*g)(makeView(v), static_cast<_Float16>(2.0f))), -0x1p-24f);
  EXPECT_EQ(float(v[0]), 2.0f);
  // Neither bf16 nor an integer of the same width passes for f16.
  EXPECT_FALSE((swap.as<f16(StridedMemRef<bf16, 1>, f16)>()));
  EXPECT_FALSE((swap.as<f16(StridedMemRef<f16, 1>, std::uint16_t)>()));
  EXPECT_FALSE((swap.as<bf16(StridedMemRef<f16, 1>, f16)>()));
}
#endif
