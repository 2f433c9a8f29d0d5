// The vector math library through memjit's pipeline: loops calling math
// functions vectorise to libmvec (glibc's vector math, as g++ -ffast-math
// uses), the JIT resolves its symbols, results stay within libmvec's
// documented 4 ulp of the scalar libm, JitOptions::vectorMath = false keeps
// every call scalar and exact, and AOT headers state the link dependency.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/remarks.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/call_jit.h"
#include "support/files.h"
#include "jit/vector_math.h"

using namespace memjit;
using namespace memjit::jit;

namespace {

#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
constexpr bool kHasLibmvec = true;
#else
constexpr bool kHasLibmvec = false;
#endif

using UnaryFn = std::function<codegen::Value(codegen::FunctionBuilder&, codegen::Value)>;

// out[i] = fn(in[i]) over memref<?xT>.
codegen::Module mapModule(const std::string& type, const UnaryFn& fn) {
  codegen::Module m("map");
  codegen::FunctionOptions options;
  options.noalias = true;
  codegen::FunctionBuilder b(m, "map", *parseFunctionType("(memref<?x" + type + ">, memref<?x" + type + ">) -> ()"),
                             options);
  codegen::Value in = b.arg(0), out = b.arg(1);
  b.forLoop(b.index(0), b.dim(in, 0), b.index(1), [&](codegen::Value i) { b.store(fn(b, b.load(in, {i})), out, {i}); });
  b.ret();
  EXPECT_FALSE(b.finish());
  return m;
}

std::string afterIR(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().find("after.ll") != std::string::npos) return test::readFile(entry.path());
  return {};
}

template <typename T>
std::int64_t ulpDistance(T a, T b) {
  using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  if (a == b) return 0;
  I ia, ib;
  std::memcpy(&ia, &a, sizeof(T));
  std::memcpy(&ib, &b, sizeof(T));
  if ((ia < 0) != (ib < 0)) return INT64_MAX;
  return std::abs(static_cast<std::int64_t>(ia) - static_cast<std::int64_t>(ib));
}

template <typename T>
struct Case {
  const char* name;
  UnaryFn build;
  T (*reference)(T);
  T lo, hi;  // the sampled domain
};

// Runs the case over 4099 samples of its domain plus edge values; returns
// the largest ulp distance from the scalar libm and the optimised IR.
template <typename T>
std::pair<std::int64_t, std::string> run(const Case<T>& c, const std::string& type, bool vectorMath) {
  JitOptions options;
  options.optLevel = OptLevel::O3;
  options.vectorMath = vectorMath;
  auto dir = test::freshDir(std::string("jit/vector_math_") + c.name + type + (vectorMath ? "_on" : "_off"));
  options.dumpDirectory = dir.string();
  auto jit = Jit::create(options);
  EXPECT_TRUE(jit.ok()) << jit.error().str();
  if (!jit.ok()) return {INT64_MAX, ""};
  auto module = jit->add(mapModule(type, c.build));
  EXPECT_TRUE(module.ok()) << module.error().str();
  if (!module.ok()) return {INT64_MAX, ""};
  auto fn = module->function("map");
  EXPECT_TRUE(fn.ok());
  std::vector<T> in;
  for (int i = 0; i < 4099; ++i) in.push_back(c.lo + (c.hi - c.lo) * static_cast<T>(i) / 4098);
  using L = std::numeric_limits<T>;
  for (T edge : {T(0), T(-0.0), L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(), L::min(), T(1)})
    in.push_back(edge);
  std::vector<T> out(in.size());
  runtime::StridedMemRef<T, 1> a{in.data(), in.data(), 0, {static_cast<std::int64_t>(in.size())}, {1}};
  runtime::StridedMemRef<T, 1> r{out.data(), out.data(), 0, {static_cast<std::int64_t>(out.size())}, {1}};
  fn->template cInterfaceAs<void(decltype(a)*, decltype(r)*)>()(&a, &r);
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t d = ulpDistance(out[i], c.reference(in[i]));
    EXPECT_LE(d, 4) << c.name << "(" << in[i] << ") on " << type << ": " << out[i] << " vs libm "
                    << c.reference(in[i]);
    worst = std::max(worst, d);
  }
  return {worst, afterIR(dir)};
}

