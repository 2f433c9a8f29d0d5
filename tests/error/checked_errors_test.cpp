// One test per checked-mode diagnostic (FunctionOptions::checked): each kernel
// fails its check through the dynamic invoker, the typed invoker's call() and
// the raw C interface read back with memjit_check_message, all with the exact
// text. Also the dynamic invoker's refusal of a null data pointer.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/call_jit.h"
#include "support/expect_error.h"
#include "support/jit.h"
#include "support/types.h"

namespace memjit {
namespace {

using codegen::FunctionBuilder;
using codegen::Value;
using runtime::StridedMemRef;
using Vec = StridedMemRef<float, 1>;
using Mat = StridedMemRef<float, 2>;

// A checked function compiled in a Jit of its own (function names are global per Jit).
struct Kernel {
  std::unique_ptr<jit::Jit> jit;
  jit::Function fn;
};

Kernel compile(const std::string& name, const char* type, const std::function<void(FunctionBuilder&)>& body,
               std::vector<std::string> argumentNames = {}) {
  codegen::Module m(name + "_module");
  codegen::FunctionOptions options;
  options.checked = true;
  options.argumentNames = std::move(argumentNames);
  {
    FunctionBuilder b(m, name, test::functionType(type), options);
    body(b);
    Error e = b.finish();
    EXPECT_FALSE(e) << e.str();
  }
  Kernel k{std::make_unique<jit::Jit>(test::makeJit()), {}};
  k.fn = test::valueOrFail(test::valueOrFail(k.jit->add(std::move(m)), name).function(name), name);
  return k;
}

void expectCheck(const Error& e, const std::string& message) {
  test::expectErrorMessage(e, ErrorCode::RuntimeCheckFailed, message);
}

// What a C caller reads after calling the C interface itself.
void expectRawCheck(const std::string& message) {
  const char* got = memjit_check_message();
  ASSERT_NE(got, nullptr) << "no failure recorded, expected " << message;
  EXPECT_EQ(std::string(got), message);
  memjit_check_clear();
  EXPECT_EQ(memjit_check_message(), nullptr);
}

// --- division and remainder: (T, T) -> T through all three paths ---

// Operations take their caller's source location last (builder.h), so a
// pointer to one names it and a call through the pointer passes it.
using Binary = Value (FunctionBuilder::*)(const Value&, const Value&, std::source_location);

template <typename T>
void expectDivisionFails(const char* name, const char* type, Binary op, T a, T b, const std::string& message) {
  Kernel k = compile(name, type, [&](FunctionBuilder& f) { f.ret({(f.*op)(f.arg(0), f.arg(1), std::source_location::current())}); });
  auto dynamic = k.fn.invoke({runtime::Variant(a), runtime::Variant(b)});
  ASSERT_FALSE(dynamic);
  expectCheck(dynamic.error(), message);
  auto typed = k.fn.as<T(T, T)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(a, b).takeError(), message);
  memjit_check_clear();
  EXPECT_EQ(k.fn.cInterfaceAs<T(T, T)>()(a, b), T{0});  // a failed kernel returns zeros
  expectRawCheck(message);
}

constexpr std::int64_t kMin64 = INT64_MIN;

TEST(CheckedErrors, DivsiByZero) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::divsi, 7, 0, "kernel 'k': divsi by zero");
}
TEST(CheckedErrors, DivsiOverflow) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::divsi, kMin64, -1,
                                    "kernel 'k': divsi overflow (-9223372036854775808 / -1)");
}
TEST(CheckedErrors, DivuiByZero) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::divui, kMin64, 0,
                                    "kernel 'k': divui by zero");
}
TEST(CheckedErrors, RemsiByZero) {
  expectDivisionFails<std::int32_t>("k", "(i32, i32) -> i32", &FunctionBuilder::remsi, 5, 0, "kernel 'k': remsi by zero");
}
TEST(CheckedErrors, RemsiOverflow) {
  expectDivisionFails<std::int32_t>("k", "(i32, i32) -> i32", &FunctionBuilder::remsi, INT32_MIN, -1,
                                    "kernel 'k': remsi overflow (-2147483648 % -1)");
}
TEST(CheckedErrors, RemuiByZero) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::remui, 5, 0, "kernel 'k': remui by zero");
}
TEST(CheckedErrors, CeildivsiByZero) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::ceildivsi, 5, 0,
                                    "kernel 'k': ceildivsi by zero");
}
TEST(CheckedErrors, CeildivsiOverflow) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::ceildivsi, kMin64, -1,
                                    "kernel 'k': ceildivsi overflow (-9223372036854775808 / -1)");
}
TEST(CheckedErrors, CeildivuiByZero) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::ceildivui, 5, 0,
                                    "kernel 'k': ceildivui by zero");
}
TEST(CheckedErrors, FloordivsiByZero) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::floordivsi, -5, 0,
                                    "kernel 'k': floordivsi by zero");
}
TEST(CheckedErrors, FloordivsiOverflow) {
  expectDivisionFails<std::int64_t>("k", "(i64, i64) -> i64", &FunctionBuilder::floordivsi, kMin64, -1,
                                    "kernel 'k': floordivsi overflow (-9223372036854775808 / -1)");
}
TEST(CheckedErrors, OperatorDivisionOfI8Overflow) {
  expectDivisionFails<std::int8_t>("k", "(i8, i8) -> i8", &FunctionBuilder::div, -128, -1,
                                   "kernel 'k': div overflow (-128 / -1)");
}
TEST(CheckedErrors, UnsignedRemainderByZero) {
  expectDivisionFails<std::uint32_t>("k", "(ui32, ui32) -> ui32", &FunctionBuilder::rem, 9, 0, "kernel 'k': rem by zero");
}
TEST(CheckedErrors, IndexDivisionByZero) {
  expectDivisionFails<std::int64_t>("k", "(index, index) -> index", &FunctionBuilder::div, 9, 0,
                                    "kernel 'k': div by zero");
}

// --- loads and stores ---

