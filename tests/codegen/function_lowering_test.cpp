// Declaring functions with MLIR's convention and calling between them:
// which names are symbols, calls emitted by emitCall run and pass arguments
// and results in order, emitZeroBody's bodies return zeros, and each misuse
// is an Error.
#include "memjit/codegen/function_lowering.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/builder.h"
#include "memjit/runtime/memref.h"
#include "support/llvm_jit.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

TEST(FunctionLowering, ValidSymbolNames) {
  for (const char* name : {"f", "_", "_f", "F9", "a.b", "a$b", "saxpy_f32.v2$x", "__x"})
    EXPECT_TRUE(isValidSymbolName(name)) << name;
  // [A-Za-z_][A-Za-z0-9_.$]*: no empty name, no leading digit, '.' or '$',
  // nothing outside ASCII letters, digits, '_', '.', '$'.
  for (const char* name : {"", "9f", ".f", "$f", "a-b", "a b", "a\tb", "f()", "a/b", "a@b", "\xc3\xa9t\xc3\xa9", "a\xff"})
    EXPECT_FALSE(isValidSymbolName(name)) << name;
  EXPECT_FALSE(isValidSymbolName(std::string_view("a\0b", 3)));
}

TEST(FunctionLowering, InvalidNameIsRefused) {
  Module m("names");
  for (const char* name : {"", "1st", ".hidden", "a-b"}) {
    auto f = defineFunction(m, name, functionType("() -> ()"));
    ASSERT_FALSE(f.ok()) << name;
    EXPECT_EQ(f.error().code(), ErrorCode::InvalidArgument) << name;
    EXPECT_EQ(f.error().message(),
              "'" + std::string(name) + "' is not a valid function name ([A-Za-z_][A-Za-z0-9_.$]*)");
  }
  EXPECT_TRUE(m.signatures().empty());
}

// `caller(a, b) = first * 1000 + second` where (first, second) = callee(a, b)
// = (a - b, a * b), the call emitted by emitCall.
Module callerAndCallee() {
  Module m("calls");
  {
    FunctionBuilder b(m, "callee", functionType("(i64, i64) -> (i64, i64)"));
    b.ret({b.sub(b.arg(0), b.arg(1)), b.mul(b.arg(0), b.arg(1))});
    EXPECT_FALSE(b.finish());
  }
  auto callee = lookupFunction(m, "callee");
  auto caller = defineFunction(m, "caller", functionType("(i64, i64) -> i64"));
  EXPECT_TRUE(callee.ok() && caller.ok());
  llvm::IRBuilder<> ir(llvm::BasicBlock::Create(m.context(), "entry", caller->function));
  auto results = emitCall(m, ir, *callee, {caller->function->getArg(0), caller->function->getArg(1)});
  EXPECT_TRUE(results.ok()) << results.error().message();
  EXPECT_EQ(results->size(), 2u);
  ir.CreateRet(ir.CreateAdd(ir.CreateMul((*results)[0], ir.getInt64(1000)), (*results)[1]));
  return m;
}

TEST(FunctionLowering, EmitCallPassesArgumentsAndResultsInOrder) {
  test::TestJit jit;
  ASSERT_FALSE(jit.add(callerAndCallee()));
  auto caller = jit.function<std::int64_t(std::int64_t, std::int64_t)>("caller");
  ASSERT_TRUE(caller.ok()) << caller.error().message();
  EXPECT_EQ((*caller)(10, 3), 7 * 1000 + 30);
  EXPECT_EQ((*caller)(3, 10), -7 * 1000 + 30);
  EXPECT_EQ((*caller)(0, 0), 0);
  // The caller's own arithmetic wraps (no nsw): INT64_MIN * 1000 + 0.
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ((*caller)(kMin, 0), static_cast<std::int64_t>(static_cast<std::uint64_t>(kMin) * 1000u));
  EXPECT_EQ((*caller)(-1, 1), -2 * 1000 - 1);
}

TEST(FunctionLowering, EmitCallRefusesWrongArgumentsAndReleasedModules) {
  Module m("bad_calls");
  auto callee = defineFunction(m, "callee", functionType("(i64, f32) -> ()"));
  ASSERT_TRUE(callee.ok()) << callee.error().message();
  ASSERT_FALSE(emitZeroBody(m, "callee"));
  auto caller = defineFunction(m, "caller", functionType("(i64) -> ()"));
  ASSERT_TRUE(caller.ok()) << caller.error().message();
  llvm::IRBuilder<> ir(llvm::BasicBlock::Create(m.context(), "entry", caller->function));
  llvm::Value* x = caller->function->getArg(0);

  auto few = emitCall(m, ir, *callee, {x});
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.error().code(), ErrorCode::ArityMismatch);
  EXPECT_EQ(few.error().message(), "call to 'callee' of type (i64, f32) -> (): 1 arguments given, 2 expected");

  auto swapped = emitCall(m, ir, *callee, {x, x});
  ASSERT_FALSE(swapped.ok());
  EXPECT_EQ(swapped.error().code(), ErrorCode::TypeMismatch);
  EXPECT_EQ(swapped.error().message(),
            "call to 'callee' argument #1: expected a value of f32, got a different LLVM type");

  auto null = emitCall(m, ir, *callee, {x, nullptr});
  ASSERT_FALSE(null.ok());
  EXPECT_EQ(null.error().code(), ErrorCode::TypeMismatch);

  LoweredFunction kept = *callee;
  auto released = std::move(m).release();
  auto afterRelease = emitCall(m, ir, kept, {x, x});  // NOLINT(bugprone-use-after-move): the diagnostic under test
  ASSERT_FALSE(afterRelease.ok());
  EXPECT_EQ(afterRelease.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(afterRelease.error().message(), "the codegen module was released (moved out)");
  ir.ClearInsertionPoint();
}

