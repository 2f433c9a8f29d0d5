// Drives functions compiled by the real MLIR tools (kernels.mlir, built
// into an object by tests/runtime/CMakeLists.txt) through the dynamic and the
// typed invoker, from nothing but their MLIR type text.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>

#include "memjit/runtime/callable.h"
#include "memjit/runtime/print.h"
#include "support/mlir.h"

using namespace memjit;
using namespace memjit::runtime;

#ifdef MEMJIT_HAVE_MLIR_OBJECT
extern "C" {
void _mlir_ciface_axpy(float, void*, void*);
void _mlir_ciface_iota(void*, std::int64_t);
void _mlir_ciface_sum_and_pass(void*, void*, std::int32_t);
void _mlir_ciface_transpose_copy(void*, void*);
std::int64_t _mlir_ciface_rank_of(void*);
std::uint8_t _mlir_ciface_low_bit(std::int32_t);  // an i1 result: its byte as returned
}

namespace {
Callable load(void* fn, const char* name, const char* type) {
  auto f = Callable::fromTypeText(fn, name, type);
  EXPECT_TRUE(f) << (f ? "" : f.error().str());
  return f ? *f : Callable();
}
}  // namespace

TEST(MlirObject, AxpyInPlace) {
  Callable f = load(reinterpret_cast<void*>(&_mlir_ciface_axpy), "axpy", "(f32, memref<?xf32>, memref<?xf32>) -> ()");
  std::vector<float> x{1, 2, 3, 4}, y{10, 10, 10, 10};
  auto r = f.invoke({2.0, makeView(x), makeView(y)});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(y, (std::vector<float>{12, 14, 16, 18}));
  // A strided y (every other element) is copied in and back for MLIR's identity layout.
  std::vector<float> wide(8, 1.0f);
  auto strided = Buffer::view(ElementType::F32, wide.data(), {4}, {2});
  ASSERT_TRUE(strided);
  ASSERT_TRUE(f.invoke({1.0, makeView(x), *strided}));
  EXPECT_EQ(wide, (std::vector<float>{2, 1, 3, 1, 4, 1, 5, 1}));
}

TEST(MlirObject, MallocResultIsOwnedAndFreed) {
  Callable f = load(reinterpret_cast<void*>(&_mlir_ciface_iota), "iota", "(index) -> memref<?xf32>");
  auto r = f.invoke({5});
  ASSERT_TRUE(r) << r.error().str();
  const Buffer& b = r->buffer();
  EXPECT_TRUE(b.owning());
  EXPECT_EQ(b.describe(), "float32[5]");
  EXPECT_EQ(static_cast<float*>(b.data())[4], 4.0f);
  EXPECT_NE(formatMemref(b).find("[0,  1,  2,  3,  4]"), std::string::npos) << formatMemref(b);
  // Typed: the same function, an OwnedMemRef result.
  auto typed = f.as<OwnedMemRef<float, 1>(std::int64_t)>();
  ASSERT_TRUE(typed);
  auto m = (*typed)(3);
  EXPECT_TRUE(m.owning());
  EXPECT_EQ(m({2}), 2.0f);
}

TEST(MlirObject, MixedResultsWithAliasing) {
  Callable f = load(reinterpret_cast<void*>(&_mlir_ciface_sum_and_pass), "sum_and_pass",
                    "(memref<?x?xf64>, i32) -> (f64, memref<?x?xf64>, i32)");
  std::vector<double> v{1, 2, 3, 4, 5, 6};
  auto r = f.invoke({makeView(v, std::array<std::int64_t, 2>{2, 3}), 41});
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].toDouble(), 21.0);
  EXPECT_EQ((*r)[1].buffer().aligned(), v.data());
  EXPECT_FALSE((*r)[1].buffer().owning());  // it is the argument: not freed
  EXPECT_EQ((*r)[2].toInt(), 42);
}

TEST(MlirObject, StaticShapesAreChecked) {
  Callable f = load(reinterpret_cast<void*>(&_mlir_ciface_transpose_copy), "transpose_copy",
                    "(memref<2x3xf32>) -> memref<3x2xf32>");
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  auto r = f.invoke({makeView(v, std::array<std::int64_t, 2>{2, 3})});
  ASSERT_TRUE(r) << r.error().str();
  std::int64_t idx[2] = {2, 1};
  EXPECT_EQ(*static_cast<float*>(r->buffer().at(idx)), 6.0f);
  auto bad = f.invoke({makeView(v, std::array<std::int64_t, 2>{3, 2})});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "argument 0 (raw #0): expected Buffer<float32[2x3]>, received float32[3x2]");
}

TEST(MlirObject, UnrankedArgument) {
  Callable f = load(reinterpret_cast<void*>(&_mlir_ciface_rank_of), "rank_of", "(memref<*xf32>) -> index");
  std::vector<float> v(24);
  auto r = f.invoke({makeView(v, std::array<std::int64_t, 3>{2, 3, 4})});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toInt(), 3);
}
// MLIR's C interface returns an i1 in a byte whose bits 1-7 are what the truncation left (2 -> 0x02, not the
// false a C bool must be); both invokers take the low bit.
TEST(MlirObject, BoolResultIsItsLowBit) {
  ASSERT_EQ(_mlir_ciface_low_bit(2), 2) << "MLIR now zero-extends i1 results: this test's premise is gone";
  Callable f = load(reinterpret_cast<void*>(&_mlir_ciface_low_bit), "low_bit", "(i32) -> i1");
  auto typed = f.as<bool(std::int32_t)>();
  ASSERT_TRUE(typed);
  for (std::int32_t x : {0, 1, 2, 3, 0xfe, -1, INT32_MIN}) {
    const bool want = (x & 1) != 0;
    EXPECT_EQ(static_cast<int>((*typed)(x)), static_cast<int>(want)) << x;
    auto r = f.invoke({x});
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(r->toInt(), want ? 1 : 0) << x;
  }
}
#else
TEST(MlirObject, Skipped) {
  MEMJIT_MLIR_UNAVAILABLE() << "mlir-opt/mlir-translate/llc of LLVM's version were not found at configure time";
}
#endif
