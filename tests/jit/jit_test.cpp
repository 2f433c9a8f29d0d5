// Tests of memjit::jit::Jit: compile, look up, call, metadata handles,
// process and registered symbols, removal, dumps.
#include "support/call_jit.h"
#include "support/files.h"
#include "memjit/jit/jit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "llvm/Support/CommandLine.h"
#include "support/ir_snippets.h"
#include "support/jit.h"

using namespace memjit;
using namespace memjit::jit;

using memjit::test::makeJit;
using memjit::test::readFile;

namespace {

using Desc1 = runtime::StridedMemRef<float, 1>;
using AddFn = void(Desc1*, Desc1*, Desc1*);

Desc1 view(std::vector<float>& v, std::int64_t stride = 1) {
  return Desc1{v.data(), v.data(), 0, {static_cast<std::int64_t>(v.size()) / stride}, {stride}};
}

}  // namespace

TEST(Jit, CompilesAndCallsThroughTheCInterface) {
  for (OptLevel level : {OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    Jit jit = makeJit({.optLevel = level});
    auto mod = jit.addIR(test::addKernelIR(), "m");
    ASSERT_TRUE(mod.ok()) << mod.error().str();
    auto add = mod->function("add");
    ASSERT_TRUE(add.ok()) << add.error().str();
    std::vector<float> a(37), b(37), c(37, -1.0f);
    for (int i = 0; i < 37; ++i) a[i] = float(i), b[i] = float(100 * i);
    Desc1 da = view(a), db = view(b), dc = view(c);
    add->cInterfaceAs<AddFn>()(&da, &db, &dc);
    for (int i = 0; i < 37; ++i) EXPECT_EQ(c[i], 101.0f * i) << optLevelName(level) << " i=" << i;
  }
}

TEST(Jit, StridedViewsAreHonoured) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::addKernelIR(), "m");
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  auto add = mod->function("add");
  ASSERT_TRUE(add.ok());
  std::vector<float> a(20, 1.0f), b(20, 2.0f), c(20, 0.0f);
  Desc1 da = view(a, 2), db = view(b, 2), dc = view(c, 2);
  add->cInterfaceAs<AddFn>()(&da, &db, &dc);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(c[i], i % 2 == 0 ? 3.0f : 0.0f) << i;
}

TEST(Jit, HandleCarriesTheEmbeddedSignature) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::addKernelIR(), "m");
  ASSERT_TRUE(mod.ok());
  auto add = mod->function("add");
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->name(), "add");
  EXPECT_EQ(toString(add->signature().type), "(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()");
  auto described = signature::describe("add", add->signature().type);
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(add->signature().raw, described->raw);
  EXPECT_EQ(add->signature().reflection, described->reflection);
  EXPECT_FALSE(add->signature().sip.has_value());
  EXPECT_EQ(mod->functionNames(), std::vector<std::string>{"add"});
}

TEST(Jit, LookupsAreCachedAndRawSymbolsResolve) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::addKernelIR(), "m");
  ASSERT_TRUE(mod.ok());
  auto first = mod->function("add");
  auto second = jit.lookup("add");
  ASSERT_TRUE(first.ok() && second.ok());
  // The same record: the second lookup did not resolve anything again.
  EXPECT_EQ(first->keepAlive().get(), second->keepAlive().get());
  auto ciface = jit.lookupSymbol("_mlir_ciface_add");
  auto expanded = mod->symbol("add");
  ASSERT_TRUE(ciface.ok() && expanded.ok());
  EXPECT_EQ(*ciface, first->cInterface());
  EXPECT_EQ(*expanded, first->expanded());
  // The expanded function follows the 3+2N convention.
  std::vector<float> a{1, 2}, b{10, 20}, c{0, 0};
  using Expanded = void(float*, float*, std::int64_t, std::int64_t, std::int64_t, float*, float*,
                        std::int64_t, std::int64_t, std::int64_t, float*, float*, std::int64_t,
                        std::int64_t, std::int64_t);
  first->expandedAs<Expanded>()(a.data(), a.data(), 0, 2, 1, b.data(), b.data(), 0, 2, 1, c.data(),
                                c.data(), 0, 2, 1);
  EXPECT_EQ(c, (std::vector<float>{11, 22}));
}

