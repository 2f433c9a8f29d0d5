// One case per diagnostic of memjit::signature: the error code, the byte
// offset where there is one, and the words that tell the user what was wrong.
#include <gtest/gtest.h>

#include "memjit/signature/function_signature.h"
#include "memjit/signature/mangling.h"
#include "memjit/signature/raw_signature.h"
#include "memjit/signature/reflection.h"
#include "memjit/signature/sip_signature.h"
#include "memjit/type_syntax.h"
#include "support/expect_error.h"

using namespace memjit;
using namespace memjit::signature;

namespace {

using test::expectError;

Error mangling(std::string_view s, unsigned bits = 64) {
  SignatureParser p(s, 0, bits);
  while (!p.atEnd() && !p.failed()) p.next();
  return p.error();
}
Error raw(std::string_view s) { return parseRawSignature(s).takeError(); }
Error sip(std::string_view s) { return parseSipSignature(s).takeError(); }
Error refl(std::string_view s) { return parseReflection(s).takeError(); }
Error mangler(std::initializer_list<std::pair<std::int64_t, SipPath>> sets) {
  SipMangler m;
  for (const auto& [raw, path] : sets)
    if (Error e = m.set(raw, path)) return e;
  return Error::success();
}
constexpr auto P = ErrorCode::ParseError;
constexpr auto I = ErrorCode::InvalidArgument;
constexpr auto A = ErrorCode::ArityMismatch;
constexpr std::nullopt_t none = std::nullopt;

}  // namespace

// Generic mangling
TEST(SignatureErrors, BuilderIntegerTag) { expectError(SignatureBuilder().integer(1, 'A').error(), I, none, "integer tag must be '_' or 'a'..'z', got 'A'"); }
TEST(SignatureErrors, BuilderSpanTag) { expectError(SignatureBuilder().span("", '\x01').error(), I, none, "span tag must be 'A'..'Z', got byte 0x01"); }
TEST(SignatureErrors, IllegalTag) { expectError(mangling("_1\x01"), P, 2, "illegal component tag byte 0x01"); }
TEST(SignatureErrors, NegativeSpanLength) { expectError(mangling("Z-3abc"), P, 1, "negative length for span 'Z'"); }
TEST(SignatureErrors, IntegerWithoutDigits) { expectError(mangling("_+12"), P, 1, "expected digits of the integer after tag '_', found '+'"); }
TEST(SignatureErrors, SpanWithoutLength) { expectError(mangling("A"), P, 1, "expected the length of span 'A', found the end"); }
TEST(SignatureErrors, IntegerOverflow64) { expectError(mangling("_9223372036854775808"), P, 1, "does not fit in 64 bits"); }
TEST(SignatureErrors, IntegerOverflow32) { expectError(mangling("_2147483648", 32), P, 1, "does not fit in 32 bits"); }
TEST(SignatureErrors, SpanLengthZero) { expectError(mangling("Z0"), P, 2, "has length 0, expected at least 1 for the '!'"); }
TEST(SignatureErrors, SpanPastEnd) { expectError(mangling("Z4abc"), P, 1, "of length 4 runs past the end (3 bytes left)"); }
TEST(SignatureErrors, SpanWithoutBang) { expectError(mangling("Z3abc"), P, 2, "expected '!' after the length of span 'Z', found 'a'"); }

