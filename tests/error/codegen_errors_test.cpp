// One case per codegen diagnostic: the error code and the words that name
// the operation and the types involved.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/codegen/lowering.h"
#include "memjit/codegen/metadata.h"
#include "memjit/codegen/allocator_companion.h"
#include "memjit/type_syntax.h"
#include "support/expect_error.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

using test::expectError;

TEST(CodegenErrors, StoreOfWrongElementType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xi32>) -> ()"));
  b.store(b.f32(1), b.arg(0), {b.index(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"store", "f32", "memref<?xi32>"});
  EXPECT_FALSE(m.verify());  // the failed body was dropped; the module stays valid
}

TEST(CodegenErrors, FailedFunctionThatOthersCallStaysDeclared) {
  Module m("e");
  FunctionBuilder callee(m, "callee", functionType("(i64) -> i64"));
  {
    FunctionBuilder caller(m, "caller", functionType("(i64) -> i64"));
    caller.ret(caller.call("callee", {caller.arg(0)}));
    ASSERT_FALSE(caller.finish());
  }
  callee.ret({callee.f32(1)});
  expectError(callee.finish(), ErrorCode::TypeMismatch,
              {"operation 'ret'", "removed from module 'e' except its declaration, which 'caller' still calls"});
  ASSERT_NE(m.llvm().getFunction("callee"), nullptr);
  EXPECT_TRUE(m.llvm().getFunction("callee")->isDeclaration());
  EXPECT_FALSE(lookupFunction(m, "callee"));
  EXPECT_FALSE(m.verify());
}

TEST(CodegenErrors, WrongIndexCount) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?x?xf32>) -> f32"));
  b.ret({b.load(b.arg(0), {b.index(0)})});
  expectError(b.finish(), ErrorCode::ArityMismatch, {"load", "1 indices", "memref<?x?xf32>", "rank 2"});
}

TEST(CodegenErrors, NonIndexIndex) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xf32>) -> f32"));
  b.ret({b.load(b.arg(0), {b.i32(0)})});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"load", "index #0", "i32"});
}

TEST(CodegenErrors, ValueFromAnotherFunction) {
  Module m("e");
  FunctionBuilder g(m, "g", functionType("(f32) -> ()"));
  FunctionBuilder b(m, "f", functionType("(f32) -> f32"));
  b.ret({b.add(b.arg(0), g.arg(0))});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"add", "another function", "'f'"});
}

TEST(CodegenErrors, MixedOperandTypes) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(f32, i32) -> f32"));
  b.ret({b.arg(0) + b.arg(1)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"add", "(f32, i32)"});
}

TEST(CodegenErrors, MathOnIntegers) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i32) -> i32"));
  b.ret({b.sqrt(b.arg(0))});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"sqrt", "float", "i32"});
}

TEST(CodegenErrors, ReturnOfWrongTypes) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i32) -> f32"));
  b.ret({b.arg(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"ret", "(i32)", "(f32)"});
}

TEST(CodegenErrors, MissingReturn) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i32) -> f32"));
  expectError(b.finish(), ErrorCode::ArityMismatch, {"'f'", "ret"});
}

TEST(CodegenErrors, ReturnInsideLoop) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("() -> ()"));
  b.forLoop(b.index(0), b.index(4), b.index(1), [&](Value) { b.ret(); });
  expectError(b.finish(), ErrorCode::Unsupported, {"ret", "top level"});
}

TEST(CodegenErrors, LoopBoundsNotIndex) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i32) -> ()"));
  b.forLoop(b.index(0), b.arg(0), b.index(1), [&](Value) {});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"for", "index", "i32"});
}

TEST(CodegenErrors, LoopYieldMismatch) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("() -> f32"));
  auto r = b.forLoop(b.index(0), b.index(4), b.index(1), {b.f32(0)},
                     [&](Value i, const std::vector<Value>&) { return std::vector<Value>{i}; });
  b.ret({r[0]});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"for", "(index)", "(f32)"});
}

