// Type and function lowering rules, checked on LLVM types directly (the
// conformance suite compares the same against the real MLIR tools).
#include "memjit/codegen/lowering.h"

#include <gtest/gtest.h>

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/type_syntax.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

template <typename T>
std::string str(T* t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return os.str();
}

TEST(Lowering, Descriptors) {
  llvm::LLVMContext ctx;
  EXPECT_EQ(str(descriptorType(ctx, MemRefType(ElementType::F32, {kDynamic, 4}), {})),
            "{ ptr, ptr, i64, [2 x i64], [2 x i64] }");
  EXPECT_EQ(str(descriptorType(ctx, MemRefType(ElementType::F32, {}), {})), "{ ptr, ptr, i64 }");
  EXPECT_EQ(str(descriptorType(ctx, MemRefType(ElementType::I8, {3}, std::nullopt, 3), {})),
            "{ ptr addrspace(3), ptr addrspace(3), i64, [1 x i64], [1 x i64] }");
  EXPECT_EQ(str(descriptorType(ctx, MemRefType(ElementType::F32, {2}), {32, false})),
            "{ ptr, ptr, i32, [1 x i32], [1 x i32] }");
  EXPECT_EQ(str(unrankedDescriptorType(ctx, {})), "{ i64, ptr }");
  EXPECT_EQ(rankedDescriptorBytes(2, {}), 16u + 5 * 8);
  EXPECT_EQ(rankedDescriptorBytes(2, {32, false}), 16u + 5 * 4);
}

TEST(Lowering, ElementTypes) {
  llvm::LLVMContext ctx;
  EXPECT_EQ(str(lowerElementType(ctx, ElementType::SI16, {})), "i16");
  EXPECT_EQ(str(lowerElementType(ctx, ElementType::UI64, {})), "i64");
  EXPECT_EQ(str(lowerElementType(ctx, ElementType::BF16, {})), "bfloat");
  EXPECT_EQ(str(lowerElementType(ctx, ElementType::F16, {})), "half");
  EXPECT_EQ(str(lowerElementType(ctx, ElementType::Index, {32, false})), "i32");
  EXPECT_EQ(str(lowerElementType(ctx, ElementType::ComplexF64, {})), "{ double, double }");
  EXPECT_EQ(str(lowerElementType(ctx, ElementType::Ptr, {})), "ptr");
}

TEST(Lowering, FunctionsExpandMemrefsAndPackResults) {
  llvm::LLVMContext ctx;
  auto f = lowerFunctionType(ctx, functionType("(memref<?xf32>, memref<4x?xf32>, index) -> f32"), {});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(str(*f), "float (ptr, ptr, i64, i64, i64, ptr, ptr, i64, i64, i64, i64, i64, i64)");
  auto c = cInterfaceFunctionType(ctx, functionType("(memref<?xf32>, memref<4x?xf32>, index) -> f32"), {});
  EXPECT_EQ(str(*c), "float (ptr, ptr, i64)");
  auto multi = lowerFunctionType(ctx, functionType("(memref<*xf32>, i32) -> (memref<?xf32>, i32, f64)"), {});
  EXPECT_EQ(str(*multi), "{ { ptr, ptr, i64, [1 x i64], [1 x i64] }, i32, double } (i64, ptr, i32)");
  auto cm = cInterfaceFunctionType(ctx, functionType("(memref<*xf32>, i32) -> (memref<?xf32>, i32, f64)"), {});
  EXPECT_EQ(str(*cm), "void (ptr, ptr, i32)");
  EXPECT_TRUE(cInterfaceReturnsByPointer(ctx, functionType("(i32) -> (i32, i32)"), {}));
  EXPECT_FALSE(cInterfaceReturnsByPointer(ctx, functionType("(i32) -> i32"), {}));
  auto none = lowerFunctionType(ctx, functionType("() -> ()"), {});
  EXPECT_EQ(str(*none), "void ()");
}

TEST(Lowering, BarePointers) {
  llvm::LLVMContext ctx;
  LoweringOptions bare{64, true};
  auto f = lowerFunctionType(ctx, functionType("(memref<4xf32>, memref<2x3xi8, 1>, index) -> memref<4xf32>"), bare);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(str(*f), "ptr (ptr, ptr addrspace(1), i64)");
  auto dyn = lowerFunctionType(ctx, functionType("(memref<?xf32>) -> ()"), bare);
  ASSERT_FALSE(dyn.ok());
  EXPECT_EQ(dyn.error().code(), ErrorCode::Unsupported);
  EXPECT_NE(dyn.error().message().find("memref<?xf32>"), std::string::npos);
  EXPECT_NE(dyn.error().message().find("argument #0"), std::string::npos);
  EXPECT_FALSE(lowerFunctionType(ctx, functionType("(memref<*xf32>) -> ()"), bare).ok());
  EXPECT_FALSE(lowerFunctionType(ctx, functionType("() -> memref<2xf32, strided<[?]>>"), bare).ok());
}

TEST(Lowering, RejectsOtherIndexBitwidths) {
  llvm::LLVMContext ctx;
  auto f = lowerFunctionType(ctx, functionType("() -> ()"), {16, false});
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message().find("16"), std::string::npos);
}

}  // namespace
}  // namespace memjit::codegen
