#include "memjit/signature/reflection.h"

#include <gtest/gtest.h>

#include "memjit/signature/raw_signature.h"
#include "memjit/type_syntax.h"
#include "support/types.h"

using namespace memjit;
using namespace memjit::signature;
using memjit::test::functionType;

namespace {

Reflection parseOk(std::string_view json) { return test::valueOrFail(parseReflection(json), std::string(json)); }

}  // namespace

TEST(Reflection, PublishedExampleRoundTripsExactly) {
  const char* json =
      R"({"a":[["ndarray","f32",2,2,3],["ndarray","f32",1,3]],"r":[["ndarray","f32",1,3],["ndarray","f32",2,2,3]],"v":1})";
  Reflection r = parseOk(json);
  ASSERT_EQ(r.args.size(), 2u);
  EXPECT_EQ(r.args[0], TypeRecord::ndarray(TypeRecord::primitive("f32"), {2, 3}));
  EXPECT_EQ(r.version, 1);
  EXPECT_EQ(toJson(r), json);
}

TEST(Reflection, EveryRecordKindRoundTrips) {
  const char* json =
      R"({"a":["i32","f16","bf16",null,"unknown",["named","x",["ndarray","i8",null]],)"
      R"(["ndarray","f64",3,null,4,null],["slist","i32",null,"f32"],["stuple"],)"
      R"(["sdict",["a","i32"],["b",["slist","i64"]]],["py_homogeneous_list","f32"],)"
      R"(["dict",["sdict",["k","i1"]]],["list",["stuple","i8","i8"]],["scalar","i64"]],"r":[]})";
  Reflection r = parseOk(json);
  ASSERT_EQ(r.args.size(), 14u);
  const RecordKind kinds[] = {RecordKind::Primitive, RecordKind::Primitive, RecordKind::Primitive, RecordKind::Null,
                              RecordKind::Unknown,   RecordKind::Named,     RecordKind::NDArray,   RecordKind::SList,
                              RecordKind::STuple,    RecordKind::SDict,     RecordKind::PyHomogeneousList,
                              RecordKind::Dict,      RecordKind::List,      RecordKind::Scalar};
  for (std::size_t i = 0; i < 14; ++i) EXPECT_EQ(r.args[i].kind, kinds[i]) << i;
  EXPECT_FALSE(r.args[5].slots[0].rank);
  EXPECT_EQ(r.args[6].dims, (std::vector<std::optional<std::int64_t>>{std::nullopt, 4, std::nullopt}));
  EXPECT_EQ(r.args[9].keys, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(r.version);
  EXPECT_EQ(toJson(r), json);
}

TEST(Reflection, AcceptsWhitespaceAndIgnoresOtherKeys) {
  Reflection r = parseOk(" { \"v\" : 1 , \"r\" : [ \"i32\" ], \"x\": {\"y\": 2}, \"a\" : [ ] } ");
  EXPECT_EQ(toJson(r), R"({"a":[],"r":["i32"],"v":1})");
}

TEST(Reflection, StringsWithEscapesRoundTrip) {
  Reflection r = parseOk(R"({"a":[["named","q\"\\\u00e9\n",null]],"r":[]})");
  EXPECT_EQ(r.args[0].name, "q\"\\\xc3\xa9\n");
  EXPECT_EQ(parseOk(toJson(r)), r);
}

TEST(Reflection, RecordHelpersAndSingleRecordJson) {
  EXPECT_EQ(toJson(TypeRecord::unrankedNDArray(TypeRecord::primitive("f32"))), R"(["ndarray","f32",null])");
  EXPECT_EQ(toJson(TypeRecord::ndarray(TypeRecord::primitive("i8"), {})), R"(["ndarray","i8",0])");
  auto rec = parseTypeRecord(R"(["named","n",["sdict",["a","i32"]]])");
  ASSERT_TRUE(rec);
  EXPECT_EQ(*rec, TypeRecord::named("n", TypeRecord::sdict({"a"}, {TypeRecord::primitive("i32")})));
  EXPECT_EQ(recordKindName(RecordKind::PyHomogeneousList), "py_homogeneous_list");
}

TEST(Reflection, DefaultOfFunctionType) {
  Reflection r = defaultReflection(functionType("(memref<2x3xf32>, memref<?x4xi8>, memref<*xf64>, si32) -> (index, i1)"));
  EXPECT_EQ(toJson(r),
            R"({"a":[["ndarray","f32",2,2,3],["ndarray","i8",2,null,4],["ndarray","f64",null],"i32"],)"
            R"("r":["i64","i1"],"v":1})");
  EXPECT_EQ(toJson(defaultReflection(functionType("(!llvm.ptr, complex<f32>, bf16, ui16, memref<f16>) -> ()"))),
            R"({"a":["unknown","unknown","bf16","i16",["ndarray","f16",0]],"r":[],"v":1})");
}