static float timesThree(float x) { return 3.0f * x; }

TEST(Jit, KernelsCallRegisteredCallbacks) {
  Jit jit = makeJit();
  auto type = parseFunctionType("(f32) -> f32");
  ASSERT_TRUE(type.ok());
  ASSERT_FALSE(jit.registerSymbol("my_callback", reinterpret_cast<void*>(&timesThree), *type));
  auto mod = jit.addIR(test::callerIR("caller", "my_callback"), "m");
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  auto caller = mod->function("caller");
  ASSERT_TRUE(caller.ok());
  EXPECT_EQ(caller->cInterfaceAs<float(float)>()(5.0f), 30.0f);
  auto registered = jit.registeredSymbols();
  ASSERT_EQ(registered.size(), 1u);
  EXPECT_EQ(registered[0].name, "my_callback");
  ASSERT_TRUE(registered[0].type.has_value());
  EXPECT_EQ(toString(*registered[0].type), "(f32) -> f32");
}

TEST(Jit, KernelsCallProcessSymbols) {
  Jit jit = makeJit({.optLevel = OptLevel::O0});
  const char* ir =
      "declare i32 @getpid()\n"
      "define i32 @pid() {\n  %p = call i32 @getpid()\n  ret i32 %p\n}\n";
  auto mod = jit.addIR(ir, "m");
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  auto pid = mod->symbol("pid");
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(test::callJit<int()>(*pid), ::getpid());
  auto malloc = jit.lookupSymbol("malloc");
  ASSERT_TRUE(malloc.ok()) << malloc.error().str();
}

TEST(Jit, ModulesCallModulesTheyLinkAgainst) {
  Jit jit = makeJit();
  auto a = jit.addIR(test::constantIR("seven", 7), "a");
  ASSERT_TRUE(a.ok());
  auto mod = jit.addIR(
      "declare i64 @seven()\ndefine i64 @twice() {\n  %s = call i64 @seven()\n"
      "  %d = mul i64 %s, 2\n  ret i64 %d\n}\n",
      "b", {.linkAgainst = {*a}});
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  EXPECT_EQ(test::callJit<std::int64_t()>(*mod->symbol("twice")), 14);
}

TEST(Jit, FailedFunctionDoesNotPoisonItsModule) {
  Jit jit = makeJit();
  auto plus = [](codegen::Module& m, const std::string& name, std::int64_t k) {
    codegen::FunctionBuilder b(m, name, *parseFunctionType("(i64) -> i64"));
    b.ret({b.arg(0) + b.i64(k)});
    return b.finish();
  };
  codegen::Module module("m");
  ASSERT_FALSE(plus(module, "first", 1));
  {
    codegen::FunctionBuilder b(module, "broken", *parseFunctionType("(memref<?xf32>) -> ()"));
    b.parallelFor(b.index(0), b.dim(b.arg(0), 0), b.index(1), {}, [&](codegen::Value i) {
      b.store(b.f32(2), b.arg(0), {i});
    });
    b.store(b.f64(1), b.arg(0), {b.index(0)});
    ASSERT_TRUE(b.finish());
  }
  { codegen::FunctionBuilder abandoned(module, "abandoned", *parseFunctionType("() -> ()")); }
  ASSERT_FALSE(plus(module, "second", 2));
  auto mod = jit.add(std::move(module));
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  EXPECT_EQ(mod->functionNames(), (std::vector<std::string>{"first", "second"}));
  auto first = mod->function("first");
  auto second = mod->function("second");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->cInterfaceAs<std::int64_t(std::int64_t)>()(10), 11);
  EXPECT_EQ(second->cInterfaceAs<std::int64_t(std::int64_t)>()(10), 12);
  EXPECT_EQ(mod->function("broken").error().code(), ErrorCode::NotFound);
  EXPECT_EQ(mod->symbol("_mlir_ciface_broken").error().code(), ErrorCode::NotFound);
}

