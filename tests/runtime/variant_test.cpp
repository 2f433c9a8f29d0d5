#include "memjit/runtime/variant.h"

#include <gtest/gtest.h>

#include "support/dlpack.h"

using namespace memjit;
using namespace memjit::runtime;

TEST(Variant, ScalarsKeepTheirType) {
  EXPECT_EQ(Variant(5).scalar().type, ElementType::I64);
  EXPECT_EQ(Variant(5).toInt(), 5);
  EXPECT_EQ(Variant(2.5).scalar().type, ElementType::F64);
  EXPECT_EQ(Variant(2.5f).scalar().type, ElementType::F32);
  EXPECT_EQ(Variant(true).scalar().type, ElementType::I1);
  EXPECT_EQ(Variant(18446744073709551615ull).scalar().u, 18446744073709551615ull);
  EXPECT_TRUE(Variant().isNone());
}

TEST(Variant, Describe) {
  EXPECT_EQ(Variant(5).describe(), "int 5");
  EXPECT_EQ(Variant(2.5).describe(), "float 2.5");
  EXPECT_EQ(Variant(false).describe(), "bool false");
  EXPECT_EQ(Variant("ab").describe(), "string of 2 bytes");
  EXPECT_EQ(Variant::list({1, 2, 3}).describe(), "list of 3");
  EXPECT_EQ(Variant::tuple({1, 2}).describe(), "tuple of 2");
  EXPECT_EQ(Variant::dict({{"a", 1}, {"b", 2}}).describe(), "dict {a, b}");
  std::vector<std::int32_t> v(384);
  EXPECT_EQ(Variant(makeView(v)).describe(), "sint32[384]");
  EXPECT_EQ(Variant().describe(), "None");
}

TEST(Variant, DictLookupKeepsOrder) {
  Variant d = Variant::dict({{"b", 3}, {"a", 2}});
  EXPECT_EQ(d.keys()[0], "b");
  ASSERT_NE(d.find("a"), nullptr);
  EXPECT_EQ(d.find("a")->toInt(), 2);
  EXPECT_EQ(d.find("c"), nullptr);
  Variant nested = Variant::list({Variant::tuple({1, "x"}), d});
  EXPECT_EQ(nested[1].find("b")->toInt(), 3);
}

TEST(Variant, FromDLPack) {
  float x[4] = {1, 2, 3, 4};
  std::vector<std::int64_t> shape = {4};
  DLTensor t = test::hostTensor(x, shape, nullptr, {kDLFloat, 32, 1});
  auto v = Variant::fromDLPack(t);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->buffer().describe(), "float32[4]");
  t.dtype.lanes = 2;
  EXPECT_FALSE(Variant::fromDLPack(t));
}

TEST(Variant, HalfScalarsKeepTheirBits) {
  Variant h(f16::fromBits(0x7d01));  // a signalling NaN: the pattern is kept, not its value
  EXPECT_EQ(h.scalar().type, ElementType::F16);
  EXPECT_EQ(h.scalar().u, 0x7d01u);
  EXPECT_EQ(h.toF16().bits(), 0x7d01);
  Variant g(bf16(-2.5f));
  EXPECT_EQ(g.scalar().type, ElementType::BF16);
  EXPECT_EQ(g.toBF16().bits(), 0xc020);
  EXPECT_EQ(g.toDouble(), -2.5);
  EXPECT_EQ(g.describe(), "bfloat16 -2.5");
  EXPECT_EQ(Variant(f16(0.1)).describe(), "float16 0.0999756");
  // Other scalars round to the half type on request.
  EXPECT_EQ(Variant(0.1).toF16().bits(), f16(0.1).bits());
  EXPECT_EQ(Variant(3).toBF16().bits(), 0x4040);
#if defined(MEMJIT_HAS_FLOAT16)
  Variant native(static_cast<_Float16>(1.5f));
  EXPECT_EQ(native.scalar().type, ElementType::F16);
  EXPECT_EQ(native.toF16().bits(), 0x3e00);
#endif
}