TEST(CheckedErrors, LoadOutOfBounds) {
  Kernel k = compile("conv", "(memref<?x?xf32>, index, index) -> f32",
                     [](FunctionBuilder& b) { b.ret({b.load(b.arg(0), {b.arg(1), b.arg(2)})}); });
  std::vector<float> data(6);
  Mat m = runtime::makeView<float, 2>(data.data(), {2, 3});
  const std::string message = "kernel 'conv': load of argument #0 (memref<?x?xf32>) at [2, 1] is out of bounds [2, 3]";
  auto dynamic = k.fn.invoke({runtime::Variant(m), runtime::Variant(2), runtime::Variant(1)});
  ASSERT_FALSE(dynamic);
  expectCheck(dynamic.error(), message);
  auto typed = k.fn.as<float(Mat, std::int64_t, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(m, 2, 1).takeError(), message);
  memjit_check_clear();
  EXPECT_EQ(k.fn.cInterfaceAs<float(Mat*, std::int64_t, std::int64_t)>()(&m, 2, 1), 0.0f);
  expectRawCheck(message);
  // A negative index and the last valid one.
  expectCheck(typed->call(m, 0, -1).takeError(),
              "kernel 'conv': load of argument #0 (memref<?x?xf32>) at [0, -1] is out of bounds [2, 3]");
  data[5] = 7.0f;
  auto last = typed->call(m, 1, 2);
  ASSERT_TRUE(last) << last.error().str();
  EXPECT_EQ(*last, 7.0f);
}

TEST(CheckedErrors, StoreOutOfBoundsOfAStridedView) {
  Kernel k = compile("k", "(memref<?xf32, strided<[?], offset: ?>>, index, f32) -> ()",
                     [](FunctionBuilder& b) { b.store(b.arg(2), b.arg(0), {b.arg(1)}); });
  std::vector<float> data(8, 1.0f);
  Vec every2nd{data.data(), data.data(), 1, {4}, {2}};  // elements 1, 3, 5, 7
  const std::string message =
      "kernel 'k': store of argument #0 (memref<?xf32, strided<[?], offset: ?>>) at [4] is out of bounds [4]";
  auto dynamic = k.fn.invoke({runtime::Variant(every2nd), runtime::Variant(4), runtime::Variant(5.0f)});
  ASSERT_FALSE(dynamic);
  expectCheck(dynamic.error(), message);
  auto typed = k.fn.as<void(Vec, std::int64_t, float)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(every2nd, 4, 5.0f), message);
  memjit_check_clear();
  k.fn.cInterfaceAs<void(Vec*, std::int64_t, float)>()(&every2nd, 4, 5.0f);
  expectRawCheck(message);
  EXPECT_EQ(data, std::vector<float>(8, 1.0f));  // nothing written anywhere
  EXPECT_FALSE(typed->call(every2nd, 3, 5.0f));
  EXPECT_EQ(data[7], 5.0f);
}

TEST(CheckedErrors, LoadFromAnEmptyMemref) {
  Kernel k = compile("k", "(memref<?xf32>) -> f32", [](FunctionBuilder& b) { b.ret({b.load(b.arg(0), {b.index(0)})}); });
  Vec empty{nullptr, nullptr, 0, {0}, {1}};
  auto typed = k.fn.as<float(Vec)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(empty).takeError(), "kernel 'k': load of argument #0 (memref<?xf32>) at [0] is out of bounds [0]");
}

TEST(CheckedErrors, AccessNamesTheArgumentByItsName) {
  Kernel k = compile(
      "k", "(memref<?xf32>, memref<?xf32>, index) -> f32",
      [](FunctionBuilder& b) { b.ret({b.load(b.arg("weights"), {b.arg(2)})}); }, {"input", "weights", "i"});
  std::vector<float> in(4), w(2);
  auto typed = k.fn.as<float(Vec, Vec, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(runtime::makeView<float, 1>(in.data(), {4}), runtime::makeView<float, 1>(w.data(), {2}), 3)
                  .takeError(),
              "kernel 'k': load of argument #1 'weights' (memref<?xf32>) at [3] is out of bounds [2]");
}

TEST(CheckedErrors, AtomicsCheckTheirIndicesLikeLoadsAndStores) {
  // Each atomic form out of bounds in a parallel loop's last iteration: the
  // report names it, and no element is touched past the end.
  using Atomic = std::function<void(FunctionBuilder&, const Value& counts, const Value& i)>;
  const std::pair<const char*, Atomic> forms[] = {
      {"atomic_rmw addi",
       [](FunctionBuilder& b, const Value& c, const Value& i) { b.atomicRMW(codegen::AtomicKind::Addi, b.i64(1), c, {i}); }},
      {"atomic_rmw muli",
       [](FunctionBuilder& b, const Value& c, const Value& i) { b.atomicRMW(codegen::AtomicKind::Muli, b.i64(3), c, {i}); }},
      {"generic_atomic_rmw",
       [](FunctionBuilder& b, const Value& c, const Value& i) {
         b.genericAtomicRMW(c, {i}, [&](Value v) { return b.add(v, b.i64(1)); });
       }},
      {"atomic_compare_exchange",
       [](FunctionBuilder& b, const Value& c, const Value& i) { b.atomicCompareExchange(c, {i}, b.i64(0), b.i64(1)); }},
  };
  for (const auto& [op, atomic] : forms) {
    Kernel k = compile("k", "(memref<?xi64>, index) -> ()", [&](FunctionBuilder& b) {
      b.parallelFor(b.index(0), b.arg(1), b.index(1), {}, [&](Value i) { atomic(b, b.arg(0), i); });
    });
    std::vector<std::int64_t> data(5, 0);
    StridedMemRef<std::int64_t, 1> first4{data.data(), data.data(), 0, {4}, {1}};
    auto typed = k.fn.as<void(StridedMemRef<std::int64_t, 1>, std::int64_t)>();
    ASSERT_TRUE(typed) << typed.error().str();
    expectCheck(typed->call(first4, 5),
                std::string("kernel 'k': ") + op + " of argument #0 (memref<?xi64>) at [4] is out of bounds [4]");
    EXPECT_EQ(data[4], 0) << op;
    EXPECT_FALSE(typed->call(first4, 4)) << op;
  }
}