TEST(Reflection, RawArity) {
  EXPECT_EQ(rawArity(TypeRecord::primitive("i32")), 1u);
  EXPECT_EQ(rawArity(TypeRecord::null()), 0u);
  auto r = parseOk(R"({"a":["i32",["named","a","i32"],["sdict",["a","i32"],["b",["stuple","f32","f32"]]],)"
                   R"(["slist","i32",null,"i32"],["py_homogeneous_list","f32"],["dict",["sdict"]]],"r":[]})");
  EXPECT_EQ(rawArity(r.args[0]), 1u);
  EXPECT_EQ(rawArity(r.args[1]), 1u);
  EXPECT_EQ(rawArity(r.args[2]), 3u);
  EXPECT_EQ(rawArity(r.args[3]), 2u);
  EXPECT_EQ(rawArity(r.args[4]), 1u);
  EXPECT_EQ(rawArity(r.args[5]), 0u);
  EXPECT_FALSE(checkArity(r, 8, 0));
  Error e = checkArity(r, 7, 0);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::ArityMismatch);
  EXPECT_NE(e.message().find("consume 8"), std::string::npos) << e.str();
  EXPECT_TRUE(checkArity(r, 8, 1));
}

TEST(Reflection, PublishedInvocationShapesHaveTheRightArity) {
  // The reference binding packs three raw args for these and two for the sdict.
  EXPECT_FALSE(checkArity(parseOk(R"({"a":["i32",["named","a","i32"],["named","b","i32"]],"r":["i32"]})"), 3, 1));
  EXPECT_FALSE(checkArity(parseOk(R"({"a":[["sdict",["a","i32"],["b","i32"]]],"r":["i32"]})"), 2, 1));
  EXPECT_FALSE(checkArity(parseOk(R"({"a":[["slist","i32","i32"]],"r":["i32"]})"), 2, 1));
}

TEST(Reflection, DefaultMatchesRawArity) {
  for (const char* t : {"() -> ()", "(memref<?xf32>, i32) -> (i32, memref<?x?xf32>)", "(f32) -> f32",
                        "(memref<*xf32>, !llvm.ptr, index) -> memref<4x?xf32, strided<[?, 1], offset: ?>>"}) {
    FunctionType f = functionType(t);
    RawSignature raw = toRawSignature(f);
    EXPECT_FALSE(checkArity(defaultReflection(f), raw.inputs.size(), raw.results.size())) << t;
  }
}

TEST(Reflection, ReadableForm) {
  Reflection r = parseOk(
      R"({"a":[["ndarray","f32",2,2,null],["named","n","i32"],["sdict",["a","i32"],["b",["slist","f32",null]]],)"
      R"(["ndarray","f32",null],["ndarray",["slist","i8"],1,3]],"r":[["py_homogeneous_list","f64"],["dict",["sdict",["k","i1"]]]],"v":1})");
  EXPECT_EQ(toReadableString(r),
            "args:\n"
            "  0: ndarray<f32, 2x?>\n"
            "  1: named \"n\": i32\n"
            "  2: sdict\n"
            "    \"a\": i32\n"
            "    \"b\": slist\n"
            "      0: f32\n"
            "      1: null\n"
            "  3: ndarray<f32, *>\n"
            "  4: ndarray<3> of\n"
            "    element: slist\n"
            "      0: i8\n"
            "results:\n"
            "  0: py_homogeneous_list of f64\n"
            "  1: dict of sdict\n"
            "    \"k\": i1\n"
            "version: 1\n");
  EXPECT_EQ(toReadableString(parseOk(R"({"a":[["ndarray","i8",0]],"r":[]})")), "args:\n  0: ndarray<i8>\nresults:\n");
}

struct BadCase {
  const char* json;
  ErrorCode code;
  const char* mentions;
  std::optional<std::size_t> offset = std::nullopt;
};
void PrintTo(const BadCase& c, std::ostream* os) {
  *os << testing::PrintToString(c.json) << ": " << errorCodeName(c.code) << " mentioning "
      << testing::PrintToString(c.mentions);
  if (c.offset) *os << " at byte " << *c.offset;
}

class ReflectionErrors : public testing::TestWithParam<BadCase> {};