template <typename T>
std::vector<Case<T>> cases() {
  using B = codegen::FunctionBuilder;
  using V = codegen::Value;
  return {
      {"exp", [](B& b, V x) { return b.exp(x); }, [](T x) { return std::exp(x); }, T(-90), T(90)},
      {"log", [](B& b, V x) { return b.log(x); }, [](T x) { return std::log(x); }, T(1e-6), T(1e6)},
      {"sin", [](B& b, V x) { return b.sin(x); }, [](T x) { return std::sin(x); }, T(-100), T(100)},
      {"tanh", [](B& b, V x) { return b.tanh(x); }, [](T x) { return std::tanh(x); }, T(-10), T(10)},
      {"erf", [](B& b, V x) { return b.erf(x); }, [](T x) { return std::erf(x); }, T(-5), T(5)},
      {"expm1", [](B& b, V x) { return b.expm1(x); }, [](T x) { return std::expm1(x); }, T(-2), T(2)},
      {"pow", [](B& b, V x) { return b.pow(x, b.constantLike(x, 1.5)); }, [](T x) { return std::pow(x, T(1.5)); },
       T(0), T(1000)},
  };
}

template <typename T>
void checkVectorMath(const std::string& type) {
  for (const Case<T>& c : cases<T>()) {
    auto [worstOn, irOn] = run(c, type, true);
    if (kHasLibmvec) {
      EXPECT_NE(irOn.find("_ZGV"), std::string::npos) << c.name << " " << type << " calls no libmvec:\n" << irOn;
    }
    auto [worstOff, irOff] = run(c, type, false);
    EXPECT_EQ(irOff.find("_ZGV"), std::string::npos) << c.name << " " << type;
    EXPECT_EQ(worstOff, 0) << c.name << " " << type << ": scalar calls must equal libm";
    std::printf("[ vector math ] %s %s: libmvec within %lld ulp of libm\n", c.name, type.c_str(),
                static_cast<long long>(worstOn));
  }
}

TEST(VectorMath, F32LoopsCallLibmvecWithinFourUlp) { checkVectorMath<float>("f32"); }
TEST(VectorMath, F64LoopsCallLibmvecWithinFourUlp) { checkVectorMath<double>("f64"); }

TEST(VectorMath, EverySymbolInMemjitsTableIsExportedByLibmvec) {
  if (!kHasLibmvec) GTEST_SKIP() << "no libmvec on this platform";
  void* library = dlopen(detail::kVectorMathLibrary, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  const auto symbols = detail::vectorMathSymbols();
  EXPECT_GE(symbols.size(), 150u);
  for (const std::string& s : symbols) EXPECT_NE(dlsym(library, s.c_str()), nullptr) << s;
  dlclose(library);
}

// libmvec's handle also reaches libc through its dependencies: the JIT must
// take only vector functions from it, so `malloc` stays the process's (under
// AddressSanitizer, its interceptor; a mismatch shows as a bad free).
TEST(VectorMath, OnlyVectorFunctionsResolveFromLibmvec) {
  if (!kHasLibmvec) GTEST_SKIP() << "no libmvec on this platform";
  auto jit = Jit::create();
  ASSERT_TRUE(jit.ok()) << jit.error().str();
  auto vectorExp = jit->lookupSymbol("_ZGVbN4v_expf");
  ASSERT_TRUE(vectorExp.ok()) << vectorExp.error().str();
  auto jitMalloc = jit->lookupSymbol("malloc");
  ASSERT_TRUE(jitMalloc.ok()) << jitMalloc.error().str();
  EXPECT_EQ(*jitMalloc, dlsym(RTLD_DEFAULT, "malloc"));
}

// libmvec is loaded by the first lookup of one of its symbols, not by
// Jit::create: a Jit whose modules call no vector math never maps it.
// (ctest runs each test in a process of its own; run alone, an earlier test
// here may have loaded it already.)
TEST(VectorMath, LibmvecIsLoadedOnlyWhenAModuleCallsIt) {
  if (!kHasLibmvec) GTEST_SKIP() << "no libmvec on this platform";
  auto loaded = [] {
    void* handle = dlopen(detail::kVectorMathLibrary, RTLD_NOW | RTLD_NOLOAD);
    if (handle) dlclose(handle);
    return handle != nullptr;
  };
  if (loaded()) GTEST_SKIP() << "libmvec was loaded before this test (run it alone, as ctest does)";
  auto jit = Jit::create();
  ASSERT_TRUE(jit.ok()) << jit.error().str();
  codegen::Module plain("plain");
  ASSERT_FALSE(codegen::addElementwiseAdd(plain, "add", {}));
  auto added = jit->add(std::move(plain));
  ASSERT_TRUE(added.ok()) << added.error().str();
  ASSERT_TRUE(added->function("add").ok());
  EXPECT_FALSE(loaded()) << "a module without vector math loaded libmvec";
  auto vectorExp = jit->lookupSymbol("_ZGVbN4v_expf");
  ASSERT_TRUE(vectorExp.ok()) << vectorExp.error().str();
  EXPECT_TRUE(loaded());
}

TEST(VectorMath, AotHeaderNamesTheLinkDependencyOnlyWhenTheObjectCallsLibmvec) {
  auto dir = test::freshDir("jit/vector_math_aot");
  for (bool vectorMath : {true, false}) {
    codegen::Module m = mapModule("f32", [](codegen::FunctionBuilder& b, codegen::Value x) { return b.exp(x); });
    AotOptions options;
    options.optLevel = OptLevel::O3;
    options.vectorMath = vectorMath;
    AotOutputs out;
    out.object = (dir / (vectorMath ? "on.o" : "off.o")).string();
    out.header = (dir / (vectorMath ? "on.h" : "off.h")).string();
    ASSERT_FALSE(compileAhead(m, out, options));
    const std::string header = test::readFile(out.header);
    EXPECT_EQ(header.find("-lmvec") != std::string::npos, vectorMath && kHasLibmvec) << header;
  }
}

}  // namespace

