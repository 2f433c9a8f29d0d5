#include "memjit/signature/mangling.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace memjit;
using namespace memjit::signature;

namespace {

struct Item {
  Component kind;
  char tag;
  std::int64_t value;
  std::string bytes;
  std::size_t offset;
  bool operator==(const Item&) const = default;
};

std::vector<Item> readAll(std::string_view s, Error* error = nullptr, unsigned bits = 64) {
  std::vector<Item> items;
  SignatureParser p(s, 0, bits);
  std::size_t guard = 0;
  for (; !p.atEnd() && !p.failed(); p.next()) {
    items.push_back({p.kind(), p.tag(), p.value(), std::string(p.bytes()), p.offset()});
    EXPECT_LT(++guard, s.size() + 1) << "parser did not advance";
    if (guard > s.size()) break;
  }
  if (error) *error = p.error();
  return items;
}

Error firstError(std::string_view s, unsigned bits = 64) {
  Error e;
  readAll(s, &e, bits);
  return e;
}

}  // namespace

TEST(SignatureBuilder, PublishedIntegers) {
  SignatureBuilder b;
  b.integer(5).integer(1, 'a').integer(10, 'z').integer(-5991, 'x');
  EXPECT_TRUE(b.ok());
  EXPECT_EQ(b.encoded(), "_5a1z10x-5991");
}

TEST(SignatureBuilder, PublishedSpans) {
  EXPECT_EQ(SignatureBuilder().span("foobar", 'A').span("FOOBAR_23_FOOBAR", 'Z').encoded(),
            "A7!foobarZ17!FOOBAR_23_FOOBAR");
  EXPECT_EQ(SignatureBuilder().span("12345", 'A').span("-23", 'Z').encoded(), "A6!12345Z4!-23");
  EXPECT_EQ(SignatureBuilder().span("!2345", 'A').span("-23", 'Z').encoded(), "A6!!2345Z4!-23");
  EXPECT_EQ(SignatureBuilder().span("", 'Z').encoded(), "Z1!");
}

TEST(SignatureBuilder, NestedBuilderBecomesSpan) {
  SignatureBuilder inner;
  inner.integer(6);
  SignatureBuilder outer;
  outer.integer(5).append(inner, 'X');
  EXPECT_EQ(outer.encoded(), "_5X3!_6");
}

TEST(SignatureBuilder, ExtremeIntegers) {
  SignatureBuilder b;
  b.integer(INT64_MIN).integer(INT64_MAX, 'q');
  EXPECT_EQ(b.encoded(), "_-9223372036854775808q9223372036854775807");
  auto items = readAll(b.encoded());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].value, INT64_MIN);
  EXPECT_EQ(items[1].value, INT64_MAX);
}

TEST(SignatureBuilder, IllegalTagsRecordErrorAndAppendNothing) {
  SignatureBuilder b;
  b.integer(1, 'A');
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.error().code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(b.empty());
  SignatureBuilder c;
  c.span("x", 'a').span("y", '!').integer(3);
  EXPECT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("'a'"), std::string::npos) << c.error().message();
  EXPECT_EQ(c.encoded(), "_3");
}

TEST(SignatureBuilder, ErrorOfNestedBuilderCarriesOver) {
  SignatureBuilder bad;
  bad.integer(1, '#');
  SignatureBuilder outer;
  outer.append(bad, 'B');
  EXPECT_FALSE(outer.ok());
}

TEST(SignatureParser, ReadsPublishedEncodings) {
  auto items = readAll("_5a1z10x-5991");
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0], (Item{Component::Integer, '_', 5, "", 0}));
  EXPECT_EQ(items[1], (Item{Component::Integer, 'a', 1, "", 2}));
  EXPECT_EQ(items[2], (Item{Component::Integer, 'z', 10, "", 4}));
  EXPECT_EQ(items[3], (Item{Component::Integer, 'x', -5991, "", 7}));

  items = readAll("A7!foobarZ17!FOOBAR_23_FOOBAR");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0], (Item{Component::Span, 'A', 6, "foobar", 0}));
  EXPECT_EQ(items[1], (Item{Component::Span, 'Z', 16, "FOOBAR_23_FOOBAR", 9}));

  items = readAll("A6!!2345Z4!-23");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].bytes, "!2345");
  EXPECT_EQ(items[1].bytes, "-23");

  items = readAll("Z1!");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0], (Item{Component::Span, 'Z', 0, "", 0}));
}

TEST(SignatureParser, EmptyInputIsEnd) {
  SignatureParser p("");
  EXPECT_TRUE(p.atEnd());
  EXPECT_EQ(p.next(), Component::End);
  EXPECT_EQ(p.offset(), 0u);
}

TEST(SignatureParser, NestedParserReportsAbsoluteOffsets) {
  SignatureParser p("_5X8!_6Q3!_7");
  ASSERT_EQ(p.next(), Component::Span);
  EXPECT_EQ(p.tag(), 'X');
  EXPECT_EQ(p.contentOffset(), 5u);
  SignatureParser n = p.nested();
  ASSERT_EQ(n.kind(), Component::Integer);
  EXPECT_EQ(n.offset(), 5u);
  EXPECT_EQ(n.next(), Component::Span);
  EXPECT_EQ(n.offset(), 7u);
  SignatureParser nn = n.nested();
  EXPECT_EQ(nn.offset(), 10u);
  EXPECT_EQ(nn.value(), 7);
  EXPECT_EQ(n.next(), Component::End);
  EXPECT_EQ(p.next(), Component::End);
}