// Raw Function ABI
TEST(SignatureErrors, RawInputsMissing) { expectError(raw("R1!"), P, 0, "expected the inputs span 'I'"); }
TEST(SignatureErrors, RawResultsMissing) { expectError(raw("I1!"), P, 3, "expected the results span 'R'"); }
TEST(SignatureErrors, RawTrailingData) { expectError(raw("I1!R1!Z1!"), P, 6, "unexpected data after the results span"); }
TEST(SignatureErrors, RawIntegerInTypeList) { expectError(raw("I3!_1R1!"), P, 3, "expected a type span 'B', 'S', 'O' or 'U', found integer '_'"); }
TEST(SignatureErrors, RawUnknownTypeSpan) { expectError(raw("I4!X1!R1!"), P, 3, "unknown type span 'X'"); }
TEST(SignatureErrors, RawIllegalElementCode) { expectError(raw("I7!B4!t12R1!"), P, 6, "illegal element code t12, expected t0..t11"); }
TEST(SignatureErrors, RawUnknownBufferField) { expectError(raw("I6!B3!x1R1!"), P, 6, "unknown buffer field 'x'"); }
TEST(SignatureErrors, RawElementNotFirst) { expectError(raw("I8!B5!d1t2R1!"), P, 8, "buffer element field 't' must come first"); }
TEST(SignatureErrors, RawNegativeDim) { expectError(raw("I7!B4!d-2R1!"), P, 6, "buffer dim -2 is negative"); }
TEST(SignatureErrors, RawUnknownScalarField) { expectError(raw("I6!S3!d1R1!"), P, 6, "unknown scalar field 'd'"); }
TEST(SignatureErrors, RawMalformedSpan) { expectError(raw("I5!ab"), P, 1, "runs past the end"); }
TEST(SignatureErrors, RawVersion) { expectError(parseRawAttributes({{"fv", "2"}, {"f", "I1!R1!"}}).takeError(), ErrorCode::Unsupported, none, "fv = '2' is not supported"); }
TEST(SignatureErrors, RawAttributeMissing) { expectError(parseRawAttributes({}).takeError(), ErrorCode::NotFound, none, "attribute 'f'"); }

// SIP
TEST(SignatureErrors, SipInputsMissing) { expectError(sip("R1!"), P, 0, "expected the inputs span 'I'"); }
TEST(SignatureErrors, SipResultsMissing) { expectError(sip("I1!"), P, 3, "expected the results span 'R'"); }
TEST(SignatureErrors, SipTrailing) { expectError(sip("I1!R1!_0"), P, 6, "unexpected data after the results span"); }
TEST(SignatureErrors, SipValueExpectedInteger) { expectError(sip("I3!k0R1!"), P, 3, "expected a structured value ('_', 'S' or 'D'), found integer 'k'"); }
TEST(SignatureErrors, SipValueExpectedSpan) { expectError(sip("I4!X1!R1!"), P, 3, "found span 'X'"); }
TEST(SignatureErrors, SipValueExpectedEnd) { expectError(sip("I6!S3!k0R1!"), P, 8, "found the end"); }
TEST(SignatureErrors, SipTwoValues) { expectError(sip("I5!_0_1R1!"), P, 5, "unexpected data after the structured value"); }
TEST(SignatureErrors, SipNegativeRawIndex) { expectError(sip("I4!_-1R1!"), P, 3, "raw index -1 is negative"); }
TEST(SignatureErrors, SipSequenceKey) { expectError(sip("I6!S3!_0R1!"), P, 6, "expected an integer key 'k' in sequence"); }
TEST(SignatureErrors, SipDictKey) { expectError(sip("I6!D3!k0R1!"), P, 6, "expected a string key 'K' in dict"); }
TEST(SignatureErrors, SipKeyOrder) { expectError(sip("I12!S9!k1_0k0_1R1!"), P, 11, "key 0 out of order"); }
TEST(SignatureErrors, SipDuplicateKey) { expectError(sip("I17!D13!K2!a_0K2!a_1R1!"), P, 14, "duplicate key \"a\""); }
TEST(SignatureErrors, SipNegativeSequenceKey) { expectError(sip("I9!S6!k-1_0R1!"), P, 6, "sequence key -1 is negative"); }
TEST(SignatureErrors, SipTooDeep) {
  std::string v = "_0";
  for (std::size_t i = 0; i <= kMaxNestingDepth; ++i) v = SignatureBuilder().span(std::string("k0").append(v), 'S').encoded();
  Error e = sip(SignatureBuilder().span(v, 'I').span("", 'R').encoded());
  ASSERT_TRUE(e);
  EXPECT_NE(e.message().find("nests deeper than 64 levels"), std::string::npos) << e.str();
}
TEST(SignatureErrors, SipManglerNegativeIndex) { expectError(mangler({{-1, {}}}), I, none, "raw index -1 is negative"); }
TEST(SignatureErrors, SipManglerNegativeKey) { expectError(mangler({{0, {std::int64_t{-2}}}}), I, none, "sequence key -2 in path [-2] is negative"); }
TEST(SignatureErrors, SipManglerMixedKeys) { expectError(mangler({{0, {std::int64_t{0}}}, {1, {std::string("x")}}}), I, none, "uses a string key at [], which already has integer keys"); }
TEST(SignatureErrors, SipManglerReassign) { expectError(mangler({{0, {std::string("x")}}, {1, {std::string("x")}}}), I, none, "path [\"x\"] is already assigned (raw index 0)"); }
TEST(SignatureErrors, SipManglerThroughLeaf) { expectError(mangler({{0, {std::string("x")}}, {1, {std::string("x"), std::int64_t{0}}}}), I, none, "walks through the leaf at [\"x\"] (raw index 0)"); }
TEST(SignatureErrors, SipManglerStructAsLeaf) { expectError(mangler({{0, {std::int64_t{0}}}, {1, {}}}), I, none, "path [] is already assigned as a structure"); }
TEST(SignatureErrors, SipArityOutOfRange) { expectError(checkArity(identitySipStructure(3, 0), 2, 0), A, none, "SIP inputs leaf [2] names raw index 2 but the function has 2 raw inputs"); }
TEST(SignatureErrors, SipArityTwice) { expectError(checkArity(*parseSipSignature("I1!R12!S9!k0_0k1_0"), 0, 2), A, none, "SIP results name raw index 0 twice"); }
TEST(SignatureErrors, SipArityUnmapped) { expectError(checkArity(identitySipStructure(1, 0), 2, 0), A, none, "raw index 1 of 2 unmapped"); }
TEST(SignatureErrors, SipVersion) { expectError(sipFromAttributes({{"sipv", "3"}, {"sip", "I1!R1!"}}).takeError(), ErrorCode::Unsupported, none, "sipv = '3' is not supported"); }
TEST(SignatureErrors, SipAbiv) { expectError(sipFromAttributes({{"abi", "sip"}}).takeError(), ErrorCode::NotFound, none, "without 'abiv'"); }
TEST(SignatureErrors, SipAttributeMissing) { expectError(sipFromAttributes({{"sipv", "1"}}).takeError(), ErrorCode::NotFound, none, "'sip' is missing"); }

