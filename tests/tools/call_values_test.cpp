// Argument values of `memjit call`: shapes, generators (the
// random one checked against std::mt19937_64's published first output),
// literals, and the checks against the input's type.
#include "call_values.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "memjit/runtime/half.h"
#include "memjit/runtime/npy.h"
#include "memjit/type_syntax.h"
#include "support/expect_error.h"
#include "support/files.h"

namespace memjit::cli {
namespace {

using test::expectError;

template <typename T>
std::vector<T> values(const runtime::Buffer& b) {
  const T* p = static_cast<const T*>(b.data());
  return std::vector<T>(p, p + b.numElements());
}

TEST(RunValues, Shapes) {
  EXPECT_EQ(*parseShape("128x64"), (std::vector<std::int64_t>{128, 64}));
  EXPECT_EQ(*parseShape("7"), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(*parseShape("0x3"), (std::vector<std::int64_t>{0, 3}));
  EXPECT_TRUE(parseShape("()")->empty());
  for (const char* bad : {"", "x3", "3x", "3x-1", "3xx4", "a", "3.5"})
    expectError(parseShape(bad).error(), ErrorCode::InvalidArgument, {"bad shape", "e.g. 128x64"});
  EXPECT_EQ(shapeText(std::vector<std::int64_t>{2, 3}), "2x3");
  EXPECT_EQ(shapeText(std::vector<std::int64_t>{}), "()");
}

TEST(RunValues, GeneratorSpecs) {
  auto g = parseGenerator("random:4x4:seed=9");
  ASSERT_TRUE(g.ok() && g->has_value());
  EXPECT_EQ((*g)->kind, GeneratorKind::Random);
  EXPECT_EQ((*g)->shape, (std::vector<std::int64_t>{4, 4}));
  EXPECT_EQ((*g)->seed, 9u);
  auto s = parseGenerator("random:seed=2");
  ASSERT_TRUE(s.ok() && s->has_value());
  EXPECT_FALSE((*s)->shape);
  auto z = parseGenerator("zeros");
  ASSERT_TRUE(z.ok() && z->has_value());
  EXPECT_EQ((*z)->kind, GeneratorKind::Zeros);
  EXPECT_FALSE((*z)->shape);
  for (const char* notOne : {"x.npy", "2.5", "zero:3", "iotas"}) {
    auto n = parseGenerator(notOne);
    ASSERT_TRUE(n.ok()) << notOne;
    EXPECT_FALSE(n->has_value()) << notOne;
  }
  expectError(parseGenerator("iota:3:seed=1").error(), ErrorCode::InvalidArgument, {"only random takes a seed"});
  expectError(parseGenerator("ones:3:4").error(), ErrorCode::InvalidArgument, {"unexpected '4'", "ones[:SHAPE])"});
  expectError(parseGenerator("random:seed=").error(), ErrorCode::InvalidArgument, {"whole number"});
  expectError(parseGenerator("ones:3y").error(), ErrorCode::InvalidArgument, {"'ones:3y'", "bad shape"});
}

TEST(RunValues, ZerosOnesIota) {
  auto z = generate(GeneratorKind::Zeros, ElementType::F64, {2, 2});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(values<double>(*z), (std::vector<double>{0, 0, 0, 0}));
  auto o = generate(GeneratorKind::Ones, ElementType::SI16, {3});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(values<std::int16_t>(*o), (std::vector<std::int16_t>{1, 1, 1}));
  auto i = generate(GeneratorKind::Iota, ElementType::F32, {2, 3});
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(values<float>(*i), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  auto wrap = generate(GeneratorKind::Iota, ElementType::UI8, {258});
  ASSERT_TRUE(wrap.ok());
  EXPECT_EQ(values<std::uint8_t>(*wrap)[257], 1);  // 257 wraps to 1
  auto bools = generate(GeneratorKind::Iota, ElementType::I1, {3});
  ASSERT_TRUE(bools.ok());
  EXPECT_EQ(values<std::uint8_t>(*bools), (std::vector<std::uint8_t>{0, 1, 0}));
  auto h = generate(GeneratorKind::Ones, ElementType::F16, {1});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(static_cast<float>(values<f16>(*h)[0]), 1.0f);
  auto c = generate(GeneratorKind::Iota, ElementType::ComplexF32, {2});
  ASSERT_TRUE(c.ok());
  const float* parts = static_cast<const float*>(c->data());  // real, imaginary, real, imaginary
  EXPECT_EQ(std::vector<float>(parts, parts + 4), (std::vector<float>{0, 0, 1, 0}));
  expectError(generate(GeneratorKind::Ones, ElementType::Ptr, {1}).error(), ErrorCode::Unsupported, {"!llvm.ptr"});
}

TEST(RunValues, RandomFollowsTheDocumentedBitArithmetic) {
  // std::mt19937_64 seeded with 5489 (its default) first yields 14514284786278117030
  // and then 4620546740167642908: the standard fixes the engine on every compiler.
  constexpr std::uint64_t first = 14514284786278117030ull, second = 4620546740167642908ull;
  auto d = generate(GeneratorKind::Random, ElementType::F64, {2}, 5489);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(values<double>(*d)[0], std::ldexp(static_cast<double>(first >> 11), -53));
  EXPECT_EQ(values<double>(*d)[1], std::ldexp(static_cast<double>(second >> 11), -53));
  auto f = generate(GeneratorKind::Random, ElementType::F32, {1}, 5489);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(values<float>(*f)[0], std::ldexp(static_cast<float>(first >> 40), -24));
  auto i = generate(GeneratorKind::Random, ElementType::I32, {1}, 5489);
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(values<std::int32_t>(*i)[0], static_cast<std::int32_t>(((first >> 32) * 100) >> 32));
  auto b = generate(GeneratorKind::Random, ElementType::I1, {1}, 5489);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(values<std::uint8_t>(*b)[0], first >> 63);
  auto h = generate(GeneratorKind::Random, ElementType::BF16, {1}, 5489);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(static_cast<float>(values<bf16>(*h)[0]), std::ldexp(static_cast<float>(first >> 56), -8));
  auto c = generate(GeneratorKind::Random, ElementType::ComplexF64, {1}, 5489);
  ASSERT_TRUE(c.ok());
  const double* parts = static_cast<const double*>(c->data());
  EXPECT_EQ(parts[0], std::ldexp(static_cast<double>(first >> 11), -53));
  EXPECT_EQ(parts[1], std::ldexp(static_cast<double>(second >> 11), -53));  // the imaginary part
}

TEST(RunValues, RandomRangesAndSeeds) {
  for (ElementType t : {ElementType::F16, ElementType::BF16, ElementType::F32, ElementType::F64}) {
    auto b = generate(GeneratorKind::Random, t, {4096}, 1);
    ASSERT_TRUE(b.ok());
    for (std::int64_t k = 0; k < 4096; ++k) {
      std::int64_t idx[1] = {k};
      const void* p = b->at(idx);
      double v = t == ElementType::F16   ? static_cast<float>(*static_cast<const f16*>(p))
                 : t == ElementType::BF16 ? static_cast<float>(*static_cast<const bf16*>(p))
                 : t == ElementType::F32  ? *static_cast<const float*>(p)
                                          : *static_cast<const double*>(p);
      ASSERT_GE(v, 0.0) << spelling(t);
      ASSERT_LT(v, 1.0) << spelling(t);
    }
  }
  auto ints = generate(GeneratorKind::Random, ElementType::SI8, {4096}, 1);
  ASSERT_TRUE(ints.ok());
  for (std::int8_t v : values<std::int8_t>(*ints)) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 100);
  }
  auto a = generate(GeneratorKind::Random, ElementType::F32, {8}, 1), b = generate(GeneratorKind::Random, ElementType::F32, {8}, 2);
  EXPECT_NE(values<float>(*a), values<float>(*b));
}

TEST(RunValues, Literals) {
  auto i = parseLiteral("-42", ElementType::I32, "n");
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->scalar().type, ElementType::I64);
  EXPECT_EQ(i->toInt(), -42);
  EXPECT_EQ(parseLiteral("0x1F", ElementType::I32, "n")->toInt(), 31);
  EXPECT_EQ(parseLiteral("+7", ElementType::I32, "n")->toInt(), 7);
  EXPECT_EQ(parseLiteral("-9223372036854775808", ElementType::I64, "n")->toInt(), INT64_MIN);
  auto big = parseLiteral("18446744073709551615", ElementType::UI64, "n");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->scalar().type, ElementType::UI64);
  EXPECT_EQ(big->scalar().u, UINT64_MAX);
  EXPECT_EQ(parseLiteral("true", ElementType::I1, "b")->scalar().type, ElementType::I1);
  // Floats are read in the input's type: 0.1 is f32's nearest 0.1.
  auto f = parseLiteral("0.1", ElementType::F32, "x");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->scalar().type, ElementType::F32);
  EXPECT_EQ(static_cast<float>(f->scalar().f), 0.1f);
  EXPECT_EQ(parseLiteral("0.1", ElementType::F64, "x")->scalar().f, 0.1);
  auto h = parseLiteral("0.1", ElementType::F16, "x");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->toF16().bits(), f16(0.1).bits());
  EXPECT_EQ(parseLiteral("65504", ElementType::F16, "x")->scalar().type, ElementType::I64);  // integer: exact check later
  EXPECT_TRUE(std::isinf(parseLiteral("-inf", ElementType::F32, "x")->scalar().f));
  EXPECT_TRUE(std::isnan(parseLiteral("nan", ElementType::F64, "x")->scalar().f));
  // A float for an integer input stays a float: the invoker refuses it by name.
  EXPECT_EQ(parseLiteral("2.5", ElementType::I32, "n")->scalar().type, ElementType::F64);
}

