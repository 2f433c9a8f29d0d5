// One case per diagnostic of the builder's vector operations: the error code
// and the words that name the operation and the types involved.
#include <gtest/gtest.h>

#include <functional>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/module.h"
#include "support/expect_error.h"

namespace memjit::codegen {
namespace {

MemRefType vec(ElementType t) { return MemRefType(t, {kDynamic}); }

TEST(VectorErrors, NamedWithOperationAndTypes) {
  auto build = [](const std::function<void(FunctionBuilder&)>& body) {
    Module m("e");
    FunctionBuilder b(m, "f", FunctionType{{vec(ElementType::F32), vec(ElementType::I32)}, {}});
    body(b);
    return b.finish();
  };
  test::expectError(build([](FunctionBuilder& b) { b.store(b.splat(b.f32(1), 4), b.arg(0), {b.index(0)}); }),
                    ErrorCode::TypeMismatch, {"'store'", "operand #0 is a vector (vector<4xf32>)", "takes no vectors"});
  test::expectError(build([](FunctionBuilder& b) { (void)(b.splat(b.f32(1), 4) + b.splat(b.f32(1), 8)); }),
                    ErrorCode::TypeMismatch, {"'add'", "(vector<4xf32>, vector<8xf32>)"});
  test::expectError(build([](FunctionBuilder& b) { (void)(b.splat(b.f32(1), 4) + b.f32(2)); }), ErrorCode::TypeMismatch,
                    {"'add'", "(vector<4xf32>, f32)"});
  test::expectError(build([](FunctionBuilder& b) { (void)b.powi(b.splat(b.f32(2), 4), b.splat(b.i32(2), 8)); }),
                    ErrorCode::TypeMismatch,
                    {"'powi'", "vector exponent needs a base of as many lanes", "(vector<4xf32>, vector<8xi32>)"});
  test::expectError(build([](FunctionBuilder& b) { (void)b.powi(b.f32(2), b.splat(b.i32(2), 4)); }),
                    ErrorCode::TypeMismatch, {"'powi'", "(f32, vector<4xi32>)"});
  test::expectError(build([](FunctionBuilder& b) { (void)b.powi(b.splat(b.f32(2), 4), Value()); }),
                    ErrorCode::InvalidArgument, {"'powi'", "operand #1 is not a value"});
  test::expectError(build([](FunctionBuilder& b) { (void)b.splat(b.f32(1), 0); }), ErrorCode::InvalidArgument,
                    {"'splat'", "0 lanes"});
  test::expectError(build([](FunctionBuilder& b) { (void)b.extract(b.splat(b.f32(1), 4), 4u); }),
                    ErrorCode::InvalidArgument, {"'extract'", "lane 4 of vector<4xf32>"});
  test::expectError(build([](FunctionBuilder& b) { (void)b.shuffle(b.splat(b.f32(1), 4), b.splat(b.f32(1), 4), {8}); }),
                    ErrorCode::InvalidArgument, {"'shuffle'", "mask entry #0 is 8", "[0, 8)"});
  test::expectError(build([](FunctionBuilder& b) {
                      (void)b.reduce(FunctionBuilder::VectorReduction::Xor, b.splat(b.f32(1), 4));
                    }),
                    ErrorCode::TypeMismatch, {"'reduction <xor>'", "integer or index", "vector<4xf32>"});
  test::expectError(build([](FunctionBuilder& b) { (void)b.vectorLoad(b.arg(0), {b.index(0)}, 4, {3, false}); }),
                    ErrorCode::InvalidArgument, {"'vector.load'", "alignment 3"});
  test::expectError(build([](FunctionBuilder& b) {
                      b.vectorStore(b.splat(b.f32(1), 4), b.arg(1), {b.index(0)});
                    }),
                    ErrorCode::TypeMismatch, {"'vector.store'", "vector<4xf32>", "memref<?xi32>"});
  test::expectError(build([](FunctionBuilder& b) {
                      (void)b.maskedLoad(b.arg(0), {b.index(0)}, b.splat(b.f32(1), 4), b.splat(b.f32(0), 4));
                    }),
                    ErrorCode::TypeMismatch, {"'vector.maskedload'", "mask must be vector<Nxi1>", "vector<4xf32>"});
  test::expectError(build([](FunctionBuilder& b) {
                      (void)b.gather(b.arg(0), {b.index(0)}, b.splat(b.f32(0), 4), b.createMask(4, b.index(1)),
                                     b.splat(b.f32(0), 4));
                    }),
                    ErrorCode::TypeMismatch, {"'vector.gather'", "offsets must be a vector of integer or index"});
  test::expectError(build([](FunctionBuilder& b) {
                      (void)b.cast(b.splat(b.i32(1), 4), ElementType::Ptr);
                    }),
                    ErrorCode::Unsupported, {"'cast'", "vector<4xi32>", "!llvm.ptr"});
  test::expectError(build([](FunctionBuilder& b) {
                      (void)b.select(b.createMask(8, b.index(1)), b.splat(b.f32(1), 4), b.splat(b.f32(1), 4));
                    }),
                    ErrorCode::TypeMismatch, {"'select'", "(vector<8xi1>, vector<4xf32>, vector<4xf32>)"});
  {
    Module m("e");
    const MemRefType strided(ElementType::F32, {kDynamic}, StridedLayout{0, {kDynamic}});
    FunctionBuilder b(m, "f", FunctionType{{strided}, {}});
    (void)b.vectorLoad(b.arg(0), {b.index(0)}, 4);
    test::expectError(b.finish(), ErrorCode::Unsupported, {"'vector.load'", "does not have stride 1", "transferRead"});
  }
  {
    Module m("e");
    FunctionBuilder b(m, "f", FunctionType{{vec(ElementType::I1)}, {}});
    (void)b.vectorLoad(b.arg(0), {b.index(0)}, 4);
    test::expectError(b.finish(), ErrorCode::Unsupported, {"'vector.load'", "vectors of i1", "memref<?xi1>"});
  }
}

}  // namespace
}  // namespace memjit::codegen