TEST_P(ReflectionErrors, NameWhereAndWhat) {
  const BadCase& c = GetParam();
  auto r = parseReflection(c.json);
  ASSERT_FALSE(r) << c.json;
  EXPECT_EQ(r.error().code(), c.code) << r.error().str();
  EXPECT_NE(r.error().message().find(c.mentions), std::string::npos) << r.error().str();
  if (c.offset) {
    EXPECT_EQ(r.error().offset(), c.offset) << r.error().str();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ReflectionErrors,
    testing::Values(
        BadCase{"", ErrorCode::ParseError, "invalid JSON", 0}, BadCase{"{\"a\":[}", ErrorCode::ParseError, "invalid JSON", 6},
        BadCase{"{\"a\":[],\"r\":[]} x", ErrorCode::ParseError, "invalid JSON", 16},
        BadCase{"{\"a\":[\"i32\"", ErrorCode::ParseError, "invalid JSON"},
        BadCase{"[1]", ErrorCode::ParseError, "must be a JSON object"},
        BadCase{"{\"r\":[]}", ErrorCode::ParseError, "no \"a\""},
        BadCase{"{\"a\":[]}", ErrorCode::ParseError, "no \"r\""},
        BadCase{"{\"a\":{},\"r\":[]}", ErrorCode::ParseError, "\"a\" must be an array"},
        BadCase{"{\"a\":[],\"r\":[],\"v\":\"1\"}", ErrorCode::ParseError, "\"v\""},
        BadCase{"{\"a\":[\"i32x\"],\"r\":[]}", ErrorCode::ParseError, "a[0]: unknown primitive type \"i32x\"", 6},
        BadCase{"{\"a\":[\"i0\"],\"r\":[]}", ErrorCode::ParseError, "unknown primitive"},
        BadCase{"{\"a\":[\"i\"],\"r\":[]}", ErrorCode::ParseError, "unknown primitive"},
        BadCase{"{\"a\":[1],\"r\":[]}", ErrorCode::ParseError, "a[0]: expected a type record"},
        BadCase{"{\"a\":[],\"r\":[[]]}", ErrorCode::ParseError, "r[0]: a compound type record must start", 13},
        BadCase{"{\"a\":[[\"tensor\"]],\"r\":[]}", ErrorCode::ParseError, "a[0][0]: unknown type record kind \"tensor\""},
        BadCase{"{\"a\":[[\"named\",\"x\"]],\"r\":[]}", ErrorCode::ParseError, "\"named\" takes 2 field(s), found 1"},
        BadCase{"{\"a\":[[\"named\",1,\"i32\"]],\"r\":[]}", ErrorCode::ParseError, "a[0][1]: the name"},
        BadCase{"{\"a\":[[\"ndarray\",\"f32\"]],\"r\":[]}", ErrorCode::ParseError, "element type and a rank"},
        BadCase{"{\"a\":[[\"ndarray\",\"f32\",2,1]],\"r\":[]}", ErrorCode::ParseError, "rank 2 lists 1 dims"},
        BadCase{"{\"a\":[[\"ndarray\",\"f32\",null,1]],\"r\":[]}", ErrorCode::ParseError, "unknown (null) rank"},
        BadCase{"{\"a\":[[\"ndarray\",\"f32\",-1]],\"r\":[]}", ErrorCode::ParseError, "rank of an ndarray"},
        BadCase{"{\"a\":[[\"ndarray\",\"f32\",1,-3]],\"r\":[]}", ErrorCode::ParseError, "a[0][3]: an ndarray dim", 25},
        BadCase{"{\"a\":[[\"ndarray\",\"f32\",1,1.5]],\"r\":[]}", ErrorCode::ParseError, "an ndarray dim"},
        BadCase{"{\"a\":[[\"ndarray\",\"f32\",1,18446744073709551615]],\"r\":[]}", ErrorCode::ParseError, "64 bits"},
        BadCase{"{\"a\":[[\"sdict\",[\"a\"]]],\"r\":[]}", ErrorCode::ParseError, "a[0][1]: an sdict entry"},
        BadCase{"{\"a\":[[\"sdict\",[1,\"i32\"]]],\"r\":[]}", ErrorCode::ParseError, "an sdict entry"},
        BadCase{"{\"a\":[[\"slist\",\"i32\",\"bogus\"]],\"r\":[]}", ErrorCode::ParseError, "a[0][2]: unknown primitive"},
        BadCase{"{\"a\":[[\"py_homogeneous_list\"]],\"r\":[]}", ErrorCode::ParseError, "takes 1 field(s)"},
        BadCase{"{\"a\":[[\"dict\",[\"slist\"]]],\"r\":[]}", ErrorCode::ParseError, "must wrap an \"sdict\""},
        BadCase{"{\"a\":[[\"list\",[\"sdict\"]]],\"r\":[]}", ErrorCode::ParseError, "\"list\" must wrap"},
        BadCase{"{\"a\":[[\"scalar\",null]],\"r\":[]}", ErrorCode::ParseError, "\"scalar\" must wrap a primitive"},
        BadCase{"{\"a\":[[\"stuple\",[\"named\",\"x\",[\"sdict\",[\"k\",\"q\"]]]]],\"r\":[]}", ErrorCode::ParseError,
                "a[0][1][2][1][1]: unknown primitive", 43}));

TEST(Reflection, DeepNestingIsRejectedWithOffset) {
  std::string deep = "{\"a\":[";
  for (int i = 0; i < 100000; ++i) deep += "[\"slist\",";
  deep += "\"i32\"";
  auto r = parseReflection(deep);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::ParseError);
  EXPECT_NE(r.error().message().find("deeper than"), std::string::npos);
  EXPECT_TRUE(r.error().offset());
}

