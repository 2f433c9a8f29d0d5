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

// The values one argument becomes in the expanded convention, joined as
// text: "ptr, ptr, i64, i64, i64" for memref<?xf32>.
std::string expanded(llvm::LLVMContext& ctx, const char* type, const LoweringOptions& options = {}) {
  auto parts = expandedArgumentTypes(ctx, memjit::test::type(type), options);
  if (!parts) return "error: " + parts.error().message();
  std::string text;
  for (llvm::Type* part : *parts) text += (text.empty() ? "" : ", ") + str(part);
  return text;
}

TEST(Lowering, ExpandedArgumentTypes) {
  llvm::LLVMContext ctx;
  EXPECT_EQ(expanded(ctx, "f32"), "float");
  EXPECT_EQ(expanded(ctx, "index"), "i64");
  EXPECT_EQ(expanded(ctx, "index", {32, false}), "i32");
  EXPECT_EQ(expanded(ctx, "ui8"), "i8");  // signedness is not an LLVM type's
  // Ranked: allocated and aligned pointers, offset, then rank sizes and rank strides.
  EXPECT_EQ(expanded(ctx, "memref<f64>"), "ptr, ptr, i64");
  EXPECT_EQ(expanded(ctx, "memref<?xf32>"), "ptr, ptr, i64, i64, i64");
  EXPECT_EQ(expanded(ctx, "memref<2x?x4xi8>"), "ptr, ptr, i64, i64, i64, i64, i64, i64, i64");
  EXPECT_EQ(expanded(ctx, "memref<0x3xf32, strided<[3, 1], offset: ?>>", {32, false}),
            "ptr, ptr, i32, i32, i32, i32, i32");
  EXPECT_EQ(expanded(ctx, "memref<4xf32, 3>"), "ptr addrspace(3), ptr addrspace(3), i64, i64, i64");
  // Unranked: rank, then a pointer to the ranked descriptor (address space 0
  // whatever the memref's, as MLIR's).
  EXPECT_EQ(expanded(ctx, "memref<*xf32>"), "i64, ptr");
  EXPECT_EQ(expanded(ctx, "memref<*xf32, 3>", {32, false}), "i32, ptr");
  // Bare pointers: one pointer per static memref, and the misuses refused.
  const LoweringOptions bare{64, true};
  EXPECT_EQ(expanded(ctx, "memref<2x3xf32, 1>", bare), "ptr addrspace(1)");
  EXPECT_EQ(expanded(ctx, "f64", bare), "double");
  EXPECT_EQ(expanded(ctx, "memref<?xf32>", bare),
            "error: the bare-pointer convention needs a static shape, but memref<?xf32> has dynamic dims "
            "(MLIR would leave such a function unconverted)");
  EXPECT_EQ(expanded(ctx, "memref<*xf32>", bare),
            "error: the bare-pointer convention cannot pass unranked memref<*xf32>: its rank and shape would be lost");
  EXPECT_EQ(expanded(ctx, "memref<4xf32, strided<[?]>>", bare),
            "error: the bare-pointer convention needs a static layout, but memref<4xf32, strided<[?]>> has a dynamic "
            "offset or stride");
}

TEST(Lowering, ExpandedArgumentsAreTheLoweredFunctionsParameters) {
  llvm::LLVMContext ctx;
  auto f = lowerFunctionType(ctx, functionType("(memref<?x?xf32>, index, memref<*xi8>) -> ()"), {});
  ASSERT_TRUE(f.ok()) << f.error().message();
  std::string params;
  for (llvm::Type* p : (*f)->params()) params += (params.empty() ? "" : ", ") + str(p);
  EXPECT_EQ(params, expanded(ctx, "memref<?x?xf32>") + ", " + expanded(ctx, "index") + ", " +
                        expanded(ctx, "memref<*xi8>"));
}

TEST(Lowering, OptionsIndexTypeAndBarePointerChecks) {
  for (unsigned bits : {32u, 64u}) EXPECT_FALSE(checkOptions({bits, false})) << bits;
  for (unsigned bits : {0u, 1u, 16u, 63u, 128u}) {
    Error e = checkOptions({bits, false});
    ASSERT_TRUE(e) << bits;
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(e.message(), "index bitwidth must be 32 or 64, got " + std::to_string(bits));
  }
  llvm::LLVMContext ctx;
  EXPECT_EQ(str(indexType(ctx, {})), "i64");
  EXPECT_EQ(str(indexType(ctx, {32, false})), "i32");
  // lowerType: the value a function body works with (one descriptor struct per memref).
  EXPECT_EQ(str(*lowerType(ctx, memjit::test::type("memref<?x3xf32>"), {})), "{ ptr, ptr, i64, [2 x i64], [2 x i64] }");
  EXPECT_EQ(str(*lowerType(ctx, memjit::test::type("memref<*xf32>"), {32, false})), "{ i32, ptr }");
  EXPECT_EQ(str(*lowerType(ctx, memjit::test::type("memref<2xf32, 5>"), {64, true})), "ptr addrspace(5)");
  EXPECT_EQ(str(*lowerType(ctx, memjit::test::type("bf16"), {})), "bfloat");
  // checkBarePtr: scalars and static memrefs only.
  for (const char* ok : {"f32", "index", "memref<f64>", "memref<2x3xi8, strided<[4, 1], offset: 2>>"})
    EXPECT_FALSE(checkBarePtr(memjit::test::type(ok))) << ok;
  for (const char* bad : {"memref<?xf32>", "memref<*xf32>", "memref<2xf32, strided<[1], offset: ?>>"}) {
    Error e = checkBarePtr(memjit::test::type(bad));
    ASSERT_TRUE(e) << bad;
    EXPECT_EQ(e.code(), ErrorCode::Unsupported) << bad;
    EXPECT_NE(e.message().find(bad), std::string::npos) << e.str();
  }
}

}  // namespace
}  // namespace memjit::codegen
