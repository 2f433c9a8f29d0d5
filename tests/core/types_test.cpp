#include "memjit/types.h"

#include <gtest/gtest.h>

namespace memjit {
namespace {

TEST(ElementType, Classification) {
  EXPECT_TRUE(isInteger(ElementType::I1));
  EXPECT_TRUE(isInteger(ElementType::SI32));
  EXPECT_TRUE(isInteger(ElementType::UI64));
  EXPECT_FALSE(isInteger(ElementType::Index));
  EXPECT_TRUE(isSignedInteger(ElementType::SI8));
  EXPECT_FALSE(isSignedInteger(ElementType::I8));
  EXPECT_TRUE(isUnsignedInteger(ElementType::UI16));
  EXPECT_TRUE(isFloat(ElementType::BF16));
  EXPECT_FALSE(isFloat(ElementType::ComplexF32));
  EXPECT_TRUE(isComplex(ElementType::ComplexF64));
  EXPECT_EQ(componentType(ElementType::ComplexF64), ElementType::F64);
  EXPECT_EQ(componentType(ElementType::I8), ElementType::I8);
}

TEST(ElementType, WidthsAndStorage) {
  EXPECT_EQ(bitWidth(ElementType::I1), 1u);
  EXPECT_EQ(storageSize(ElementType::I1), 1u);
  EXPECT_EQ(storageSize(ElementType::BF16), 2u);
  EXPECT_EQ(storageSize(ElementType::Index), 8u);
  EXPECT_EQ(storageSize(ElementType::Ptr), sizeof(void*));
  EXPECT_EQ(storageSize(ElementType::ComplexF32), 8u);
  EXPECT_EQ(storageSize(ElementType::ComplexF64), 16u);
  for (ElementType t : kAllElementTypes) EXPECT_GT(bitWidth(t), 0u) << spelling(t);
}

TEST(MemRefType, IdentityStridesAreRowMajorAndTurnDynamicLeftOfADynamicDim) {
  MemRefType a(ElementType::F32, {2, 3, 4});
  EXPECT_EQ(a.effectiveStrides(), (std::vector<std::int64_t>{12, 4, 1}));
  EXPECT_EQ(a.effectiveOffset(), 0);
  EXPECT_EQ(a.numElements(), 24);
  MemRefType b(ElementType::F32, {2, kDynamic, 4});
  EXPECT_EQ(b.effectiveStrides(), (std::vector<std::int64_t>{kDynamic, 4, 1}));
  EXPECT_FALSE(b.numElements());
  EXPECT_EQ(b.numDynamicDims(), 1u);
  MemRefType scalar(ElementType::F64, {});
  EXPECT_TRUE(scalar.effectiveStrides().empty());
  EXPECT_EQ(scalar.numElements(), 1);
}

TEST(MemRefType, ExplicitLayoutIsKept) {
  MemRefType t(ElementType::F32, {4, kDynamic}, StridedLayout{kDynamic, {kDynamic, 1}}, 2);
  EXPECT_FALSE(t.hasIdentityLayout());
  EXPECT_EQ(t.effectiveOffset(), kDynamic);
  EXPECT_EQ(t.effectiveStrides(), (std::vector<std::int64_t>{kDynamic, 1}));
  EXPECT_EQ(t.memorySpace(), 2u);
}

TEST(MemRefType, GetValidatesParts) {
  EXPECT_TRUE(MemRefType::get(ElementType::F32, {0, 4}));
  auto badDim = MemRefType::get(ElementType::F32, {4, -2});
  ASSERT_FALSE(badDim);
  EXPECT_NE(badDim.error().message().find("dim #1 is -2"), std::string::npos);
  auto badLayout = MemRefType::get(ElementType::F32, {4, 4}, StridedLayout{0, {1}});
  ASSERT_FALSE(badLayout);
  EXPECT_NE(badLayout.error().message().find("1 strides for a memref of rank 2"), std::string::npos);
  EXPECT_TRUE(MemRefType::get(ElementType::F32, {4}, StridedLayout{-3, {-1}}));
  auto zeroStride = MemRefType::get(ElementType::F32, {4}, StridedLayout{0, {0}});
  ASSERT_FALSE(zeroStride);
  EXPECT_NE(zeroStride.error().message().find("stride #0 is zero"), std::string::npos);
}

TEST(Type, VariantHelpers) {
  Type s = ElementType::I32;
  Type m = MemRefType(ElementType::F16, {kDynamic});
  Type u = UnrankedMemRefType{ElementType::BF16, 1};
  EXPECT_TRUE(isScalar(s));
  EXPECT_TRUE(isRankedMemRef(m));
  EXPECT_TRUE(isUnrankedMemRef(u));
  EXPECT_TRUE(isMemRef(m) && isMemRef(u) && !isMemRef(s));
  EXPECT_EQ(elementOf(s), ElementType::I32);
  EXPECT_EQ(elementOf(m), ElementType::F16);
  EXPECT_EQ(elementOf(u), ElementType::BF16);
}

}  // namespace
}  // namespace memjit
