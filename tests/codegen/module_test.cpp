// codegen::Module, an LLVM module with its own context plus the signatures
// of the functions it defines: what it holds, verify's report, and that a
// released module refuses further work instead of touching freed state.
#include "memjit/codegen/module.h"

#include <gtest/gtest.h>

#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/function_lowering.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

TEST(Module, NewModuleIsEmptyAndValid) {
  Module m("fresh");
  EXPECT_EQ(m.name(), "fresh");
  EXPECT_EQ(m.llvm().getModuleIdentifier(), "fresh");
  EXPECT_EQ(&m.llvm().getContext(), &m.context());
  EXPECT_TRUE(m.llvm().empty());
  EXPECT_TRUE(m.signatures().empty());
  EXPECT_FALSE(m.verify());
  // Each module has a context of its own, so modules can be built on different threads.
  Module other("fresh");
  EXPECT_NE(&other.context(), &m.context());
}

TEST(Module, SignaturesOfDefinedFunctionsInOrder) {
  Module m("sigs");
  ASSERT_TRUE(defineFunction(m, "b", functionType("(f32) -> f32")).ok());
  ASSERT_TRUE(declareExternalFunction(m, "ext", functionType("() -> ()")).ok());  // not this module's
  ASSERT_TRUE(defineFunction(m, "a", functionType("(memref<?xi8>) -> ()")).ok());
  ASSERT_EQ(m.signatures().size(), 2u);
  EXPECT_EQ(m.signatures()[0].name, "b");
  EXPECT_EQ(m.signatures()[0].type, functionType("(f32) -> f32"));
  EXPECT_EQ(m.signatures()[1].name, "a");
}

TEST(Module, VerifyReportsWhatLlvmRejects) {
  Module m("broken");
  // A function with an empty block: no terminator.
  auto f = defineFunction(m, "f", functionType("() -> ()"));
  ASSERT_TRUE(f.ok()) << f.error().message();
  llvm::BasicBlock::Create(m.context(), "entry", f->function);
  Error e = m.verify();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::CompileError);
  EXPECT_EQ(e.message().rfind("LLVM rejected module 'broken': ", 0), 0u) << e.str();
  EXPECT_NE(e.message().find("terminator"), std::string::npos) << e.str();
}

TEST(Module, ReleaseHandsOverAndLeavesAModuleThatRefuses) {
  Module m("handed");
  ASSERT_TRUE(defineFunction(m, "f", functionType("(i32) -> i32")).ok());
  ASSERT_FALSE(emitZeroBody(m, "f"));
  llvm::LLVMContext* context = &m.context();
  auto [ownedContext, ownedModule] = std::move(m).release();
  ASSERT_NE(ownedModule, nullptr);
  EXPECT_EQ(ownedContext.get(), context);
  EXPECT_EQ(&ownedModule->getContext(), context);
  EXPECT_NE(ownedModule->getFunction("f"), nullptr);
  EXPECT_NE(ownedModule->getFunction("_mlir_ciface_f"), nullptr);

  // NOLINTBEGIN(bugprone-use-after-move): a released module's diagnostics are under test
  EXPECT_EQ(m.name(), "handed");
  Error verify = m.verify();
  ASSERT_TRUE(verify);
  EXPECT_EQ(verify.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(verify.message(), "the codegen module was released (moved out)");
  auto define = defineFunction(m, "g", functionType("() -> ()"));
  ASSERT_FALSE(define.ok());
  EXPECT_EQ(define.error().message(), "the codegen module was released (moved out)");
  auto lookup = lookupFunction(m, "f");
  ASSERT_FALSE(lookup.ok());
  EXPECT_EQ(lookup.error().code(), ErrorCode::InvalidArgument);
  // NOLINTEND(bugprone-use-after-move)
  ownedModule.reset();  // before its context
}

TEST(Module, MoveKeepsTheFunctions) {
  Module a("moved");
  ASSERT_TRUE(defineFunction(a, "f", functionType("() -> i64")).ok());
  Module b(std::move(a));
  EXPECT_EQ(b.name(), "moved");
  ASSERT_EQ(b.signatures().size(), 1u);
  EXPECT_TRUE(lookupFunction(b, "f").ok());
  Module c("target");
  ASSERT_TRUE(defineFunction(c, "old", functionType("() -> ()")).ok());
  c = std::move(b);
  EXPECT_EQ(c.name(), "moved");
  EXPECT_TRUE(lookupFunction(c, "f").ok());
  EXPECT_FALSE(lookupFunction(c, "old").ok());
  EXPECT_FALSE(c.verify()) << "f has no body yet, but a declaration verifies";
}

}  // namespace
}  // namespace memjit::codegen
