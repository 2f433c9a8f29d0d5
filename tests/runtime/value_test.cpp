#include "memjit/runtime/value.h"

#include <gtest/gtest.h>

using namespace memjit;
using namespace memjit::runtime;

TEST(Value, ScalarsKeepTheirType) {
  EXPECT_EQ(Value(5).scalar().type, ElementType::I64);
  EXPECT_EQ(Value(5).toInt(), 5);
  EXPECT_EQ(Value(2.5).scalar().type, ElementType::F64);
  EXPECT_EQ(Value(2.5f).scalar().type, ElementType::F32);
  EXPECT_EQ(Value(true).scalar().type, ElementType::I1);
  EXPECT_EQ(Value(18446744073709551615ull).scalar().u, 18446744073709551615ull);
  EXPECT_TRUE(Value().isNone());
}

TEST(Value, Describe) {
  EXPECT_EQ(Value(5).describe(), "int 5");
  EXPECT_EQ(Value(2.5).describe(), "float 2.5");
  EXPECT_EQ(Value(false).describe(), "bool false");
  EXPECT_EQ(Value("ab").describe(), "string of 2 bytes");
  EXPECT_EQ(Value::list({1, 2, 3}).describe(), "list of 3");
  EXPECT_EQ(Value::tuple({1, 2}).describe(), "tuple of 2");
  EXPECT_EQ(Value::dict({{"a", 1}, {"b", 2}}).describe(), "dict {a, b}");
  std::vector<std::int32_t> v(384);
  EXPECT_EQ(Value(makeView(v)).describe(), "sint32[384]");
  EXPECT_EQ(Value().describe(), "None");
}

TEST(Value, DictLookupKeepsOrder) {
  Value d = Value::dict({{"b", 3}, {"a", 2}});
  EXPECT_EQ(d.keys()[0], "b");
  ASSERT_NE(d.find("a"), nullptr);
  EXPECT_EQ(d.find("a")->toInt(), 2);
  EXPECT_EQ(d.find("c"), nullptr);
  Value nested = Value::list({Value::tuple({1, "x"}), d});
  EXPECT_EQ(nested[1].find("b")->toInt(), 3);
}

TEST(Value, FromDLPack) {
  float x[4] = {1, 2, 3, 4};
  std::int64_t shape[1] = {4};
  DLTensor t{};
  t.data = x;
  t.device = {kDLCPU, 0};
  t.ndim = 1;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape;
  auto v = Value::fromDLPack(t);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->buffer().describe(), "float32[4]");
  t.dtype.lanes = 2;
  EXPECT_FALSE(Value::fromDLPack(t));
}
