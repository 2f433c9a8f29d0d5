// How `memjit call` names raw inputs and results: V1 `named` records and
// structures, SIP key paths, argN and result indices, and the flat signature.
#include "call_labels.h"

#include <gtest/gtest.h>

#include "memjit/signature/reflection.h"
#include "memjit/signature/sip_signature.h"
#include "memjit/type_syntax.h"

namespace memjit::cli {
namespace {

signature::FunctionSignature sig(const char* type, std::string reflection = "", std::optional<std::string> sip = {}) {
  auto s = *signature::describe("f", *parseFunctionType(type));
  if (!reflection.empty()) s.reflection = std::move(reflection);
  s.sip = std::move(sip);
  return s;
}

TEST(RunLabels, V1NamesStructuresAndUnnamedLeaves) {
  auto s = sig("(f32, memref<?xf32>, i32, i32) -> (f32, i32)",
               R"({"a":[["named","alpha","f32"],["ndarray","f32",1,null],)"
               R"(["named","opts",["sdict",["n","i32"],["k","i32"]]]],"r":[["named","sum","f32"],"i32"],"v":1})");
  auto l = callLabels(s, s.type);
  ASSERT_TRUE(l.ok()) << l.error().str();
  EXPECT_EQ(l->inputs, (std::vector<std::string>{"alpha", "", "opts.n", "opts.k"}));
  EXPECT_EQ(l->results, (std::vector<std::string>{"sum", ""}));
  EXPECT_EQ(inputName(*l, 1), "arg1");
  EXPECT_EQ(findInput(*l, "opts.k"), 3u);
  EXPECT_EQ(findInput(*l, "arg1"), 1u);
  EXPECT_EQ(findInput(*l, "arg0"), 0u);  // argN works for named inputs too
  EXPECT_EQ(findInput(*l, "arg4"), std::nullopt);
  EXPECT_EQ(findInput(*l, "opts"), std::nullopt);
  EXPECT_EQ(findResult(*l, "sum"), 0u);
  EXPECT_EQ(findResult(*l, "1"), 1u);
  EXPECT_EQ(findResult(*l, "2"), std::nullopt);
}

TEST(RunLabels, UnnamedV1StructuresByPosition) {
  auto s = sig("(i32, i32, i32) -> ()", R"({"a":["i32",["stuple","i32","i32"]],"r":[],"v":1})");
  auto l = callLabels(s, s.type);
  ASSERT_TRUE(l.ok()) << l.error().str();
  EXPECT_EQ(l->inputs, (std::vector<std::string>{"", "1.0", "1.1"}));
}

TEST(RunLabels, SipKeyPathsWin) {
  signature::SipMangler in, out;
  ASSERT_FALSE(in.set(0, {std::string("x")}));
  ASSERT_FALSE(in.set(1, {std::string("cfg"), std::int64_t{0}}));
  ASSERT_FALSE(out.set(0, {std::string("y")}));
  auto s = sig("(memref<?xf32>, i32) -> f32", "", signature::mangle({*in.tree(), *out.tree()}));
  auto l = callLabels(s, s.type);
  ASSERT_TRUE(l.ok()) << l.error().str();
  EXPECT_EQ(l->inputs, (std::vector<std::string>{"x", "cfg.0"}));
  EXPECT_EQ(l->results, (std::vector<std::string>{"y"}));
  EXPECT_EQ(findResult(*l, "y"), 0u);
}

TEST(RunLabels, NoStructureNoLabels) {
  auto s = sig("(f32, f32) -> f32", "");
  s.reflection.clear();
  auto l = callLabels(s, s.type);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->inputs, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(findInput(*l, "arg1"), 1u);
  EXPECT_EQ(findResult(*l, "0"), 0u);
}

TEST(RunLabels, BadMetadataIsAnError) {
  auto bad = sig("(f32) -> f32", "{not json");
  EXPECT_FALSE(callLabels(bad, bad.type).ok());
  auto badSip = sig("(f32) -> f32", "", std::string("Iq"));
  auto e = callLabels(badSip, badSip.type);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message().find("SIP signature of 'f'"), std::string::npos) << e.error().str();
}

TEST(RunLabels, FlatSignatureNamesEveryRawInput) {
  auto s = sig("(f32, memref<?xf32>) -> f32", R"({"a":[["named","alpha","f32"],["ndarray","f32",1,null]],"r":["f32"],"v":1})",
               std::nullopt);
  auto l = callLabels(s, s.type);
  ASSERT_TRUE(l.ok());
  auto flat = flatSignature(s, s.type, *l);
  EXPECT_FALSE(flat.sip);
  EXPECT_EQ(flat.type, s.type);
  EXPECT_EQ(signature::argumentNames(flat), (std::vector<std::string>{"alpha", "arg1"}));
  // Two key paths that join alike ("a.b" as one key, and b below a) stay distinct.
  CallLabels same{{"a.b", "a.b"}, {""}};
  auto two = sig("(f32, f32) -> f32");
  EXPECT_EQ(signature::argumentNames(flatSignature(two, two.type, same)), (std::vector<std::string>{"a.b", "arg1"}));
}

}  // namespace
}  // namespace memjit::cli
