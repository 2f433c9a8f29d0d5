#include "memjit/signature/sip_signature.h"

#include <gtest/gtest.h>

#include "support/expected.h"
#include "support/parse_error_case.h"

using namespace memjit;
using namespace memjit::signature;

namespace {

SipStructure build(const std::vector<std::pair<std::int64_t, SipPath>>& inputs,
                   const std::vector<std::pair<std::int64_t, SipPath>>& results) {
  SipMangler in, out;
  for (const auto& [raw, path] : inputs) EXPECT_FALSE(in.set(raw, path));
  for (const auto& [raw, path] : results) EXPECT_FALSE(out.set(raw, path));
  return SipStructure{in.tree(), out.tree()};
}

SipStructure parseOk(std::string_view sip) { return test::valueOrFail(parseSipSignature(sip), std::string(sip)); }

SipPath P(std::initializer_list<SipKey> keys) { return SipPath(keys); }

// Records visitor calls as text, to check order and arguments.
struct Recorder : SipVisitor {
  std::string log;
  void integerKey(std::int64_t k) override { log.append("k").append(std::to_string(k)).append(" "); }
  void stringKey(std::string_view k) override { log.append("K").append(k).append(" "); }
  void openStruct(SipStructKind kind) override { log += kind == SipStructKind::Dict ? "{ " : "[ "; }
  void closeStruct() override { log += "} "; }
  void mapToRawIndex(std::int64_t i) override { log.append("=").append(std::to_string(i)).append(" "); }
};

}  // namespace

TEST(SipMangler, PublishedNothingAssigned) { EXPECT_EQ(mangle(SipStructure{}), "I1!R1!"); }

TEST(SipMangler, PublishedSequenceAndLeaf) {
  EXPECT_EQ(mangle(build({{0, P({0})}, {1, P({1})}}, {{0, {}}})), "I12!S9!k0_0k1_1R3!_0");
}

TEST(SipMangler, PublishedNestedDict) {
  // Assigned out of order on purpose: keys are emitted sorted.
  SipStructure s = build({{2, P({1})}, {0, P({0, "foo"})}, {1, P({0, "bar"})}}, {{1, P({1})}, {0, P({0})}});
  EXPECT_EQ(mangle(s), "I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R12!S9!k0_0k1_1");
}

TEST(SipMangler, IntegerKeysSortNumerically) {
  SipMangler m;
  EXPECT_FALSE(m.set(0, P({10})));
  EXPECT_FALSE(m.set(1, P({2})));
  EXPECT_EQ(m.encode(), "S10!k2_1k10_0");
}

TEST(SipMangler, StringKeysSortBytewise) {
  SipMangler m;
  EXPECT_FALSE(m.set(0, P({"b"})));
  EXPECT_FALSE(m.set(1, P({"B"})));
  EXPECT_FALSE(m.set(2, P({std::string("\xc3\xa9")})));
  EXPECT_FALSE(m.set(3, P({"a"})));
  auto keys = enumerate(*m.tree());
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(std::get<std::string>(keys[0].path[0]), "B");
  EXPECT_EQ(std::get<std::string>(keys[1].path[0]), "a");
  EXPECT_EQ(std::get<std::string>(keys[2].path[0]), "b");
  EXPECT_EQ(std::get<std::string>(keys[3].path[0]), "\xc3\xa9");
}