TEST(FunctionLowering, ZeroBodiesReturnZeros) {
  Module m("zeros");
  ASSERT_TRUE(defineFunction(m, "scalar", functionType("(i64) -> f64")).ok());
  ASSERT_TRUE(defineFunction(m, "desc", functionType("(memref<?xf32>) -> memref<?x?xf32>")).ok());
  ASSERT_TRUE(defineFunction(m, "nothing", functionType("() -> ()")).ok());
  for (const char* name : {"scalar", "desc", "nothing"}) ASSERT_FALSE(emitZeroBody(m, name)) << name;
  // A second body, an external function, an unknown name: refused.
  Error twice = emitZeroBody(m, "scalar");
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(twice.message(), "function 'scalar' already has a body or is external");
  Module withExternal("externals");  // kept apart: nothing defines `ext` for the JIT below
  ASSERT_TRUE(declareExternalFunction(withExternal, "ext", functionType("() -> i32")).ok());
  Error external = emitZeroBody(withExternal, "ext");
  ASSERT_TRUE(external);
  EXPECT_EQ(external.message(), "function 'ext' already has a body or is external");
  Error unknown = emitZeroBody(m, "none");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown.code(), ErrorCode::NotFound);
  EXPECT_EQ(unknown.message(), "module 'zeros' declares no function 'none'");

  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto scalar = jit.function<double(std::int64_t)>("scalar");
  ASSERT_TRUE(scalar.ok()) << scalar.error().message();
  double zero = (*scalar)(std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(zero, 0.0);
  EXPECT_FALSE(std::signbit(zero));  // +0, not -0

  using In = runtime::StridedMemRef<float, 1>;
  using Out = runtime::StridedMemRef<float, 2>;
  auto desc = jit.function<void(Out*, In*)>("_mlir_ciface_desc");
  ASSERT_TRUE(desc.ok()) << desc.error().message();
  float data[3] = {1, 2, 3};
  In in = runtime::makeView<float, 1>(data, {3});
  Out out;
  std::memset(&out, 0xff, sizeof(out));
  (*desc)(&out, &in);
  EXPECT_EQ(out.basePtr, nullptr);
  EXPECT_EQ(out.data, nullptr);
  EXPECT_EQ(out.offset, 0);
  EXPECT_EQ(out.sizes[0], 0);
  EXPECT_EQ(out.sizes[1], 0);
  EXPECT_EQ(out.strides[0], 0);
  EXPECT_EQ(out.strides[1], 0);
  auto nothing = jit.function<void()>("nothing");
  ASSERT_TRUE(nothing.ok()) << nothing.error().message();
  (*nothing)();
}


// A C caller reads an i1 result as a bool, whose bits 1-7 the x86-64 ABI says are zero: memjit's functions and C
// interfaces return it zero-extended (`trunc i32 2 to i1` returned the byte 2 before), optimised or not; each is
// called as returning its byte.
TEST(FunctionLowering, BoolResultsReachCAsZeroOrOne) {
  for (bool optimize : {false, true}) {
    Module m(optimize ? "bools_O3" : "bools");
    {
      FunctionBuilder b(m, "low_bit", functionType("(i32) -> i1"));
      b.ret({b.cast(b.arg(0), ElementType::I1)});
      ASSERT_FALSE(b.finish());
    }
    {
      FunctionBuilder b(m, "differ", functionType("(i32, i32) -> i1"));
      b.ret({b.cast(b.xori(b.arg(0), b.arg(1)), ElementType::I1)});
      ASSERT_FALSE(b.finish());
    }
    EXPECT_TRUE(m.llvm().getFunction("_mlir_ciface_low_bit")->hasRetAttribute(llvm::Attribute::ZExt));
    EXPECT_TRUE(m.llvm().getFunction("low_bit")->hasRetAttribute(llvm::Attribute::ZExt));
    test::TestJit jit;
    ASSERT_FALSE(jit.add(std::move(m), optimize));
    for (const char* name : {"low_bit", "_mlir_ciface_low_bit"}) {
      auto f = jit.function<std::uint8_t(std::int32_t)>(name);
      ASSERT_TRUE(f.ok()) << f.error().message();
      for (std::int32_t x : {0, 1, 2, 3, 0xfe, -1, std::numeric_limits<std::int32_t>::min()})
        EXPECT_EQ((*f)(x), x & 1) << name << "(" << x << ")" << (optimize ? " at O3" : "");
    }
    auto differ = jit.function<std::uint8_t(std::int32_t, std::int32_t)>("_mlir_ciface_differ");
    ASSERT_TRUE(differ.ok()) << differ.error().message();
    EXPECT_EQ((*differ)(6, 4), 0);  // 6 ^ 4 = 2
    EXPECT_EQ((*differ)(7, 4), 1);
  }
}
}  // namespace
}  // namespace memjit::codegen
