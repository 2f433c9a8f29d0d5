// Each module's own symbol namespace: many modules defining one name, lookups
// by module and through the Jit, linking against chosen modules, removal.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/type_syntax.h"
#include "support/call_jit.h"
#include "support/expect_error.h"
#include "support/ir_snippets.h"
#include "support/jit.h"
#include "support/types.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::functionType;
using memjit::test::expectError;
using memjit::test::makeJit;

namespace {

// A codegen module `name` whose `kernel(x)` returns x * 3 + k.
codegen::Module kernelModule(const std::string& name, std::int64_t k) {
  codegen::Module m(name);
  codegen::FunctionBuilder b(m, "kernel", functionType("(i64) -> i64"));
  b.ret({b.arg(0) * b.i64(3) + b.i64(k)});
  EXPECT_FALSE(b.finish());
  return m;
}

using KernelFn = std::int64_t(std::int64_t);

TEST(JitNamespaces, TwoModulesDefineTheSameFunction) {
  Jit jit = makeJit();
  auto a = jit.add(kernelModule("a", 1));
  auto b = jit.add(kernelModule("b", 2));
  ASSERT_TRUE(a.ok()) << a.error().str();
  ASSERT_TRUE(b.ok()) << b.error().str();
  auto ka = a->function("kernel");
  auto kb = b->function("kernel");
  ASSERT_TRUE(ka.ok() && kb.ok());
  EXPECT_EQ(ka->cInterfaceAs<KernelFn>()(10), 31);
  EXPECT_EQ(kb->cInterfaceAs<KernelFn>()(10), 32);
  // The expanded entries (compiled on first use) are per module too.
  auto ea = a->symbol("kernel");
  auto eb = b->symbol("kernel");
  ASSERT_TRUE(ea.ok() && eb.ok());
  EXPECT_NE(*ea, *eb);

  expectError(jit.lookup("kernel").error(), ErrorCode::InvalidArgument,
              {"'kernel' is defined by modules 'a', 'b': use LoadedModule::function"});
  expectError(jit.lookupSymbol("_mlir_ciface_kernel").error(), ErrorCode::InvalidArgument,
              {"symbol '_mlir_ciface_kernel' is defined by modules 'a', 'b': use LoadedModule::symbol"});

  // With one definer left, the Jit-wide lookups find it again.
  ASSERT_FALSE(jit.remove(*a));
  auto only = jit.lookup("kernel");
  ASSERT_TRUE(only.ok()) << only.error().str();
  EXPECT_EQ(only->cInterfaceAs<KernelFn>()(10), 32);
  auto symbol = jit.lookupSymbol("_mlir_ciface_kernel");
  ASSERT_TRUE(symbol.ok());
  EXPECT_EQ(*symbol, kb->cInterface());
  // The removed module's function still runs while its handle lives.
  EXPECT_EQ(ka->cInterfaceAs<KernelFn>()(10), 31);
}

TEST(JitNamespaces, ModulesMayShareAName) {
  Jit jit = makeJit();
  auto first = jit.add(kernelModule("same", 1));
  auto second = jit.add(kernelModule("same", 2));
  ASSERT_TRUE(first.ok() && second.ok()) << (second.ok() ? "" : second.error().str());
  EXPECT_EQ((*first->function("kernel")).cInterfaceAs<KernelFn>()(0), 1);
  EXPECT_EQ((*second->function("kernel")).cInterfaceAs<KernelFn>()(0), 2);
}

TEST(JitNamespaces, TwoHundredModulesEachDefineKernel) {
  Jit jit = makeJit({.optLevel = OptLevel::O1});
  constexpr int kModules = 200;
  std::vector<LoadedModule> modules;
  for (int i = 0; i < kModules; ++i) {
    auto mod = jit.add(kernelModule("m" + std::to_string(i), i));
    ASSERT_TRUE(mod.ok()) << mod.error().str();
    modules.push_back(std::move(*mod));
  }
  EXPECT_EQ(jit.moduleCount(), static_cast<std::size_t>(kModules));
  for (int i = 0; i < kModules; ++i) {
    auto kernel = modules[i].function("kernel");
    ASSERT_TRUE(kernel.ok()) << kernel.error().str();
    EXPECT_EQ(kernel->cInterfaceAs<KernelFn>()(1000), 3000 + i) << "module m" << i;
  }
  expectError(jit.lookup("kernel").error(), ErrorCode::InvalidArgument,
              {"'kernel' is defined by modules 'm0', 'm1', 'm2', 'm3', 'm4' and 195 more"});
  for (auto& mod : modules) ASSERT_FALSE(jit.remove(mod));
  EXPECT_EQ(jit.moduleCount(), 0u);
  EXPECT_EQ(jit.lookup("kernel").error().code(), ErrorCode::NotFound);
}

TEST(JitNamespaces, CodegenExternalFunctionResolvesThroughLinkAgainst) {
  Jit jit = makeJit();
  auto library = jit.add(kernelModule("library", 4));
  ASSERT_TRUE(library.ok());
  // Another `kernel` elsewhere must not be the one linked.
  auto decoy = jit.add(kernelModule("decoy", 1000));
  ASSERT_TRUE(decoy.ok());

  codegen::Module user("user");
  ASSERT_TRUE(codegen::declareExternalFunction(user, "kernel", functionType("(i64) -> i64")).ok());
  {
    codegen::FunctionBuilder b(user, "twice_kernel", functionType("(i64) -> i64"));
    b.ret({b.call("kernel", {b.arg(0)})[0] * b.i64(2)});
    ASSERT_FALSE(b.finish());
  }
  auto mod = jit.add(std::move(user), {.linkAgainst = {*library}});
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  auto twice = mod->function("twice_kernel");
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->cInterfaceAs<KernelFn>()(1), 2 * (3 + 4));

  // The linked module stays loaded for its user after Jit::remove.
  ASSERT_FALSE(jit.remove(*library));
  EXPECT_EQ(twice->cInterfaceAs<KernelFn>()(2), 2 * (6 + 4));
}

TEST(JitNamespaces, LinkOrderDecidesBetweenDefiners) {
  Jit jit = makeJit();
  auto a = jit.addIR(test::constantIR("value", 1), "a");
  auto b = jit.addIR(test::constantIR("value", 2), "b");
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string user =
      "declare i64 @value()\ndefine i64 @get() {\n  %v = call i64 @value()\n  ret i64 %v\n}\n";
  auto ab = jit.addIR(user, "ab", {.linkAgainst = {*a, *b}});
  auto ba = jit.addIR(user, "ba", {.linkAgainst = {*b, *a}});
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_EQ(test::callJit<std::int64_t()>(*ab->symbol("get")), 1);
  EXPECT_EQ(test::callJit<std::int64_t()>(*ba->symbol("get")), 2);
}

TEST(JitNamespaces, ModuleDefinitionShadowsRegisteredSymbol) {
  Jit jit = makeJit();
  static std::int64_t registered = 0;
  ASSERT_FALSE(jit.registerSymbol("value", &registered));
  auto mod = jit.addIR(test::constantIR("value", 9), "m");
  ASSERT_TRUE(mod.ok()) << mod.error().str();
  EXPECT_EQ((*mod->function("value")).cInterfaceAs<std::int64_t()>()(), 9);
  // The Jit-wide lookup prefers the one module defining it.
  EXPECT_EQ(*jit.lookupSymbol("value"), *mod->symbol("value"));
}

}  // namespace