TEST(Jit, RemoveUnloadsAndFreesTheName) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::constantIR("k", 1), "m1");
  ASSERT_TRUE(mod.ok());
  EXPECT_EQ(jit.moduleCount(), 1u);
  ASSERT_FALSE(jit.remove(*mod));
  EXPECT_FALSE(mod->valid());
  EXPECT_EQ(jit.moduleCount(), 0u);
  EXPECT_EQ(jit.lookup("k").error().code(), ErrorCode::NotFound);
  EXPECT_FALSE(jit.lookupSymbol("k").ok());
  // The name is free again: a new definition is not a duplicate.
  auto again = jit.addIR(test::constantIR("k", 2), "m2");
  ASSERT_TRUE(again.ok()) << again.error().str();
  auto k = again->function("k");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->cInterfaceAs<std::int64_t()>()(), 2);
}

TEST(Jit, FunctionKeepsItsCodeAliveAfterRemoveAndJitDestruction) {
  Function keep;
  {
    Jit jit = makeJit();
    auto mod = jit.addIR(test::constantIR("k", 42), "m");
    ASSERT_TRUE(mod.ok());
    auto k = mod->function("k");
    ASSERT_TRUE(k.ok());
    keep = *k;
    ASSERT_FALSE(jit.remove(*mod));
  }
  EXPECT_EQ(keep.cInterfaceAs<std::int64_t()>()(), 42);
}

TEST(Jit, OneTargetMachineServesManyModules) {
  Jit jit = makeJit();
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(jit.addIR(test::constantIR("k" + std::to_string(i), i), "m" + std::to_string(i)).ok());
  EXPECT_EQ(jit.target(), TargetSpec::host());
  EXPECT_FALSE(TargetSpec::host().cpu.empty());
  EXPECT_NE(TargetSpec::host().features.find('+'), std::string::npos);
}

TEST(Jit, DumpsIRBeforeAndAfterOptimisationAndTheObject) {
  auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "dumps";
  std::filesystem::remove_all(dir);
  Jit jit = makeJit({.optLevel = OptLevel::O3, .dumpDirectory = dir.string()});
  ASSERT_TRUE(jit.addIR(test::addKernelIR(), "dumped").ok());
  std::string before, after, object;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find("before.ll") != std::string::npos) before = readFile(entry.path());
    if (name.find("after.ll") != std::string::npos) after = readFile(entry.path());
    if (name.size() > 2 && name.substr(name.size() - 2) == ".o") object = readFile(entry.path());
  }
  EXPECT_NE(before.find("define void @add"), std::string::npos);
  EXPECT_EQ(before.find("x float>"), std::string::npos);
  // The host TTI made the loop vectoriser use vector registers.
  EXPECT_NE(after.find("x float>"), std::string::npos) << after;
  ASSERT_GE(object.size(), 4u);
  EXPECT_EQ(object.substr(0, 4), "\x7f" "ELF");
}

// O2 vectorises with the host's widths but leaves the remainder to the scalar
// loop (no second, narrower vector loop: see compile.cpp), and every
// remainder length still adds up.
TEST(Jit, O2VectorisesWithoutAVectorEpilogue) {
  auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "dumps_o2";
  std::filesystem::remove_all(dir);
  Jit jit = makeJit({.optLevel = OptLevel::O2, .dumpDirectory = dir.string()});
  codegen::Module module("epilogue");
  ASSERT_FALSE(codegen::addElementwiseAdd(module, "vadd"));
  auto mod = jit.add(std::move(module));
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  std::string after;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().find("after.ll") != std::string::npos) after = readFile(entry.path());
  EXPECT_NE(after.find("x float>"), std::string::npos) << after;
  EXPECT_EQ(after.find("vec.epilog"), std::string::npos) << after;
  auto add = mod->function("vadd");
  ASSERT_TRUE(add.ok()) << add.error().str();
  for (int n = 0; n <= 200; ++n) {
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(1000 * i);
    Desc1 da = view(a), db = view(b), dc = view(c);
    add->cInterfaceAs<AddFn>()(&da, &db, &dc);
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 1001.0f * i) << "n=" << n << " i=" << i;
  }
}