TEST(RunValues, LiteralErrors) {
  expectError(parseLiteral("abc", ElementType::F32, "x").error(), ErrorCode::InvalidArgument,
              {"input 'x' (f32)", "'abc' is not a number"});
  expectError(parseLiteral(" 1", ElementType::F32, "x").error(), ErrorCode::InvalidArgument, {"not a number"});
  expectError(parseLiteral("1e39", ElementType::F32, "x").error(), ErrorCode::InvalidArgument,
              {"'1e39' is out of range for f32"});
  expectError(parseLiteral("1e400", ElementType::F64, "x").error(), ErrorCode::InvalidArgument,
              {"'1e400' is out of range for f64"});
  expectError(parseLiteral("70000.5", ElementType::F16, "x").error(), ErrorCode::InvalidArgument,
              {"out of range for f16"});
  expectError(parseLiteral("1e-10", ElementType::F16, "x").error(), ErrorCode::InvalidArgument, {"underflows to 0 in f16"});
  expectError(parseLiteral("1e-400", ElementType::F64, "x").error(), ErrorCode::InvalidArgument, {"underflows to 0 in f64"});
  EXPECT_TRUE(parseLiteral("0.0e-400", ElementType::F64, "x").ok());  // zero is zero
  expectError(parseLiteral("99999999999999999999", ElementType::I64, "n").error(), ErrorCode::InvalidArgument,
              {"input 'n' (i64)", "out of range"});
  expectError(parseLiteral("-9223372036854775809", ElementType::I64, "n").error(), ErrorCode::InvalidArgument,
              {"out of range"});
  expectError(parseLiteral("1", ElementType::ComplexF32, "c").error(), ErrorCode::Unsupported, {"complex<f32>"});
  expectError(parseLiteral("0", ElementType::Ptr, "p").error(), ErrorCode::Unsupported, {"!llvm.ptr"});
}

