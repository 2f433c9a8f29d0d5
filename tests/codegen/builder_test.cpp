// The kernel builder: each operation compiled and run, the IR properties the
// optimiser relies on (noalias, align, nsw, nontemporal), and vectorisation.
#include "memjit/codegen/builder.h"

#include <gtest/gtest.h>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <cmath>
#include <cstdlib>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/metadata.h"
#include "memjit/type_syntax.h"
#include "memjit/runtime/memref.h"
#include "support/llvm_jit.h"
#include "support/types.h"

// memjit's descriptors have MLIR's layout (tests/runtime/memref_test.cpp checks
// that against CRunnerUtils.h), so this test needs no MLIR installed.
template <typename T, int N>
using StridedMemRefType = memjit::runtime::StridedMemRef<T, N>;

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

std::string irText(const llvm::Function* f) {
  std::string s;
  llvm::raw_string_ostream os(s);
  f->print(os);
  return os.str();
}

using D1f = StridedMemRefType<float, 1>;
using D1d = StridedMemRefType<double, 1>;

TEST(Builder, ScalarArithmeticMathAndCasts) {
  Module m("b");
  {
    FunctionBuilder b(m, "math", functionType("(f64, f64) -> (f64, f64, f64, f64, f64, f64, f64, f64)"));
    Value x = b.arg(0), y = b.arg(1);
    b.ret({b.sqrt(x), b.exp(y), b.log(x), b.tanh(y), b.fma(x, y, x), b.min(x, y), b.max(x, y), b.abs(b.neg(x))});
    ASSERT_FALSE(b.finish());
  }
  {
    FunctionBuilder b(m, "ints", functionType("(i32, i32, ui32) -> (i32, i32, i32, ui32, i64, f32, i32)"));
    Value a = b.arg(0), c = b.arg(1), u = b.arg(2);
    Value big = b.select(b.cmp(CmpPredicate::Gt, a, c), a, c);
    b.ret({b.div(a, c), b.rem(a, c), b.abs(b.sub(c, a)), b.div(u, b.cast(b.i32(2), ElementType::UI32)),
           b.cast(b.mul(a, c), ElementType::I64), b.cast(a, ElementType::F32), b.max(big, b.min(a, c))});
    ASSERT_FALSE(b.finish());
  }
  {
    FunctionBuilder b(m, "fcast", functionType("(f32) -> (i32, f64, f16, ui8)"));
    Value x = b.arg(0);
    b.ret({b.cast(x, ElementType::I32), b.cast(x, ElementType::F64), b.cast(x, ElementType::F16),
           b.cast(x, ElementType::UI8)});
    ASSERT_FALSE(b.finish());
  }
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));

  struct Math { double r[8]; };
  auto math = jit.function<void(Math*, double, double)>("_mlir_ciface_math");
  ASSERT_TRUE(math.ok());
  Math r{};
  (*math)(&r, 2.25, -0.5);
  EXPECT_DOUBLE_EQ(r.r[0], 1.5);
  EXPECT_DOUBLE_EQ(r.r[1], std::exp(-0.5));
  EXPECT_DOUBLE_EQ(r.r[2], std::log(2.25));
  EXPECT_DOUBLE_EQ(r.r[3], std::tanh(-0.5));
  EXPECT_DOUBLE_EQ(r.r[4], std::fma(2.25, -0.5, 2.25));
  EXPECT_DOUBLE_EQ(r.r[5], -0.5);
  EXPECT_DOUBLE_EQ(r.r[6], 2.25);
  EXPECT_DOUBLE_EQ(r.r[7], 2.25);

  struct Ints { int32_t d, m, a; uint32_t u; int64_t w; float f; int32_t mx; };
  auto ints = jit.function<void(Ints*, int32_t, int32_t, uint32_t)>("_mlir_ciface_ints");
  ASSERT_TRUE(ints.ok());
  Ints i{};
  (*ints)(&i, -7, 2, 4000000000u);
  EXPECT_EQ(i.d, -3);
  EXPECT_EQ(i.m, -1);
  EXPECT_EQ(i.a, 9);
  EXPECT_EQ(i.u, 2000000000u);  // unsigned division
  EXPECT_EQ(i.w, -14);
  EXPECT_EQ(i.f, -7.0f);
  EXPECT_EQ(i.mx, 2);

  struct FC { int32_t i; double d; uint16_t h; uint8_t u; };
  auto fc = jit.function<void(FC*, float)>("_mlir_ciface_fcast");
  ASSERT_TRUE(fc.ok());
  FC f{};
  (*fc)(&f, 200.75f);
  EXPECT_EQ(f.i, 200);
  EXPECT_EQ(f.d, 200.75);
  EXPECT_EQ(f.h, 0x5A46);  // 200.75 as IEEE half
  EXPECT_EQ(f.u, 200);
}