TEST(SipMangler, RejectsMixedKeysAtOneLevel) {
  SipMangler m;
  EXPECT_FALSE(m.set(0, P({0})));
  Error e = m.set(1, P({"x"}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(e.message().find("integer keys"), std::string::npos) << e.str();
  // Deeper too.
  EXPECT_FALSE(m.set(2, P({1, "a"})));
  EXPECT_TRUE(m.set(3, P({1, 0})));
  EXPECT_EQ(m.encode(), "S16!k0_0k1D7!K2!a_2");
}

TEST(SipMangler, RejectsReassigningALeaf) {
  SipMangler m;
  EXPECT_FALSE(m.set(0, P({"a"})));
  Error e = m.set(1, P({"a"}));
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("already assigned (raw index 0)"), std::string::npos) << e.str();
}

TEST(SipMangler, RejectsWalkingThroughALeafAndTurningAStructIntoALeaf) {
  SipMangler m;
  EXPECT_FALSE(m.set(0, P({"a"})));
  EXPECT_TRUE(m.set(1, P({"a", "b"})));
  EXPECT_TRUE(m.set(1, {}));
  SipMangler root;
  EXPECT_FALSE(root.set(0, {}));
  EXPECT_TRUE(root.set(1, P({0})));
  EXPECT_EQ(root.encode(), "_0");
}

TEST(SipMangler, RejectsNegativeIndexAndKey) {
  SipMangler m;
  EXPECT_EQ(m.set(-1, P({0})).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(m.set(0, P({-1})).code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(m.tree());
}

TEST(SipMangler, RejectedAssignmentLeavesTreeUnchanged) {
  SipMangler m;
  EXPECT_FALSE(m.set(0, P({0, 0})));
  std::string before = m.encode();
  EXPECT_TRUE(m.set(1, P({0, "x", 3})));
  EXPECT_EQ(m.encode(), before);
}

TEST(SipParser, PublishedSignaturesRoundTrip) {
  for (const char* s : {"I1!R1!", "I12!S9!k0_0k1_1R3!_0", "I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R12!S9!k0_0k1_1"})
    EXPECT_EQ(mangle(parseOk(s)), s);
}

TEST(SipParser, PublishedToStringText) {
  SipStructure s = parseOk("I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R12!S9!k0_0k1_1");
  EXPECT_EQ(toString(s.inputs),
            ":[\n"
            "  0:{\n"
            "    bar=raw(1),\n"
            "    foo=raw(0),\n"
            "  },\n"
            "  1=raw(2),\n"
            "],\n");
  EXPECT_EQ(toString(parseOk("I12!S9!k0_0k1_1R3!_0").results), "=raw(0),\n");
  EXPECT_EQ(toString(parseOk("I1!R1!").inputs), "");
}

TEST(SipParser, VisitorOrder) {
  Recorder r;
  EXPECT_FALSE(visitSipInputs("I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R12!S9!k0_0k1_1", r));
  EXPECT_EQ(r.log, "[ k0 { Kbar =1 Kfoo =0 } k1 =2 } ");
  Recorder res;
  EXPECT_FALSE(visitSipResults("I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R12!S9!k0_0k1_1", res));
  EXPECT_EQ(res.log, "[ k0 =0 k1 =1 } ");
}

TEST(SipParser, VisitorSeesNothingOfMalformedInput) {
  Recorder r;
  Error e = visitSipInputs("I12!S9!k0_0k1_1R3!#0", r);
  ASSERT_TRUE(e);
  EXPECT_EQ(r.log, "");
}

TEST(SipParser, EnumerateLeaves) {
  SipStructure s = parseOk("I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R1!");
  std::vector<SipLeaf> leaves = enumerate(*s.inputs);
  std::vector<SipLeaf> expected = {{P({0, "bar"}), 1}, {P({0, "foo"}), 0}, {P({1}), 2}};
  EXPECT_EQ(leaves, expected);
  EXPECT_EQ(enumerate(SipNode::leaf(4)), (std::vector<SipLeaf>{{{}, 4}}));
}

TEST(SipParser, EmptyStructsAreKept) {
  SipStructure s = parseOk("I4!S1!R4!D1!");
  ASSERT_TRUE(s.inputs);
  EXPECT_EQ(s.inputs->kind, SipNode::Kind::Sequence);
  EXPECT_TRUE(s.inputs->children.empty());
  EXPECT_EQ(toString(s.results), ":{\n},\n");
  EXPECT_EQ(mangle(s), "I4!S1!R4!D1!");
}

TEST(SipParser, DeepNestingWithinLimitWorks) {
  std::string v = "_0";
  for (std::size_t i = 0; i < kMaxNestingDepth; ++i) v = SignatureBuilder().span(std::string("k0").append(v), 'S').encoded();
  std::string sip = SignatureBuilder().span(v, 'I').span("", 'R').encoded();
  SipStructure s = parseOk(sip);
  EXPECT_EQ(enumerate(*s.inputs)[0].path.size(), kMaxNestingDepth);
  EXPECT_EQ(mangle(s), sip);
}

TEST(SipParser, TooDeepNestingIsAnError) {
  std::string v = "_0";
  for (std::size_t i = 0; i < kMaxNestingDepth + 1; ++i) v = SignatureBuilder().span(std::string("k0").append(v), 'S').encoded();
  auto s = parseSipSignature(SignatureBuilder().span(v, 'I').span("", 'R').encoded());
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("deeper than"), std::string::npos) << s.error().str();
}

TEST(SipParser, ExtremelyDeepGarbageDoesNotOverflowTheStack) {
  // 2000 nested sequence spans: the parser stops at kMaxNestingDepth instead
  // of recursing 2000 levels.
  std::string v = "_0";
  for (int i = 0; i < 2000; ++i) v = SignatureBuilder().span(std::string("k0").append(v), 'S').encoded();
  auto s = parseSipSignature(SignatureBuilder().span(v, 'I').span("", 'R').encoded());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::ParseError) << s.error().str();
  EXPECT_NE(s.error().message().find("structure nests deeper than " + std::to_string(kMaxNestingDepth) + " levels"),
            std::string::npos)
      << s.error().str();
  // The offset is that of the first span past the limit, not of the end.
  ASSERT_TRUE(s.error().offset());
  EXPECT_LT(*s.error().offset(), v.size());
}

using BadCase = memjit::test::ParseErrorCase;

class SipErrors : public testing::TestWithParam<BadCase> {};

TEST_P(SipErrors, NameOffsetAndProblem) {
  test::expectParseError(parseSipSignature(GetParam().text).takeError(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, SipErrors,
    testing::Values(BadCase{"", 0, "inputs span 'I'"}, BadCase{"R1!", 0, "inputs span 'I'"},
                    BadCase{"I1!", 3, "results span 'R'"}, BadCase{"I1!R1!I1!", 6, "after the results"},
                    BadCase{"I5!ab", 1, "runs past the end"}, BadCase{"I4!_-1R1!", 3, "negative"},
                    BadCase{"I3!k0R1!", 3, "found integer 'k'"}, BadCase{"I4!X1!R1!", 3, "found span 'X'"},
                    BadCase{"I5!_0_1R1!", 5, "after the structured value"},
                    BadCase{"I6!S3!_0R1!", 6, "integer key 'k'"}, BadCase{"I9!S6!K1!_0R1!", 6, "integer key 'k'"},
                    BadCase{"I6!D3!k0R1!", 6, "string key 'K'"}, BadCase{"I6!S3!k0R1!", 8, "found the end"},
                    BadCase{"I12!S9!k1_0k0_1R1!", 11, "out of order"},
                    BadCase{"I12!S9!k0_0k0_1R1!", 11, "duplicate key 0"},
                    BadCase{"I17!D13!K2!b_0K2!a_1R1!", 14, "out of order"},
                    BadCase{"I9!S6!k-1_0R1!", 6, "sequence key -1 is negative"},
                    BadCase{"I2!_R1!", 4, "found the end"}, BadCase{"I3!_0R1!#", 8, "illegal component tag"}));

TEST(SipIdentity, SequencesByPosition) {
  EXPECT_EQ(mangle(identitySipStructure(2, 1)), "I12!S9!k0_0k1_1R8!S5!k0_0");
  EXPECT_EQ(mangle(identitySipStructure(0, 0)), "I1!R1!");
  SipStructure s = identitySipStructure(12, 0);
  auto leaves = enumerate(*s.inputs);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    EXPECT_EQ(leaves[i].path, P({static_cast<std::int64_t>(i)}));
    EXPECT_EQ(leaves[i].rawIndex, static_cast<std::int64_t>(i));
  }
  EXPECT_EQ(parseOk(mangle(s)), s);
}

TEST(SipArity, Checks) {
  SipStructure s = parseOk("I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R3!_0");
  EXPECT_FALSE(checkArity(s, 3, 1));
  EXPECT_EQ(checkArity(s, 2, 1).code(), ErrorCode::ArityMismatch);
  EXPECT_NE(checkArity(s, 4, 1).message().find("raw index 3 of 4 unmapped"), std::string::npos);
  EXPECT_TRUE(checkArity(s, 3, 0));
  EXPECT_NE(checkArity(parseOk("I12!S9!k0_0k1_0R1!"), 2, 0).message().find("twice"), std::string::npos);
  EXPECT_FALSE(checkArity(parseOk("I1!R1!"), 5, 5));
}

TEST(SipAttributes, BothSpellings) {
  auto a = sipFromAttributes({{"sipv", "1"}, {"sip", "I1!R1!"}});
  ASSERT_TRUE(a);
  EXPECT_EQ(**a, "I1!R1!");
  auto b = sipFromAttributes({{"abi", "sip"}, {"abiv", "1"}, {"sip", "I3!_0R1!"}});
  ASSERT_TRUE(b);
  EXPECT_EQ(**b, "I3!_0R1!");
  auto none = sipFromAttributes({{"fv", "1"}, {"f", "I1!R1!"}});
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto otherAbi = sipFromAttributes({{"abi", "raw"}, {"abiv", "1"}});
  ASSERT_TRUE(otherAbi);
  EXPECT_FALSE(*otherAbi);
}

TEST(SipAttributes, Errors) {
  EXPECT_EQ(sipFromAttributes({{"sipv", "2"}, {"sip", "I1!R1!"}}).error().code(), ErrorCode::Unsupported);
  EXPECT_EQ(sipFromAttributes({{"abi", "sip"}, {"abiv", "7"}, {"sip", "I1!R1!"}}).error().code(),
            ErrorCode::Unsupported);
  EXPECT_EQ(sipFromAttributes({{"sipv", "1"}}).error().code(), ErrorCode::NotFound);
  EXPECT_EQ(sipFromAttributes({{"abi", "sip"}, {"sip", "I1!R1!"}}).error().code(), ErrorCode::NotFound);
}

TEST(SipNode, Equality) {
  EXPECT_EQ(SipNode::leaf(1), SipNode::leaf(1));
  EXPECT_NE(SipNode::leaf(1), SipNode::leaf(2));
  SipNode seq, dict;
  seq.kind = SipNode::Kind::Sequence;
  dict.kind = SipNode::Kind::Dict;
  EXPECT_NE(seq, dict);
}

TEST(SipParser, ParseSipStructureOfOneSpan) {
  auto none = parseSipStructure("");
  ASSERT_TRUE(none.ok()) << none.error().message();
  EXPECT_FALSE(none->has_value());

  SipMangler expected;
  ASSERT_FALSE(expected.set(1, P({0, "b"})));
  ASSERT_FALSE(expected.set(0, P({0, "a"})));
  ASSERT_FALSE(expected.set(2, P({3})));
  auto tree = parseSipStructure(expected.encode());
  ASSERT_TRUE(tree.ok()) << tree.error().message();
  ASSERT_TRUE(tree->has_value());
  EXPECT_EQ(**tree, *expected.tree());
  EXPECT_EQ(encode(**tree), expected.encode());

  auto root = parseSipStructure("_9223372036854775807");
  ASSERT_TRUE(root.ok()) << root.error().message();
  EXPECT_EQ(**root, SipNode::leaf(INT64_MAX));
}

TEST(SipParser, ParseSipStructureOffsetsCountFromTheBase) {
  // Errors point into the enclosing signature: the span's own offset plus
  // where in the span it went wrong.
  for (std::string_view bad : {"_1_2", "S4!k0_", "_-1", "D5!K1!a", "#"}) {
    auto local = parseSipStructure(bad);
    auto shifted = parseSipStructure(bad, 1000);
    ASSERT_FALSE(local.ok()) << bad;
    ASSERT_FALSE(shifted.ok()) << bad;
    EXPECT_EQ(local.error().code(), ErrorCode::ParseError) << bad;
    ASSERT_TRUE(local.error().offset().has_value()) << bad;
    EXPECT_LE(*local.error().offset(), bad.size()) << bad;
    EXPECT_EQ(shifted.error().offset(), *local.error().offset() + 1000) << bad;
  }
  auto trailing = parseSipStructure("_1_2");
  ASSERT_FALSE(trailing.ok());
  EXPECT_EQ(trailing.error().offset(), 2u);
  EXPECT_NE(trailing.error().message().find("unexpected data after the structured value"), std::string::npos)
      << trailing.error().str();
}

TEST(SipParser, VisitWalksATreeInKeyOrder) {
  Recorder leaf;
  visit(SipNode::leaf(0), leaf);
  EXPECT_EQ(leaf.log, "=0 ");

  SipMangler m;
  ASSERT_FALSE(m.set(2, P({1, "z"})));
  ASSERT_FALSE(m.set(0, P({1, "a"})));
  ASSERT_FALSE(m.set(1, P({0})));
  Recorder r;
  visit(*m.tree(), r);
  EXPECT_EQ(r.log, "[ k0 =1 k1 { Ka =0 Kz =2 } } ");

  // visit on a parsed tree is what visitSipInputs does after parsing.
  Recorder direct, viaSignature;
  visit(**parseSipStructure(m.encode()), direct);
  ASSERT_FALSE(visitSipInputs(mangle(SipStructure{m.tree(), std::nullopt}), viaSignature));
  EXPECT_EQ(direct.log, viaSignature.log);
}