// The exact softmax (no reassoc) keeps its in-order sum, yet its exps are a
// loop of their own that calls the vector exp; the rows it writes agree with
// the all-scalar build (vectorMath off) within libmvec's 4 ulp, sums included.
TEST(VectorMath, ExactSoftmaxCallsTheVectorExp) {
  auto compile = [](bool vectorMath) {
    codegen::Module m("softmax");
    EXPECT_FALSE(codegen::addSoftmax(m, "softmax"));
    auto jit = std::make_unique<Jit>(std::move(*Jit::create(
        {.optLevel = OptLevel::O3, .vectorMath = vectorMath, .compileExpandedOnFirstUse = false})));
    auto mod = jit->add(std::move(m), {.remarks = true});
    EXPECT_TRUE(mod.ok()) << mod.error().message();
    return std::make_pair(std::move(jit), std::move(*mod));
  };
  auto [vectorJit, vector] = compile(true);
  auto [scalarJit, scalar] = compile(false);
  auto assembly = vector.assembly("softmax");
  ASSERT_TRUE(assembly.ok()) << assembly.error().message();
  EXPECT_NE(assembly->find("# _ZGV"), std::string::npos) << "no call into libmvec:\n" << *assembly;
  bool sumStaysInOrder = false;
  for (const LoopVectorization& loop : loopVectorization(vector.remarks()))
    sumStaysInOrder |= !loop.vectorized && loop.reason.find("floating-point") != std::string::npos;
  EXPECT_TRUE(sumStaysInOrder);

  const std::int64_t rows = 3, cols = 37;
  std::vector<float> in(rows * cols), fast(rows * cols), exact(rows * cols);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37f * static_cast<float>(i)) * 20.0f;
  in[5] = -std::numeric_limits<float>::infinity();  // exp(-inf) = 0 in both
  in[cols + 3] = -87.0f;                             // an exp near the denormals
  using Mat = runtime::StridedMemRef<float, 2>;
  Mat x{in.data(), in.data(), 0, {rows, cols}, {cols, 1}};
  Mat y{fast.data(), fast.data(), 0, {rows, cols}, {cols, 1}}, z{exact.data(), exact.data(), 0, {rows, cols}, {cols, 1}};
  test::callJit<void(Mat*, Mat*)>(*vector.symbol("_mlir_ciface_softmax"), &x, &y);
  test::callJit<void(Mat*, Mat*)>(*scalar.symbol("_mlir_ciface_softmax"), &x, &z);
  for (std::size_t i = 0; i < in.size(); ++i)
    EXPECT_NEAR(fast[i], exact[i], 8 * std::numeric_limits<float>::epsilon() * std::fabs(exact[i])) << i;
  EXPECT_EQ(fast[5], 0.0f);
}

