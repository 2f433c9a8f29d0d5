#include "memjit/type_syntax.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "support/mlir.h"

namespace memjit {
namespace {

std::string canonical(std::string_view text) {
  auto t = parseType(text);
  if (!t) return "ERROR: " + t.error().str();
  return toString(*t);
}

std::string canonicalFn(std::string_view text) {
  auto t = parseFunctionType(text);
  if (!t) return "ERROR: " + t.error().str();
  return toString(*t);
}

TEST(TypeSyntax, CanonicalSpellingsRoundTrip) {
  for (const char* s : {"f32", "index", "i1", "si32", "ui8", "bf16", "f16", "f64", "!llvm.ptr",
                        "complex<f32>", "complex<f64>", "memref<f32>", "memref<?x4xf32>",
                        "memref<*xf32>", "memref<*xi8, 3>", "memref<4x?xf32, strided<[?, 1], offset: ?>>",
                        "memref<8xf32, 1>", "memref<0x4xi8>", "memref<2x4xf32, strided<[4, 1]>>",
                        "memref<8xf32, strided<[1], offset: 5>, 2>", "memref<f32, strided<[], offset: ?>>",
                        "memref<4xf32, strided<[-1], offset: -3>>", "memref<?x?x?x?xcomplex<f64>>",
                        "memref<3xindex>"})
    EXPECT_EQ(canonical(s), s);
}

TEST(TypeSyntax, FunctionTypesRoundTrip) {
  for (const char* s : {"(memref<?xf32>, i32) -> (i32, memref<?x?xf32>)", "() -> ()", "(f32) -> f32",
                        "(memref<*xf32>) -> memref<*xf32>", "(i32) -> (i32, i32)"})
    EXPECT_EQ(canonicalFn(s), s);
}

TEST(TypeSyntax, NonCanonicalSpellingsAreAccepted) {
  EXPECT_EQ(canonical("memref<4 x ? x f32>"), "memref<4x?xf32>");
  EXPECT_EQ(canonical("  memref< 4x?xf32 >  "), "memref<4x?xf32>");
  EXPECT_EQ(canonical("memref<4x?xf32,strided<[?,1],offset:?>>"),
            "memref<4x?xf32, strided<[?, 1], offset: ?>>");
  EXPECT_EQ(canonical("memref<4xf32, strided<[1], offset: 0>>"), "memref<4xf32, strided<[1]>>");
  EXPECT_EQ(canonical("memref<4xf32, strided<[1]>, 0>"), "memref<4xf32, strided<[1]>>");
  EXPECT_EQ(canonical("memref<*xf32, 0>"), "memref<*xf32>");
  EXPECT_EQ(canonical("memref<4x4xf32, affine_map<(d0, d1) -> (d0, d1)>>"), "memref<4x4xf32>");
  EXPECT_EQ(canonical("memref<4xf32, affine_map<(d0) -> (d0)>, 1>"), "memref<4xf32, 1>");
  EXPECT_EQ(canonicalFn("(f32)->(f32)"), "(f32) -> f32");
  EXPECT_EQ(canonicalFn("( f32 , i32 ) -> ( )"), "(f32, i32) -> ()");
}

TEST(TypeSyntax, ParsesTheModel) {
  auto t = parseType("memref<4x?xf32, strided<[?, 1], offset: ?>, 3>");
  ASSERT_TRUE(t);
  const auto& m = std::get<MemRefType>(*t);
  EXPECT_EQ(m.element(), ElementType::F32);
  EXPECT_EQ(m.shape(), (std::vector<std::int64_t>{4, kDynamic}));
  ASSERT_TRUE(m.layout());
  EXPECT_EQ(m.layout()->offset, kDynamic);
  EXPECT_EQ(m.layout()->strides, (std::vector<std::int64_t>{kDynamic, 1}));
  EXPECT_EQ(m.memorySpace(), 3u);

  auto f = parseFunctionType("(memref<?xf32>, i32) -> (i32, memref<?x?xf32>)");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->inputs.size(), 2u);
  ASSERT_EQ(f->results.size(), 2u);
  EXPECT_EQ(std::get<ElementType>(f->inputs[1]), ElementType::I32);
  EXPECT_EQ(std::get<MemRefType>(f->results[1]).rank(), 2u);
}

struct BadInput {
  const char* text;
  std::size_t offset;
  const char* says;
  ErrorCode code = ErrorCode::ParseError;  // Unsupported for valid MLIR memjit does not take
};

// Each input is an error of its code at its offset whose message says what it must.
template <std::size_t N, typename Parse>
void expectEachRefused(const BadInput (&cases)[N], Parse parse) {
  for (const BadInput& c : cases) {
    auto parsed = parse(c.text);
    ASSERT_FALSE(parsed) << c.text;
    EXPECT_EQ(parsed.error().code(), c.code) << c.text;
    EXPECT_EQ(parsed.error().offset(), c.offset) << c.text << ": " << parsed.error().str();
    EXPECT_NE(parsed.error().message().find(c.says), std::string::npos) << c.text << ": " << parsed.error().str();
  }
}

TEST(TypeSyntax, ErrorsGiveTheOffsetAndWhatWasExpected) {
  const BadInput cases[] = {
      {"memref<4xf32", 12, "expected '>' closing memref<"},
      {"memref<4x?xf33>", 11, "expected a type"},
      {"memref<4 4xf32>", 9, "expected 'x' after a dim"},
      {"memref<-1xf32>", 7, "expected a type"},
      {"tensor<4xf32>", 0, "expected a type"},
      {"i3", 0, "unsupported integer type i3"},
      {"si1", 0, "unsupported integer type si1"},
      {"memref<4xf32, strided<[1, 1]>>", 14, "2 strides for a memref of rank 1"},
      {"memref<4xf32, strided<[1] offset: 2>>", 26, "expected '>' closing strided<"},
      {"memref<4xf32, 1, 2>", 15, "expected '>' closing memref<"},
      {"memref<4xf32, -1>", 14, "memory space -1 is out of range"},
      {"memref<99999999999999999999xf32>", 7, "does not fit in 64 bits"},
      {"memref<*x?xf32>", 9, "expected a type"},
      {"memref<*f32>", 8, "expected 'x' after '*'"},
      {"complex<i32>", 8, "expected f32 or f64 inside complex<>"},
      {"f32 f32", 4, "unexpected text after the type"},
      {"", 0, "expected a type"},
      {"memref<4x4xf32, strided<[4, 0]>>", 28, "strides must not be zero"},
      {"memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>", 16, "only identity affine_map layouts",
       ErrorCode::Unsupported},
  };
  expectEachRefused(cases, parseType);
}

TEST(TypeSyntax, FunctionTypeErrors) {
  auto a = parseFunctionType("(f32 -> f32");
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().offset(), 5u);
  EXPECT_NE(a.error().message().find("',' or ')' in a type list"), std::string::npos);
  auto b = parseFunctionType("(f32) f32");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().offset(), 6u);
  EXPECT_NE(b.error().message().find("expected '->'"), std::string::npos);
  auto c = parseFunctionType("(f32) -> (f32");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().offset(), 13u);
  EXPECT_NE(c.error().message().find("found end of input"), std::string::npos);
}