TEST(Builder, LoopsWithStepNestingCarriedValuesAndBranches) {
  Module m("b");
  {
    // sum over i in [0, n) step 3 of (i odd ? i : -i), and a nested count.
    FunctionBuilder b(m, "loops", functionType("(index) -> (index, index)"));
    Value n = b.arg(0);
    auto r = b.forLoop(b.index(0), n, b.index(3), {b.index(0), b.index(0)}, [&](Value i, const std::vector<Value>& s) {
      Value odd = b.cmp(CmpPredicate::Eq, b.rem(i, b.index(2)), b.index(1));
      auto v = b.ifElse(odd, [&] { return std::vector<Value>{i}; }, [&] { return std::vector<Value>{b.neg(i)}; });
      auto inner = b.forLoop(b.index(0), i, b.index(1), {s[1]},
                             [&](Value, const std::vector<Value>& c) { return std::vector<Value>{c[0] + b.index(1)}; });
      return std::vector<Value>{s[0] + v[0], inner[0]};
    });
    b.ret({r[0], r[1]});
    ASSERT_FALSE(b.finish());
  }
  {
    // Clamps negatives to zero in place with ifThen.
    FunctionBuilder b(m, "relu", functionType("(memref<?xf32>) -> ()"));
    Value x = b.arg(0);
    b.forLoop(b.index(0), b.dim(x, 0), b.index(1), [&](Value i) {
      b.ifThen(b.cmp(CmpPredicate::Lt, b.load(x, {i}), b.f32(0)), [&] { b.store(b.f32(0), x, {i}); });
    });
    ASSERT_FALSE(b.finish());
  }
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  struct R { int64_t sum, count; };
  auto loops = jit.function<void(R*, int64_t)>("_mlir_ciface_loops");
  ASSERT_TRUE(loops.ok());
  R r{};
  (*loops)(&r, 20);
  int64_t sum = 0, count = 0;
  for (int64_t i = 0; i < 20; i += 3) {
    sum += i % 2 == 1 ? i : -i;
    count += i;
  }
  EXPECT_EQ(r.sum, sum);
  EXPECT_EQ(r.count, count);

  auto relu = jit.function<void(D1f*)>("_mlir_ciface_relu");
  ASSERT_TRUE(relu.ok());
  float d[5] = {-1, 2, -3, 4, -0.5f};
  D1f v{d, d, 0, {5}, {1}};
  (*relu)(&v);
  EXPECT_EQ(d[0], 0);
  EXPECT_EQ(d[1], 2);
  EXPECT_EQ(d[2], 0);
  EXPECT_EQ(d[3], 4);
  EXPECT_EQ(d[4], 0);
}

