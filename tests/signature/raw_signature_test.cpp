#include "memjit/signature/raw_signature.h"

#include <gtest/gtest.h>

#include "memjit/type_syntax.h"
#include "support/parse_error_case.h"
#include "support/types.h"

using namespace memjit;
using namespace memjit::signature;
using memjit::test::functionType;

namespace {

RawSignature parseOk(std::string_view f) { return test::valueOrFail(parseRawSignature(f), std::string(f)); }

std::string toStringOf(std::string_view f) { return toString(parseOk(f)); }

}  // namespace

TEST(RawElement, NamesSizesCodes) {
  const char* names[] = {"float32", "float16", "float64", "bfloat16", "sint8",  "sint16",
                         "sint32",  "sint64",  "uint8",   "uint16",   "uint32", "uint64"};
  const std::size_t sizes[] = {4, 2, 8, 2, 1, 2, 4, 8, 1, 2, 4, 8};
  for (unsigned i = 0; i < kNumRawElements; ++i) {
    auto e = rawElementFromCode(i);
    ASSERT_TRUE(e);
    EXPECT_EQ(rawElementName(*e), names[i]);
    EXPECT_EQ(rawElementSize(*e), sizes[i]);
    // Each code survives a scalar and a buffer round trip.
    RawSignature s{{RawScalar{*e}, RawBuffer{*e, {2, -1}}}, {}};
    EXPECT_EQ(parseOk(mangle(s)), s);
  }
  EXPECT_FALSE(rawElementFromCode(12));
  EXPECT_FALSE(rawElementFromCode(-1));
}

TEST(RawSignature, PublishedItems) {
  EXPECT_EQ(mangle(RawType(RawBuffer{})), "B1!");
  EXPECT_EQ(mangle(RawType(RawBuffer{RawElement::Float64, {-1, 128, 64}})), "B13!t2d-1d128d64");
  EXPECT_EQ(mangle(RawType(RawScalar{})), "S1!");
  EXPECT_EQ(mangle(RawType(RawScalar{RawElement::SInt32})), "S3!t6");
  EXPECT_EQ(mangle(RawType(RawRefObject{})), "O1!");
}

TEST(RawSignature, PublishedToString) {
  EXPECT_EQ(toStringOf("I1!R1!"), "() -> ()");
  EXPECT_EQ(toStringOf("I15!B11!d10d128d64R15!B11!t6d32d8d64"),
            "(Buffer<float32[10x128x64]>) -> (Buffer<sint32[32x8x64]>)");
  EXPECT_EQ(toStringOf("I15!B11!d-1d128d64R15!B11!t6d-1d8d64"),
            "(Buffer<float32[?x128x64]>) -> (Buffer<sint32[?x8x64]>)");
  EXPECT_EQ(toStringOf("I6!S3!t6R6!S3!t2"), "(sint32) -> (float64)");
  EXPECT_EQ(toStringOf("I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64"),
            "(RefObject<?>, Buffer<float32[?x128x64]>, sint32) -> (Buffer<uint64[32x?x64]>)");
}

TEST(RawSignature, PublishedSignaturesRoundTripByteForByte) {
  for (const char* f : {"I1!R1!", "I15!B11!d10d128d64R15!B11!t6d32d8d64", "I15!B11!d-1d128d64R15!B11!t6d-1d8d64",
                        "I6!S3!t6R6!S3!t2", "I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64", "I4!U1!R1!"})
    EXPECT_EQ(mangle(parseOk(f)), f);
}

TEST(RawSignature, UnrecognizedIsAccepted) {
  RawSignature s = parseOk("I4!U1!R1!");
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<RawUnrecognized>(s.inputs[0]));
  EXPECT_EQ(toString(s), "(Unrecognized<?>) -> ()");
}

TEST(RawSignature, OpaqueSpanContentsAreKept) {
  RawSignature s = parseOk("I11!O4!abcU2!zR1!");
  EXPECT_EQ(std::get<RawRefObject>(s.inputs[0]).details, "abc");
  EXPECT_EQ(std::get<RawUnrecognized>(s.inputs[1]).details, "z");
  EXPECT_EQ(mangle(s), "I11!O4!abcU2!zR1!");
}