// --- Against the real MLIR printer (LLVM's version) ------------------------

std::string randomType(std::mt19937& rng) {
  static const char* scalars[] = {"i1",  "i8",   "i16",  "i32",  "i64",   "si8",  "si16",
                                  "si32", "si64", "ui8", "ui16", "ui32", "ui64", "f16",
                                  "bf16", "f32",  "f64", "index", "complex<f32>", "complex<f64>"};
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  std::string elem = scalars[pick(20)];
  int kind = pick(5);
  if (kind == 0) return elem;
  std::ostringstream s;
  if (kind == 1) {
    s << "memref<*x" << elem;
    if (pick(2)) s << ", " << pick(4);
    s << ">";
    return s.str();
  }
  int rank = pick(5);
  s << "memref<";
  for (int i = 0; i < rank; ++i) {
    if (pick(3) == 0) s << "?";
    else s << pick(9);
    s << "x";
  }
  s << elem;
  if (pick(2)) {
    s << ", strided<[";
    for (int i = 0; i < rank; ++i) {
      if (i) s << ",";
      if (pick(3) == 0) s << "?";
      else s << (pick(2) ? 1 : -1) * (1 + pick(30));
    }
    s << "]";
    int o = pick(4);
    if (o == 1) s << ", offset: ?";
    if (o == 2) s << ", offset: " << pick(100);
    if (o == 3) s << ",offset:0";
    s << ">";
  }
  if (pick(2)) s << "," << pick(3);
  s << ">";
  return s.str();
}