TEST(Builder, StaticStridesFoldToConstantsAndDynamicOnesComeFromTheDescriptor) {
  Module m("b");
  {
    FunctionBuilder b(m, "st", functionType("(memref<4x8xf32>, index, index) -> f32"));
    b.ret({b.load(b.arg(0), {b.arg(1), b.arg(2)})});
    ASSERT_FALSE(b.finish());
  }
  {
    FunctionBuilder b(m, "dyn", functionType("(memref<?x?xf32, strided<[?, ?], offset: ?>>, index, index) -> f32"));
    b.ret({b.load(b.arg(0), {b.arg(1), b.arg(2)})});
    ASSERT_FALSE(b.finish());
  }
  std::string st = irText(m.llvm().getFunction("st"));
  EXPECT_NE(st.find("mul nsw i64 8,"), std::string::npos) << st;  // stride 8 folded, unit stride omitted
  // Nothing is read from the descriptor but the aligned pointer.
  EXPECT_NE(st.find("extractvalue"), std::string::npos) << st;
  EXPECT_EQ(st.find("extractvalue", st.find("extractvalue") + 1), std::string::npos) << st;
  std::string dyn = irText(m.llvm().getFunction("dyn"));
  EXPECT_NE(dyn.find(", 4, 1"), std::string::npos) << dyn;  // dynamic inner stride read
  EXPECT_NE(dyn.find(", 2\n"), std::string::npos) << dyn;   // dynamic offset read

  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = static_cast<float>(i);
  StridedMemRefType<float, 2> a{d, d, 0, {4, 8}, {8, 1}};
  auto stf = jit.function<float(StridedMemRefType<float, 2>*, int64_t, int64_t)>("_mlir_ciface_st");
  ASSERT_TRUE(stf.ok());
  EXPECT_EQ((*stf)(&a, 2, 3), 19.0f);
  StridedMemRefType<float, 2> s{d, d, 3, {3, 3}, {10, 2}};
  auto dynf = jit.function<float(StridedMemRefType<float, 2>*, int64_t, int64_t)>("_mlir_ciface_dyn");
  ASSERT_TRUE(dynf.ok());
  EXPECT_EQ((*dynf)(&s, 2, 1), d[3 + 20 + 2]);
}

TEST(Builder, SubviewAllocDeallocAndCallsBetweenMemjitFunctions) {
  Module m("b");
  {
    FunctionBuilder b(m, "fill", functionType("(memref<?x?xf64, strided<[?, 1], offset: ?>>, f64) -> ()"));
    Value v = b.arg(0);
    b.forLoop(b.index(0), b.dim(v, 0), b.index(1), [&](Value i) {
      b.forLoop(b.index(0), b.dim(v, 1), b.index(1), [&](Value j) { b.store(b.arg(1), v, {i, j}); });
    });
    ASSERT_FALSE(b.finish());
  }
  {
    // Allocates 4x5, fills a 2x3 window at (1, 1) through a call, sums it all, frees.
    FunctionBuilder b(m, "window_sum", functionType("(index) -> f64"));
    MemRefType t(ElementType::F64, {4, kDynamic});
    Value buf = b.alloc(t, {b.arg(0)}, 32);
    b.call("fill", {b.reinterpretCast(buf, MemRefType(ElementType::F64, {kDynamic, kDynamic},
                                                      StridedLayout{kDynamic, {kDynamic, 1}}),
                                      b.index(0), {b.index(4), b.arg(0)}, {b.arg(0), b.index(1)}),
                    b.f64(0.0)});
    Value w = b.subview(buf, {1, 1}, {2, 3}, {1, 1});
    ASSERT_FALSE(b.error()) << b.error().str();
    EXPECT_EQ(toString(w.type()), "memref<2x3xf64, strided<[?, 1], offset: ?>>");
    Value wd = b.reinterpretCast(w, MemRefType(ElementType::F64, {kDynamic, kDynamic},
                                               StridedLayout{kDynamic, {kDynamic, 1}}),
                                 b.add(b.arg(0), b.index(1)), {b.index(2), b.index(3)}, {b.arg(0), b.index(1)});
    b.call("fill", {wd, b.f64(1.5)});
    auto total = b.forLoop(b.index(0), b.index(4), b.index(1), {b.f64(0)}, [&](Value i, const std::vector<Value>& s) {
      return b.forLoop(b.index(0), b.dim(buf, 1), b.index(1), {s[0]},
                       [&](Value j, const std::vector<Value>& t2) { return std::vector<Value>{t2[0] + b.load(buf, {i, j})}; });
    });
    b.dealloc(buf);
    b.ret({total[0]});
    ASSERT_FALSE(b.finish());
  }
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto ws = jit.function<double(int64_t)>("_mlir_ciface_window_sum");
  ASSERT_TRUE(ws.ok());
  EXPECT_EQ((*ws)(5), 6 * 1.5);
}