TEST(CodegenErrors, UnrankedLoopCarry) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<*xf32>) -> ()"));
  b.forLoop(b.index(0), b.index(4), b.index(1), {b.arg(0)},
            [&](Value, const std::vector<Value>& s) { return s; });
  expectError(b.finish(), ErrorCode::Unsupported, {"for", "memref<*xf32>"});
}

TEST(CodegenErrors, IfBranchesDisagree) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i1) -> ()"));
  b.ifElse(b.arg(0), [&] { return std::vector<Value>{b.f32(0)}; }, [&] { return std::vector<Value>{b.i32(0)}; });
  expectError(b.finish(), ErrorCode::TypeMismatch, {"if", "(f32)", "(i32)"});
}

TEST(CodegenErrors, CallArgumentType) {
  Module m("e");
  ASSERT_TRUE(declareExternalFunction(m, "g", functionType("(memref<?xf32>) -> ()")).ok());
  FunctionBuilder b(m, "f", functionType("(memref<?xf64>) -> ()"));
  b.call("g", {b.arg(0)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"call @g", "argument #0", "memref<?xf64>", "memref<?xf32>"});
}

TEST(CodegenErrors, CallOfUnknownFunction) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("() -> ()"));
  b.call("nope", {});
  expectError(b.finish(), ErrorCode::NotFound, {"call @nope"});
}

TEST(CodegenErrors, DimOutOfRange) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xf32>) -> index"));
  b.ret({b.dim(b.arg(0), 3)});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"dim", "3", "memref<?xf32>"});
}

TEST(CodegenErrors, SubviewOutOfBounds) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<4xf32>) -> ()"));
  b.subview(b.arg(0), {2}, {3}, {1});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"subview", "memref<4xf32>", "out of bounds"});
}

TEST(CodegenErrors, ReinterpretCastContradictsType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xf32>) -> ()"));
  b.reinterpretCast(b.arg(0), MemRefType(ElementType::F32, {4}), 0, {5}, {1});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"reinterpret_cast", "size #0", "5", "memref<4xf32>"});
}

TEST(CodegenErrors, AllocDynamicSizeCount) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("() -> ()"));
  b.alloc(MemRefType(ElementType::F32, {kDynamic, kDynamic}), {b.index(2)});
  expectError(b.finish(), ErrorCode::ArityMismatch, {"alloc", "memref<?x?xf32>", "2 dynamic dims"});
}

TEST(CodegenErrors, BarePointerWithDynamicShape) {
  Module m("e");
  FunctionOptions o;
  o.lowering.barePtr = true;
  auto r = defineFunction(m, "f", functionType("(memref<?xf32>) -> ()"), o);
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::Unsupported, {"bare-pointer", "memref<?xf32>", "argument #0", "'f'"});
}

TEST(CodegenErrors, DuplicateFunction) {
  Module m("e");
  ASSERT_TRUE(defineFunction(m, "f", functionType("() -> ()")).ok());
  auto r = defineFunction(m, "f", functionType("() -> ()"));
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"already", "'f'"});
}

TEST(CodegenErrors, InvalidName) {
  Module m("e");
  auto r = defineFunction(m, "1bad name", functionType("() -> ()"));
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"'1bad name'"});
}

TEST(CodegenErrors, BadAlignment) {
  Module m("e");
  FunctionOptions o;
  o.arguments = {{false, 12}};
  auto r = defineFunction(m, "f", functionType("(memref<?xf32>) -> ()"), o);
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"alignment 12", "argument #0"});
}

TEST(CodegenErrors, MismatchedSignatureOverride) {
  Module m("e");
  FunctionOptions o;
  o.signature = signature::FunctionSignature{"g", functionType("() -> ()"), "", "", std::nullopt, std::nullopt};
  auto r = defineFunction(m, "f", functionType("() -> ()"), o);
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"'f'", "'g'"});
}