TEST(TypeSyntax, PrintsExactlyWhatMlirOptPrints) {
  const std::string tool = test::mlirTool(MEMJIT_MLIR_OPT);
  if (tool.empty())
    MEMJIT_MLIR_UNAVAILABLE() << "mlir-opt-" MEMJIT_MLIR_VERSION " not found (Debian package mlir-"
                              MEMJIT_MLIR_VERSION "-tools)";

  std::mt19937 rng(1234);
  std::vector<std::string> inputs, ours;
  std::ostringstream module;
  for (int i = 0; i < 300; ++i) {
    std::string a = randomType(rng), b = randomType(rng);
    std::string fn = "(" + a + ", " + b + ") -> (" + randomType(rng) + ")";
    auto parsed = parseFunctionType(fn);
    ASSERT_TRUE(parsed) << fn << ": " << parsed.error().str();
    inputs.push_back(fn);
    ours.push_back(toString(*parsed));
    // A type attribute prints the function type as MLIR's printer spells it.
    module << "\"test.t\"() {t" << i << " = " << fn << "} : () -> ()\n";
  }
  std::string in = std::string(::testing::TempDir()) + "/memjit_types.mlir";
  std::ofstream(in) << module.str();
  std::string cmd = tool + " --allow-unregistered-dialect --mlir-print-op-generic " + in + " 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    std::string key = "t" + std::to_string(i) + " = ";
    std::size_t at = out.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    at += key.size();
    std::size_t end = out.find_first_of("}\n", at);
    // Attributes print comma-separated; ours is the whole attribute value.
    std::string theirs = out.substr(at, end - at);
    std::size_t next = theirs.find(", t");
    if (next != std::string::npos) theirs = theirs.substr(0, next);
    EXPECT_EQ(ours[i], theirs) << "input: " << inputs[i];
  }
}

TEST(TypeSyntax, ParseElementTypeAcceptsEachElementType) {
  for (ElementType t : {ElementType::I1, ElementType::I8, ElementType::I16, ElementType::I32, ElementType::I64,
                        ElementType::SI8, ElementType::SI16, ElementType::SI32, ElementType::SI64, ElementType::UI8,
                        ElementType::UI16, ElementType::UI32, ElementType::UI64, ElementType::F16, ElementType::BF16,
                        ElementType::F32, ElementType::F64, ElementType::Index, ElementType::Ptr,
                        ElementType::ComplexF32, ElementType::ComplexF64}) {
    auto parsed = parseElementType(toString(t));
    ASSERT_TRUE(parsed.ok()) << toString(t) << ": " << parsed.error().message();
    EXPECT_EQ(*parsed, t) << toString(t);
  }
  auto spaced = parseElementType("  complex< f64 >  ");
  ASSERT_TRUE(spaced.ok()) << spaced.error().message();
  EXPECT_EQ(*spaced, ElementType::ComplexF64);
}

TEST(TypeSyntax, ParseElementTypeRefusesWithTheOffset) {
  const BadInput cases[] = {
      {"", 0, "expected a type"},
      {"f8", 0, "expected a type"},
      {"f32x", 0, "expected a type"},
      {"si1", 0, "unsupported integer type si1 (memjit supports widths 1 (signless only), 8, 16, 32, 64)"},
      {"ui1", 0, "unsupported integer type ui1"},
      {"i0", 0, "unsupported integer type i0"},
      {"i128", 0, "unsupported integer type i128"},
      {"i-8", 0, "unsupported integer type i-8"},
      {"i", 1, "expected integer width"},
      {"i99999999999999999999", 1, "integer width does not fit in 64 bits"},
      {"complex<i32>", 8, "expected f32 or f64 inside complex<>"},
      {"complex<f32", 11, "'>' closing complex<"},
      // A memref is a type but no element type.
      {"memref<4xf32>", 0, "expected a type"},
      {"f32 f64", 4, "unexpected text after the element type, found"},
  };
  expectEachRefused(cases, parseElementType);
}

}  // namespace
}  // namespace memjit