TEST(CheckedErrors, ArrayReductionBodyFailsAndFreesItsPrivateCopy) {
  // The chunk that fails skips its merge but frees its copy (LeakSanitizer
  // watches that in the sanitizer build); the report names the load.
  Kernel k = compile("k", "(memref<?xui8>, memref<4xi64>, index) -> ()", [](FunctionBuilder& b) {
    b.parallelReduce(b.index(0), b.arg(2), b.index(1), {}, {codegen::ArrayReduction::sum(b.arg(1))},
                     [&](Value i, const std::vector<Value>& own) {
                       Value bin = b.rem(b.cast(b.load(b.arg(0), {i}), ElementType::Index), b.index(4));
                       b.store(b.load(own[0], {bin}) + 1, own[0], {bin});
                     });
  });
  std::vector<std::uint8_t> x(8, 1);
  std::vector<std::int64_t> bins(4, 0);
  auto typed = k.fn.as<void(StridedMemRef<std::uint8_t, 1>, StridedMemRef<std::int64_t, 1>, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  auto xs = runtime::makeView<std::uint8_t, 1>(x.data(), {8});
  auto vb = runtime::makeView<std::int64_t, 1>(bins.data(), {4});
  expectCheck(typed->call(xs, vb, 9), "kernel 'k': load of argument #0 (memref<?xui8>) at [8] is out of bounds [8]");
  bins.assign(4, 0);
  EXPECT_FALSE(typed->call(xs, vb, 8));
  EXPECT_EQ(bins, (std::vector<std::int64_t>{0, 8, 0, 0}));
}

TEST(CheckedErrors, AccessToAViewNamesItsType) {
  // Not an argument: a subview the kernel made.
  Kernel k = compile("k", "(memref<?xf32>, index) -> f32", [](FunctionBuilder& b) {
    Value view = b.subview(b.arg(0), {b.index(1)}, {b.index(2)}, {b.index(1)});
    b.ret({b.load(view, {b.arg(1)})});
  });
  std::vector<float> data(4);
  auto typed = k.fn.as<float(Vec, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(runtime::makeView<float, 1>(data.data(), {4}), 2).takeError(),
              "kernel 'k': load of memref<2xf32, strided<[1], offset: 1>> at [2] is out of bounds [2]");
}

TEST(CheckedErrors, TransferReadOfAMatrixPrintsEveryIndex) {
  // Only the rows are checked (the columns are masked), but a 2-D access
  // reports both indices and both sizes.
  Kernel k = compile("k", "(memref<?x?xf32>, index, index) -> f32", [](FunctionBuilder& b) {
    Value v = b.transferRead(b.arg(0), {b.arg(1), b.arg(2)}, 4, b.f32(0));
    b.ret({b.extract(v, 0u)});
  });
  std::vector<float> data(6);
  auto typed = k.fn.as<float(Mat, std::int64_t, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(runtime::makeView<float, 2>(data.data(), {2, 3}), 2, 1).takeError(),
              "kernel 'k': vector.transfer_read of argument #0 (memref<?x?xf32>) at [2, 1] is out of bounds [2, 3]");
}

// --- the kernel library's shape checks ---

// Runs kernel `name` (added by `add` in checked mode) on `args` through its C
// interface and expects `message`; `untouched` must keep its contents.
template <typename... Args>
void expectKernelShapeCheck(Error (*add)(codegen::Module&, std::string_view, const codegen::KernelOptions&),
                            const std::string& name, const std::string& message, std::vector<float>& untouched,
                            Args... args) {
  codegen::Module m(name + "_module");
  codegen::KernelOptions o;
  o.checked = true;
  ASSERT_FALSE(add(m, name, o));
  auto jit = test::makeJit();
  auto loaded = test::valueOrFail(jit.add(std::move(m)), name);
  test::JitFunction<void(Args...)> fn(test::valueOrFail(loaded.symbol("_mlir_ciface_" + name), name));
  const std::vector<float> before = untouched;
  fn(args...);
  expectCheck(runtime::takeCheckFailure(), message);
  EXPECT_EQ(untouched, before);
}

TEST(CheckedErrors, KernelsReportMismatchedShapes) {
  // Every access of each call is in bounds: only the shape check sees it.
  std::vector<float> a(6, 1), b(12, 1), c(4, 0);
  Mat A = runtime::makeView<float, 2>(a.data(), {2, 3}), B = runtime::makeView<float, 2>(b.data(), {4, 3}),
      C = runtime::makeView<float, 2>(c.data(), {2, 2});
  expectKernelShapeCheck(&codegen::addMatmul, "matmul",
                         "kernel 'matmul': matmul (A: M x K, B: K x N, C: M x N): mismatched shapes: A is 2x3, B is "
                         "4x3, C is 2x2",
                         c, &A, &B, &C);
  std::vector<float> x(5, 1), y(3, 1);
  Vec X = runtime::makeView<float, 1>(x.data(), {5}), Y = runtime::makeView<float, 1>(y.data(), {3});
  expectKernelShapeCheck(&codegen::addSaxpy, "saxpy",
                         "kernel 'saxpy': saxpy (x, y: as many elements each): mismatched shapes: x is 5, y is 3", y,
                         2.0f, &X, &Y);
  expectKernelShapeCheck(&codegen::addElementwiseAdd, "add",
                         "kernel 'add': elementwise add (a, b, out: as many elements each): mismatched shapes: a is "
                         "5, b is 5, out is 3",
                         y, &X, &X, &Y);
  Mat in = runtime::makeView<float, 2>(b.data(), {4, 3});
  expectKernelShapeCheck(&codegen::addSoftmax, "softmax",
                         "kernel 'softmax': softmax (in, out: rows x cols each): mismatched shapes: in is 4x3, out "
                         "is 2x2",
                         c, &in, &C);
  // transpose's full tiles store through raw pointers: without the check a
  // 16 x 16 input would write 256 floats into this 4 x 4 output.
  std::vector<float> big(256, 1), small(16, 0);
  Mat In = runtime::makeView<float, 2>(big.data(), {16, 16}), Out = runtime::makeView<float, 2>(small.data(), {4, 4});
  expectKernelShapeCheck(&codegen::addTranspose, "transpose",
                         "kernel 'transpose': transpose (in: rows x cols, out: cols x rows): mismatched shapes: in is "
                         "16x16, out is 4x4",
                         small, &In, &Out);
}

// --- alloc ---

Kernel allocKernel() {
  return compile("k", "(index, index) -> memref<?x?xf32>",
                 [](FunctionBuilder& b) { b.ret({b.alloc(MemRefType(ElementType::F32, {kDynamic, kDynamic}), {b.arg(0), b.arg(1)})}); });
}

TEST(CheckedErrors, AllocWithANegativeSize) {
  Kernel k = allocKernel();
  const std::string message = "kernel 'k': alloc of memref<?x?xf32> with sizes [3, -1]: negative size";
  auto dynamic = k.fn.invoke({runtime::Variant(3), runtime::Variant(-1)});
  ASSERT_FALSE(dynamic);
  expectCheck(dynamic.error(), message);
  auto typed = k.fn.as<runtime::OwnedMemRef<float, 2>(std::int64_t, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(3, -1).takeError(), message);
  memjit_check_clear();
  Mat result{};  // the C interface returns a struct through its first parameter
  k.fn.cInterfaceAs<void(Mat*, std::int64_t, std::int64_t)>()(&result, 3, -1);
  EXPECT_EQ(result.basePtr, nullptr);
  expectRawCheck(message);
  auto fine = typed->call(3, 2);
  ASSERT_TRUE(fine) << fine.error().str();
  EXPECT_EQ(fine->get().sizes[1], 2);
  EXPECT_TRUE(fine->owning());
}

TEST(CheckedErrors, AllocWhoseByteSizeOverflows) {
  Kernel k = allocKernel();
  auto typed = k.fn.as<runtime::OwnedMemRef<float, 2>(std::int64_t, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(std::int64_t{1} << 31, std::int64_t{1} << 31).takeError(),
              "kernel 'k': alloc of memref<?x?xf32> with sizes [2147483648, 2147483648]: the size in bytes "
              "(elements of 4 bytes) overflows the index type");
}

// --- views ---

TEST(CheckedErrors, SubviewOutOfBounds) {
  Kernel k = compile("k", "(memref<?x?xf32>, index, index) -> f32", [](FunctionBuilder& b) {
    Value v = b.subview(b.arg(0), {b.arg(1), 0}, {b.arg(2), 2}, {1, 1});
    b.ret({b.load(v, {b.index(0), b.index(0)})});
  });
  std::vector<float> data(16);
  Mat m = runtime::makeView<float, 2>(data.data(), {4, 4});
  const std::string message =
      "kernel 'k': subview of argument #0 (memref<?x?xf32>) with offsets [3, 0], sizes [2, 2], strides [1, 1] is out of bounds [4, 4]";
  auto dynamic = k.fn.invoke({runtime::Variant(m), runtime::Variant(3), runtime::Variant(2)});
  ASSERT_FALSE(dynamic);
  expectCheck(dynamic.error(), message);
  auto typed = k.fn.as<float(Mat, std::int64_t, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(m, 3, 2).takeError(), message);
  memjit_check_clear();
  k.fn.cInterfaceAs<float(Mat*, std::int64_t, std::int64_t)>()(&m, 3, 2);
  expectRawCheck(message);
  EXPECT_TRUE(typed->call(m, 2, 2));
  EXPECT_TRUE(typed->call(m, 3, 1));
  expectCheck(typed->call(m, -1, 1).takeError(),
              "kernel 'k': subview of argument #0 (memref<?x?xf32>) with offsets [-1, 0], sizes [1, 2], strides [1, 1] is out of "
              "bounds [4, 4]");
}

TEST(CheckedErrors, ReinterpretCastOutOfBounds) {
  Kernel k = compile("k", "(memref<?xf32>, index) -> f32", [](FunctionBuilder& b) {
    Value v = b.reinterpretCast(b.arg(0), MemRefType(ElementType::F32, {kDynamic, 2}), 0, {b.arg(1), 2}, {2, 1});
    b.ret({b.load(v, {b.index(0), b.index(0)})});
  });
  std::vector<float> data(5);
  Vec x = runtime::makeView(std::span<float>(data));
  const std::string message =
      "kernel 'k': reinterpret_cast of argument #0 (memref<?xf32>) to memref<?x2xf32> with offset 0, sizes [3, 2], strides [2, 1] "
      "reaches elements [0, 5], outside [0, 4] of the source";
  auto dynamic = k.fn.invoke({runtime::Variant(x), runtime::Variant(3)});
  ASSERT_FALSE(dynamic);
  expectCheck(dynamic.error(), message);
  auto typed = k.fn.as<float(Vec, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(x, 3).takeError(), message);
  memjit_check_clear();
  k.fn.cInterfaceAs<float(Vec*, std::int64_t)>()(&x, 3);
  expectRawCheck(message);
  EXPECT_TRUE(typed->call(x, 2));
  // An empty result reaches nothing; from an empty source, a nonempty one fails.
  Vec none{data.data(), data.data(), 0, {0}, {1}};
  expectCheck(typed->call(none, 1).takeError(),
              "kernel 'k': reinterpret_cast of argument #0 (memref<?xf32>) to memref<?x2xf32> with offset 0, sizes [1, 2], strides "
              "[2, 1] reaches elements [0, 1] of an empty source");
}

TEST(CheckedErrors, MemrefCastToAStaticSizeTheMemrefDoesNotHave) {
  Kernel k = compile("k", "(memref<?xf32>) -> f32", [](FunctionBuilder& b) {
    Value v = b.memrefCast(b.arg(0), MemRefType(ElementType::F32, {4}));
    b.ret({b.load(v, {b.index(3)})});
  });
  std::vector<float> data{1, 2, 3, 4, 5};
  Vec five = runtime::makeView(std::span<float>(data));
  const std::string message =
      "kernel 'k': memref.cast of argument #0 (memref<?xf32>) to memref<4xf32> has offset 0, sizes [5], strides [1]; "
      "the type needs offset 0, sizes [4], strides row-major";
  auto dynamic = k.fn.invoke({runtime::Variant(five)});
  ASSERT_FALSE(dynamic);
  expectCheck(dynamic.error(), message);
  memjit_check_clear();
  k.fn.cInterfaceAs<float(Vec*)>()(&five);
  expectRawCheck(message);
  Vec four = runtime::makeView(std::span<float>(data).first(4));
  auto typed = k.fn.as<float(Vec)>();
  ASSERT_TRUE(typed) << typed.error().str();
  auto fits = typed->call(four);
  ASSERT_TRUE(fits) << fits.error().str();
  EXPECT_EQ(*fits, 4.0f);
}

TEST(CheckedErrors, MemrefCastOfAStridedViewToTheIdentityLayout) {
  Kernel k = compile("k", "(memref<?x?xf32, strided<[?, ?], offset: ?>>) -> f32", [](FunctionBuilder& b) {
    Value v = b.memrefCast(b.arg(0), MemRefType(ElementType::F32, {kDynamic, kDynamic}));
    b.ret({b.load(v, {b.index(0), b.index(1)})});
  });
  auto typed = k.fn.as<float(Mat)>();
  ASSERT_TRUE(typed) << typed.error().str();
  std::vector<float> data{0, 1, 2, 3, 4, 5};
  Mat offset{data.data(), data.data(), 1, {2, 2}, {3, 1}};
  expectCheck(typed->call(offset).takeError(),
              "kernel 'k': memref.cast of argument #0 (memref<?x?xf32, strided<[?, ?], offset: ?>>) to memref<?x?xf32> "
              "has offset 1, sizes [2, 2], strides [3, 1]; the type needs offset 0, sizes [?, ?], strides row-major");
  Mat columns{data.data(), data.data(), 0, {2, 2}, {1, 2}};  // a transposed view
  expectCheck(typed->call(columns).takeError(),
              "kernel 'k': memref.cast of argument #0 (memref<?x?xf32, strided<[?, ?], offset: ?>>) to memref<?x?xf32> "
              "has offset 0, sizes [2, 2], strides [1, 2]; the type needs offset 0, sizes [?, ?], strides row-major");
  Mat packed{data.data(), data.data(), 0, {2, 3}, {3, 1}};
  auto r = typed->call(packed);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, 1.0f);
  // A stride no index can reach (its dim has size 1) is not held against the view.
  Mat oneRow{data.data(), data.data(), 0, {1, 3}, {99, 1}};
  r = typed->call(oneRow);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, 1.0f);
}