TEST(Builder, MemjitCallerCopiesUnrankedResultsAndFreesThem) {
  Module m("b");
  {
    FunctionBuilder b(m, "two", functionType("(memref<?xf32>) -> (memref<*xf32>, memref<*xf32>)"));
    Value u = b.castToUnranked(b.arg(0));
    b.ret({u, u});
    ASSERT_FALSE(b.finish());
  }
  {
    FunctionBuilder b(m, "use_two", functionType("(memref<?xf32>, index) -> index"));
    auto total = b.forLoop(b.index(0), b.arg(1), b.index(1), {b.index(0)}, [&](Value, const std::vector<Value>& s) {
      auto r = b.call("two", {b.arg(0)});
      Value first = b.load(b.castToRanked(r[0], MemRefType(ElementType::F32, {kDynamic})), {b.index(0)});
      return std::vector<Value>{s[0] + b.dim(r[0], 0) + b.dim(r[1], 0) + b.cast(first, ElementType::Index)};
    });
    b.ret({total[0]});
    ASSERT_FALSE(b.finish());
  }
  std::string ir = irText(m.llvm().getFunction("use_two"));
  EXPECT_NE(ir.find("@free"), std::string::npos);
  EXPECT_NE(ir.find("llvm.stacksave"), std::string::npos);
  EXPECT_NE(ir.find("llvm.stackrestore"), std::string::npos);
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto f = jit.function<int64_t(D1f*, int64_t)>("_mlir_ciface_use_two");
  ASSERT_TRUE(f.ok());
  float d[3] = {7, 0, 0};
  D1f v{d, d, 0, {3}, {1}};
  EXPECT_EQ((*f)(&v, 100000), 100000 * (3 + 3 + 7));  // LeakSanitizer checks the frees
}