TEST(CodegenErrors, ReleasedModule) {
  Module m("e");
  auto parts = std::move(m).release();
  auto r = defineFunction(m, "f", functionType("() -> ()"));
  ASSERT_FALSE(r.ok());
  expectError(r.error(), ErrorCode::InvalidArgument, {"released"});
}


// --- result allocators (result_allocator.h) ---

// Defines `f` of `type` with a zero body and tries to give it an allocator.
Error allocatorFor(const char* type, std::vector<ResultShape> shapes, ResultAllocatorOptions o = {},
                   FunctionOptions fo = {}) {
  Module m("e");
  auto f = defineFunction(m, "f", functionType(type), fo);
  if (!f) return f.error();
  if (Error e = emitZeroBody(m, "f")) return e;
  auto a = addResultAllocator(m, "f", shapes, o);
  if (a) return Error::success();
  EXPECT_FALSE(lookupFunction(m, o.name.empty() ? "f__allocate_results" : o.name));  // module unchanged
  EXPECT_FALSE(m.verify());
  return a.error();
}

constexpr const char* kAdd = "(memref<?xf32>, memref<?xf32>) -> memref<?xf32>";
std::vector<ResultShape> fromInput(std::size_t i, std::size_t d) { return {ResultShape::of({ResultDim::inputDim(i, d)})}; }

TEST(CodegenErrors, AllocatorUnknownFunction) {
  Module m("e");
  expectError(addResultAllocator(m, "nope", fromInput(0, 0)).error(), ErrorCode::NotFound, {"nope"});
}

TEST(CodegenErrors, AllocatorForExternalFunction) {
  Module m("e");
  ASSERT_TRUE(declareExternalFunction(m, "f", functionType(kAdd)));
  expectError(addResultAllocator(m, "f", fromInput(0, 0)).error(), ErrorCode::InvalidArgument, {"'f'", "external"});
}

TEST(CodegenErrors, AllocatorWithBarePointers) {
  FunctionOptions fo;
  fo.lowering.barePtr = true;
  expectError(allocatorFor("(memref<4xf32>, memref<4xf32>) -> memref<4xf32>", {ResultShape::of({})}, {}, fo),
              ErrorCode::Unsupported, {"'f'", "bare pointers"});
}

TEST(CodegenErrors, AllocatorWithoutMemrefResults) {
  expectError(allocatorFor("(memref<?xf32>) -> f32", {}), ErrorCode::InvalidArgument, {"'f'", "no ranked memref result"});
}

TEST(CodegenErrors, AllocatorMissingDestinations) {
  expectError(allocatorFor("() -> memref<?xf32>", fromInput(0, 0)), ErrorCode::ArityMismatch,
              {"'f'", "1 ranked memref results", "0 inputs", "destination"});
}

TEST(CodegenErrors, AllocatorDestinationOfWrongType) {
  expectError(allocatorFor("(memref<?xf32>, memref<?xi32>) -> memref<?xf32>", fromInput(0, 0)),
              ErrorCode::TypeMismatch, {"input #1", "memref<?xi32>", "result #0 (memref<?xf32>)"});
}

TEST(CodegenErrors, AllocatorWrongNumberOfShapes) {
  expectError(allocatorFor(kAdd, {}), ErrorCode::ArityMismatch, {"0 result shapes", "1 ranked memref results"});
}

TEST(CodegenErrors, AllocatorNonIdentityResultLayout) {
  expectError(allocatorFor("(memref<?xf32>, memref<?xf32, strided<[2]>>) -> memref<?xf32, strided<[2]>>",
                           fromInput(0, 0)),
              ErrorCode::Unsupported, {"result #0 (memref<?xf32, strided<[2]>>)", "identity layouts"});
}

TEST(CodegenErrors, AllocatorNoRulesForDynamicResult) {
  expectError(allocatorFor(kAdd, {ResultShape::of({})}), ErrorCode::ArityMismatch,
              {"no dim rules", "result #0 (memref<?xf32>)"});
}