TEST(CheckedErrors, ReinterpretCastOfAnUnrankedSourceOutOfBounds) {
  Kernel k = compile("k", "(memref<*xf32>, index) -> f32", [](FunctionBuilder& b) {
    Value v = b.reinterpretCast(b.arg(0), MemRefType(ElementType::F32, {kDynamic}, StridedLayout{kDynamic, {1}}),
                                b.arg(1), {2}, {1});
    b.ret({b.load(v, {b.index(1)})});
  });
  std::vector<float> data{0, 1, 2, 3, 4, 5};
  Mat m{data.data(), data.data(), 1, {2, 2}, {3, 1}};  // elements 1, 2, 4, 5
  runtime::UnrankedMemRef<float> u{2, &m};
  auto typed = k.fn.as<float(runtime::UnrankedMemRef<float>, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  auto inside = typed->call(u, 3);
  ASSERT_TRUE(inside) << inside.error().str();
  EXPECT_EQ(*inside, 4.0f);
  expectCheck(typed->call(u, 5).takeError(),
              "kernel 'k': reinterpret_cast of argument #0 (memref<*xf32>) to memref<?xf32, strided<[1], offset: ?>> with offset 5, "
              "sizes [2], strides [1] reaches elements [5, 6], outside [1, 5] of the source");
}

// --- parallel loops and calls ---

TEST(CheckedErrors, LoadOutOfBoundsInAParallelLoopStopsTheKernel) {
  // out[i] = in[i] for i < dim(out), then out[0] = -1 after the loop.
  Kernel k = compile("par", "(memref<?xf32>, memref<?xf32>) -> ()", [](FunctionBuilder& b) {
    Value in = b.arg(0), out = b.arg(1);
    b.parallelFor(b.index(0), b.dim(out, 0), b.index(1), {1, codegen::ParallelSchedule::Dynamic, 0},
                  [&](Value i) { b.store(b.load(in, {i}), out, {i}); });
    b.store(b.f32(-1.0f), out, {b.index(0)});
  });
  std::vector<float> in(99, 2.0f), out(100, 0.0f);
  Vec vin = runtime::makeView(std::span<float>(in)), vout = runtime::makeView(std::span<float>(out));
  const std::string message = "kernel 'par': load of argument #0 (memref<?xf32>) at [99] is out of bounds [99]";
  auto typed = k.fn.as<void(Vec, Vec)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(vin, vout), message);
  EXPECT_EQ(out[99], 0.0f);
  EXPECT_NE(out[0], -1.0f);  // the code after the loop did not run
  auto dynamic = k.fn.invoke({runtime::Variant(vin), runtime::Variant(vout)});
  ASSERT_FALSE(dynamic);
  expectCheck(dynamic.error(), message);
  memjit_check_clear();
  k.fn.cInterfaceAs<void(Vec*, Vec*)>()(&vin, &vout);
  expectRawCheck(message);
}