TEST(Reflection, NestingAtTheLimitParses) {
  std::string rec = "\"i32\"";
  for (std::size_t i = 0; i < kMaxNestingDepth; ++i) rec = "[\"slist\"," + rec + "]";
  Reflection r = parseOk("{\"a\":[" + rec + "],\"r\":[]}");
  EXPECT_EQ(rawArity(r.args[0]), 1u);
  EXPECT_EQ(parseOk(toJson(r)), r);
}

TEST(Reflection, BracketsInsideStringsDoNotCountAsNesting) {
  std::string name(500, '[');
  Reflection r = parseOk("{\"a\":[[\"named\",\"" + name + "\\\"]\",\"i32\"]],\"r\":[]}");
  EXPECT_EQ(r.args[0].name, name + "\"]");
}

TEST(Reflection, RecordErrorOffsetsFollowWhitespaceAndKeyOrder) {
  // "r" before "a", spaces everywhere: the offset still points at the bad record.
  std::string text = R"({ "r" : [ "i32" ] , "a" : [ "i32" , [ "slist" , "i8" , "bad" ] ] })";
  auto r = parseReflection(text);
  ASSERT_FALSE(r);
  ASSERT_TRUE(r.error().offset());
  EXPECT_EQ(text.substr(*r.error().offset(), 5), "\"bad\"") << r.error().str();
  auto rec = parseTypeRecord(R"(["stuple", "i8", ["named", "x", 7]])");
  ASSERT_FALSE(rec);
  EXPECT_EQ(rec.error().offset(), 32u) << rec.error().str();
  EXPECT_NE(rec.error().message().find("record[2][2]"), std::string::npos);
}

TEST(Reflection, DefaultRecordOfEachKindOfType) {
  using test::type;
  // Signedness is dropped and index is 64-bit: the reflection types storage.
  for (const char* text : {"i32", "si32", "ui32"}) EXPECT_EQ(defaultRecord(type(text)), TypeRecord::primitive("i32")) << text;
  EXPECT_EQ(defaultRecord(type("index")), TypeRecord::primitive("i64"));
  EXPECT_EQ(defaultRecord(type("ui64")), TypeRecord::primitive("i64"));
  EXPECT_EQ(defaultRecord(type("i1")), TypeRecord::primitive("i1"));
  EXPECT_EQ(defaultRecord(type("bf16")), TypeRecord::primitive("bf16"));
  EXPECT_EQ(defaultRecord(type("f16")), TypeRecord::primitive("f16"));
  // No V1 primitive names a pointer or a complex number.
  EXPECT_EQ(defaultRecord(type("!llvm.ptr")), TypeRecord::unknown());
  EXPECT_EQ(defaultRecord(type("complex<f32>")), TypeRecord::unknown());
  EXPECT_EQ(defaultRecord(type("complex<f64>")), TypeRecord::unknown());
  // Dynamic dims are null; rank 0 is an ndarray with no dims; unranked has a null rank.
  EXPECT_EQ(defaultRecord(type("memref<?x4x?xf64>")),
            TypeRecord::ndarray(TypeRecord::primitive("f64"), {std::nullopt, 4, std::nullopt}));
  EXPECT_EQ(toJson(defaultRecord(type("memref<?x4xui8>"))), R"(["ndarray","i8",2,null,4])");
  EXPECT_EQ(toJson(defaultRecord(type("memref<f32>"))), R"(["ndarray","f32",0])");
  EXPECT_EQ(toJson(defaultRecord(type("memref<*xi16>"))), R"(["ndarray","i16",null])");
  EXPECT_EQ(defaultRecord(type("memref<0xcomplex<f64>>")), TypeRecord::ndarray(TypeRecord::unknown(), {0}));
  // A layout does not show: the record types the data, not how it is laid out.
  EXPECT_EQ(defaultRecord(type("memref<2x3xf32, strided<[1, 2], offset: ?>>")),
            defaultRecord(type("memref<2x3xf32>")));
  // defaultReflection is defaultRecord per argument and result.
  Reflection r = defaultReflection(functionType("(memref<?xf32>, index) -> ui16"));
  EXPECT_EQ(r.args, (std::vector<TypeRecord>{defaultRecord(type("memref<?xf32>")), defaultRecord(type("index"))}));
  EXPECT_EQ(r.results, std::vector<TypeRecord>{TypeRecord::primitive("i16")});
}