// With skipVectorEpilogue off, memjit leaves LLVM's process-wide options as
// they were, and LLVM's default (a vector epilogue) applies. ctest runs each
// test in its own process; run alone, an earlier test may have set the option.
// The loop adds bytes: LLVM considers an epilogue only for a main loop of at
// least 16 lanes (-epilogue-vectorization-minimum-VF), which an f32 loop does
// not reach on hosts that prefer 256-bit vectors (Sapphire Rapids: 8 lanes),
// while an i8 loop has 32 lanes on every AVX2 host.
TEST(Jit, KeepsLLVMsGlobalOptionsWhenAskedTo) {
  auto& options = llvm::cl::getRegisteredOptions();
  auto it = options.find("enable-epilogue-vectorization");
  ASSERT_NE(it, options.end());
  if (it->second->getNumOccurrences() > 0)
    GTEST_SKIP() << "an earlier test in this process set the option; ctest runs this test alone";
  auto dir = test::freshDir("jit/dumps_o2_epilogue");
  Jit jit = makeJit({.optLevel = OptLevel::O2, .skipVectorEpilogue = false, .dumpDirectory = dir.string()});
  codegen::Module module("keep_epilogue");
  auto type = parseFunctionType("(memref<?xi8>, memref<?xi8>, memref<?xi8>) -> ()");
  ASSERT_TRUE(type.ok()) << type.error().str();
  codegen::FunctionBuilder b(module, "vadd_i8", *type);
  codegen::Value x = b.arg(0), y = b.arg(1), out = b.arg(2);
  b.forLoop(b.index(0), b.dim(out, 0), b.index(1), [&](codegen::Value i) { b.store(b.load(x, {i}) + b.load(y, {i}), out, {i}); });
  b.ret();
  ASSERT_FALSE(b.finish());
  auto mod = jit.add(std::move(module));
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  EXPECT_EQ(it->second->getNumOccurrences(), 0);
  std::string after;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().find("after.ll") != std::string::npos) after = readFile(entry.path());
  EXPECT_NE(after.find("vec.epilog"), std::string::npos) << "LLVM's default vector epilogue is missing";
}

TEST(Jit, PerfMapListsFunctions) {
  Jit jit = makeJit({.perfMap = true});
  ASSERT_TRUE(jit.addIR(test::constantIR("perf_mapped_fn", 1), "m").ok());
  std::string map = readFile("/tmp/perf-" + std::to_string(::getpid()) + ".map");
  EXPECT_NE(map.find(" perf_mapped_fn\n"), std::string::npos);
  EXPECT_NE(map.find(" _mlir_ciface_perf_mapped_fn\n"), std::string::npos);
  std::filesystem::remove("/tmp/perf-" + std::to_string(::getpid()) + ".map");
}

// GDB's JIT interface (defined in libLLVM): a linked list of registered objects.
extern "C" {
struct MemjitTestJitCodeEntry {
  MemjitTestJitCodeEntry* next;
  MemjitTestJitCodeEntry* prev;
  const char* symfile;
  std::uint64_t size;
};
struct MemjitTestJitDescriptor {
  std::uint32_t version;
  std::uint32_t action;
  MemjitTestJitCodeEntry* relevant;
  MemjitTestJitCodeEntry* first;
};
extern MemjitTestJitDescriptor __jit_debug_descriptor;
}