TEST(CodegenErrors, AllocatorWrongNumberOfDimRules) {
  expectError(allocatorFor(kAdd, {ResultShape::of({ResultDim::staticSize(1), ResultDim::staticSize(2)})}),
              ErrorCode::ArityMismatch, {"2 dim rules", "result #0", "rank 1"});
}

TEST(CodegenErrors, AllocatorNegativeStaticSize) {
  expectError(allocatorFor(kAdd, {ResultShape::of({ResultDim::staticSize(-3)})}), ErrorCode::InvalidArgument,
              {"dim 0 of result #0", "-3", "negative"});
}

TEST(CodegenErrors, AllocatorInputOutOfRange) {
  // Input #1 is the destination, not a user input.
  expectError(allocatorFor(kAdd, fromInput(1, 0)), ErrorCode::InvalidArgument,
              {"dim 0 of result #0", "input #1", "does not exist", "1 inputs"});
}

TEST(CodegenErrors, AllocatorUnrankedInput) {
  expectError(allocatorFor("(memref<*xf32>, memref<?xf32>) -> memref<?xf32>", fromInput(0, 0)),
              ErrorCode::TypeMismatch, {"dim 0 of result #0", "input #0", "memref<*xf32>", "not a ranked memref"});
}

TEST(CodegenErrors, AllocatorScalarInput) {
  expectError(allocatorFor("(i64, memref<?xf32>) -> memref<?xf32>", fromInput(0, 0)), ErrorCode::TypeMismatch,
              {"input #0", "i64", "not a ranked memref"});
}

TEST(CodegenErrors, AllocatorInputDimOutOfRange) {
  expectError(allocatorFor(kAdd, fromInput(0, 2)), ErrorCode::InvalidArgument,
              {"dim 0 of result #0", "input #0 (memref<?xf32>)", "no dim 2"});
}

TEST(CodegenErrors, AllocatorStaticSizeConflict) {
  expectError(allocatorFor("(memref<?xf32>, memref<4xf32>) -> memref<4xf32>", {ResultShape::of({ResultDim::staticSize(5)})}),
              ErrorCode::TypeMismatch, {"dim 0 of result #0 (memref<4xf32>)", "static 4", "gives 5"});
}

TEST(CodegenErrors, AllocatorStaticInputDimConflict) {
  expectError(allocatorFor("(memref<3xf32>, memref<4xf32>) -> memref<4xf32>", fromInput(0, 0)),
              ErrorCode::TypeMismatch, {"dim 0 of result #0", "static 4", "gives 3", "dim 0 of input #0"});
}

TEST(CodegenErrors, AllocatorInvalidName) {
  ResultAllocatorOptions o;
  o.name = "9bad";
  expectError(allocatorFor(kAdd, fromInput(0, 0), o), ErrorCode::InvalidArgument, {"'9bad'", "not a valid"});
}

TEST(CodegenErrors, AllocatorNameAlreadyDeclared) {
  Module m("e");
  ASSERT_TRUE(defineFunction(m, "f", functionType(kAdd)));
  ASSERT_FALSE(emitZeroBody(m, "f"));
  ASSERT_TRUE(declareExternalFunction(m, "f__allocate_results", functionType("() -> ()")));
  auto a = addResultAllocator(m, "f", fromInput(0, 0));
  ASSERT_FALSE(a);
  expectError(a.error(), ErrorCode::InvalidArgument, {"module 'e' already declares 'f__allocate_results'"});
  EXPECT_FALSE(readMetadataString(m, "_memjit_fbr_f"));  // F's signature unchanged
}

TEST(CodegenErrors, AllocatorSignatureNamesAnother) {
  FunctionOptions fo;
  auto sig = signature::describe("f", functionType(kAdd));
  ASSERT_TRUE(sig);
  sig->resultAllocator = "other";
  fo.signature = *sig;
  expectError(allocatorFor(kAdd, fromInput(0, 0), {}, fo), ErrorCode::InvalidArgument,
              {"already names the allocator 'other'", "f__allocate_results"});
}

