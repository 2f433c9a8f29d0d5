// The dynamic invoker over hand-written `_mlir_ciface_` functions.
#include "memjit/runtime/callable.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "memjit/runtime/owned_memref.h"
#include "memjit/type_syntax.h"
#include "test_kernels.h"
#include "support/dlpack.h"

using namespace memjit;
using namespace memjit::runtime;

extern "C" {
// (f32, f64, f16, bf16) -> () : records what arrived, bit for bit
static std::uint32_t gotF32;
static std::uint64_t gotF64;
static std::uint16_t gotF16, gotBF16;
static void _mlir_ciface_record(float a, double b, memjit::f16::abi_type c, memjit::bf16::abi_type d) {
  std::memcpy(&gotF32, &a, 4);
  std::memcpy(&gotF64, &b, 8);
  gotF16 = memjit::f16::fromAbi(c).bits();
  gotBF16 = memjit::bf16::fromAbi(d).bits();
}
// (memref, memref) -> i64 of any rank-2 memref type: records which descriptors arrived
static const void* gotDescriptors[2];
static std::int64_t _mlir_ciface_descriptors(void* a, void* b) {
  gotDescriptors[0] = a;
  gotDescriptors[1] = b;
  return 7;
}
}

namespace {
Callable make(void* fn, const char* name, const char* type) {
  auto f = Callable::fromTypeText(fn, name, type);
  EXPECT_TRUE(f) << (f ? "" : f.error().str());
  return f ? *f : Callable();
}
Callable withReflection(void* fn, const char* type, std::string json, std::optional<std::string> sip = std::nullopt) {
  auto t = parseFunctionType(type);
  EXPECT_TRUE(t);
  auto sig = signature::describe("f", *t);
  EXPECT_TRUE(sig);
  sig->reflection = std::move(json);
  sig->sip = std::move(sip);
  auto f = Callable::create(fn, *sig);
  EXPECT_TRUE(f) << (f ? "" : f.error().str());
  return f ? *f : Callable();
}
}  // namespace

TEST(Invoke, InPlaceKernelAndScalar) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_scale), "scale", "(memref<?xf32>, f32) -> ()");
  std::vector<float> v{1, 2, 3};
  auto r = f.invoke({makeView(v), 2.0});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_TRUE(r->isNone());
  EXPECT_EQ(v, (std::vector<float>{2, 4, 6}));
}

TEST(Invoke, ScalarResultReturnedDirectly) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "sum", "(memref<?xf32>) -> f32");
  std::vector<float> v{1.5f, 2.5f};
  auto r = f.invoke({makeView(v)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->scalar().type, ElementType::F32);
  EXPECT_EQ(r->toDouble(), 4.0);
}

TEST(Invoke, OwnedResultIsFreedOnce) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_clone), "clone", "(memref<?xf32>) -> memref<?xf32>");
  std::vector<float> v{7, 8};
  auto r = f.invoke({makeView(v)});
  ASSERT_TRUE(r);
  const Buffer& b = r->buffer();
  EXPECT_TRUE(b.owning());
  EXPECT_EQ(b.owner().get(), b.allocated());  // frees the allocated pointer, not the aligned one
  EXPECT_NE(b.allocated(), b.aligned());
  EXPECT_EQ(static_cast<float*>(b.data())[1], 8.0f);
  auto typed = OwnedMemRef<float, 1>::fromBuffer(b);
  ASSERT_TRUE(typed);
  EXPECT_EQ(typed->get().sizes[0], 2);
}

TEST(Invoke, ResultAliasingAnArgumentIsNotFreed) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_identity), "identity", "(memref<?xf32>) -> memref<?xf32>");
  std::vector<float> v{1, 2};
  auto r = f.invoke({makeView(v)});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->buffer().owning());  // the caller's vector owns it
  EXPECT_EQ(r->buffer().aligned(), v.data());
  // An owned argument: the result shares its owner.
  auto owned = Buffer::allocate(ElementType::F32, {4});
  ASSERT_TRUE(owned);
  auto r2 = f.invoke({*owned});
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->buffer().owner(), owned->owner());
}

