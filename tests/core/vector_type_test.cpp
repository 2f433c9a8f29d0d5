// The kernel builder's vector value type: which elements and lane counts it
// takes, and what it says about the rest.
#include "memjit/vector_type.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <string>

namespace memjit {
namespace {

TEST(VectorType, ElementsAreIntegersIndexAndFloats) {
  for (ElementType t : {ElementType::I1, ElementType::I8, ElementType::I16, ElementType::I32, ElementType::I64,
                        ElementType::SI8, ElementType::SI64, ElementType::UI8, ElementType::UI32, ElementType::Index,
                        ElementType::F16, ElementType::BF16, ElementType::F32, ElementType::F64})
    EXPECT_TRUE(isVectorElement(t)) << spelling(t);
  // MLIR's vector dialect takes neither pointers nor complex numbers.
  for (ElementType t : {ElementType::Ptr, ElementType::ComplexF32, ElementType::ComplexF64})
    EXPECT_FALSE(isVectorElement(t)) << spelling(t);
}

TEST(VectorType, GetAcceptsOneToMaxLanes) {
  for (std::int64_t lanes : {std::int64_t{1}, std::int64_t{3}, std::int64_t{16}, std::int64_t{VectorType::kMaxLanes}}) {
    auto v = VectorType::get(ElementType::F32, lanes);
    ASSERT_TRUE(v.ok()) << lanes << ": " << v.error().message();
    EXPECT_EQ(*v, (VectorType{ElementType::F32, static_cast<std::uint32_t>(lanes)}));
  }
  auto bits = VectorType::get(ElementType::I1, 64);
  ASSERT_TRUE(bits.ok()) << bits.error().message();
  EXPECT_EQ(bits->element, ElementType::I1);
}

TEST(VectorType, GetRefusesLaneCountsOutOfRange) {
  // Values that would wrap to a valid count if narrowed to 32 bits are refused too.
  for (std::int64_t lanes : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{VectorType::kMaxLanes} + 1,
                             (std::int64_t{1} << 32) + 4, std::int64_t{INT64_MIN}, std::int64_t{INT64_MAX}}) {
    auto v = VectorType::get(ElementType::F64, lanes);
    ASSERT_FALSE(v.ok()) << lanes;
    EXPECT_EQ(v.error().code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(v.error().message(), "vector of " + std::to_string(lanes) + " lanes (memjit takes 1 to 1024)");
  }
}

TEST(VectorType, GetRefusesPointerAndComplexElements) {
  auto ptr = VectorType::get(ElementType::Ptr, 4);
  ASSERT_FALSE(ptr.ok());
  EXPECT_EQ(ptr.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(ptr.error().message(), "vector element type !llvm.ptr is not an integer, index or float type");
  auto complex = VectorType::get(ElementType::ComplexF32, 4);
  ASSERT_FALSE(complex.ok());
  EXPECT_EQ(complex.error().message(), "vector element type complex<f32> is not an integer, index or float type");
  // The element is checked first: a bad element with a bad count names the element.
  auto both = VectorType::get(ElementType::ComplexF64, 0);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().message().find("complex<f64>"), std::string::npos);
}

}  // namespace
}  // namespace memjit
