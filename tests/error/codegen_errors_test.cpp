// One case per codegen diagnostic: the error code and the words that name
// the operation and the types involved.
#include <gtest/gtest.h>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/function.h"
#include "memjit/codegen/lowering.h"
#include "memjit/type_syntax.h"

namespace memjit::codegen {
namespace {

FunctionType fn(const char* text) { return *parseFunctionType(text); }

void expectError(const Error& e, ErrorCode code, std::initializer_list<const char*> words) {
  ASSERT_TRUE(e) << "expected an error";
  EXPECT_EQ(e.code(), code) << e.str();
  for (const char* w : words) EXPECT_NE(e.message().find(w), std::string::npos) << "missing '" << w << "' in " << e.str();
}

TEST(CodegenErrors, StoreOfWrongElementType) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(memref<?xi32>) -> ()"));
  b.store(b.f32(1), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"store", "f32", "memref<?xi32>"});
  EXPECT_FALSE(m.verify());  // the failed body was dropped; the module stays valid
}

TEST(CodegenErrors, WrongIndexCount) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(memref<?x?xf32>) -> f32"));
  b.ret({b.load(b.arg(0), {b.index(0)})});
  expectError(b.finish(), ErrorCode::ArityMismatch, {"load", "1 indices", "memref<?x?xf32>", "rank 2"});
}

TEST(CodegenErrors, NonIndexIndex) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(memref<?xf32>) -> f32"));
  b.ret({b.load(b.arg(0), {b.i32(0)})});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"load", "index #0", "i32"});
}

TEST(CodegenErrors, ValueFromAnotherFunction) {
  Module m("e");
  FunctionBuilder g(m, "g", fn("(f32) -> ()"));
  FunctionBuilder b(m, "f", fn("(f32) -> f32"));
  b.ret({b.add(b.arg(0), g.arg(0))});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"add", "another function", "'f'"});
}

TEST(CodegenErrors, MixedOperandTypes) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(f32, i32) -> f32"));
  b.ret({b.arg(0) + b.arg(1)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"add", "(f32, i32)"});
}

TEST(CodegenErrors, MathOnIntegers) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(i32) -> i32"));
  b.ret({b.sqrt(b.arg(0))});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"sqrt", "float", "i32"});
}

TEST(CodegenErrors, ReturnOfWrongTypes) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(i32) -> f32"));
  b.ret({b.arg(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"ret", "(i32)", "(f32)"});
}

TEST(CodegenErrors, MissingReturn) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(i32) -> f32"));
  expectError(b.finish(), ErrorCode::ArityMismatch, {"'f'", "ret"});
}

TEST(CodegenErrors, ReturnInsideLoop) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("() -> ()"));
  b.forLoop(b.index(0), b.index(4), b.index(1), [&](Value) { b.ret(); });
  expectError(b.finish(), ErrorCode::Unsupported, {"ret", "top level"});
}

TEST(CodegenErrors, LoopBoundsNotIndex) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(i32) -> ()"));
  b.forLoop(b.index(0), b.arg(0), b.index(1), [&](Value) {});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"for", "index", "i32"});
}

TEST(CodegenErrors, LoopYieldMismatch) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("() -> f32"));
  auto r = b.forLoop(b.index(0), b.index(4), b.index(1), {b.f32(0)},
                     [&](Value i, const std::vector<Value>&) { return std::vector<Value>{i}; });
  b.ret({r[0]});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"for", "(index)", "(f32)"});
}

TEST(CodegenErrors, UnrankedLoopCarry) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(memref<*xf32>) -> ()"));
  b.forLoop(b.index(0), b.index(4), b.index(1), {b.arg(0)},
            [&](Value, const std::vector<Value>& s) { return s; });
  expectError(b.finish(), ErrorCode::Unsupported, {"for", "memref<*xf32>"});
}

TEST(CodegenErrors, IfBranchesDisagree) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(i1) -> ()"));
  b.ifElse(b.arg(0), [&] { return std::vector<Value>{b.f32(0)}; }, [&] { return std::vector<Value>{b.i32(0)}; });
  expectError(b.finish(), ErrorCode::TypeMismatch, {"if", "(f32)", "(i32)"});
}

TEST(CodegenErrors, CallArgumentType) {
  Module m("e");
  ASSERT_TRUE(declareExternalFunction(m, "g", fn("(memref<?xf32>) -> ()")).ok());
  FunctionBuilder b(m, "f", fn("(memref<?xf64>) -> ()"));
  b.call("g", {b.arg(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"call @g", "argument #0", "memref<?xf64>", "memref<?xf32>"});
}

TEST(CodegenErrors, CallOfUnknownFunction) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("() -> ()"));
  b.call("nope", {});
  expectError(b.finish(), ErrorCode::NotFound, {"call @nope"});
}

TEST(CodegenErrors, DimOutOfRange) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(memref<?xf32>) -> index"));
  b.ret({b.dim(b.arg(0), 3)});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"dim", "3", "memref<?xf32>"});
}

TEST(CodegenErrors, SubviewOutOfBounds) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(memref<4xf32>) -> ()"));
  b.subview(b.arg(0), {2}, {3}, {1});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"subview", "memref<4xf32>", "out of bounds"});
}

TEST(CodegenErrors, ReinterpretCastContradictsType) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("(memref<?xf32>) -> ()"));
  b.reinterpretCast(b.arg(0), MemRefType(ElementType::F32, {4}), 0, {5}, {1});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"reinterpret_cast", "size #0", "5", "memref<4xf32>"});
}

TEST(CodegenErrors, AllocDynamicSizeCount) {
  Module m("e");
  FunctionBuilder b(m, "f", fn("() -> ()"));
  b.alloc(MemRefType(ElementType::F32, {kDynamic, kDynamic}), {b.index(2)});
  expectError(b.finish(), ErrorCode::ArityMismatch, {"alloc", "memref<?x?xf32>", "2 dynamic dims"});
}

TEST(CodegenErrors, BarePointerWithDynamicShape) {
  Module m("e");
  FunctionOptions o;
  o.lowering.barePtr = true;
  auto r = defineFunction(m, "f", fn("(memref<?xf32>) -> ()"), o);
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::Unsupported, {"bare-pointer", "memref<?xf32>", "argument #0", "'f'"});
}

TEST(CodegenErrors, DuplicateFunction) {
  Module m("e");
  ASSERT_TRUE(defineFunction(m, "f", fn("() -> ()")).ok());
  auto r = defineFunction(m, "f", fn("() -> ()"));
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"already", "'f'"});
}

TEST(CodegenErrors, InvalidName) {
  Module m("e");
  auto r = defineFunction(m, "1bad name", fn("() -> ()"));
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"'1bad name'"});
}

TEST(CodegenErrors, BadAlignment) {
  Module m("e");
  FunctionOptions o;
  o.arguments = {{false, 12}};
  auto r = defineFunction(m, "f", fn("(memref<?xf32>) -> ()"), o);
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"alignment 12", "argument #0"});
}

TEST(CodegenErrors, MismatchedSignatureOverride) {
  Module m("e");
  FunctionOptions o;
  o.signature = signature::FunctionSignature{"g", fn("() -> ()"), "", "", std::nullopt, std::nullopt};
  auto r = defineFunction(m, "f", fn("() -> ()"), o);
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"'f'", "'g'"});
}

TEST(CodegenErrors, ReleasedModule) {
  Module m("e");
  auto parts = std::move(m).release();
  auto r = defineFunction(m, "f", fn("() -> ()"));
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"released"});
}

}  // namespace
}  // namespace memjit::codegen