TEST(Invoke, SeveralResultsComeBackAsATuple) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_multi), "multi",
                    "(memref<?xf32>, i32) -> (memref<?xf32>, i32, f64)");
  std::vector<float> v{1, 2, 3};
  auto r = f.invoke({makeView(v), 21});
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->kind(), Variant::Kind::Tuple);
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].buffer().describe(), "float32[3]");
  EXPECT_TRUE((*r)[0].buffer().owning());
  EXPECT_EQ((*r)[1].toInt(), 42);
  EXPECT_EQ((*r)[2].toDouble(), 10.5);
}

TEST(Invoke, ResultsSharingOneAllocationShareOneOwner) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_halves), "halves", "(index) -> (memref<?xf32>, memref<?xf32>)");
  auto r = f.invoke({3});
  ASSERT_TRUE(r);
  const Buffer& a = (*r)[0].buffer();
  const Buffer& b = (*r)[1].buffer();
  EXPECT_EQ(a.owner(), b.owner());  // freed once, when both are gone
  EXPECT_EQ(static_cast<float*>(b.data())[0], 3.0f);
}

TEST(Invoke, GlobalResultIsNotFreed) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_global), "global", "() -> memref<2xf32>");
  auto r = f.invoke({});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->buffer().owning());
  EXPECT_EQ(static_cast<float*>(r->buffer().data())[1], 4.0f);
}

TEST(Invoke, UnrankedArgumentAndResult) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_unranked_id), "uid", "(memref<*xf32>) -> memref<*xf32>");
  std::vector<float> v(6, 1.0f);
  auto r = f.invoke({makeView(v, std::array<std::int64_t, 2>{2, 3})});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->buffer().describe(), "float32[2x3]");
  EXPECT_EQ(r->buffer().aligned(), v.data());
  EXPECT_FALSE(r->buffer().owning());  // the descriptor copy was freed; the data is the argument's
}

TEST(Invoke, TransposedViewIsCopiedInAndBack) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_add_index), "add_index", "(memref<2x3xf32>) -> ()");
  // storage holds a 3x2 matrix; its transpose (2x3, strides [1, 2]) is what we pass.
  std::vector<float> storage(6, 0.0f);
  auto view = Buffer::view(ElementType::F32, storage.data(), {2, 3}, {1, 2});
  ASSERT_TRUE(view);
  auto r = f.invoke({*view});
  ASSERT_TRUE(r) << r.error().str();
  // element (i, j) of the view lives at storage[i + 2j] and got 10i + j.
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(storage[i + 2 * j], 10.0f * i + j) << i << "," << j;
  InvokeOptions noCopies;
  noCopies.allowCopies = false;
  std::vector<Variant> args{*view};
  auto e = f.invoke(args, {}, noCopies);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("copies are disabled"), std::string::npos) << e.error().str();
}

TEST(Invoke, OffsetViewIsRebasedWithoutCopy) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_add_index), "add_index", "(memref<2x3xf32>) -> ()");
  std::vector<float> storage(8, 0.0f);
  auto view = Buffer::view(ElementType::F32, storage.data(), {2, 3}, {}, 2);
  ASSERT_TRUE(view);
  InvokeOptions noCopies;
  noCopies.allowCopies = false;
  std::vector<Variant> args{*view};
  auto r = f.invoke(args, {}, noCopies);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(storage[2 + 5], 12.0f);
}

TEST(Invoke, ScalarsOfEveryWidthThroughLibffi) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_mix), "mix", "(i8, i16, i32, i64, f32, f64, i1) -> f64");
  auto r = f.invoke({-3, 300, 70000, 5000000000LL, 0.5, 0.25, true});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toDouble(), -3 + 300 + 70000 + 5000000000.0 + 0.5 + 0.25 + 1000);
  EXPECT_FALSE(f.invoke({128 * 2, 0, 0, 0, 0.0, 0.0, false}));  // 256 does not fit i8
  EXPECT_FALSE(f.invoke({0, 0, 0, 0, 0.0, 0.0, 2}));            // 2 is no i1
}

