// jit::Function, the handle to one JIT-compiled function: what it tells
// (name, signature, addresses), each way of calling through it, that it
// keeps its code loaded, and that an empty handle answers empty instead of
// dereferencing nothing.
#include "memjit/jit/function.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/type_syntax.h"
#include "support/jit.h"
#include "support/types.h"

namespace memjit::jit {
namespace {

using memjit::test::functionType;
using memjit::test::makeJit;

// `diff(a, b) = a - b` on f64, compiled in `jit`.
LoadedModule addDiff(Jit& jit) {
  codegen::Module m("diffs");
  {
    codegen::FunctionBuilder b(m, "diff", functionType("(f64, f64) -> f64"));
    b.ret({b.sub(b.arg(0), b.arg(1))});
    EXPECT_FALSE(b.finish());
  }
  auto mod = jit.add(std::move(m));
  EXPECT_TRUE(mod.ok()) << mod.error().message();
  return mod.ok() ? *mod : LoadedModule();
}

TEST(Function, TellsItsNameSignatureAndAddresses) {
  Jit jit = makeJit();
  LoadedModule mod = addDiff(jit);
  auto f = mod.function("diff");
  ASSERT_TRUE(f.ok()) << f.error().message();
  EXPECT_TRUE(f->valid());
  EXPECT_EQ(f->name(), "diff");
  EXPECT_EQ(f->signature().name, "diff");
  EXPECT_EQ(f->signature().type, functionType("(f64, f64) -> f64"));
  EXPECT_EQ(f->cInterface(), *mod.symbol("_mlir_ciface_diff"));
  // The expanded entry is compiled on first use by default; then it is the module's symbol.
  ASSERT_NE(f->expanded(), nullptr);
  EXPECT_EQ(f->expanded(), *mod.symbol("diff"));
  EXPECT_EQ(f->expanded(), f->expanded());
  EXPECT_TRUE(f->runtime().valid());
}

TEST(Function, EachWayOfCallingAgrees) {
  Jit jit = makeJit();
  LoadedModule mod = addDiff(jit);
  auto f = mod.function("diff");
  ASSERT_TRUE(f.ok()) << f.error().message();
  const double inf = std::numeric_limits<double>::infinity();
  const double denormal = std::numeric_limits<double>::denorm_min();
  for (auto [a, b] : {std::pair{5.0, 7.5}, {-0.0, 0.0}, {inf, inf}, {denormal, -denormal}, {1e308, -1e308}}) {
    const double want = a - b;
    auto same = [&](double got) { return std::isnan(want) ? std::isnan(got) : got == want && std::signbit(got) == std::signbit(want); };
    EXPECT_TRUE(same(f->cInterfaceAs<double(double, double)>()(a, b))) << a << " - " << b;
    EXPECT_TRUE(same(f->expandedAs<double(double, double)>()(a, b))) << a << " - " << b;
    auto typed = f->as<double(double, double)>();
    ASSERT_TRUE(typed.ok()) << typed.error().message();
    EXPECT_TRUE(same((*typed)(a, b))) << a << " - " << b;
    auto dynamic = f->invoke({a, b});
    ASSERT_TRUE(dynamic.ok()) << dynamic.error().message();
    EXPECT_TRUE(same(dynamic->toDouble())) << a << " - " << b;
  }
}

TEST(Function, TypedViewMustMatchTheSignature) {
  Jit jit = makeJit();
  LoadedModule mod = addDiff(jit);
  auto f = mod.function("diff");
  ASSERT_TRUE(f.ok()) << f.error().message();
  auto wrong = f->as<float(float, float)>();
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message().find("function 'diff'"), std::string::npos) << wrong.error().str();
  auto arity = f->invoke({1.0});
  ASSERT_FALSE(arity.ok());
}

TEST(Function, KeepAliveOutlivesTheModuleAndTheJit) {
  std::shared_ptr<const void> owner;
  double (*diff)(double, double) = nullptr;
  {
    Jit jit = makeJit();
    LoadedModule mod = addDiff(jit);
    auto f = mod.function("diff");
    ASSERT_TRUE(f.ok()) << f.error().message();
    owner = f->keepAlive();
    diff = f->cInterfaceAs<double(double, double)>();
    ASSERT_FALSE(jit.remove(mod));
  }
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(diff(1.0, 0.25), 0.75);
}

TEST(Function, EmptyHandleAnswersEmpty) {
  const Function empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_EQ(empty.name(), "");
  EXPECT_EQ(empty.signature().name, "");
  EXPECT_EQ(empty.cInterface(), nullptr);
  EXPECT_EQ(empty.expanded(), nullptr);
  EXPECT_EQ(empty.cInterfaceAs<void()>(), nullptr);
  EXPECT_FALSE(empty.runtime().valid());
  EXPECT_EQ(empty.keepAlive(), nullptr);
  auto typed = empty.as<double(double)>();
  ASSERT_FALSE(typed.ok());
  EXPECT_EQ(typed.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(typed.error().message(), "empty function handle");
  auto call = empty.invoke({1.0});
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(call.error().message().find("empty function handle"), std::string::npos) << call.error().str();
}

}  // namespace
}  // namespace memjit::jit