TEST(RawSignature, ExplicitFloat32IsKept) {
  RawSignature s = parseOk("I6!S3!t0R1!");
  EXPECT_EQ(std::get<RawScalar>(s.inputs[0]).element, RawElement::Float32);
  EXPECT_EQ(mangle(s), "I6!S3!t0R1!");
  EXPECT_EQ(toString(s), "(float32) -> ()");
}

TEST(RawSignature, RankZeroBuffer) { EXPECT_EQ(toStringOf("I4!B1!R1!"), "(Buffer<float32[]>) -> ()"); }

using BadCase = memjit::test::ParseErrorCase;

class RawSignatureErrors : public testing::TestWithParam<BadCase> {};

TEST_P(RawSignatureErrors, NameOffsetAndProblem) {
  test::expectParseError(parseRawSignature(GetParam().text).takeError(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, RawSignatureErrors,
    testing::Values(
        // published
        BadCase{"I7!B4!t12R1!", 6, "illegal element code t12"}, BadCase{"I6!B3!x1R1!", 6, "unknown buffer field 'x'"},
        BadCase{"R1!", 0, "inputs span 'I'"}, BadCase{"I5!ab", 1, "runs past the end"},
        // more
        BadCase{"", 0, "inputs span 'I'"}, BadCase{"I1!", 3, "results span 'R'"},
        BadCase{"I1!R1!_1", 6, "after the results"}, BadCase{"I1!I1!", 3, "results span 'R'"},
        BadCase{"_1R1!", 0, "inputs span"}, BadCase{"I4!X1!R1!", 3, "unknown type span 'X'"},
        BadCase{"I3!_1R1!", 3, "found integer '_'"}, BadCase{"I7!B4!d-2R1!", 6, "negative"},
        BadCase{"I8!B5!d1t2R1!", 8, "must come first"}, BadCase{"I8!B5!t2t2R1!", 8, "must come first"},
        BadCase{"I6!S3!d1R1!", 6, "unknown scalar field 'd'"}, BadCase{"I7!S4!t-1R1!", 6, "illegal element code"},
        BadCase{"I7!B4!t99999999999999999999R1!", 6, "illegal element code t99"},
        BadCase{"I26!B22!t99999999999999999999R1!", 9, "does not fit"}, BadCase{"I5!B2!#R1!", 6, "illegal component tag"},
        BadCase{"I4!B1!R", 7, "expected the length"}, BadCase{"I4!B0!R1!", 5, "length 0"}));

TEST(RawSignature, FromFunctionType) {
  EXPECT_EQ(mangle(toRawSignature(functionType("(memref<?x128x64xf32>, si32) -> memref<?x8x64xsi32>"))),
            "I20!B11!d-1d128d64S3!t6R15!B11!t6d-1d8d64");
  EXPECT_EQ(toString(toRawSignature(functionType("() -> ()"))), "() -> ()");
  EXPECT_EQ(toString(toRawSignature(functionType("(f32, f64, f16, bf16) -> (ui8, ui16, ui32, ui64)"))),
            "(float32, float64, float16, bfloat16) -> (uint8, uint16, uint32, uint64)");
}

TEST(RawSignature, LossyMappings) {
  EXPECT_EQ(toString(toRawSignature(functionType("(i1, i8, i16, i32, i64, index) -> ()"))),
            "(sint8, sint8, sint16, sint32, sint64, sint64) -> ()");
  EXPECT_EQ(toString(toRawSignature(functionType("(!llvm.ptr, complex<f32>, memref<*xf32>, memref<4xcomplex<f64>>) -> ()"))),
            "(RefObject<?>, Unrecognized<?>, Unrecognized<?>, Unrecognized<?>) -> ()");
  // Strided layout and memory space leave no trace: only shape and element remain.
  EXPECT_EQ(toRawSignature(functionType("(memref<4x?xf32, strided<[?, 1], offset: ?>>) -> ()")),
            toRawSignature(functionType("(memref<4x?xf32, 1>) -> ()")));
  EXPECT_EQ(toString(toRawSignature(functionType("(memref<f64>) -> ()"))), "(Buffer<float64[]>) -> ()");
}

TEST(RawSignature, ElementConversionBothWays) {
  for (ElementType t : kAllElementTypes) {
    auto r = toRawElement(t);
    if (!r) {
      EXPECT_TRUE(t == ElementType::Ptr || isComplex(t)) << spelling(t);
      continue;
    }
    // Round trip keeps the width and the float/int family.
    ElementType back = toElementType(*r);
    EXPECT_EQ(rawElementSize(*r), storageSize(back)) << spelling(t);
    EXPECT_EQ(toRawElement(back), r) << spelling(t);
    EXPECT_EQ(isFloat(back), isFloat(t)) << spelling(t);
  }
}

TEST(RawAttributes, WriteAndRead) {
  FunctionType t = functionType("(memref<2x3xf32>) -> i32");
  AttributeMap attrs = rawAttributes(t);
  EXPECT_EQ(attrs.at("fv"), "1");
  EXPECT_EQ(attrs.count("fbr"), 0u);
  auto back = parseRawAttributes(attrs);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, toRawSignature(t));
  EXPECT_EQ(rawAttributes(t, "__allocate_results").at("fbr"), "__allocate_results");
}

TEST(RawAttributes, Errors) {
  EXPECT_EQ(parseRawAttributes({{"fv", "1"}}).error().code(), ErrorCode::NotFound);
  EXPECT_EQ(parseRawAttributes({{"fv", "2"}, {"f", "I1!R1!"}}).error().code(), ErrorCode::Unsupported);
  auto bad = parseRawAttributes({{"fv", "1"}, {"f", "I1!"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().offset(), 3u);
  EXPECT_NE(bad.error().message().find("attribute 'f'"), std::string::npos);
}

TEST(RawSignature, ToRawTypeFollowsTheMappingTable) {
  using test::type;
  struct Case {
    const char* type;
    const char* mangled;
    const char* printed;
  };
  const Case cases[] = {
      {"f32", "S1!", "float32"},  // float32 is the default: no `t`
      {"f16", "S3!t1", "float16"},
      {"bf16", "S3!t3", "bfloat16"},
      {"si8", "S3!t4", "sint8"},
      {"i8", "S3!t4", "sint8"},    // signless read as signed
      {"i1", "S3!t4", "sint8"},    // its storage byte
      {"ui16", "S3!t9", "uint16"},
      {"index", "S3!t7", "sint64"},
      {"ui64", "S4!t11", "uint64"},
      {"!llvm.ptr", "O1!", "RefObject<?>"},
      {"complex<f64>", "U1!", "Unrecognized<?>"},
      {"memref<?x128x64xf32>", "B11!d-1d128d64", "Buffer<float32[?x128x64]>"},
      {"memref<f64>", "B3!t2", "Buffer<float64[]>"},
      {"memref<0xui64, strided<[4], offset: 2>, 1>", "B6!t11d0", "Buffer<uint64[0]>"},  // layout and space lost
      {"memref<3x!llvm.ptr>", "U1!", "Unrecognized<?>"},
      {"memref<2xcomplex<f32>>", "U1!", "Unrecognized<?>"},
      {"memref<*xf32>", "U1!", "Unrecognized<?>"},  // no rank-erased buffers
  };
  for (const Case& c : cases) {
    RawType raw = toRawType(type(c.type));
    EXPECT_EQ(mangle(raw), c.mangled) << c.type;
    EXPECT_EQ(toString(raw), c.printed) << c.type;
  }
  // toRawSignature is toRawType per argument and result.
  RawSignature sig = toRawSignature(functionType("(memref<?xbf16>, index) -> i1"));
  EXPECT_EQ(sig.inputs, (std::vector<RawType>{toRawType(type("memref<?xbf16>")), toRawType(type("index"))}));
  EXPECT_EQ(sig.results, std::vector<RawType>{toRawType(type("i1"))});
}