TEST(Builder, NoaliasAlignNswAndNontemporalReachTheIR) {
  Module m("b");
  KernelOptions o;
  o.alignment = 32;
  o.nontemporal = true;
  ASSERT_FALSE(addElementwiseAdd(m, "add", o));
  const llvm::Function* f = m.llvm().getFunction("add");
  // Aligned pointers are args 1, 6, 11 of the 3 x (3 + 2) expansion.
  for (unsigned a : {1u, 6u, 11u}) {
    EXPECT_TRUE(f->getArg(a)->hasNoAliasAttr()) << a;
    ASSERT_TRUE(f->getArg(a)->getParamAlign()) << a;
    EXPECT_EQ(f->getArg(a)->getParamAlign()->value(), 32u);
  }
  EXPECT_FALSE(f->getArg(0)->hasNoAliasAttr());  // the allocated pointer aliases the aligned one
  std::string ir = irText(f);
  // Streaming stores carry memjit's tag; the JIT's pipeline makes them
  // `!nontemporal` after vectorisation (tests/jit/streaming_stores_test.cpp).
  EXPECT_NE(ir.find("!mmra"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("!nontemporal"), std::string::npos) << ir;
  std::string moduleText;
  llvm::raw_string_ostream mos(moduleText);
  m.llvm().print(mos, nullptr);
  EXPECT_NE(mos.str().find("!{!\"memjit\", !\"nontemporal\"}"), std::string::npos) << moduleText;
  EXPECT_NE(ir.find("add nsw i64 %iv"), std::string::npos) << ir;
  const llvm::Function* ci = m.llvm().getFunction("_mlir_ciface_add");
  EXPECT_TRUE(ci->getArg(0)->hasNoAliasAttr());  // MLIR puts them on the interface's descriptor pointers
}

TEST(Builder, ElementwiseAddVectorisesAtO3WithoutRuntimeAliasChecks) {
  Module m("vec");
  ASSERT_FALSE(addElementwiseAdd(m, "add", {ElementType::F32, /*noalias=*/true}));
  ASSERT_FALSE(test::optimizeForHost(m));
  std::string ir = irText(m.llvm().getFunction("add"));
  EXPECT_NE(ir.find("fadd <"), std::string::npos) << "no vector fadd in the loop:\n" << ir;
  EXPECT_EQ(ir.find("vector.memcheck"), std::string::npos) << "runtime alias check emitted:\n" << ir;

  // Without noalias LLVM has to guard the vector loop with a runtime check.
  Module aliasing("vec2");
  ASSERT_FALSE(addElementwiseAdd(aliasing, "add", {ElementType::F32, /*noalias=*/false}));
  ASSERT_FALSE(test::optimizeForHost(aliasing));
  std::string ir2 = irText(aliasing.llvm().getFunction("add"));
  EXPECT_NE(ir2.find("vector.memcheck"), std::string::npos) << ir2;
}

TEST(Builder, BarePointerFunctionsUseStaticDescriptors) {
  Module m("b");
  FunctionOptions o;
  o.lowering.barePtr = true;
  {
    FunctionBuilder b(m, "bare", functionType("(memref<2x3xf32>, index, index) -> f32"), o);
    b.ret({b.load(b.arg(0), {b.arg(1), b.arg(2)}) + b.cast(b.dim(b.arg(0), 1), ElementType::F32)});
    ASSERT_FALSE(b.finish());
  }
  EXPECT_EQ(m.llvm().getFunction("_mlir_ciface_bare"), nullptr);
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto f = jit.function<float(float*, int64_t, int64_t)>("bare");
  ASSERT_TRUE(f.ok());
  float d[6] = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ((*f)(d, 1, 2), 5.0f + 3.0f);
}

TEST(Builder, EscapeHatchExposesIRBuilderAndFunction) {
  Module m("b");
  FunctionBuilder b(m, "popcount", functionType("(i32) -> i32"));
  ASSERT_NE(b.function(), nullptr);
  llvm::Value* pc = b.ir().CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, b.arg(0).llvm());
  b.ret({b.wrap(pc, ElementType::I32)});
  ASSERT_FALSE(b.finish());
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto f = jit.function<int32_t(int32_t)>("_mlir_ciface_popcount");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)(0xF0F1), 9);
}

// Every global of the module whose name mentions `text`.
std::vector<std::string> globalsNaming(const Module& m, std::string_view text) {
  std::vector<std::string> out;
  for (const llvm::GlobalValue& g : m.llvm().global_values())
    if (g.getName().contains(llvm::StringRef(text.data(), text.size()))) out.push_back(g.getName().str());
  return out;
}

// (i64) -> i64 returning x + k.
void addPlus(Module& m, const std::string& name, std::int64_t k) {
  FunctionBuilder b(m, name, functionType("(i64) -> i64"));
  b.ret({b.arg(0) + b.i64(k)});
  ASSERT_FALSE(b.finish());
}

