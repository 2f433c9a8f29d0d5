// Cross-calls both ways between memjit and MLIR (of LLVM's version):
//  - C++ using MLIR's own CRunnerUtils.h descriptor types calls memjit-compiled
//    `_mlir_ciface_` functions (ranked, strided, unranked; returned memrefs);
//  - memjit-built code calls functions of an object compiled by
//    mlir-opt | mlir-translate | llc, through their C interfaces.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "support/llvm_jit.h"
#include "support/mlir_tools.h"
#include "support/types.h"

#ifdef MEMJIT_HAVE_MLIR_RUNNER_UTILS
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#else
// Only CxxWithCRunnerUtilsCallsMemjit needs MLIR's own header; the other test
// needs descriptors of MLIR's layout, which memjit's are.
#include "memjit/runtime/memref.h"
template <typename T, int N>
using StridedMemRefType = memjit::runtime::StridedMemRef<T, N>;
#endif

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

#ifdef MEMJIT_HAVE_MLIR_RUNNER_UTILS
TEST(CrossCall, CxxWithCRunnerUtilsCallsMemjit) {
  Module m("cross");
  {
    // rank * 100 + dim 1 of an unranked memref.
    FunctionBuilder b(m, "rank_dim", functionType("(memref<*xf32>) -> index"));
    Value u = b.arg(0);
    b.ret({b.rank(u) * b.index(100) + b.dim(u, 1)});
    ASSERT_FALSE(b.finish());
  }
  {
    // A 2x2 window at (1, 1) of a strided view, returned as a new descriptor.
    FunctionBuilder b(m, "window", functionType("(memref<?x?xf32, strided<[?, ?], offset: ?>>) -> "
                                          "memref<2x2xf32, strided<[?, ?], offset: ?>>"));
    b.ret({b.subview(b.arg(0), {1, 1}, {2, 2}, {1, 1})});
    ASSERT_FALSE(b.finish());
  }
  {
    // The argument itself as an unranked result (its descriptor copied to the heap).
    FunctionBuilder b(m, "erase_rank", functionType("(memref<?xf32>) -> (memref<*xf32>, f32)"));
    Value x = b.arg(0);
    b.ret({b.castToUnranked(x), b.load(x, {b.index(2)})});
    ASSERT_FALSE(b.finish());
  }
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));

  float data[12];
  for (int i = 0; i < 12; ++i) data[i] = static_cast<float>(i);
  StridedMemRefType<float, 2> m34{data, data, 0, {3, 4}, {4, 1}};
  ::UnrankedMemRefType<float> u{2, &m34};
  auto rankDim = jit.function<int64_t(::UnrankedMemRefType<float>*)>("_mlir_ciface_rank_dim");
  ASSERT_TRUE(rankDim.ok()) << rankDim.error().str();
  EXPECT_EQ((*rankDim)(&u), 204);

  using D2 = StridedMemRefType<float, 2>;
  auto window = jit.function<void(D2*, D2*)>("_mlir_ciface_window");
  ASSERT_TRUE(window.ok());
  D2 w{};
  (*window)(&w, &m34);
  EXPECT_EQ(w.basePtr, data);
  EXPECT_EQ(w.offset, 5);
  EXPECT_EQ(w.sizes[0], 2);
  EXPECT_EQ(w.sizes[1], 2);
  EXPECT_EQ(w.strides[0], 4);
  EXPECT_EQ(w.strides[1], 1);
  EXPECT_EQ(w.data[w.offset + w.strides[0] + w.strides[1]], data[10]);

  struct Result {
    ::UnrankedMemRefType<float> u;
    float third;
  };
  using D1 = StridedMemRefType<float, 1>;
  auto erase = jit.function<void(Result*, D1*)>("_mlir_ciface_erase_rank");
  ASSERT_TRUE(erase.ok());
  // memref<?xf32> has the identity layout: offset 0 and unit stride.
  D1 v{data, data + 1, 0, {5}, {1}};
  Result r{};
  (*erase)(&r, &v);
  EXPECT_EQ(r.third, data[1 + 2]);
  ASSERT_EQ(r.u.rank, 1);
  auto* d = static_cast<D1*>(r.u.descriptor);
  EXPECT_NE(static_cast<void*>(d), static_cast<void*>(&v));
  EXPECT_EQ(d->data, data + 1);
  EXPECT_EQ(d->offset, 0);
  EXPECT_EQ(d->sizes[0], 5);
  EXPECT_EQ(d->strides[0], 1);
  std::free(r.u.descriptor);  // 16 + 3*8 bytes the callee malloc'd
}
#else
TEST(CrossCall, CxxWithCRunnerUtilsCallsMemjit) {
  MEMJIT_MLIR_UNAVAILABLE() << "MLIR's CRunnerUtils.h was not found at configure time";
}
#endif