TEST(Invoke, StringIsAnI8Memref) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_count_a), "count_a", "(memref<?xi8>) -> i64");
  auto r = f.invoke({"banana"});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toInt(), 3);
}

TEST(Invoke, HomogeneousListIsA1DMemref) {
  Callable f = withReflection(reinterpret_cast<void*>(&_mlir_ciface_isum), "(memref<?xi32>) -> i32",
                              R"({"a":[["py_homogeneous_list","i32"]],"r":["i32"],"v":1})");
  auto r = f.invoke({Variant::list({1, 2, 3, 4})});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toInt(), 10);
}

TEST(Invoke, NamedArgumentsByKeyword) {
  Callable f = withReflection(reinterpret_cast<void*>(&_mlir_ciface_abc), "(i32, i32, i32) -> i32",
                              R"({"a":["i32",["named","a","i32"],["named","b","i32"]],"r":["i32"]})");
  auto r = f.invoke({-1}, {{"a", 1}, {"b", 2}});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toInt(), -100 + 10 + 2);  // packs [-1, 1, 2]
  auto positional = f.invoke({3, 4, 5});
  ASSERT_TRUE(positional);
  EXPECT_EQ(positional->toInt(), 345);
  auto reordered = f.invoke({3}, {{"b", 5}, {"a", 4}});
  ASSERT_TRUE(reordered);
  EXPECT_EQ(reordered->toInt(), 345);
}

TEST(Invoke, SdictPacksInDescriptorOrder) {
  Callable f = withReflection(reinterpret_cast<void*>(&_mlir_ciface_abc), "(i32, i32, i32) -> i32",
                              R"({"a":[["sdict",["a","i32"],["b","i32"]],"i32"],"r":["i32"]})");
  auto r = f.invoke({Variant::dict({{"b", 3}, {"a", 2}}), 7});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toInt(), 237);  // packs [2, 3, 7]
}

TEST(Invoke, SlistAndStupleFlatten) {
  Callable f = withReflection(reinterpret_cast<void*>(&_mlir_ciface_abc), "(i32, i32, i32) -> i32",
                              R"({"a":[["slist","i32",["stuple","i32","i32"]]],"r":["i32"]})");
  auto r = f.invoke({Variant::list({1, Variant::tuple({2, 3})})});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toInt(), 123);
}

TEST(Invoke, SipStructureMapsDictsAndSequences) {
  // inputs [ {foo: raw0, bar: raw1}, raw2 ]; the result is raw0.
  Callable f = withReflection(reinterpret_cast<void*>(&_mlir_ciface_abc), "(i32, i32, i32) -> i32", "",
                              "I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R3!_0");
  auto r = f.invoke({Variant::dict({{"foo", 1}, {"bar", 2}}), 3});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toInt(), 123);
}

TEST(Invoke, StructuredResultsFromReflection) {
  Callable f = withReflection(reinterpret_cast<void*>(&_mlir_ciface_multi), "(memref<?xf32>, i32) -> (memref<?xf32>, i32, f64)",
                              R"({"a":[["ndarray","f32",1,null],"i32"],"r":[["sdict",["out",["ndarray","f32",1,null]],["n","i32"]],"f64"]})");
  std::vector<float> v{1, 2};
  auto r = f.invoke({makeView(v), 4});
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->kind(), Variant::Kind::Tuple);
  const Variant& d = (*r)[0];
  ASSERT_TRUE(d.isDict());
  EXPECT_EQ(d.find("n")->toInt(), 8);
  EXPECT_EQ(d.find("out")->buffer().describe(), "float32[2]");
  EXPECT_EQ((*r)[1].toDouble(), 2.0);
}