TEST(CodegenErrors, AllocatorAlignmentNotPowerOfTwo) {
  ResultAllocatorOptions o;
  o.alignment = 24;
  expectError(allocatorFor(kAdd, fromInput(0, 0), o), ErrorCode::InvalidArgument, {"alignment 24", "power of two"});
}

TEST(CodegenErrors, DestinationOrAllocOfScalar) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(f32) -> ()"));
  (void)destinationOrAlloc(b, b.arg(0), {});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"destinationOrAlloc", "ranked memref", "f32"});
}

// --- the kernel language's constants, literals and op types ---

TEST(CodegenErrors, IntegerConstantOutsideItsType) {
  struct Case {
    ElementType type;
    std::function<Value(FunctionBuilder&, ElementType)> make;
    const char* value;
  };
  const Case cases[] = {
      {ElementType::I8, [](FunctionBuilder& b, ElementType t) { return b.constant(t, 300); }, "300"},
      {ElementType::UI32, [](FunctionBuilder& b, ElementType t) { return b.constant(t, -1); }, "-1"},
      {ElementType::SI64, [](FunctionBuilder& b, ElementType t) { return b.constant(t, 0xff51afd7ed558ccdULL); },
       "18397679294719823053"},
      {ElementType::I1, [](FunctionBuilder& b, ElementType t) { return b.constant(t, 2); }, "2"},
      {ElementType::SI16, [](FunctionBuilder& b, ElementType t) { return b.constant(t, 40000u); }, "40000"},
  };
  for (const Case& c : cases) {
    Module m("e");
    FunctionBuilder b(m, "f", functionType("() -> ()"));
    (void)c.make(b, c.type);
    expectError(b.finish(), ErrorCode::InvalidArgument,
                {"constant", c.value, "does not fit", std::string(spelling(c.type)).c_str()});
  }
}

TEST(CodegenErrors, FloatGivenForAnIntegerTypeMustBeIntegralAndInRange) {
  for (double v : {1.5, 1e30, -1e19, std::nan("")}) {
    Module m("e");
    FunctionBuilder b(m, "f", functionType("() -> ()"));
    (void)b.constant(ElementType::I64, v);
    expectError(b.finish(), ErrorCode::InvalidArgument, {"constant", "not an integer value of i64"});
  }
}

TEST(CodegenErrors, IntegerNotExactlyRepresentableInAFloatType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("() -> ()"));
  (void)b.constant(ElementType::F32, 16777217);
  expectError(b.finish(), ErrorCode::InvalidArgument, {"constant", "16777217", "not exactly representable in f32"});
}

TEST(CodegenErrors, FloatConstantOverflowsItsType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("() -> ()"));
  (void)b.constant(ElementType::F16, 1e5);
  expectError(b.finish(), ErrorCode::InvalidArgument, {"constant", "100000", "overflows f16"});
}

TEST(CodegenErrors, InexactLiteralNextToAValue) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(f32) -> f32"));
  b.ret({b.arg(0) * 0.1});
  expectError(b.finish(), ErrorCode::InvalidArgument, {"constant", "0.10000000000000001", "not exactly representable in f32"});
}

TEST(CodegenErrors, LiteralNextToAMemref) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(memref<?xf32>) -> ()"));
  (void)(b.arg(0) + 1);
  expectError(b.finish(), ErrorCode::TypeMismatch, {"constant", "memref<?xf32>"});
}

TEST(CodegenErrors, BitcastBetweenWidths) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(f32) -> i64"));
  b.ret({b.bitcast(b.arg(0), ElementType::I64)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"bitcast", "f32", "i64", "one width"});
}

TEST(CodegenErrors, PowiExponentMustBeI32) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(f32, i64) -> f32"));
  b.ret({b.powi(b.arg(0), b.arg(1))});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"powi", "i32", "(f32, i64)"});
}

TEST(CodegenErrors, BitOperationOnFloats) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(f32, f32) -> f32"));
  b.ret({b.arg(0) ^ b.arg(1)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"xori", "integer or index", "(f32, f32)"});
}