static int registeredWithGdb() {
  int n = 0;
  for (auto* e = __jit_debug_descriptor.first; e; e = e->next) ++n;
  return n;
}

TEST(Jit, GdbRegistrationAndJitdumpCanBeEnabled) {
  const int before = registeredWithGdb();
  auto home = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "jitdump";
  std::filesystem::remove_all(home);
  std::filesystem::create_directories(home);
  ::setenv("JITDUMPDIR", home.c_str(), 1);
  Jit jit = makeJit({.gdbRegistration = true, .perfJitdump = true});
  auto mod = jit.addIR(test::constantIR("debugged", 5), "m");
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  EXPECT_EQ(mod->function("debugged")->cInterfaceAs<std::int64_t()>()(), 5);
  EXPECT_GT(registeredWithGdb(), before) << "the object was not registered with GDB";
  bool dumped = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(home))
    if (entry.path().filename().string().find(".dump") != std::string::npos) dumped = true;
  EXPECT_TRUE(dumped) << "no jitdump file under " << home;
}

// ---- with codegen modules and the runtime's invokers ------------------

TEST(Jit, CodegenModulesRunThroughTypedAndDynamicInvokers) {
  codegen::Module module("kernels");
  ASSERT_FALSE(codegen::addElementwiseAdd(module, "vadd"));
  ASSERT_FALSE(codegen::addMatmul(module, "mm"));
  ASSERT_FALSE(codegen::addSum(module, "total"));
  Jit jit = makeJit({.optLevel = OptLevel::O3});
  auto mod = jit.add(std::move(module));
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  EXPECT_EQ(mod->functionNames(), (std::vector<std::string>{"mm", "total", "vadd"}));

  auto vadd = jit.lookup("vadd");
  ASSERT_TRUE(vadd.ok()) << vadd.error().str();
  auto typed = vadd->as<void(Desc1, Desc1, Desc1)>();
  ASSERT_TRUE(typed.ok()) << typed.error().str();
  std::vector<float> a(100), b(100), c(100);
  for (int i = 0; i < 100; ++i) a[i] = float(i), b[i] = 0.5f;
  (*typed)(view(a), view(b), view(c));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(c[i], float(i) + 0.5f);

  // A mismatching C++ type is refused when the invoker is made.
  EXPECT_FALSE(vadd->as<void(Desc1, Desc1)>().ok());

  auto total = mod->function("total");
  ASSERT_TRUE(total.ok());
  auto sum = total->invoke({runtime::Variant(view(a))});
  ASSERT_TRUE(sum.ok()) << sum.error().str();
  auto sumTyped = total->as<float(Desc1)>();
  ASSERT_TRUE(sumTyped.ok());
  EXPECT_EQ((*sumTyped)(view(a)), 4950.0f);

  using Desc2 = runtime::StridedMemRef<float, 2>;
  std::vector<float> A{1, 2, 3, 4, 5, 6}, B{7, 8, 9, 10, 11, 12}, C(4);
  Desc2 dA{A.data(), A.data(), 0, {2, 3}, {3, 1}}, dB{B.data(), B.data(), 0, {3, 2}, {2, 1}},
      dC{C.data(), C.data(), 0, {2, 2}, {2, 1}};
  auto mm = mod->function("mm");
  ASSERT_TRUE(mm.ok());
  mm->cInterfaceAs<void(Desc2*, Desc2*, Desc2*)>()(&dA, &dB, &dC);
  EXPECT_EQ(C, (std::vector<float>{58, 64, 139, 154}));
}