TEST(Invoke, DLPackTensorArgument) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "sum", "(memref<?xf32>) -> f32");
  float x[6] = {1, 100, 2, 100, 3, 100};
  std::vector<std::int64_t> shape = {3};
  std::int64_t strides[1] = {2};
  DLTensor t = test::hostTensor(x, shape, strides, {kDLFloat, 32, 1});
  auto v = Variant::fromDLPack(t);
  ASSERT_TRUE(v);
  auto r = f.invoke({*v});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toDouble(), 6.0);  // strided: a copy was made for the identity layout
}

TEST(Invoke, ManyArgumentsBeyondTheThunk) {
  // 10 words: past the 8-word thunk, through libffi with stack arguments.
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_weighted10), "w10",
                    "(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64");
  auto r = f.invoke({1, 1, 1, 1, 1, 1, 1, 1, 1, 2});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->toInt(), 45 + 20);
}

// A scalar converts to the parameter's type only when the value survives:
// exact values of any numeric type, NaN (as a NaN), infinity from infinity.
TEST(Invoke, ScalarConversionsKeepTheValue) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_record), "record", "(f32, f64, f16, bf16) -> ()");
  auto accepts = [&](Variant a, Variant b, Variant c, Variant d) {
    auto r = f.invoke({a, b, c, d});
    EXPECT_TRUE(r) << r.error().str();
    return bool(r);
  };
  ASSERT_TRUE(accepts(0.5, 9007199254740992LL, 65504, -3));  // 2^53 is exact in f64
  EXPECT_EQ(std::bit_cast<float>(gotF32), 0.5f);
  EXPECT_EQ(std::bit_cast<double>(gotF64), 9007199254740992.0);
  EXPECT_EQ(gotF16, 0x7bff);
  EXPECT_EQ(gotBF16, 0xc040);
  ASSERT_TRUE(accepts(16777216, 18446744073709551615ull >> 11 << 11, Variant(f16::fromBits(0x0001)), 0.0078125f));
  EXPECT_EQ(std::bit_cast<float>(gotF32), 16777216.0f);
  EXPECT_EQ(gotF16, 0x0001);  // an f16 subnormal, as given
  EXPECT_EQ(gotBF16, 0x3c00);
  // NaN stays a NaN; infinities pass; -0 keeps its sign; an f16 passes for f32 and bf16 where exact.
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  ASSERT_TRUE(accepts(nan, -inf, nan, Variant(f16(-0.0))));
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(gotF32)));
  EXPECT_EQ(std::bit_cast<double>(gotF64), -inf);
  EXPECT_EQ(gotF16, 0x7e00);
  EXPECT_EQ(gotBF16, 0x8000);
  ASSERT_TRUE(accepts(Variant(f16(0.1)), Variant(bf16(0.1)), Variant(f16::fromBits(0xfd01)), Variant(bf16::fromBits(0x7f81))));
  EXPECT_EQ(std::bit_cast<float>(gotF32), float(f16(0.1)));
  EXPECT_EQ(gotF16, 0xfd01);  // same type: the pattern as given, even a signalling NaN
  EXPECT_EQ(gotBF16, 0x7f81);

  // Refused: each changes the value.
  auto refuses = [&](Variant a, Variant b, Variant c, Variant d, const char* what) {
    auto r = f.invoke({a, b, c, d});
    ASSERT_FALSE(r) << what;
    EXPECT_EQ(r.error().code(), ErrorCode::TypeMismatch);
    EXPECT_NE(r.error().message().find(what), std::string::npos) << r.error().str();
  };
  refuses(1e300, 0.0, 0, 0, "argument 0 (raw #0): expected float32, received float 1e+300 (out of range: becomes inf");
  refuses(16777217, 0.0, 0, 0, "received int 16777217 (not exact in float32: becomes 16777216)");
  refuses(0.1, 0.0, 0, 0, "received float 0.1 (not exact in float32: becomes 0.100000001)");
  refuses(1e-300, 0.0, 0, 0, "(not exact in float32: becomes 0)");
  refuses(0, 9007199254740993LL, 0, 0, "argument 1 (raw #1): expected float64, received int 9007199254740993 "
                                       "(not exact in float64: becomes 9007199254740992)");
  refuses(0, 18446744073709551615ull, 0, 0, "(not exact in float64: becomes 1.8446744073709552e+19)");
  refuses(0, 0.0, 65520, 0, "argument 2 (raw #2): expected float16, received int 65520 (out of range: becomes inf");
  refuses(0, 0.0, 0.1f, 0, "(not exact in float16: becomes 0.099976)");
  refuses(0, 0.0, Variant(bf16(1e10f)), 0, "(out of range: becomes inf in float16)");
  refuses(0, 0.0, 0, 257, "argument 3 (raw #3): expected bfloat16, received int 257 (not exact in bfloat16: "
                          "becomes 256)");
  refuses(0, 0.0, 0, Variant(f16::fromBits(0x3c01)), "(not exact in bfloat16: becomes 1)");
}