TEST(RunValues, ArgumentsAreCheckedAgainstTheType) {
  const Type vec3 = *parseType("memref<3xf32>"), dyn = *parseType("memref<?x4xf32>"), unranked = *parseType("memref<*xf32>");
  auto z = makeArgument("zeros", vec3, "x", 0);
  ASSERT_TRUE(z.ok()) << z.error().str();
  EXPECT_EQ(z->buffer().size(0), 3);
  auto u = makeArgument("ones:2x5", unranked, "u", 0);
  ASSERT_TRUE(u.ok()) << u.error().str();
  EXPECT_EQ(u->buffer().rank(), 2);
  expectError(makeArgument("zeros:3x3", dyn, "m", 0).error(), ErrorCode::TypeMismatch,
              {"input 'm' (memref<?x4xf32>)", "expected size 4 in dim 1", "zeros has shape 3x3"});
  expectError(makeArgument("iota", dyn, "m", 0).error(), ErrorCode::InvalidArgument, {"iota needs a shape here"});
  expectError(makeArgument("1.5", vec3, "x", 0).error(), ErrorCode::TypeMismatch, {"a memref takes"});
  expectError(makeArgument("ones:3", *parseType("f32"), "s", 0).error(), ErrorCode::TypeMismatch,
              {"a scalar takes a literal"});

  // A Fortran-order file for an identity-layout input is made row-major here.
  const auto dir = test::freshDir("tools/call_values");
  std::vector<float> colMajor{0, 3, 1, 4, 2, 5};
  auto f = runtime::Buffer::view(ElementType::F32, colMajor.data(), {2, 3}, {1, 2});
  ASSERT_TRUE(f.ok());
  // The writer writes C order; make a Fortran file by hand from its image.
  auto image = runtime::encodeNpy(*f);
  ASSERT_TRUE(image.ok());
  std::string bytes(image->begin(), image->end());
  bytes.replace(bytes.find("False"), 5, "True ");
  const std::vector<float> fortranData{0, 3, 1, 4, 2, 5};
  bytes.replace(bytes.size() - 24, 24, std::string(reinterpret_cast<const char*>(fortranData.data()), 24));
  std::ofstream((dir / "f.npy").string(), std::ios::binary) << bytes;
  auto m = makeArgument((dir / "f.npy").string(), *parseType("memref<2x3xf32>"), "m", 0);
  ASSERT_TRUE(m.ok()) << m.error().str();
  EXPECT_TRUE(m->buffer().isRowMajorContiguous());
  EXPECT_EQ(values<float>(m->buffer()), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  // A strided input keeps the file's layout (no copy).
  auto s = makeArgument((dir / "f.npy").string(), *parseType("memref<2x3xf32, strided<[?, ?], offset: ?>>"), "s", 0);
  ASSERT_TRUE(s.ok()) << s.error().str();
  EXPECT_FALSE(s->buffer().isRowMajorContiguous());
  expectError(makeArgument((dir / "f.npy").string(), *parseType("memref<2x3xi32>"), "i", 0).error(),
              ErrorCode::TypeMismatch, {"input 'i'", "f.npy holds f32 elements"});
}

}  // namespace
}  // namespace memjit::cli