TEST(CodegenErrors, ShiftCountOfAnotherType) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i64, i32) -> i64"));
  b.ret({b.arg(0) << b.arg(1)});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"shl", "(i64, i32)"});
}

TEST(CodegenErrors, MathFunctionOnIntegers) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(i32) -> i32"));
  b.ret({b.erf(b.arg(0))});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"erf", "float", "(i32)"});
}

TEST(CodegenErrors, UnknownFastMathFlag) {
  auto flags = parseFastMath("nnan,fastest");
  ASSERT_FALSE(flags.ok());
  expectError(flags.error(), ErrorCode::ParseError, {"fastest", "offset 5"});
  EXPECT_EQ(flags.error().offset(), 5u);
}

TEST(CodegenErrors, ArgumentByAnUnknownName) {
  Module m("e");
  FunctionOptions options;
  options.argumentNames = {"x"};
  FunctionBuilder b(m, "f", functionType("(f32) -> f32"), options);
  b.ret({b.arg("y")});
  expectError(b.finish(), ErrorCode::NotFound, {"arg", "function 'f'", "no argument named 'y'"});
}

TEST(CodegenErrors, ArgumentByNameWithoutNames) {
  Module m("e");
  FunctionBuilder b(m, "f", functionType("(f32) -> f32"));
  b.ret({b.arg("x")});
  expectError(b.finish(), ErrorCode::NotFound, {"no argument named 'x'", "no FunctionOptions::argumentNames"});
}

TEST(CodegenErrors, ArgumentNamesBothInOptionsAndSignature) {
  Module m("e");
  FunctionOptions options;
  options.argumentNames = {"x"};
  options.signature = *signature::describe("f", functionType("(f32) -> ()"));
  FunctionBuilder b(m, "f", functionType("(f32) -> ()"), options);
  expectError(b.finish(), ErrorCode::InvalidArgument, {"function 'f'", "both in FunctionOptions::argumentNames"});
}

TEST(CodegenErrors, ArgumentNamesOfTheWrongCount) {
  Module m("e");
  FunctionOptions options;
  options.argumentNames = {"x", "y"};
  FunctionBuilder b(m, "f", functionType("(f32) -> ()"), options);
  expectError(b.finish(), ErrorCode::InvalidArgument, {"function 'f'", "2 argument names for 1 inputs"});
}

TEST(CodegenErrors, MemrefCastBetweenIncompatibleTypes) {
  struct Case {
    const char* from;
    MemRefType to;
    const char* why;
  };
  const Case cases[] = {
      {"(memref<4xf32>) -> ()", MemRefType(ElementType::F32, {5}), "the sizes of dim 0 differ"},
      {"(memref<4xf32>) -> ()", MemRefType(ElementType::I32, {4}), "the element types differ"},
      {"(memref<4xf32>) -> ()", MemRefType(ElementType::F32, {4, 1}), "the ranks differ"},
      {"(memref<?x4xf32>) -> ()", MemRefType(ElementType::F32, {kDynamic, 4}, StridedLayout{0, {8, 1}}),
       "the strides of dim 0 differ"},
      {"(memref<4xf32, strided<[1], offset: 2>>) -> ()", MemRefType(ElementType::F32, {4}), "the offsets differ"},
      {"(memref<*xf32>) -> ()", MemRefType(ElementType::F32, {4}), "it is not a ranked memref"},
  };
  for (const Case& c : cases) {
    Module m("e");
    FunctionBuilder b(m, "f", functionType(c.from));
    b.memrefCast(b.arg(0), c.to);
    b.ret({});
    expectError(b.finish(), ErrorCode::TypeMismatch, {"operation 'memref.cast': cannot cast", c.why});
  }
}

