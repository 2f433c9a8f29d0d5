// One test per runtime diagnostic: each checks the code and the exact text.
#include <gtest/gtest.h>

#include "memjit/runtime/dlpack.h"
#include "memjit/runtime/callable.h"
#include "memjit/runtime/oracle.h"
#include "memjit/runtime/owned_memref.h"
#include "memjit/type_syntax.h"
#include "support/dlpack.h"
#include "support/expect_error.h"
#include "support/types.h"

using namespace memjit;
using namespace memjit::runtime;
using memjit::test::expectErrorMessage;

extern "C" {
static std::int32_t _mlir_ciface_err_abc(std::int32_t a, std::int32_t b, std::int32_t c) { return a + b + c; }
static void _mlir_ciface_err_mask(StridedMemRef<std::int32_t, 2>*, StridedMemRef<std::int32_t, 2>*,
                                  StridedMemRef<std::int32_t, 2>*) {}
static void _mlir_ciface_err_half(std::uint16_t) {}
static void _mlir_ciface_err_f32(float) {}
}

namespace {
Callable reflected(void* fn, const char* type, const char* json) {
  auto sig = test::valueOrFail(signature::describe("f", test::functionType(type)));
  sig.reflection = json;
  return test::valueOrFail(Callable::create(fn, sig));
}
// (i32, i32, i32) -> i32 with the structure `json` gives its arguments.
Callable abcReflected(const char* json) {
  return reflected(reinterpret_cast<void*>(&_mlir_ciface_err_abc), "(i32, i32, i32) -> i32", json);
}
Callable abcNamed() { return abcReflected(R"({"a":["i32",["named","a","i32"],["named","b","i32"]],"r":["i32"]})"); }
Callable abcDict() { return abcReflected(R"({"a":[["sdict",["a","i32"],["b","i32"]],"i32"],"r":["i32"]})"); }
}  // namespace

TEST(RuntimeErrors, BufferShapeMismatchNamesPathAndBothSides) {
  Callable f = reflected(reinterpret_cast<void*>(&_mlir_ciface_err_mask),
                         "(memref<1x384xsi32>, memref<1x384xsi32>, memref<1x384xsi32>) -> ()",
                         R"({"a":[["named","inputs",["sdict",["ids",["ndarray","i32",2,1,384]],["mask",["ndarray","i32",2,1,384]],["type",["ndarray","i32",2,1,384]]]]],"r":[]})");
  std::vector<std::int32_t> good(384), flat(384);
  Variant ok = makeView<std::int32_t, 2>(good.data(), {1, 384});
  Variant bad = makeView(flat);
  KeywordArgs kw{{"inputs", Variant::dict({{"ids", ok}, {"mask", bad}, {"type", ok}})}};
  expectErrorMessage(f.invoke({}, kw), ErrorCode::TypeMismatch,
                     "argument 'inputs'['mask'] (raw #1): expected Buffer<sint32[1x384]>, received sint32[384]");
}

TEST(RuntimeErrors, ScalarWhereBufferExpected) {
  Callable f = reflected(reinterpret_cast<void*>(&_mlir_ciface_err_mask),
                         "(memref<1x384xsi32>, memref<1x384xsi32>, memref<1x384xsi32>) -> ()",
                         R"({"a":[["ndarray","i32",2,1,384],["ndarray","i32",2,1,384],["ndarray","i32",2,1,384]],"r":[]})");
  std::vector<std::int32_t> good(384);
  Variant ok = makeView<std::int32_t, 2>(good.data(), {1, 384});
  expectErrorMessage(f.invoke({ok, 5, ok}), ErrorCode::TypeMismatch,
                     "argument 1 (raw #1): expected Buffer<sint32[1x384]>, received int 5");
}

TEST(RuntimeErrors, ScalarOutOfRange) {
  expectErrorMessage(abcNamed().invoke({1LL << 40, 1, 2}), ErrorCode::TypeMismatch,
                     "argument 0 (raw #0): expected sint32, received int 1099511627776 (out of range)");
}

TEST(RuntimeErrors, ScalarOverflowsToInfinity) {
  auto f = Callable::fromTypeText(reinterpret_cast<void*>(&_mlir_ciface_err_f32), "f", "(f32) -> ()");
  ASSERT_TRUE(f);
  expectErrorMessage(f->invoke({1e300}), ErrorCode::TypeMismatch,
                     "argument 0 (raw #0): expected float32, received float 1e+300 (out of range: becomes inf in float32)");
}