// --- loops whose accesses checked mode would prove when in bounds
// (docs/checked-mode.md, "Proven accesses"): out of bounds, they fail at the
// same access with the same message, after the same stores ---

TEST(CheckedErrors, AffineLoopOverrunFailsAfterTheSameStores) {
  // out[i] = in[i + 1] for i < n: with n = dim(in), iteration n - 1 reads past in.
  Kernel k = compile("shift", "(memref<?xf32>, memref<?xf32>, index) -> ()", [](FunctionBuilder& b) {
    b.forLoop(b.index(0), b.arg(2), b.index(1),
              [&](Value i) { b.store(b.load(b.arg(0), {i + b.index(1)}), b.arg(1), {i}); });
  }, {"in", "out", "n"});
  std::vector<float> in{1, 2, 3, 4, 5}, out(8, 0.0f);
  auto typed = k.fn.as<void(Vec, Vec, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  Vec vin = runtime::makeView(std::span<float>(in)), vout = runtime::makeView(std::span<float>(out));
  expectCheck(typed->call(vin, vout, 5),
              "kernel 'shift': load of argument #0 'in' (memref<?xf32>) at [5] is out of bounds [5]");
  EXPECT_EQ(out, (std::vector<float>{2, 3, 4, 5, 0, 0, 0, 0}));  // iterations 0 .. 3 ran, as per access
  // A store that overruns in the first iteration of a later row, and an in-bounds run.
  expectCheck(typed->call(vin, runtime::makeView(std::span<float>(out.data(), 2)), 3),
              "kernel 'shift': store of argument #1 'out' (memref<?xf32>) at [2] is out of bounds [2]");
  out.assign(8, 0.0f);
  EXPECT_FALSE(typed->call(vin, vout, 4));
  EXPECT_EQ(out, (std::vector<float>{2, 3, 4, 5, 0, 0, 0, 0}));
}

TEST(CheckedErrors, TriangularNestOverrunNamesTheFirstFailingIndex) {
  // a[i][j + 1] = 1 for j <= i < dim(a, 0): the last row's last j is one past a's columns.
  Kernel k = compile("tri", "(memref<?x?xf32>) -> ()", [](FunctionBuilder& b) {
    Value a = b.arg(0), one = b.index(1);
    b.forLoop(b.index(0), b.dim(a, 0), one, [&](Value i) {
      b.forLoop(b.index(0), i + one, one, [&](Value j) { b.store(b.f32(1), a, {i, j + one}); });
    });
  });
  std::vector<float> data(9, 0.0f);
  auto typed = k.fn.as<void(Mat)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(runtime::makeView<float, 2>(data.data(), {3, 3})),
              "kernel 'tri': store of argument #0 (memref<?x?xf32>) at [2, 3] is out of bounds [3, 3]");
  EXPECT_EQ(data, (std::vector<float>{0, 1, 0, 0, 1, 1, 0, 1, 1}));
  data.assign(12, 0.0f);  // 3 x 4: every access in bounds
  EXPECT_FALSE(typed->call(runtime::makeView<float, 2>(data.data(), {3, 4})));
}

