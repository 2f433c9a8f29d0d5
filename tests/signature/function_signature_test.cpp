#include "memjit/signature/function_signature.h"

#include <gtest/gtest.h>

#include "memjit/signature/raw_signature.h"
#include "memjit/signature/reflection.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using namespace memjit::signature;

TEST(Describe, RawAndDefaultReflection) {
  auto type = parseFunctionType("(memref<?x128x64xf32>, si32) -> memref<?x8x64xsi32>");
  ASSERT_TRUE(type);
  auto sig = describe("kernel", *type);
  ASSERT_TRUE(sig) << sig.error().str();
  EXPECT_EQ(sig->name, "kernel");
  EXPECT_EQ(sig->type, *type);
  EXPECT_EQ(sig->raw, "I20!B11!d-1d128d64S3!t6R15!B11!t6d-1d8d64");
  EXPECT_EQ(sig->reflection,
            R"({"a":[["ndarray","f32",3,null,128,64],"i32"],"r":[["ndarray","i32",3,null,8,64]],"v":1})");
  EXPECT_FALSE(sig->sip);
  EXPECT_FALSE(sig->resultAllocator);
  // The three forms agree with each other.
  auto raw = parseRawSignature(sig->raw);
  ASSERT_TRUE(raw);
  auto refl = parseReflection(sig->reflection);
  ASSERT_TRUE(refl);
  EXPECT_FALSE(checkArity(*refl, raw->inputs.size(), raw->results.size()));
}

TEST(Describe, EmptyFunction) {
  auto sig = describe("f", FunctionType{});
  ASSERT_TRUE(sig);
  EXPECT_EQ(sig->raw, "I1!R1!");
  EXPECT_EQ(sig->reflection, R"({"a":[],"r":[],"v":1})");
}

TEST(Describe, RejectsEmptyName) {
  auto sig = describe("", FunctionType{});
  ASSERT_FALSE(sig);
  EXPECT_EQ(sig.error().code(), ErrorCode::InvalidArgument);
}

TEST(Describe, ArgumentNamesWrapTheInputRecords) {
  auto type = parseFunctionType("(memref<?xf32>, i32) -> f32");
  ASSERT_TRUE(type);
  auto sig = describe("f", *type, {"values", "n"});
  ASSERT_TRUE(sig) << sig.error().str();
  EXPECT_EQ(sig->reflection, R"({"a":[["named","values",["ndarray","f32",1,null]],["named","n","i32"]],"r":["f32"],"v":1})");
  EXPECT_EQ(sig->raw, describe("f", *type)->raw);  // names are not part of the raw ABI
  EXPECT_EQ(argumentNames(*sig), (std::vector<std::string>{"values", "n"}));
  // Unnamed functions, and reflection from elsewhere naming only some inputs.
  EXPECT_EQ(argumentNames(*describe("f", *type)), (std::vector<std::string>{"", ""}));
  sig->reflection = R"({"a":[["ndarray","f32",1,null],["named","n","i32"]],"r":["f32"]})";
  EXPECT_EQ(argumentNames(*sig), (std::vector<std::string>{"", "n"}));
  sig->reflection = "";
  EXPECT_EQ(argumentNames(*sig), (std::vector<std::string>{"", ""}));
}