TEST(RuntimeErrors, ScalarNotExactInTheParameterType) {
  auto f = Callable::fromTypeText(reinterpret_cast<void*>(&_mlir_ciface_err_f32), "f", "(f32) -> ()");
  ASSERT_TRUE(f);
  expectErrorMessage(f->invoke({16777217}), ErrorCode::TypeMismatch,
                     "argument 0 (raw #0): expected float32, received int 16777217 (not exact in float32: becomes 16777216)");
}

TEST(RuntimeErrors, FloatWhereIntegerExpected) {
  expectErrorMessage(abcNamed().invoke({2.5, 1, 2}), ErrorCode::TypeMismatch,
                     "argument 0 (raw #0): expected sint32, received float 2.5");
}

TEST(RuntimeErrors, MissingPositionalArgumentIsArity) {
  expectErrorMessage(abcNamed().invoke({}, {{"a", 1}, {"b", 1}}), ErrorCode::ArityMismatch,
                     "'f' takes 3 arguments, received 2 (missing argument 0)");
}

TEST(RuntimeErrors, MissingNamedArgumentIsArity) {
  expectErrorMessage(abcNamed().invoke({-1}, {{"a", 1}}), ErrorCode::ArityMismatch,
                     "'f' takes 3 arguments, received 2 (missing 'b')");
}

TEST(RuntimeErrors, TooManyPositionalArguments) {
  expectErrorMessage(abcNamed().invoke({1, 2, 3, 4}), ErrorCode::ArityMismatch,
                     "'f' takes 3 arguments, received 4 positional");
}

TEST(RuntimeErrors, UnknownKeyword) {
  expectErrorMessage(abcNamed().invoke({-1}, {{"a", 1}, {"b", 2}, {"c", 3}}), ErrorCode::InvalidArgument,
                     "'f' got an unexpected keyword argument 'c'");
}

TEST(RuntimeErrors, KeywordGivenTwice) {
  expectErrorMessage(abcNamed().invoke({-1, 1}, {{"a", 1}, {"b", 2}}), ErrorCode::InvalidArgument,
                     "'f' got argument 'a' both positionally and by keyword");
}

TEST(RuntimeErrors, DictWithTooManyKeys) {
  expectErrorMessage(abcDict().invoke({Variant::dict({{"a", 2}, {"b", 3}, {"c", 4}}), 1}), ErrorCode::ArityMismatch,
                     "argument 0: expected a dict of 2 values {a, b}, received dict {a, b, c}");
}

TEST(RuntimeErrors, DictMissingKey) {
  expectErrorMessage(abcDict().invoke({Variant::dict({{"a", 2}, {"c", 3}}), 1}), ErrorCode::NotFound,
                     "argument 0: missing key 'b' (received dict {a, c})");
}

TEST(RuntimeErrors, NotADict) {
  expectErrorMessage(abcDict().invoke({Variant::list({2, 3}), 1}), ErrorCode::TypeMismatch,
                     "argument 0: expected a dict of 2 values {a, b}, received list of 2");
}

TEST(RuntimeErrors, SequenceOfWrongLength) {
  Callable f = abcReflected(R"({"a":[["slist","i32","i32"],"i32"],"r":["i32"]})");
  expectErrorMessage(f.invoke({Variant::list({2, 3, 4}), 1}), ErrorCode::ArityMismatch,
                     "argument 0: expected a sequence of 2 values, received list of 3");
}

TEST(RuntimeErrors, NotASequence) {
  Callable f = abcReflected(R"({"a":[["stuple","i32","i32"],"i32"],"r":["i32"]})");
  expectErrorMessage(f.invoke({7, 1}), ErrorCode::TypeMismatch,
                     "argument 0: expected a sequence of 2 values, received int 7");
}

TEST(RuntimeErrors, GapSlotTakesOnlyNone) {
  Callable f = abcReflected(R"({"a":[["slist","i32",null,"i32"],"i32"],"r":["i32"]})");
  expectErrorMessage(f.invoke({Variant::list({1, 5, 2}), 3}), ErrorCode::TypeMismatch,
                     "argument 0[1]: expected None (an empty slot), received int 5");
}