TEST(CheckedErrors, CorrelatedBoundsOverrunByOneFailsAfterTheSameStores) {
  // a[i + 1][j] = 1 for j in [i + first, n), i in [0, n): in bounds from j = i + 1 (the last row's j loop is
  // empty), one row past the end from j = i (the guard's correlated bound fails, the checked nest runs).
  Kernel k = compile("upper", "(memref<?x?xf32>, index) -> ()", [](FunctionBuilder& b) {
    Value a = b.arg(0), n = b.dim(a, 0), one = b.index(1);
    b.forLoop(b.index(0), n, one, [&](Value i) {
      b.forLoop(i + b.arg(1), n, one, [&](Value j) { b.store(b.f32(1), a, {i + one, j}); });
    });
  });
  auto typed = k.fn.as<void(Mat, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  std::vector<float> data(9, 0.0f);
  EXPECT_FALSE(typed->call(runtime::makeView<float, 2>(data.data(), {3, 3}), 1));
  EXPECT_EQ(data, (std::vector<float>{0, 0, 0, 0, 1, 1, 0, 0, 1}));
  data.assign(9, 0.0f);
  expectCheck(typed->call(runtime::makeView<float, 2>(data.data(), {3, 3}), 0),
              "kernel 'upper': store of argument #0 (memref<?x?xf32>) at [3, 2] is out of bounds [3, 3]");
  EXPECT_EQ(data, (std::vector<float>{0, 0, 0, 1, 1, 1, 0, 1, 1}));  // rows 1 and 2 written before

  // durbin's r[k - i - 1] for i in [0, k + extra), k in [1, n): from extra = 1, i = k reaches r[-1].
  Kernel d = compile("lower", "(memref<?xf32>, index) -> ()", [](FunctionBuilder& b) {
    Value r = b.arg(0), one = b.index(1);
    b.forLoop(one, b.dim(r, 0), one, [&](Value kk) {
      b.forLoop(b.index(0), kk + b.arg(1), one, [&](Value i) {
        b.store(b.cast(b.cast(kk, ElementType::I64), ElementType::F32), r, {kk - i - one});
      });
    });
  });
  auto lower = d.fn.as<void(Vec, std::int64_t)>();
  ASSERT_TRUE(lower) << lower.error().str();
  std::vector<float> r(4, 0.0f);
  EXPECT_FALSE(lower->call(runtime::makeView(std::span<float>(r)), 0));
  EXPECT_EQ(r, (std::vector<float>{3, 3, 3, 0}));
  r.assign(4, 0.0f);
  expectCheck(lower->call(runtime::makeView(std::span<float>(r)), 1),
              "kernel 'lower': store of argument #0 (memref<?xf32>) at [-1] is out of bounds [4]");
  EXPECT_EQ(r, (std::vector<float>{1, 0, 0, 0}));  // k = 1, i = 0 stored before
}

TEST(CheckedErrors, LoopToTheIndexMaximumAndALoopCarriedIndexStayChecked) {
  // for i in [lb, INT64_MAX) a[i - lb]; and a carried k += 3 read at a[k].
  Kernel k = compile("edge", "(memref<?xf32>, index) -> f32", [](FunctionBuilder& b) {
    Value a = b.arg(0), lb = b.arg(1), one = b.index(1);
    b.forLoop(lb, b.index(INT64_MAX), one, [&](Value i) { b.store(b.f32(3), a, {i - lb}); });
    auto r = b.forLoop(b.index(0), b.index(4), one, {b.f32(0), b.index(0)}, [&](Value, const std::vector<Value>& c) {
      return std::vector<Value>{c[0] + b.load(a, {c[1]}), c[1] + b.index(3)};
    });
    b.ret({r[0]});
  });
  std::vector<float> data(4, 0.0f);
  auto typed = k.fn.as<float(Vec, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  Vec v = runtime::makeView(std::span<float>(data));
  expectCheck(typed->call(v, 0).takeError(),
              "kernel 'edge': store of argument #0 (memref<?xf32>) at [4] is out of bounds [4]");
  EXPECT_EQ(data, std::vector<float>(4, 3.0f));
  expectCheck(typed->call(v, INT64_MAX - 4).takeError(),
              "kernel 'edge': load of argument #0 (memref<?xf32>) at [6] is out of bounds [4]");
}

TEST(CheckedErrors, WrappingIndexArithmeticIsNotProven) {
  // a[min(i 2^62 + i 2^62, 3)] for i in [0, 2): exactly, [0, 3]; in 64 bits i = 1 wraps to INT64_MIN.
  Kernel k = compile("wrap", "(memref<?xf32>) -> f32", [](FunctionBuilder& b) {
    auto r = b.forLoop(b.index(0), b.index(2), b.index(1), {b.f32(0)}, [&](Value i, const std::vector<Value>& c) {
      Value big = i * b.index(std::int64_t{1} << 62);
      return std::vector<Value>{c[0] + b.load(b.arg(0), {b.min(big + big, b.index(3))})};
    });
    b.ret({r[0]});
  });
  std::vector<float> data(4, 1.0f);
  auto typed = k.fn.as<float(Vec)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(runtime::makeView(std::span<float>(data))).takeError(),
              "kernel 'wrap': load of argument #0 (memref<?xf32>) at [-9223372036854775808] is out of bounds [4]");
}

TEST(CheckedErrors, BranchInAProvenLoopKeepsItsCheck) {
  // for i < dim(a): a[i] = 1, and where i == 2, a[i + 5] = 2.
  Kernel k = compile("branch", "(memref<?xf32>) -> ()", [](FunctionBuilder& b) {
    Value a = b.arg(0);
    b.forLoop(b.index(0), b.dim(a, 0), b.index(1), [&](Value i) {
      b.store(b.f32(1), a, {i});
      b.ifThen(b.cmp(codegen::CmpPredicate::Eq, i, b.index(2)), [&] { b.store(b.f32(2), a, {i + b.index(5)}); });
    });
  });
  std::vector<float> data(6, 0.0f);
  auto typed = k.fn.as<void(Vec)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(runtime::makeView(std::span<float>(data))),
              "kernel 'branch': store of argument #0 (memref<?xf32>) at [7] is out of bounds [6]");
  EXPECT_EQ(data, (std::vector<float>{1, 1, 1, 0, 0, 0}));
}