namespace {

// A loop carrying a 16-lane accumulator across a libmvec call (libmvec
// clobbers every vector register, so the accumulator is spilled), and calls
// that need no wide spill slot.
constexpr const char* kWideCallsIR = R"(
declare <16 x float> @_ZGVeN16v_expf(<16 x float>)
declare <4 x float> @_ZGVbN4v_expf(<4 x float>)
declare float @expf(float)
declare <16 x float> @llvm.exp.v16f32(<16 x float>)

define float @wide(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %acc = phi <16 x float> [zeroinitializer, %entry], [%acc1, %loop]
  %a = getelementptr float, ptr %p, i64 %i
  %x = load <16 x float>, ptr %a, align 4
  %e = call fast <16 x float> @_ZGVeN16v_expf(<16 x float> %x)
  %acc1 = fadd fast <16 x float> %acc, %e
  %i1 = add i64 %i, 16
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = call fast float @llvm.vector.reduce.fadd.v16f32(float 0.0, <16 x float> %acc1)
  ret float %r
}

define <8 x float> @indirect(ptr %f, <8 x float> %x) {
  %r = call <8 x float> %f(<8 x float> %x)
  ret <8 x float> %r
}

define <4 x float> @narrow(<4 x float> %x) {
  %r = call <4 x float> @_ZGVbN4v_expf(<4 x float> %x)
  ret <4 x float> %r
}

define float @scalar(float %x) {
  %r = call float @expf(float %x)
  ret float %r
}

define <16 x float> @intrinsic(<16 x float> %x) {
  %r = call <16 x float> @llvm.exp.v16f32(<16 x float> %x)
  ret <16 x float> %r
}
declare float @llvm.vector.reduce.fadd.v16f32(float, <16 x float>)
)";

}  // namespace

// Functions calling with vectors of 32 bytes or more keep the frame pointer,
// so LLVM can realign their frame and spill vectors 64-byte aligned: an
// unaligned 64-byte spill reloaded after each libmvec call made fast softmax
// 1.55x slower on AMD Zen 4 when it straddled a cache line.
TEST(VectorMath, FunctionsCallingWithWideVectorsKeepTheFramePointer) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseIR(llvm::MemoryBufferRef(kWideCallsIR, "wide"), diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  EXPECT_TRUE(detail::keepFramePointerAroundVectorCalls(*module));
  auto keeps = [&](const char* name) {
    return module->getFunction(name)->getFnAttribute("frame-pointer").getValueAsString() == "all";
  };
  EXPECT_TRUE(keeps("wide"));
  EXPECT_TRUE(keeps("indirect"));
  EXPECT_FALSE(keeps("narrow"));
  EXPECT_FALSE(keeps("scalar"));
  EXPECT_FALSE(keeps("intrinsic"));
  EXPECT_FALSE(detail::keepFramePointerAroundVectorCalls(*module));  // once

  // Through the Jit at O2: the accumulator's spill is an aligned one in a realigned frame.
  auto jit = Jit::create({.optLevel = OptLevel::O2});
  ASSERT_TRUE(jit.ok()) << jit.error().message();
  auto mod = jit->addIR(kWideCallsIR, "wide_calls");
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  auto assembly = mod->assembly("wide");
  ASSERT_TRUE(assembly.ok()) << assembly.error().message();
  if (assembly->find("zmm") == std::string::npos) GTEST_SKIP() << "no 512-bit registers on this CPU";
  EXPECT_NE(assembly->find("$-64, %rsp"), std::string::npos) << "no 64-byte realignment:\n" << *assembly;
  bool alignedSpill = false, unalignedSpill = false;
  std::istringstream lines(*assembly);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("%zmm") == std::string::npos || line.find("(%rsp)") == std::string::npos) continue;
    alignedSpill |= line.find("vmovaps") != std::string::npos;
    unalignedSpill |= line.find("vmovups") != std::string::npos;
  }
  EXPECT_TRUE(alignedSpill) << *assembly;
  EXPECT_FALSE(unalignedSpill) << *assembly;
}