TEST(Jit, TypedInvokerKeepsCodeLoaded) {
  codegen::Module module("kernels");
  ASSERT_FALSE(codegen::addSum(module, "total"));
  std::optional<jit::TypedFunction<float(Desc1)>> keep;
  {
    Jit jit = makeJit();
    auto mod = jit.add(std::move(module));
    ASSERT_TRUE(mod.ok());
    auto typed = mod->function("total")->as<float(Desc1)>();
    ASSERT_TRUE(typed.ok());
    keep.emplace(std::move(*typed));
    ASSERT_FALSE(jit.remove(*mod));
  }
  std::vector<float> v{1, 2, 3};
  EXPECT_EQ((*keep)(view(v)), 6.0f);
}

namespace {

codegen::Module sumModule(const std::string& name) {
  codegen::Module module(name);
  EXPECT_FALSE(codegen::addSum(module, "total"));
  return module;
}

// Calls `missing_callee`, which nothing defines: compiles, then fails to link.
codegen::Module unlinkableModule(const std::string& name) {
  codegen::Module module(name);
  EXPECT_TRUE(codegen::declareExternalFunction(module, "missing_callee", parseFunctionType("(i64) -> i64").value()).ok());
  codegen::FunctionBuilder b(module, "calls_missing", parseFunctionType("(i64) -> i64").value());
  b.ret({b.call("missing_callee", {b.arg(0)})[0]});
  EXPECT_FALSE(b.finish());
  return module;
}

float callTotal(const LoadedModule& mod, std::vector<float> values) {
  Desc1 v = view(values);
  return test::valueOrFail(mod.function("total"), "total").cInterfaceAs<float(Desc1*)>()(&v);
}

}  // namespace

TEST(Jit, AddAllAddsEachModuleInOrder) {
  Jit jit = makeJit();
  std::vector<codegen::Module> batch;
  for (const char* name : {"first", "second", "third"}) batch.push_back(sumModule(name));
  auto added = jit.addAll(std::move(batch));
  ASSERT_TRUE(added.ok()) << added.error().str();
  ASSERT_EQ(added->size(), 3u);
  EXPECT_EQ((*added)[0].name(), "first");
  EXPECT_EQ((*added)[2].name(), "third");
  EXPECT_EQ(jit.moduleCount(), 3u);
  for (const LoadedModule& mod : *added) {
    EXPECT_FALSE(mod.fromCache());  // no cache
    EXPECT_EQ(callTotal(mod, {1.5f, -0.0f, 2.25f, -0.75f}), 3.0f);
  }
  // Each in its own namespace, as add() makes them.
  EXPECT_FALSE(jit.lookup("total").ok());
}

TEST(Jit, AddAllIsAllOrNothingAndNamesTheModuleThatFailed) {
  Jit jit = makeJit();
  LoadedModule before = test::valueOrFail(jit.add(sumModule("before")), "add");
  std::vector<codegen::Module> batch;
  batch.push_back(sumModule("fine"));
  batch.push_back(unlinkableModule("broken"));
  batch.push_back(sumModule("never_reached"));
  auto added = jit.addAll(std::move(batch));
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().code(), ErrorCode::NotFound) << added.error().str();
  EXPECT_NE(added.error().str().find("Jit::addAll: module 'broken' (2 of 3)"), std::string::npos)
      << added.error().str();
  EXPECT_NE(added.error().str().find("missing_callee"), std::string::npos) << added.error().str();
  // 'fine' was added, then removed again; what was loaded before stays.
  EXPECT_EQ(jit.moduleCount(), 1u);
  EXPECT_EQ(callTotal(before, {2, 3}), 5.0f);
}

TEST(Jit, AddAllOfNothingAndOnAMovedFromJit) {
  Jit jit = makeJit();
  auto none = jit.addAll({});
  ASSERT_TRUE(none.ok()) << none.error().str();
  EXPECT_TRUE(none->empty());
  Jit moved = std::move(jit);
  std::vector<codegen::Module> batch;
  batch.push_back(sumModule("m"));
  auto added = jit.addAll(std::move(batch));  // NOLINT(bugprone-use-after-move): the moved-from contract
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(added.error().message().find("Jit::addAll called on a moved-from Jit"), std::string::npos)
      << added.error().message();
}