TEST(CheckedErrors, BranchAccessProvenBeforeTheNestOrChecked) {
  // for i < m: where i is odd, a[i] = 1. m <= dim(a): proven before the loop (`proven || compare`);
  // m = dim(a) + 2: the proof fails and the compare reports a[5] after the stores to a[1] and a[3].
  Kernel k = compile("odd", "(memref<?xf32>, index) -> ()", [](FunctionBuilder& b) {
    Value a = b.arg(0);
    b.forLoop(b.index(0), b.arg(1), b.index(1), [&](Value i) {
      b.ifThen(b.cmp(codegen::CmpPredicate::Eq, i % b.index(2), b.index(1)), [&] { b.store(b.f32(1), a, {i}); });
    });
  });
  auto typed = k.fn.as<void(Vec, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  std::vector<float> data(5, 0.0f);
  EXPECT_FALSE(typed->call(runtime::makeView(std::span<float>(data)), 5));
  EXPECT_EQ(data, (std::vector<float>{0, 1, 0, 1, 0}));
  data.assign(5, 0.0f);
  expectCheck(typed->call(runtime::makeView(std::span<float>(data)), 7),
              "kernel 'odd': store of argument #0 (memref<?xf32>) at [5] is out of bounds [5]");
  EXPECT_EQ(data, (std::vector<float>{0, 1, 0, 1, 0}));
}

TEST(CheckedErrors, AffineParallelLoopOverrun) {
  // A 2-d parallel loop: out[i][j] = in[i][j + 1], one column short.
  Kernel k = compile("par2", "(memref<?x?xf32>, memref<?x?xf32>) -> ()", [](FunctionBuilder& b) {
    Value in = b.arg(0), out = b.arg(1), zero = b.index(0), one = b.index(1);
    b.parallelFor({zero, zero}, {b.dim(out, 0), b.dim(out, 1)}, {one, one}, {}, [&](const std::vector<Value>& iv) {
      b.store(b.load(in, {iv[0], iv[1] + one}), out, iv);
    });
  });
  std::vector<float> in(64 * 9, 1.0f), out(64 * 9, 0.0f);
  auto typed = k.fn.as<void(Mat, Mat)>();
  ASSERT_TRUE(typed) << typed.error().str();
  const std::string message = "kernel 'par2': load of argument #0 (memref<?x?xf32>) at [";
  Error e = typed->call(runtime::makeView<float, 2>(in.data(), {64, 9}), runtime::makeView<float, 2>(out.data(), {64, 9}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::RuntimeCheckFailed);
  EXPECT_NE(e.message().find(message), std::string::npos) << e.message();
  EXPECT_NE(e.message().find(", 9] is out of bounds [64, 9]"), std::string::npos) << e.message();
  EXPECT_FALSE(typed->call(runtime::makeView<float, 2>(in.data(), {64, 9}), runtime::makeView<float, 2>(out.data(), {64, 8})));
}

TEST(CheckedErrors, DivisionByZeroInATwoDimensionalParallelLoop) {
  Kernel k = compile("par2", "(memref<?x?xi64>, i64) -> ()", [](FunctionBuilder& b) {
    Value out = b.arg(0), n = b.arg(1);
    b.parallelFor({b.index(0), b.index(0)}, {b.dim(out, 0), b.dim(out, 1)}, {b.index(1), b.index(1)}, {},
                  [&](const std::vector<Value>& iv) { b.store(b.divsi(b.cast(iv[1], ElementType::I64), n), out, iv); });
  });
  std::vector<std::int64_t> data(12);
  auto m = runtime::makeView<std::int64_t, 2>(data.data(), {3, 4});
  auto typed = k.fn.as<void(StridedMemRef<std::int64_t, 2>, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(m, 0), "kernel 'par2': divsi by zero");
  ASSERT_FALSE(typed->call(m, 2));
  EXPECT_EQ(data[7], 1);
}

TEST(CheckedErrors, StoreOutOfBoundsInAParallelReduction) {
  Kernel k = compile("red", "(memref<?xf64>, memref<?xf64>) -> f64", [](FunctionBuilder& b) {
    Value x = b.arg(0), marks = b.arg(1);
    auto sum = b.parallelReduce(b.index(0), b.dim(x, 0), b.index(1), {}, {codegen::Reduction::sum(b.f64(0))},
                                [&](Value i) {
                                  b.store(b.f64(1), marks, {i});
                                  return std::vector<Value>{b.load(x, {i})};
                                });
    b.ret({sum[0]});
  });
  std::vector<double> x(10, 1.0), marks(10);
  auto vx = runtime::makeView(std::span<double>(x));
  auto vm = runtime::makeView(std::span<double>(marks).first(9));
  auto typed = k.fn.as<double(StridedMemRef<double, 1>, StridedMemRef<double, 1>)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(vx, vm).takeError(), "kernel 'red': store of argument #1 (memref<?xf64>) at [9] is out of bounds [9]");
  EXPECT_EQ(marks[9], 0.0);
  vm = runtime::makeView(std::span<double>(marks));
  auto sum = typed->call(vx, vm);
  ASSERT_TRUE(sum) << sum.error().str();
  EXPECT_EQ(*sum, 10.0);
}

TEST(CheckedErrors, FailureInACalleeStopsTheCaller) {
  codegen::Module m("calls");
  codegen::FunctionOptions options;
  options.checked = true;
  {
    FunctionBuilder b(m, "inner", *parseFunctionType("(memref<?xf32>, index) -> f32"), options);
    b.ret({b.load(b.arg(0), {b.arg(1)})});
    ASSERT_FALSE(b.finish());
  }
  {
    FunctionBuilder b(m, "outer", *parseFunctionType("(memref<?xf32>, index) -> f32"), options);
    Value v = b.call("inner", {b.arg(0), b.arg(1)})[0];
    b.store(b.f32(9.0f), b.arg(0), {b.index(0)});  // not reached after a failure
    b.ret({v});
    ASSERT_FALSE(b.finish());
  }
  auto j = jit::Jit::create();
  ASSERT_TRUE(j) << j.error().str();
  auto mod = j->add(std::move(m));
  ASSERT_TRUE(mod) << mod.error().str();
  auto outer = mod->function("outer");
  ASSERT_TRUE(outer) << outer.error().str();
  std::vector<float> data{1, 2, 3};
  auto typed = outer->as<float(Vec, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  expectCheck(typed->call(runtime::makeView(std::span<float>(data)), 3).takeError(),
              "kernel 'inner': load of argument #0 (memref<?xf32>) at [3] is out of bounds [3]");
  EXPECT_EQ(data[0], 1.0f);
}

TEST(CheckedErrors, TheFirstFailureWinsUntilCleared) {
  Kernel k = compile("k", "(i64, i64) -> i64", [](FunctionBuilder& b) { b.ret({b.divsi(b.arg(0), b.arg(1))}); });
  auto raw = k.fn.cInterfaceAs<std::int64_t(std::int64_t, std::int64_t)>();
  memjit_check_clear();
  raw(1, 0);
  raw(kMin64, -1);
  expectRawCheck("kernel 'k': divsi by zero");
  // The invokers clear what a raw call left behind before their own call.
  raw(1, 0);
  auto typed = k.fn.as<std::int64_t(std::int64_t, std::int64_t)>();
  ASSERT_TRUE(typed) << typed.error().str();
  auto fine = typed->call(6, 3);
  ASSERT_TRUE(fine) << fine.error().str();
  EXPECT_EQ(*fine, 2);
  raw(1, 0);
  auto dynamic = k.fn.invoke({runtime::Variant(6), runtime::Variant(3)});
  ASSERT_TRUE(dynamic) << dynamic.error().str();
  EXPECT_EQ(memjit_check_message(), nullptr);
}

// --- the dynamic invoker, checked or not ---

TEST(CheckedErrors, NullDataPointerOfANonEmptyBuffer) {
  codegen::Module m("plain");
  {
    FunctionBuilder b(m, "sum3", *parseFunctionType("(memref<?xf32>, memref<*xf32>) -> ()"));
    b.ret();
    ASSERT_FALSE(b.finish());
  }
  auto j = jit::Jit::create();
  ASSERT_TRUE(j) << j.error().str();
  auto mod = j->add(std::move(m));
  ASSERT_TRUE(mod) << mod.error().str();
  auto fn = mod->function("sum3");
  ASSERT_TRUE(fn) << fn.error().str();
  std::vector<float> data(2);
  Vec good = runtime::makeView(std::span<float>(data)), null{nullptr, nullptr, 0, {5}, {1}}, empty{nullptr, nullptr, 0, {0}, {1}};
  auto r = fn->invoke({runtime::Variant(null), runtime::Variant(good)});
  ASSERT_FALSE(r);
  test::expectError(r.error(), ErrorCode::InvalidArgument, {});
  EXPECT_EQ(r.error().message(), "argument 0 (raw #0): float32[5] has a null data pointer but 5 elements");
  r = fn->invoke({runtime::Variant(good), runtime::Variant(null)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "argument 1 (raw #1): float32[5] has a null data pointer but 5 elements");
  r = fn->invoke({runtime::Variant(empty), runtime::Variant(empty)});
  EXPECT_TRUE(r) << r.error().str();
}

}  // namespace
}  // namespace memjit