// V1 reflection
TEST(SignatureErrors, ReflectionInvalidJson) { expectError(refl("{\"a\":[}"), P, 6, "invalid JSON: syntax error"); }
TEST(SignatureErrors, ReflectionNumberOverflow) { expectError(refl("{\"a\":[1e999],\"r\":[]}"), P, 6, "invalid JSON: number overflow parsing '1e999'"); }
TEST(SignatureErrors, ReflectionTooDeep) { expectError(refl(std::string(100, '[')), P, 66, "JSON nests deeper than 64 levels"); }
TEST(SignatureErrors, ReflectionNotObject) { expectError(refl(" [1]"), P, 1, "reflection must be a JSON object with \"a\" and \"r\", found array"); }
TEST(SignatureErrors, ReflectionNoArgs) { expectError(refl("{\"r\":[]}"), P, 0, "reflection has no \"a\" array"); }
TEST(SignatureErrors, ReflectionResultsNotArray) { expectError(refl("{\"a\":[],\"r\":1}"), P, 0, "reflection \"r\" must be an array"); }
TEST(SignatureErrors, ReflectionVersion) { expectError(refl("{\"a\":[],\"r\":[],\"v\":1.5}"), P, 0, "\"v\" must be an integer version"); }
TEST(SignatureErrors, ReflectionUnknownPrimitive) { expectError(refl("{\"a\":[\"u8\"],\"r\":[]}"), P, 6, "a[0]: unknown primitive type \"u8\""); }
TEST(SignatureErrors, ReflectionNotARecord) { expectError(refl("{\"a\":[true],\"r\":[]}"), P, 6, "a[0]: expected a type record (string, null or array), found boolean"); }
TEST(SignatureErrors, ReflectionCompoundKind) { expectError(refl("{\"a\":[],\"r\":[[3]]}"), P, 13, "r[0]: a compound type record must start with its kind"); }
TEST(SignatureErrors, ReflectionUnknownKind) { expectError(refl("{\"a\":[[\"tensor\"]],\"r\":[]}"), P, 7, "a[0][0]: unknown type record kind \"tensor\""); }
TEST(SignatureErrors, ReflectionFieldCount) { expectError(refl("{\"a\":[[\"named\",\"x\"]],\"r\":[]}"), P, 6, "\"named\" takes 2 field(s), found 1"); }
TEST(SignatureErrors, ReflectionNamedName) { expectError(refl("{\"a\":[[\"named\",2,\"i8\"]],\"r\":[]}"), P, 15, "the name of a \"named\" record must be a string"); }
TEST(SignatureErrors, ReflectionNdarrayShort) { expectError(refl("{\"a\":[[\"ndarray\",\"f32\"]],\"r\":[]}"), P, 6, "needs an element type and a rank"); }
TEST(SignatureErrors, ReflectionNdarrayRank) { expectError(refl("{\"a\":[[\"ndarray\",\"f32\",\"2\"]],\"r\":[]}"), P, 23, "rank of an ndarray must be a non-negative integer or null"); }
TEST(SignatureErrors, ReflectionNdarrayDims) { expectError(refl("{\"a\":[[\"ndarray\",\"f32\",2,1]],\"r\":[]}"), P, 6, "ndarray of rank 2 lists 1 dims"); }
TEST(SignatureErrors, ReflectionNdarrayNullRankDims) { expectError(refl("{\"a\":[[\"ndarray\",\"f32\",null,1]],\"r\":[]}"), P, 28, "unknown (null) rank takes no dims"); }
TEST(SignatureErrors, ReflectionNdarrayDim) { expectError(refl("{\"a\":[[\"ndarray\",\"f32\",1,\"x\"]],\"r\":[]}"), P, 25, "an ndarray dim must be a non-negative integer or null"); }
TEST(SignatureErrors, ReflectionNdarrayDimOverflow) { expectError(refl("{\"a\":[[\"ndarray\",\"f32\",1,9223372036854775808]],\"r\":[]}"), P, 25, "dim does not fit in 64 bits"); }
TEST(SignatureErrors, ReflectionSdictEntry) { expectError(refl("{\"a\":[[\"sdict\",[\"k\"]]],\"r\":[]}"), P, 15, "an sdict entry must be [\"key\", record]"); }
TEST(SignatureErrors, ReflectionDictWrap) { expectError(refl("{\"a\":[[\"dict\",\"i32\"]],\"r\":[]}"), P, 14, "\"dict\" must wrap an \"sdict\""); }
TEST(SignatureErrors, ReflectionListWrap) { expectError(refl("{\"a\":[[\"list\",\"i32\"]],\"r\":[]}"), P, 14, "\"list\" must wrap an \"slist\" or \"stuple\""); }
TEST(SignatureErrors, ReflectionScalarWrap) { expectError(refl("{\"a\":[[\"scalar\",[\"slist\"]]],\"r\":[]}"), P, 16, "\"scalar\" must wrap a primitive type"); }
TEST(SignatureErrors, ReflectionArityArgs) { expectError(checkArity(*parseReflection("{\"a\":[\"i8\"],\"r\":[]}"), 2, 0), A, none, "reflection args consume 1 raw arguments but the function has 2"); }
TEST(SignatureErrors, ReflectionArityResults) { expectError(checkArity(*parseReflection("{\"a\":[],\"r\":[null]}"), 0, 1), A, none, "reflection results consume 0 raw results but the function has 1"); }

// describe
TEST(SignatureErrors, DescribeEmptyName) { expectError(describe("", FunctionType{}).takeError(), I, none, "non-empty name"); }

TEST(SignatureErrors, ArgumentNamesMustMatchTheInputs) {
  auto type = *parseFunctionType("(i32, f32) -> ()");
  test::expectError(describe("f", type, {"a"}).takeError(), ErrorCode::InvalidArgument,
                    {"function 'f'", "1 argument names for 2 inputs"});
}

TEST(SignatureErrors, ArgumentNamesMustBeNonEmpty) {
  auto type = *parseFunctionType("(i32, f32) -> ()");
  test::expectError(describe("f", type, {"a", ""}).takeError(), ErrorCode::InvalidArgument,
                    {"function 'f'", "argument 1 has an empty name"});
}

TEST(SignatureErrors, ArgumentNamesMustBeDistinct) {
  auto type = *parseFunctionType("(i32, f32) -> ()");
  test::expectError(describe("f", type, {"a", "a"}).takeError(), ErrorCode::InvalidArgument,
                    {"function 'f'", "argument 1 repeats the name 'a'"});
}
