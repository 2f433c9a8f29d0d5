// The typed invoker: checked once against the metadata, then direct calls.
#include "memjit/runtime/typed_function.h"

#include <gtest/gtest.h>

#include "test_kernels.h"

using namespace memjit;
using namespace memjit::runtime;

namespace {
Function make(void* fn, const char* type) {
  auto f = Function::fromTypeText(fn, "f", type);
  EXPECT_TRUE(f) << (f ? "" : f.error().str());
  return f ? *f : Function();
}
}  // namespace

TEST(Typed, VoidAndScalarResults) {
  Function scale = make(reinterpret_cast<void*>(&_mlir_ciface_scale), "(memref<?xf32>, f32) -> ()");
  auto s = scale.as<void(StridedMemRef<float, 1>, float)>();
  ASSERT_TRUE(s) << s.error().str();
  std::vector<float> v{1, 2, 3};
  (*s)(makeView(v), 3.0f);
  EXPECT_EQ(v[2], 9.0f);

  Function sum = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "(memref<?xf32>) -> f32");
  auto t = sum.as<float(StridedMemRef<float, 1>)>();
  ASSERT_TRUE(t);
  EXPECT_EQ((*t)(makeView(v)), 18.0f);
}

TEST(Typed, OwnedMemRefResult) {
  Function clone = make(reinterpret_cast<void*>(&_mlir_ciface_clone), "(memref<?xf32>) -> memref<?xf32>");
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
  Function id = make(reinterpret_cast<void*>(&_mlir_ciface_identity), "(memref<?xf32>) -> memref<?xf32>");
  auto f = id.as<OwnedMemRef<float, 1>(StridedMemRef<float, 1>)>();
  ASSERT_TRUE(f);
  std::vector<float> v{1};
  auto r = (*f)(makeView(v));
  EXPECT_FALSE(r.owning());
  EXPECT_EQ(r->data, v.data());
}

TEST(Typed, TupleResults) {
  Function multi = make(reinterpret_cast<void*>(&_mlir_ciface_multi), "(memref<?xf32>, i32) -> (memref<?xf32>, i32, f64)");
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
  Function halves = make(reinterpret_cast<void*>(&_mlir_ciface_halves), "(index) -> (memref<?xf32>, memref<?xf32>)");
  auto f = halves.as<std::tuple<OwnedMemRef<float, 1>, OwnedMemRef<float, 1>>(std::int64_t)>();
  ASSERT_TRUE(f);
  auto [a, b] = (*f)(2);
  EXPECT_EQ(a.owner(), b.owner());  // one free, when both go
  EXPECT_EQ(b({1}), 3.0f);
}

TEST(Typed, ScalarsOfEveryWidth) {
  Function mix = make(reinterpret_cast<void*>(&_mlir_ciface_mix), "(i8, i16, i32, i64, f32, f64, i1) -> f64");
  auto f = mix.as<double(std::int8_t, std::int16_t, std::int32_t, std::int64_t, float, double, bool)>();
  ASSERT_TRUE(f) << f.error().str();
  EXPECT_EQ((*f)(1, 2, 3, 4, 0.5f, 0.25, true), 1010.75);
}

TEST(Typed, MismatchesAreReportedOnce) {
  Function sum = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "(memref<?xf32>) -> f32");
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
  EXPECT_FALSE((Function().as<void()>()));
}

TEST(Typed, UnrankedParameter) {
  Function uid = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "(memref<*xf32>) -> f32");
  // Type-checks as an unranked parameter (the kernel itself reads rank 1).
  EXPECT_TRUE((uid.as<float(UnrankedMemRef<float>)>()));
  EXPECT_FALSE((uid.as<float(StridedMemRef<float, 1>)>()));
}