// A buffer whose layout the parameter accepts goes in as it is: the callee
// gets the caller's own descriptor (no view, no copy); one that does not fit
// goes through a copy, and one of the wrong static size is refused.
TEST(Invoke, BufferThatFitsGoesInAsItIs) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_descriptors), "descriptors",
                    "(memref<?x3xf32>, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> i64");
  std::vector<float> storage(24, 1.0f);
  // Row-major 2x3; and 1x3 with an odd stride on its size-1 dim, which the identity layout ignores.
  Variant packed(cantFail(Buffer::view(ElementType::F32, storage.data(), {2, 3})));
  Variant oddUnitStride(cantFail(Buffer::view(ElementType::F32, storage.data(), {1, 3}, {99, 1})));
  // Any row stride and offset where the layout leaves them free.
  Variant rows(cantFail(Buffer::view(ElementType::F32, storage.data(), {3, 2}, {7, 1}, 3)));
  for (const Variant& first : {packed, oddUnitStride}) {
    std::vector<Variant> args{first, rows};
    auto r = f.invoke(args);
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(r->toInt(), 7);
    EXPECT_EQ(gotDescriptors[0], args[0].buffer().descriptor());
    EXPECT_EQ(gotDescriptors[1], args[1].buffer().descriptor());
  }
  // A transposed buffer does not fit the identity layout: a copy goes in.
  std::vector<Variant> args{Variant(cantFail(Buffer::view(ElementType::F32, storage.data(), {2, 3}, {1, 2}))), rows};
  auto r = f.invoke(args);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_NE(gotDescriptors[0], args[0].buffer().descriptor());
  EXPECT_EQ(gotDescriptors[1], args[1].buffer().descriptor());
  // The static size 3 is checked on every way.
  Variant wide(cantFail(Buffer::view(ElementType::F32, storage.data(), {2, 4})));
  auto e = f.invoke({wide, rows});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code(), ErrorCode::TypeMismatch);
}

// An empty buffer may have a null data pointer (nothing is read through it);
// a buffer with elements may not, and a default Buffer (no descriptor at all)
// is refused rather than read.
TEST(Invoke, NullDataPointersAndEmptyBuffers) {
  Callable f = make(reinterpret_cast<void*>(&_mlir_ciface_sum), "sum", "(memref<?xf32>) -> f32");
  auto empty = f.invoke({Buffer::fromParts(ElementType::F32, nullptr, nullptr, 0, std::vector<std::int64_t>{0},
                                           std::vector<std::int64_t>{1})});
  ASSERT_TRUE(empty) << empty.error().str();
  EXPECT_EQ(empty->toDouble(), 0.0);
  auto none = f.invoke({Buffer()});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(none.error().message().find("argument 0 (raw #0)"), std::string::npos) << none.error().str();
}
