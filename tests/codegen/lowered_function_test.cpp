// The record a codegen Module keeps of each declared function: what
// lookupFunction gives back is what the declaration asked for and made,
// unchanged by later declarations in the same module.
#include "memjit/codegen/lowered_function.h"

#include <gtest/gtest.h>

#include <llvm/IR/Function.h>

#include "memjit/codegen/function_lowering.h"
#include "memjit/codegen/module.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

TEST(LoweredFunction, ModuleKeepsTheOptionsADefinitionWasGiven) {
  Module m("kept");
  FunctionOptions options;
  options.lowering.indexBitwidth = 32;
  options.fastMath = FastMath::AllowContract;
  options.checked = true;
  options.debugInfo = true;
  options.argumentNames = {"x", "n"};
  options.arguments = {{.noalias = true, .alignment = 64}, {}};
  auto defined = defineFunction(m, "scale", functionType("(memref<?xf32>, index) -> ()"), options);
  ASSERT_TRUE(defined.ok()) << defined.error().message();
  // A later declaration must not disturb the first one's record.
  ASSERT_TRUE(defineFunction(m, "other", functionType("() -> i8")).ok());

  auto found = lookupFunction(m, "scale");
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_EQ(found->name, "scale");
  EXPECT_EQ(found->type, functionType("(memref<?xf32>, index) -> ()"));
  EXPECT_EQ(found->options.lowering.indexBitwidth, 32u);
  EXPECT_EQ(found->options.fastMath, FastMath::AllowContract);
  EXPECT_TRUE(found->options.checked);
  EXPECT_TRUE(found->options.debugInfo);
  EXPECT_EQ(found->options.argumentNames, (std::vector<std::string>{"x", "n"}));
  ASSERT_EQ(found->options.arguments.size(), 2u);
  EXPECT_TRUE(found->options.arguments[0].noalias);
  EXPECT_EQ(found->options.arguments[0].alignment, 64u);
  EXPECT_FALSE(found->options.arguments[1].noalias);
  EXPECT_FALSE(found->external);
  EXPECT_EQ(found->function, defined->function);
  EXPECT_EQ(found->cInterface, defined->cInterface);
  ASSERT_NE(found->cInterface, nullptr);
  EXPECT_EQ(found->cInterface->getName(), "_mlir_ciface_scale");
  EXPECT_EQ(found->function->getName(), "scale");
}

TEST(LoweredFunction, ExternalAndInterfaceLessDeclarations) {
  Module m("decls");
  ASSERT_TRUE(declareExternalFunction(m, "ext", functionType("(f64) -> f64")).ok());
  FunctionOptions bare;
  bare.emitCInterface = false;
  ASSERT_TRUE(defineFunction(m, "plain", functionType("(i32) -> i32"), bare).ok());

  auto ext = lookupFunction(m, "ext");
  ASSERT_TRUE(ext.ok()) << ext.error().message();
  EXPECT_TRUE(ext->external);
  ASSERT_NE(ext->cInterface, nullptr);
  EXPECT_TRUE(ext->cInterface->isDeclaration());  // defined elsewhere, as MLIR declares it

  auto plain = lookupFunction(m, "plain");
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_FALSE(plain->external);
  EXPECT_EQ(plain->cInterface, nullptr);
  EXPECT_FALSE(plain->options.emitCInterface);
  EXPECT_NE(plain->function, nullptr);
}

TEST(LoweredFunction, DefaultsAreExactUncheckedAndWithACInterface) {
  const FunctionOptions options;
  EXPECT_TRUE(options.emitCInterface);
  EXPECT_EQ(options.fastMath, FastMath::None);
  EXPECT_FALSE(options.checked);
  EXPECT_FALSE(options.debugInfo);
  EXPECT_FALSE(options.noalias);
  EXPECT_EQ(options.lowering, LoweringOptions{});
  const LoweredFunction none;
  EXPECT_EQ(none.function, nullptr);
  EXPECT_EQ(none.cInterface, nullptr);
  EXPECT_FALSE(none.external);
}

}  // namespace
}  // namespace memjit::codegen