TEST(Builder, FailedFunctionLeavesNothingOfItselfInTheModule) {
  Module m("b");
  addPlus(m, "first", 1);
  {
    // Emits what a function can bring along: an outlined parallel body, a
    // C function declaration, malloc, then fails.
    FunctionBuilder b(m, "broken", functionType("(memref<?xf32>, i32) -> ()"));
    Value v = b.arg(0);
    b.parallelFor(b.index(0), b.dim(v, 0), b.index(1), {}, [&](Value i) { b.store(b.f32(1), v, {i}); });
    b.callC("memjit_test_only_broken_calls", ElementType::I32, {b.arg(1)});
    b.alloc(MemRefType(ElementType::F32, {8}));
    ASSERT_FALSE(b.error());
    EXPECT_FALSE(globalsNaming(m, "broken").empty());
    b.store(b.i32(1), v, {b.index(0)});  // the mistake
    Error e = b.finish();
    EXPECT_EQ(e.code(), ErrorCode::TypeMismatch) << e.str();
    EXPECT_EQ(b.function(), nullptr);
  }
  addPlus(m, "second", 2);

  EXPECT_EQ(globalsNaming(m, "broken"), std::vector<std::string>{});
  EXPECT_EQ(m.llvm().getFunction("memjit_parallel_for"), nullptr);
  EXPECT_EQ(m.llvm().getFunction("malloc"), nullptr);
  EXPECT_EQ(lookupFunction(m, "broken").error().code(), ErrorCode::NotFound);
  ASSERT_EQ(m.signatures().size(), 2u);
  EXPECT_EQ(m.signatures()[0].name, "first");
  EXPECT_EQ(m.signatures()[1].name, "second");
  EXPECT_EQ(*readMetadataString(m, manifestSymbol("b")), manifestJson("b", {"first", "second"}));
  ASSERT_FALSE(m.verify());

  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto first = jit.function<std::int64_t(std::int64_t)>("_mlir_ciface_first");
  auto second = jit.function<std::int64_t(std::int64_t)>("_mlir_ciface_second");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ((*first)(10), 11);
  EXPECT_EQ((*second)(10), 12);
}

TEST(Builder, FailedFunctionKeepsWhatOtherFunctionsUse) {
  Module m("b");
  {
    FunctionBuilder b(m, "good", functionType("(i32) -> i32"));
    b.ret({b.callC("abs", ElementType::I32, {b.arg(0)})});
    ASSERT_FALSE(b.finish());
  }
  {
    FunctionBuilder b(m, "bad", functionType("(i32) -> i32"));
    b.callC("abs", ElementType::I32, {b.arg(0)});
    ASSERT_TRUE(b.finish());  // no ret of its result
  }
  EXPECT_NE(m.llvm().getFunction("abs"), nullptr);
  EXPECT_EQ(globalsNaming(m, "bad"), std::vector<std::string>{});
  ASSERT_FALSE(m.verify());
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto good = jit.function<std::int32_t(std::int32_t)>("_mlir_ciface_good");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ((*good)(-3), 3);
}

TEST(Builder, BuilderDestroyedUnfinishedRemovesItsFunction) {
  Module m("b");
  addPlus(m, "first", 1);
  {
    FunctionBuilder b(m, "abandoned", functionType("(i64) -> ()"));
    b.parallelFor(b.index(0), b.index(4), b.index(1), {}, [&](Value) {});
    ASSERT_FALSE(b.error());
  }
  EXPECT_EQ(globalsNaming(m, "abandoned"), std::vector<std::string>{});
  EXPECT_EQ(m.signatures().size(), 1u);
  ASSERT_FALSE(m.verify());
}

TEST(Builder, FailedNameCanBeDefinedAgain) {
  Module m("b");
  {
    FunctionBuilder b(m, "retry", functionType("(i64) -> i64"));
    b.ret({b.f32(1)});
    ASSERT_TRUE(b.finish());
  }
  { FunctionBuilder abandoned(m, "retry", functionType("() -> ()")); }
  addPlus(m, "retry", 5);
  ASSERT_FALSE(m.verify());
  EXPECT_EQ(*readMetadataString(m, manifestSymbol("b")), manifestJson("b", {"retry"}));
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto retry = jit.function<std::int64_t(std::int64_t)>("_mlir_ciface_retry");
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ((*retry)(1), 6);
}

}  // namespace
}  // namespace memjit::codegen