TEST(CodegenErrors, CallWithAnIncompatibleMemrefNamesTheArgument) {
  Module m("e");
  {
    FunctionBuilder callee(m, "callee", functionType("(memref<?x?xf32, strided<[?, 1], offset: ?>>) -> ()"));
    callee.ret({});
    ASSERT_FALSE(callee.finish());
  }
  FunctionBuilder b(m, "f", functionType("(memref<?x?xf32, strided<[?, 2]>>) -> ()"));
  b.call("callee", {b.arg(0)});
  b.ret({});
  expectError(b.finish(), ErrorCode::TypeMismatch, {"call @callee", "argument #0", "the callee takes"});
}

// Errors name the generator's line: the operation the user called, with or
// without debug info, inside loop bodies, and for operations built through
// others.

std::string lineOf(int line) { return "codegen_errors_test.cpp:" + std::to_string(line); }

// One step of a generated chain; step `bad` adds a literal f32 cannot hold.
Value chainStep(FunctionBuilder& b, const Value& acc, int step, int bad, int& badLine) {
  if (step != bad) return b.add(acc, b.f32(0.5));
  badLine = __LINE__ + 1;
  return b.add(acc, b.constant(ElementType::F32, (1LL << 40) + 1));
}

class ErrorLocation : public ::testing::TestWithParam<bool> {};

TEST_P(ErrorLocation, AStepOfAGeneratedChainNamesItsLine) {
  Module m("e");
  FunctionOptions o;
  o.debugInfo = GetParam();
  FunctionBuilder b(m, "f", functionType("(f32) -> f32"), o);
  Value acc = b.arg(0);
  int badLine = 0;
  for (int step = 0; step < 5000; ++step) acc = chainStep(b, acc, step, 4321, badLine);
  b.ret({acc});
  const std::string at = lineOf(badLine);
  expectError(b.finish(), ErrorCode::InvalidArgument,
              {"in function 'f' at ", at.c_str(), "1099511627777 is not exactly representable in f32"});
}

TEST_P(ErrorLocation, AnOperationInALoopBodyNamesItsOwnLine) {
  Module m("e");
  FunctionOptions o;
  o.debugInfo = GetParam();
  FunctionBuilder b(m, "f", functionType("(memref<?xi32>) -> ()"), o);
  int bodyLine = 0;
  b.forLoop(b.index(0), b.dim(b.arg(0), 0), b.index(1), [&](Value i) {
    bodyLine = __LINE__ + 1;
    b.store(b.f32(1), b.arg(0), {i});
  });
  b.ret({});
  const std::string at = lineOf(bodyLine);
  expectError(b.finish(), ErrorCode::TypeMismatch, {at.c_str(), "store", "memref<?xi32>"});
}

TEST_P(ErrorLocation, AnOperationTheLoopBuildsNamesTheLoopsLine) {
  Module m("e");
  FunctionOptions o;
  o.debugInfo = GetParam();
  FunctionBuilder b(m, "f", functionType("(i64) -> i64"), o);
  const int line = __LINE__ + 1;
  auto out = b.forLoop(b.index(0), b.index(4), b.index(1), {b.arg(0)}, [&](Value, std::vector<Value> carried) {
    return std::vector<Value>{b.f32(1.0f), carried[0]};  // two yields for one carried value
  });
  b.ret({b.arg(0)});
  Error e = b.finish();
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.str().find(lineOf(line)), std::string::npos) << e.str();
  (void)out;
}

TEST_P(ErrorLocation, AnOperatorNamesTheLineItIsWrittenOn) {
  Module m("e");
  FunctionOptions o;
  o.debugInfo = GetParam();
  FunctionBuilder b(m, "f", functionType("(i32, f32) -> i32"), o);
  const int line = __LINE__ + 1;
  Value sum = b.arg(0) + b.arg(1);
  b.ret({sum});
  const std::string at = lineOf(line);
  expectError(b.finish(), ErrorCode::TypeMismatch, {at.c_str(), "i32", "f32"});
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutDebugInfo, ErrorLocation, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "debug_info" : "no_debug_info"; });

}  // namespace
}  // namespace memjit::codegen