TEST(RuntimeErrors, CopyNeededButDisabled) {
  Callable f = reflected(reinterpret_cast<void*>(&_mlir_ciface_err_mask),
                         "(memref<2x2xsi32>, memref<2x2xsi32>, memref<2x2xsi32>) -> ()", "");
  std::int32_t m[4] = {};
  auto t = Buffer::view(ElementType::SI32, m, {2, 2}, {1, 2});
  InvokeOptions o;
  o.allowCopies = false;
  std::vector<Variant> args{*t, *t, *t};
  expectErrorMessage(f.invoke(args, {}, o), ErrorCode::TypeMismatch,
                     "argument 0 (raw #0): expected Buffer<sint32[2x2]>, received sint32[2x2] with strides [1, 2] "
                     "(dim 0 has stride 1, the layout needs 2; a copy is needed and copies are disabled)");
}

TEST(RuntimeErrors, ComplexScalarByValueUnsupported) {
  auto f = Callable::fromTypeText(reinterpret_cast<void*>(&_mlir_ciface_err_half), "h", "(complex<f32>) -> ()");
  ASSERT_TRUE(f);
  expectErrorMessage(f->invoke({1.0}), ErrorCode::Unsupported,
                     "invoke 'h': input 0 is a complex<f32> scalar passed by value, which has no C equivalent the "
                     "dynamic invoker can build (pass it in a memref)");
}

TEST(RuntimeErrors, ComplexScalarResultUnsupported) {
  auto f = Callable::fromTypeText(reinterpret_cast<void*>(&_mlir_ciface_err_half), "h", "() -> complex<f64>");
  ASSERT_TRUE(f);
  expectErrorMessage(f->invoke(std::span<const Variant>()), ErrorCode::Unsupported,
                     "invoke 'h': the result is a complex<f64> scalar returned by value, which has no C equivalent the "
                     "dynamic invoker can build (pass it in a memref)");
}

TEST(RuntimeErrors, OwnedUnrankedFromBufferOfAnotherElementType) {
  auto b = Buffer::allocate(ElementType::F16, {2});
  ASSERT_TRUE(b);
  auto u = OwnedUnrankedMemRef<bf16>::fromBuffer(*b);
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().code(), ErrorCode::TypeMismatch);
  EXPECT_EQ(u.error().message(), "buffer float16[2] is not a memref<*xbf16>");
}

TEST(RuntimeErrors, NullFunctionPointer) {
  auto f = Callable::fromTypeText(nullptr, "g", "() -> ()");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(f.error().message(), "function 'g': null C-interface pointer");
}

TEST(RuntimeErrors, ReflectionArityDisagreesWithType) {
  auto t = parseFunctionType("(i32) -> ()");
  auto sig = signature::describe("g", *t);
  sig->reflection = R"({"a":["i32","i32"],"r":[]})";
  auto f = Callable::create(reinterpret_cast<void*>(&_mlir_ciface_err_half), *sig);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code(), ErrorCode::ArityMismatch);
  EXPECT_EQ(f.error().message().rfind("reflection of 'g': ", 0), 0u) << f.error().message();
}

TEST(RuntimeErrors, TypedSignatureMismatch) {
  auto f = Callable::fromTypeText(reinterpret_cast<void*>(&_mlir_ciface_err_abc), "abc", "(i32, i32, i32) -> i32");
  ASSERT_TRUE(f);
  auto t = f->as<std::int32_t(std::int32_t, float, std::int32_t)>();
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code(), ErrorCode::TypeMismatch);
  EXPECT_EQ(t.error().message(),
            "typed invoker for 'abc' (i32, i32, i32) -> i32: parameter 1 is i32, the C++ signature passes f32");
}

TEST(RuntimeErrors, DLPackDeviceNotHost) {
  float x[1];
  std::vector<std::int64_t> shape = {1};
  DLTensor t = test::hostTensor(x, shape, nullptr, {kDLFloat, 32, 1});
  t.device = {kDLCUDA, 0};
  auto b = fromDLPack(t);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code(), ErrorCode::Unsupported);
  EXPECT_EQ(b.error().message(),
            "DLPack tensor lives on device type 2; only host memory (kDLCPU, kDLCUDAHost, kDLROCMHost) can be passed");
}

TEST(RuntimeErrors, DLPackLanes) {
  auto e = elementTypeFromDLPack({kDLFloat, 32, 4});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message(), "DLPack dtype {code 2, bits 32, lanes 4}: vector lanes are not supported (lanes must be 1)");
}

TEST(RuntimeErrors, OracleRankDiffers) {
  auto d = bufferDescriptionOracle(*parseType("memref<1x384xsi32>"), BufferDescription::rowMajor(ElementType::SI32, {384}));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "rank differs: expected Buffer<sint32[1x384]>, received sint32[384]");
}