TEST(SignatureParser, NestedErrorOffsetIsAbsolute) {
  SignatureParser p("_1A5!_1#2");
  p.next();
  SignatureParser n = p.nested();
  EXPECT_EQ(n.next(), Component::Error);
  EXPECT_EQ(n.error().offset(), 7u);
}

TEST(SignatureParser, NestedOnNonSpanIsEnd) {
  SignatureParser p("_1");
  EXPECT_TRUE(p.nested().atEnd());
}

TEST(SignatureParser, PublishedMalformedInputs) {
  struct Case {
    std::string text;
    std::size_t offset;
    const char* mentions;
    unsigned bits = 64;
  } cases[] = {
      {std::string("\x01" "1 ", 3), 0, "illegal component tag"},
      {"Z4abc", 1, "runs past the end"},
      {"_+12", 1, "expected digits"},
      {"Z-3abc", 1, "negative length"},
      {"Z0", 2, "length 0"},
      {"Z3abc", 2, "expected '!'"},
      {"_", 1, "found the end"},
      {"A", 1, "expected the length"},
      {"_2147483648", 1, "does not fit in 32 bits", 32},
  };
  for (const Case& c : cases) {
    Error e = firstError(c.text, c.bits);
    ASSERT_TRUE(e) << c.text;
    EXPECT_EQ(e.code(), ErrorCode::ParseError) << c.text;
    EXPECT_EQ(e.offset(), c.offset) << c.text << ": " << e.str();
    EXPECT_NE(e.message().find(c.mentions), std::string::npos) << c.text << ": " << e.str();
  }
}

TEST(SignatureParser, ThirtyTwoBitBounds) {
  EXPECT_FALSE(firstError("_2147483647_-2147483648", 32));
  EXPECT_TRUE(firstError("_-2147483649", 32));
}

TEST(SignatureParser, SixtyFourBitOverflow) {
  EXPECT_FALSE(firstError("_9223372036854775807"));
  EXPECT_FALSE(firstError("_-9223372036854775808"));
  EXPECT_TRUE(firstError("_9223372036854775808"));
  EXPECT_TRUE(firstError("_-9223372036854775809"));
  EXPECT_TRUE(firstError("_99999999999999999999999999999"));
  // A span length that overflows is an error, not a wrap-around to a small length.
  EXPECT_TRUE(firstError("A18446744073709551617!x"));
}

TEST(SignatureParser, HugeSpanLengthIsPastTheEnd) {
  Error e = firstError("A9223372036854775807!");
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("past the end"), std::string::npos) << e.str();
}

TEST(SignatureParser, LoneMinus) {
  Error e = firstError("_-");
  ASSERT_TRUE(e);
  EXPECT_EQ(e.offset(), 2u);
  EXPECT_TRUE(firstError("_--1"));
}

TEST(SignatureParser, ErrorIsSticky) {
  SignatureParser p("_1#_2");
  EXPECT_EQ(p.next(), Component::Error);
  EXPECT_EQ(p.next(), Component::Error);
  EXPECT_EQ(p.error().offset(), 2u);
  EXPECT_EQ(p.tag(), 0);
}

TEST(SignatureParser, ErrorAfterValidComponentsKeepsThem) {
  Error e;
  auto items = readAll("_1a2Q", &e);
  EXPECT_EQ(items.size(), 2u);
  EXPECT_EQ(e.offset(), 5u);
}

TEST(SignatureParser, SpanMayContainAnyBytes) {
  std::string contents("\0\xff!Z9", 5);
  std::string enc = SignatureBuilder().span(contents, 'K').encoded();
  auto items = readAll(enc);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].bytes, contents);
}

TEST(SignatureParser, LeadingZerosAndNegativeZero) {
  auto items = readAll("_007_-0");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].value, 7);
  EXPECT_EQ(items[1].value, 0);
}

TEST(Canonicalize, NormalizesIntegersKeepsSpans) {
  auto c = canonicalize("_007A4!_05");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(*c, "_7A4!_05");
  EXPECT_FALSE(canonicalize("A3!"));
}

TEST(Canonicalize, RoundTripsEveryTag) {
  SignatureBuilder b;
  for (char t = 'a'; t <= 'z'; ++t) b.integer(t - 'a' - 13, t);
  for (char t = 'A'; t <= 'Z'; ++t) b.span(std::string(t - 'A', t), t);
  b.integer(0);
  ASSERT_TRUE(b.ok());
  auto c = canonicalize(b.encoded());
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, b.encoded());
}

TEST(Mangling, TagClassesCoverExactlyTheirLetters) {
  // Integer components are tagged '_' or a lowercase letter, spans an
  // uppercase one; every other byte (digits, '!', high bytes) is neither.
  int integerTags = 0, spanTags = 0;
  for (int i = 0; i < 256; ++i) {
    const char c = static_cast<char>(i);
    EXPECT_FALSE(isIntegerTag(c) && isSpanTag(c)) << i;
    integerTags += isIntegerTag(c);
    spanTags += isSpanTag(c);
  }
  EXPECT_EQ(integerTags, 27);
  EXPECT_EQ(spanTags, 26);
  static_assert(isIntegerTag('_') && isIntegerTag('a') && isIntegerTag('z'));
  static_assert(!isIntegerTag('A') && !isIntegerTag('0') && !isIntegerTag('!') && !isIntegerTag('\xe1'));
  static_assert(isSpanTag('A') && isSpanTag('Z'));
  static_assert(!isSpanTag('a') && !isSpanTag('_') && !isSpanTag('@') && !isSpanTag('['));
}
