// Argument names given to FunctionBuilder (FunctionOptions::argumentNames)
// travel with the function: into the embedded V1 reflection as `named`
// records, so the dynamic invoker takes keyword arguments, and into the
// parameter names of the AOT header's by-value wrappers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/signature/function_signature.h"
#include "memjit/type_syntax.h"

namespace memjit {
namespace {

// axpy(alpha, x, y) -> f32: y += alpha * x elementwise, returns y[0].
codegen::Module axpyModule(std::vector<std::string> names) {
  codegen::Module module("named");
  codegen::FunctionOptions options;
  options.argumentNames = std::move(names);
  codegen::FunctionBuilder b(module, "axpy", *parseFunctionType("(f32, memref<?xf32>, memref<?xf32>) -> f32"),
                             options);
  codegen::Value alpha = b.arg("alpha"), x = b.arg("x"), y = b.arg("y");
  b.forLoop(b.index(0), b.dim(x, 0), b.index(1),
            [&](codegen::Value i) { b.store(b.load(y, {i}) + alpha * b.load(x, {i}), y, {i}); });
  b.ret({b.load(y, {b.index(0)})});
  EXPECT_FALSE(b.finish());
  return module;
}

TEST(ArgumentNames, BecomeNamedReflectionRecordsAndKeywordArguments) {
  auto jit = cantFail(jit::Jit::create());
  auto module = cantFail(jit.add(axpyModule({"alpha", "x", "y"})));
  auto axpy = cantFail(module.function("axpy"));
  EXPECT_EQ(axpy.signature().reflection,
            R"({"a":[["named","alpha","f32"],["named","x",["ndarray","f32",1,null]],)"
            R"(["named","y",["ndarray","f32",1,null]]],"r":["f32"],"v":1})");
  EXPECT_EQ(signature::argumentNames(axpy.signature()), (std::vector<std::string>{"alpha", "x", "y"}));

  std::vector<float> x{1, 2, 3}, y{10, 20, 30};
  auto xs = runtime::Buffer::fromMemRef(runtime::makeView(x)), ys = runtime::Buffer::fromMemRef(runtime::makeView(y));
  auto r = axpy.invoke({}, {{"y", ys}, {"alpha", 2.0f}, {"x", xs}});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(y, (std::vector<float>{12, 24, 36}));
  // A keyword the function does not name is refused by name.
  auto bad = axpy.invoke({2.0f, xs}, {{"z", ys}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("unexpected keyword argument 'z'"), std::string::npos) << bad.error().str();
}

TEST(ArgumentNames, NameTheParametersOfTheAotWrapper) {
  auto sig = signature::describe("axpy", *parseFunctionType("(f32, memref<?xf32>, memref<?xf32>) -> f32"),
                                 {"alpha", "x", "y"});
  ASSERT_TRUE(sig.ok());
  auto header = jit::generateHeader({*sig}, {.cppNamespace = "k", .moduleName = "named"});
  ASSERT_TRUE(header.ok()) << header.error().str();
  EXPECT_NE(header->find("float _mlir_ciface_axpy(float alpha, memjit::runtime::StridedMemRef<float, 1>* x, "
                         "memjit::runtime::StridedMemRef<float, 1>* y);"),
            std::string::npos)
      << *header;
  EXPECT_NE(header->find("inline float axpy(float alpha, ::memjit::runtime::MemRefArg<float, 1> x, "
                         "::memjit::runtime::MemRefArg<float, 1> y) {"),
            std::string::npos)
      << *header;
}

// Names that are not C++ identifiers, keywords, or that collide with the
// header's own names are made usable; unnamed inputs stay argN.
TEST(ArgumentNames, AreMadeValidAndDistinctCppIdentifiers) {
  auto type = *parseFunctionType("(i32, i32, i32, i32, i32, i32, i32) -> memref<?xf32>");
  auto sig = signature::describe("f", type, {"class", "result", "my-value", "my_value", "2d", "arg0", "std"});
  ASSERT_TRUE(sig.ok()) << sig.error().str();
  auto header = jit::generateHeader({*sig}, {.cppNamespace = "k", .moduleName = "m"});
  ASSERT_TRUE(header.ok()) << header.error().str();
  EXPECT_NE(header->find("void _mlir_ciface_f(memjit::runtime::StridedMemRef<float, 1>* result, "
                         "std::int32_t class_, std::int32_t result_, std::int32_t my_value, std::int32_t arg3, "
                         "std::int32_t m_2d, std::int32_t arg0_, std::int32_t std_);"),
            std::string::npos)
      << *header;
  EXPECT_NE(header->find("inline ::memjit::runtime::OwnedMemRef<float, 1> f(std::int32_t class_,"),
            std::string::npos)
      << *header;
}

}  // namespace
}  // namespace memjit