const char* kMlirLibrary = R"mlir(
module {
  func.func @mlir_scale(%m: memref<?xf32>, %s: f32) -> f32 attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.load %m[%c1] : memref<?xf32>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %m[%c0] : memref<?xf32>
    %n = memref.dim %m, %c0 : memref<?xf32>
    %ni = arith.index_cast %n : index to i32
    %nf = arith.sitofp %ni : i32 to f32
    %r = arith.addf %y, %nf : f32
    return %r : f32
  }
  func.func @mlir_pass_u(%u: memref<*xf32>) -> memref<*xf32> attributes {llvm.emit_c_interface} {
    return %u : memref<*xf32>
  }
  func.func @mlir_pair(%a: memref<?x?xf64>) -> (memref<?x?xf64>, index) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %d = memref.dim %a, %c1 : memref<?x?xf64>
    return %a, %d : memref<?x?xf64>, index
  }
}
)mlir";

TEST(CrossCall, MemjitCallsMlirCompiledObject) {
  std::string missing = test::missingMlirTools();
  if (!missing.empty()) MEMJIT_MLIR_UNAVAILABLE() << "MLIR tools absent, cross-call not checked: " << missing;
  std::string object = test::tempPath("mlir_lib.o");
  Error compiled = test::compileWithMlir(kMlirLibrary, object);
  ASSERT_FALSE(compiled) << compiled.str();

  Module m("caller");
  ASSERT_TRUE(declareExternalFunction(m, "mlir_scale", functionType("(memref<?xf32>, f32) -> f32")).ok());
  ASSERT_TRUE(declareExternalFunction(m, "mlir_pass_u", functionType("(memref<*xf32>) -> memref<*xf32>")).ok());
  ASSERT_TRUE(
      declareExternalFunction(m, "mlir_pair", functionType("(memref<?x?xf64>) -> (memref<?x?xf64>, index)")).ok());
  {
    FunctionBuilder b(m, "drive_scale", functionType("(memref<?xf32>) -> f32"));
    b.ret(b.call("mlir_scale", {b.arg(0), b.f32(3.0f)}));
    ASSERT_FALSE(b.finish());
  }
  {
    // Round-trips an unranked descriptor through MLIR in a loop: each returned
    // heap copy is moved to the stack and freed; the stack stays bounded.
    FunctionBuilder b(m, "drive_unranked", functionType("(memref<?xf32>, index) -> index"));
    Value x = b.arg(0);
    auto total = b.forLoop(b.index(0), b.arg(1), b.index(1), {b.index(0)}, [&](Value, const std::vector<Value>& s) {
      Value back = b.call("mlir_pass_u", {b.castToUnranked(x)})[0];
      return std::vector<Value>{s[0] + b.dim(back, 0) + b.rank(back)};
    });
    b.ret({total[0]});
    ASSERT_FALSE(b.finish());
  }
  {
    FunctionBuilder b(m, "drive_pair", functionType("(memref<?x?xf64>) -> f64"));
    auto r = b.call("mlir_pair", {b.arg(0)});
    b.ret({b.load(r[0], {b.index(1), r[1] - b.index(1)})});
    ASSERT_FALSE(b.finish());
  }
  test::TestJit jit;
  ASSERT_FALSE(jit.addObjectFile(object));
  std::remove(object.c_str());
  ASSERT_FALSE(jit.add(std::move(m)));

  using D1 = StridedMemRefType<float, 1>;
  float data[4] = {1, 2, 3, 4};
  D1 v{data, data, 0, {4}, {1}};
  auto scale = jit.function<float(D1*)>("_mlir_ciface_drive_scale");
  ASSERT_TRUE(scale.ok()) << scale.error().str();
  EXPECT_EQ((*scale)(&v), 2.0f * 3.0f + 4.0f);
  EXPECT_EQ(data[0], 6.0f);

  auto unranked = jit.function<int64_t(D1*, int64_t)>("_mlir_ciface_drive_unranked");
  ASSERT_TRUE(unranked.ok());
  // 200000 iterations of a 40-byte descriptor would need 8 MB of stack unscoped.
  EXPECT_EQ((*unranked)(&v, 200000), 200000 * 5);

  using D2 = StridedMemRefType<double, 2>;
  double md[6] = {0, 1, 2, 3, 4, 5};
  D2 mm{md, md, 0, {2, 3}, {3, 1}};
  auto pair = jit.function<double(D2*)>("_mlir_ciface_drive_pair");
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ((*pair)(&mm), md[3 + 2]);
}

}  // namespace
}  // namespace memjit::codegen
