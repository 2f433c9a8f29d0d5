// Unit tests of the difftest's own parts: the interpreter's float formats and
// semantics, the generator's determinism, dead-code removal, and a round trip
// through the printed regression snippet's helper.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <string>

#include "float_formats.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/remarks.h"
#include "generator.h"
#include "interpreter.h"
#include "lowering.h"
#include "oracles.h"
#include "reduce.h"
#include "regression.h"
#include "support/files.h"

using namespace memjit::difftest;
using memjit::ElementType;

TEST(DifftestFloatFormats, RoundsToNearestEvenWithDenormalsAndOverflow) {
  EXPECT_EQ(roundToFloat(ElementType::F16, 1.0), 0x3c00u);
  EXPECT_EQ(roundToFloat(ElementType::F16, 65504.0), 0x7bffu);
  EXPECT_EQ(roundToFloat(ElementType::F16, 65519.99), 0x7bffu);
  EXPECT_EQ(roundToFloat(ElementType::F16, 65520.0), 0x7c00u);  // the tie rounds to even: infinity
  EXPECT_EQ(roundToFloat(ElementType::F16, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(roundToFloat(ElementType::F16, std::ldexp(1.0, -25)), 0x0000u);  // tie to even
  EXPECT_EQ(roundToFloat(ElementType::F16, std::ldexp(3.0, -26)), 0x0001u);
  EXPECT_EQ(roundToFloat(ElementType::F16, -0.0), 0x8000u);
  EXPECT_EQ(roundToFloat(ElementType::BF16, 1.0 + std::ldexp(1.0, -8)), 0x3f80u);  // tie to even
  EXPECT_EQ(roundToFloat(ElementType::BF16, 1.0 + std::ldexp(3.0, -8)), 0x3f82u);
  EXPECT_EQ(roundToFloat(ElementType::BF16, std::ldexp(1.0, -133)), 0x0001u);
  EXPECT_EQ(roundToFloat(ElementType::F32, 0.1), 0x3dcccccdu);
  EXPECT_EQ(roundToFloat(ElementType::F32, INFINITY), 0x7f800000u);
  EXPECT_TRUE(isNaNBits(ElementType::BF16, roundToFloat(ElementType::BF16, NAN)));
  for (std::uint64_t bits : {0x0001ULL, 0x03ffULL, 0x0400ULL, 0x7bffULL, 0x3555ULL, 0x8001ULL})
    EXPECT_EQ(roundToFloat(ElementType::F16, decodeFloat(ElementType::F16, bits)), bits);
}

TEST(DifftestFloatFormats, RoundsIntegersOnce) {
  // README: cast(i64 2^40 + 2^32 + 1 -> bf16) is 2^40 + 2^33 (rounded once).
  const std::uint64_t v = (1ULL << 40) + (1ULL << 32) + 1;
  EXPECT_EQ(decodeFloat(ElementType::BF16, roundIntegerToFloat(ElementType::BF16, v, false)),
            std::ldexp(1.0, 40) + std::ldexp(1.0, 33));
  EXPECT_EQ(roundIntegerToFloat(ElementType::F64, (1ULL << 53) + 1, false), 0x4340000000000000ULL);
  EXPECT_EQ(roundIntegerToFloat(ElementType::F64, (1ULL << 53) + 3, true), 0xc340000000000002ULL);
  EXPECT_EQ(ulpDistance(ElementType::F32, 0x7f7fffff, 0x7f800000), 1u);
  EXPECT_EQ(ulpDistance(ElementType::F32, 0x80000001, 0x00000001), 2u);
}

namespace {
// A program of one integer statement `op(a, b)` on constants, output as slot 0.
Program binary(Op op, ElementType t, std::uint64_t a, std::uint64_t b, std::uint64_t imm = 0) {
  GeneratorOptions empty;
  empty.statements = 0;
  Program p = generate(1, empty);
  p.body.stmts.clear();
  p.inputs = 0, p.outputs = 1, p.io = {0};
  auto add = [&](Stmt s, ElementType type) {
    p.values.push_back(scalarType(type));
    s.results = {static_cast<int>(p.values.size()) - 1};
    s.type = type;
    p.body.stmts.push_back(s);
    return s.results[0];
  };
  Stmt ca;
  ca.imm = a;
  const int x = add(ca, t);
  Stmt cb;
  cb.imm = b;
  const int y = add(cb, t);
  Stmt s;
  s.op = op;
  s.imm = imm;
  s.args = {x, y};
  const int r = add(s, t);
  Stmt out;
  out.kind = StmtKind::Output;
  out.args = {r};
  p.body.stmts.push_back(out);
  Stmt c0;
  const int z = add(c0, ElementType::I64);
  Stmt ret;
  ret.kind = StmtKind::Return;
  ret.args = {z};
  p.body.stmts.push_back(ret);
  return p;
}
std::uint64_t result(const Program& p) { return interpret(p).outputs.at(0).bits; }
// `cast(bits of from -> to)`, from binary's program: its operation made a cast of the first constant.
Program castOf(ElementType from, std::uint64_t bits, ElementType to) {
  Program p = binary(Op::Add, from, bits, 0);
  Stmt& s = p.body.stmts[2];
  s.op = Op::Cast;
  s.type = to;
  s.args = {s.args[0]};
  p.values[static_cast<std::size_t>(s.results[0])] = scalarType(to);
  return p;
}
}  // namespace

TEST(DifftestInterpreter, FollowsReadmeIntegerSemantics) {
  EXPECT_EQ(result(binary(Op::Shl, ElementType::I32, 1, 32)), 0u);           // at the width: 0
  EXPECT_EQ(result(binary(Op::Shr, ElementType::I8, 0x80, 200)), 0xffu);     // beyond: the sign fill
  EXPECT_EQ(result(binary(Op::Shr, ElementType::UI8, 0x80, 200)), 0u);
  EXPECT_EQ(result(binary(Op::RotL, ElementType::I16, 0x8001, 17)), 0x0003u);  // modulo the width
  EXPECT_EQ(result(binary(Op::CeilDivSI, ElementType::I64, 1ULL << 63, 2)), 0xc000000000000000ULL);
  EXPECT_EQ(result(binary(Op::FloorDivSI, ElementType::I32, static_cast<std::uint32_t>(-7), 2)),
            static_cast<std::uint32_t>(-4));
  EXPECT_EQ(result(binary(Op::Rem, ElementType::SI8, static_cast<std::uint8_t>(-7), 3)), static_cast<std::uint8_t>(-1));
  EXPECT_EQ(result(binary(Op::MulHi, ElementType::UI64, ~0ULL, ~0ULL)), ~0ULL - 1);
  EXPECT_EQ(result(binary(Op::Max, ElementType::UI32, 0xffffffff, 1)), 0xffffffffu);
  EXPECT_EQ(result(binary(Op::Max, ElementType::I32, 0xffffffff, 1)), 1u);
  // i1 is unsigned (true is 1) unless the op names its signedness.
  EXPECT_EQ(result(binary(Op::Shr, ElementType::I1, 1, 1)), 0u);
  EXPECT_EQ(result(binary(Op::ShrSI, ElementType::I1, 1, 1)), 1u);
  EXPECT_EQ(result(binary(Op::Div, ElementType::I1, 1, 1)), 1u);
  EXPECT_EQ(result(binary(Op::Min, ElementType::I1, 0, 1)), 0u);
  EXPECT_EQ(result(binary(Op::MulHi, ElementType::I1, 1, 1)), 0u);
  EXPECT_EQ(result(binary(Op::Cmp, ElementType::I1, 0, 1, 2)), 1u);  // false < true
  EXPECT_EQ(interpret(binary(Op::DivSI, ElementType::I1, 1, 1)).trap, "overflow");  // -1 / -1
}

// Checked mode stops at a division by a determined zero even when the interpreter does not determine the
// dividend (seed 3800000012183: it answered "not determined" and missed the trap).
TEST(DifftestInterpreter, StopsAtADivisionByZeroWhateverTheDividend) {
  Program p = binary(Op::DivUI, ElementType::I32, 0, 0);
  auto value = [&](ElementType t) {
    p.values.push_back(scalarType(t));
    return static_cast<int>(p.values.size()) - 1;
  };
  // The dividend: the bits of a NaN sum, which only say "some NaN".
  Stmt nan;
  nan.imm = 0x7fc00000;
  nan.type = ElementType::F32;
  nan.results = {value(ElementType::F32)};
  Stmt sum;
  sum.op = Op::Add;
  sum.type = ElementType::F32;
  sum.args = {nan.results[0], nan.results[0]};
  sum.results = {value(ElementType::F32)};
  Stmt bits;
  bits.op = Op::Bitcast;
  bits.type = ElementType::I32;
  bits.args = {sum.results[0]};
  bits.results = {value(ElementType::I32)};
  p.body.stmts[2].args[0] = bits.results[0];
  p.body.stmts.insert(p.body.stmts.begin() + 2, {nan, sum, bits});
  EXPECT_EQ(interpret(p).trap, "by zero");
  p.body.stmts[1].imm = 3;  // a divisor of 3: the quotient is not determined, and nothing stops
  EXPECT_EQ(interpret(p).trap, "");
  EXPECT_NE(interpret(p).outputs.at(0).flags, kExact);
}

namespace {
// A program of one Lanes statement `op` over the i16 constants `lanes` (one per argument lane), outputting every
// result lane.
Outcome laneProgram(LaneOp op, std::uint64_t n, const std::vector<std::uint64_t>& lanes, std::size_t results,
                    const std::vector<std::int64_t>& mask = {}) {
  GeneratorOptions empty;
  empty.statements = 0;
  Program p = generate(1, empty);
  p.body.stmts.clear();
  p.inputs = 0;
  auto value = [&](ElementType t) {
    p.values.push_back(scalarType(t));
    return static_cast<int>(p.values.size()) - 1;
  };
  Stmt s;
  s.kind = StmtKind::Lanes;
  s.lane = op;
  s.type = ElementType::I16;
  s.sizes = {static_cast<std::int64_t>(n)};
  s.offsets = mask;
  for (std::uint64_t bits : lanes) {
    Stmt c;
    c.imm = bits;
    c.type = ElementType::I16;
    c.results = {value(ElementType::I16)};
    p.body.stmts.push_back(c);
    s.args.push_back(c.results[0]);
  }
  for (std::size_t k = 0; k < results; ++k) s.results.push_back(value(ElementType::I16));
  p.body.stmts.push_back(s);
  for (std::size_t k = 0; k < results; ++k) {
    Stmt out;
    out.kind = StmtKind::Output;
    out.imm = k;
    out.args = {s.results[k]};
    p.body.stmts.push_back(out);
  }
  Stmt zero;
  zero.results = {value(ElementType::I64)};
  p.body.stmts.push_back(zero);
  Stmt ret;
  ret.kind = StmtKind::Return;
  ret.args = {zero.results[0]};
  p.body.stmts.push_back(ret);
  p.outputs = static_cast<int>(results);
  p.io.assign(results, 0);
  return interpret(p);
}
std::vector<std::uint64_t> bitsOf(const Outcome& o) {
  std::vector<std::uint64_t> r;
  for (const Val& v : o.outputs) r.push_back(v.bits);
  return r;
}
}  // namespace

// vectors.md: shuffle lane k is a[m] for m < n, else b[m - n]; interleave a0 b0 a1 b1 ...; deinterleave the even
// lanes, then the odd ones.
TEST(DifftestInterpreter, MovesLanesAsVectorsMdSays) {
  const std::vector<std::uint64_t> ab = {0xa0, 0xa1, 0xa2, 0xb0, 0xb1, 0xb2};
  EXPECT_EQ(bitsOf(laneProgram(LaneOp::Shuffle, 3, ab, 5, {5, 0, 3, 3, 2})),
            (std::vector<std::uint64_t>{0xb2, 0xa0, 0xb0, 0xb0, 0xa2}));
  EXPECT_EQ(bitsOf(laneProgram(LaneOp::Interleave, 3, ab, 6)),
            (std::vector<std::uint64_t>{0xa0, 0xb0, 0xa1, 0xb1, 0xa2, 0xb2}));
  EXPECT_EQ(bitsOf(laneProgram(LaneOp::Deinterleave, 6, ab, 6)),
            (std::vector<std::uint64_t>{0xa0, 0xa2, 0xb1, 0xa1, 0xb0, 0xb2}));
}

// atomicCompareExchange compares the element type's bits: a buffer's initial elements carry bits above them
// (seed 4600000002490: an i32 element 0x00964b38'67484d27 expected as 0x67484d27 was reported not exchanged).
TEST(DifftestInterpreter, ComparesExchangesOnTheElementsBits) {
  Program p = binary(Op::Add, ElementType::I32, 0x67484d27, 7);  // constants: expected, desired
  Stmt& sum = p.body.stmts[2];
  Stmt zero;
  zero.type = ElementType::Index;
  p.values.push_back(scalarType(ElementType::Index));
  zero.results = {static_cast<int>(p.values.size()) - 1};
  sum.kind = StmtKind::CompareExchange;
  sum.args = {sum.args[0], sum.args[1], kIm, zero.results[0], zero.results[0]};
  p.values.push_back(scalarType(ElementType::I1));
  sum.results.push_back(static_cast<int>(p.values.size()) - 1);
  p.body.stmts[3].args = {sum.results[1]};  // output the "stored" flag
  p.body.stmts.insert(p.body.stmts.begin() + 2, zero);
  p.im.data.assign(p.im.data.size(), 0);
  p.im.data.at(static_cast<std::size_t>(p.im.offset)) = 0x00964b3867484d27ULL;
  const Outcome o = interpret(p);
  EXPECT_EQ(o.outputs.at(0).bits, 1u);
  EXPECT_EQ(o.im.at(static_cast<std::size_t>(p.im.offset)).bits & 0xffffffff, 7u);
}

TEST(DifftestInterpreter, FollowsReadmeFloatSemantics) {
  // pow(x, +-0) = 1 and pow(1, y) = 1 for signalling NaNs too (glibc's pow says NaN; seed 3800000015384).
  EXPECT_EQ(result(binary(Op::Pow, ElementType::F64, 0x7ff60eb413618097ULL, 0)), 0x3ff0000000000000ULL);
  EXPECT_EQ(result(binary(Op::Pow, ElementType::F32, 0x7fa00000, 0x80000000)), 0x3f800000u);
  EXPECT_EQ(result(binary(Op::Pow, ElementType::F32, 0x3f800000, 0x7fa00000)), 0x3f800000u);
  // minnumf: a NaN operand yields the other one; +0/-0 may be either.
  EXPECT_EQ(result(binary(Op::MinNumF, ElementType::F32, 0x7fc00000, 0x3f800000)), 0x3f800000u);
  const Val zeros = interpret(binary(Op::MinNumF, ElementType::F32, 0x80000000, 0)).outputs[0];
  EXPECT_EQ(zeros.flags, kAlt);
  // With a NaN operand the other one, narrowed from f32: a bf16 denormal may be flushed then too.
  const Val narrowed = interpret(binary(Op::MinNumF, ElementType::BF16, 0x7fda, 0x007f)).outputs[0];
  EXPECT_EQ(narrowed.flags, kAlt);
  EXPECT_EQ(narrowed.bits, 0x007fu);
  EXPECT_EQ(narrowed.alt, 0x0000u);
  // minimumf: -0 < +0, NaN propagates.
  EXPECT_EQ(result(binary(Op::MinimumF, ElementType::F16, 0x0000, 0x8000)), 0x8000u);
  EXPECT_EQ(interpret(binary(Op::MaximumF, ElementType::F16, 0x7e00, 0x3c00)).outputs[0].flags, kAnyNaN);
  // copysign is a bit operation.
  EXPECT_EQ(result(binary(Op::CopySign, ElementType::BF16, 0x007f, 0x8000)), 0x807fu);
  // maxnum(x, NaN) is x computed like any max: a bf16 denormal x may come out flushed.
  const Val maxOfNaN = interpret(binary(Op::MaxNumF, ElementType::BF16, 0x807f, 0x7f81)).outputs[0];
  EXPECT_EQ(maxOfNaN.flags, kAlt);
  EXPECT_EQ(maxOfNaN.alt, 0x8000u);
  // powi(x, 0) = 1 for every x, a signalling NaN too (as pow(x, 0)).
  EXPECT_EQ(result(binary(Op::Powi, ElementType::F32, 0x7f8c8137, 0)), 0x3f800000u);
  // powi(x, -n) is 1 / x^n with x^n in the type: (2^47)^3 overflows f32, so 2^-141 is not promised (seed
  // 2700000005341: 0 at O0); (2^20)^-3 = 2^-60 is, within powi's ulp bound.
  EXPECT_EQ(interpret(binary(Op::Powi, ElementType::F32, 0x57000000, static_cast<std::uint32_t>(-3))).outputs[0].flags,
            kLoose);
  const Val inRange = interpret(binary(Op::Powi, ElementType::F32, 0x49800000, static_cast<std::uint32_t>(-3))).outputs[0];
  EXPECT_EQ(inRange.flags, kUlp);
  EXPECT_EQ(inRange.bits, 0x21800000u);
  // f16 arithmetic rounds once to f16: 1 + 2^-11 is a tie, to even.
  EXPECT_EQ(result(binary(Op::Add, ElementType::F16, 0x3c00, 0x1000)), 0x3c00u);
  // A bf16 denormal result may be flushed (README, "Half precision").
  const Val tiny = interpret(binary(Op::Mul, ElementType::BF16, 0x0080, 0x3f00)).outputs[0];
  EXPECT_EQ(tiny.flags, kAlt);
  EXPECT_EQ(tiny.bits, 0x0040u);
  EXPECT_EQ(tiny.alt, 0x0000u);
  // An f32 denormal narrowed to bf16 may read as zero (vcvtneps2bf16), also where it rounds up to the smallest
  // normal (difftest seed 276512670608244: 0x0080 expected, 0 at O0).
  const Val roundsUp = interpret(castOf(ElementType::F32, 0x807fffff, ElementType::BF16)).outputs[0];
  EXPECT_EQ(roundsUp.bits, 0x8080u);
  EXPECT_EQ(roundsUp.flags, kAlt);
  EXPECT_EQ(roundsUp.alt, 0x8000u);
  EXPECT_EQ(interpret(castOf(ElementType::F32, 0x00800000, ElementType::BF16)).outputs[0].flags, kExact);
}

TEST(DifftestGenerator, IsDeterministicAndInBounds) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const Program a = generate(seed), b = generate(seed);
    EXPECT_EQ(toBuilderSnippet(a), toBuilderSnippet(b)) << "seed " << seed;
    EXPECT_EQ(interpret(a).trap, "") << "seed " << seed;
    for (const char* trap : {"out of bounds", "by zero", "overflow"}) {
      GeneratorOptions o;
      o.trap = trap;
      EXPECT_EQ(interpret(generate(seed, o)).trap, trap) << "seed " << seed;
    }
  }
}

// The nest jit/accumulator_jam.cpp jams: a loop whose one inner loop widens a narrow load and stores.
bool hasGemvNest(const Program& p, const Block& b) {
  auto narrow = [&](int id) {
    const ElementType t = p.values[static_cast<std::size_t>(id)].elem;
    return p.values[static_cast<std::size_t>(id)].rank == 0 &&
           (t == ElementType::BF16 || t == ElementType::F16 || t == ElementType::I8 || t == ElementType::I16);
  };
  auto widensAndStores = [&](const Block& inner) {
    bool widens = false, stores = false;
    for (const Stmt& s : inner.stmts) {
      widens |= s.kind == StmtKind::Assign && s.op == Op::Cast && !s.args.empty() && narrow(s.args[0]) &&
                (s.type == ElementType::F32 || s.type == ElementType::I32);
      stores |= s.kind == StmtKind::Store;
    }
    return widens && stores;
  };
  for (const Stmt& s : b.stmts) {
    if (s.kind != StmtKind::For) continue;
    for (const Stmt& inner : s.blocks[0].stmts)
      if (inner.kind == StmtKind::For && widensAndStores(inner.blocks[0])) return true;
    if (hasGemvNest(p, s.blocks[0])) return true;
  }
  return false;
}

// The generator writes GEMV-shaped nests, and memjit's accumulator jam applies to some of them (so the
// interpreter checks the jammed code): its remark, pass memjit-jam, at the default O2 (where the jam versions the
// row loop on the inner loop's zero-trip guard itself, jit/inner_loop_guard.h).
// LLVM 19 jams 7 of the first 20 nests; LLVM 22's isSafeToUnrollAndJam refuses more of them (2 of 20, its
// dependence analysis proves fewer of the generator's dynamically strided accesses independent), so the test
// compiles nests until three have jammed rather than a fixed number.
TEST(DifftestGenerator, WritesGemvNestsThatTheAccumulatorJamTransforms) {
  constexpr int kWantJammed = 3, kMostCompiled = 80;
  int nests = 0, compiled = 0, jammed = 0;
  auto jit = memjit::jit::Jit::create({.optLevel = memjit::jit::OptLevel::O2});
  ASSERT_TRUE(jit.ok()) << jit.error().str();
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const Program p = generate(seed);
    if (!hasGemvNest(p, p.body)) continue;
    ++nests;
    if (jammed == kWantJammed || compiled == kMostCompiled) continue;
    ++compiled;
    memjit::codegen::Module m("gemv" + std::to_string(seed));
    const memjit::Error lowered = lowerProgram(m, "f", p);
    ASSERT_FALSE(lowered) << "seed " << seed << ": " << lowered.str();
    auto mod = jit->add(std::move(m), {.remarks = true});
    ASSERT_TRUE(mod.ok()) << "seed " << seed << ": " << mod.error().str();
    for (const memjit::jit::Remark& r : mod->remarks())
      if (r.pass == "memjit-jam" && r.name == "Jammed") {
        ++jammed;
        break;
      }
  }
  EXPECT_GE(nests, 25) << "of 300 programs";
  EXPECT_GE(jammed, kWantJammed) << "of " << compiled << " programs with the nest";
}

// The chain jit/serial_recurrences.cpp unrolls for the SLP vectoriser: a loop carrying one float through an add
// whose body widens a half (f16; bf16 widens by a shift and is left as written).
bool hasHalfChain(const Program& p, const Block& b) {
  for (const Stmt& s : b.stmts) {
    if (s.kind != StmtKind::For) continue;
    const Block& body = s.blocks[0];
    bool widensF16 = false;
    for (const Stmt& t : body.stmts)
      widensF16 |= t.kind == StmtKind::Assign && t.op == Op::Cast && !t.args.empty() &&
                   p.values[static_cast<std::size_t>(t.args[0])].elem == ElementType::F16 &&
                   p.values[static_cast<std::size_t>(t.args[0])].rank == 0;
    const bool oneFloat = body.params.size() == 2 &&
                          (p.values[static_cast<std::size_t>(body.params[1])].elem == ElementType::F32 ||
                           p.values[static_cast<std::size_t>(body.params[1])].elem == ElementType::F64);
    if (widensF16 && oneFloat) return true;
    if (hasHalfChain(p, body)) return true;
  }
  return false;
}

// The generator writes exact chains over widened halves, and memjit unrolls and SLP-vectorises some of them (so
// the interpreter checks the unrolled loop and its remainder): the optimised IR converts halves in pairs, `fpext
// <2 x half>`, which the loop vectoriser (a whole vector register of lanes) does not write.
TEST(DifftestGenerator, WritesHalfChainsThatAreUnrolledForTheSlpVectoriser) {
  constexpr int kWantVectorised = 3, kMostCompiled = 40;
  int chains = 0, compiled = 0, vectorised = 0;
  const std::filesystem::path dumps = memjit::test::freshDir("difftest/half_chains");
  auto jit = memjit::jit::Jit::create({.optLevel = memjit::jit::OptLevel::O2, .dumpDirectory = dumps.string()});
  ASSERT_TRUE(jit.ok()) << jit.error().str();
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const Program p = generate(seed);
    if (!hasHalfChain(p, p.body)) continue;
    ++chains;
    if (vectorised == kWantVectorised || compiled == kMostCompiled) continue;
    ++compiled;
    const std::string name = "chain" + std::to_string(seed);
    memjit::codegen::Module m(name);
    const memjit::Error lowered = lowerProgram(m, "f", p);
    ASSERT_FALSE(lowered) << "seed " << seed << ": " << lowered.str();
    auto mod = jit->add(std::move(m));
    ASSERT_TRUE(mod.ok()) << "seed " << seed << ": " << mod.error().str();
    for (const auto& entry : std::filesystem::directory_iterator(dumps)) {
      const std::string file = entry.path().filename().string();
      if (file.starts_with(name + ".") && file.ends_with(".after.ll") &&
          memjit::test::readFile(entry.path()).find("fpext <2 x half>") != std::string::npos) {
        ++vectorised;
        break;
      }
    }
  }
  EXPECT_GE(chains, 20) << "of 300 programs";
  EXPECT_GE(vectorised, kWantVectorised) << "of " << compiled << " programs with the chain";
}

namespace {
struct StatementCounts {
  int deallocs = 0, unrankedCasts = 0, dims = 0, ranks = 0, laneSteps = 0, thenOnlyIfs = 0;
  bool deallocsLast = true;  // each Dealloc releases an Alloc of its own block, and nothing after it uses that
};
bool uses(const Stmt& s, int id) {
  for (int a : s.args) if (a == id) return true;
  for (const Block& inner : s.blocks) {
    for (int y : inner.yields) if (y == id) return true;
    for (const Stmt& t : inner.stmts) if (uses(t, id)) return true;
  }
  return false;
}
void tally(const Block& b, StatementCounts& n) {
  for (std::size_t i = 0; i < b.stmts.size(); ++i) {
    const Stmt& s = b.stmts[i];
    n.unrankedCasts += s.kind == StmtKind::MemrefCast && (s.imm & 2);
    n.dims += s.kind == StmtKind::Assign && s.op == Op::Dim;
    n.ranks += s.kind == StmtKind::Assign && s.op == Op::Rank;
    n.laneSteps += s.kind == StmtKind::Lanes && s.lane == LaneOp::Step;
    n.thenOnlyIfs += s.kind == StmtKind::If && s.results.empty() && s.blocks[1].stmts.empty();
    if (s.kind == StmtKind::Dealloc) {
      ++n.deallocs;
      bool allocatedHere = false;
      for (std::size_t j = 0; j < i; ++j)
        allocatedHere |= b.stmts[j].kind == StmtKind::Alloc && b.stmts[j].results[0] == s.args[0];
      bool usedAfter = false;
      for (std::size_t j = i + 1; j < b.stmts.size(); ++j) usedAfter |= uses(b.stmts[j], s.args[0]);
      for (int y : b.yields) usedAfter |= y == s.args[0];
      n.deallocsLast &= allocatedHere && !usedAfter;
    }
    for (const Block& inner : s.blocks) tally(inner, n);
  }
}
}  // namespace

// The programs difftest_fixed_seeds runs (seeds 1-300) release temporaries with dealloc and cast through unranked
// memrefs, so every build's tests compare them with the interpreter.
TEST(DifftestGenerator, WritesDeallocsAndUnrankedCasts) {
  StatementCounts n;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) tally(generate(seed).body, n);
  EXPECT_TRUE(n.deallocsLast);
  EXPECT_GE(n.deallocs, 10);
  EXPECT_GE(n.unrankedCasts, 10);
  EXPECT_GE(n.dims, 10);  // every third through castToUnranked (the lowering's choice)
}

// rank (every other one of an unranked memref), laneIndices (vector.step) and ifThen (an If without results or
// else) are in the fixed seeds' programs too.
TEST(DifftestGenerator, WritesRanksLaneIndicesAndIfThens) {
  StatementCounts n;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) tally(generate(seed).body, n);
  EXPECT_GE(n.ranks, 10);
  EXPECT_GE(n.laneSteps, 10);
  EXPECT_GE(n.thenOnlyIfs, 10);
  std::printf("of 300 programs: %d ranks, %d laneIndices, %d ifThens\n", n.ranks, n.laneSteps, n.thenOnlyIfs);
}

TEST(DifftestReducer, RemovesDeadCodeButKeepsEffects) {
  Program p = generate(7);
  const std::size_t before = countStatements(p.body);
  removeDeadCode(p);
  EXPECT_LT(countStatements(p.body), before);
  const Outcome full = interpret(generate(7)), reduced = interpret(p);
  ASSERT_EQ(full.outputs.size(), reduced.outputs.size());
  for (std::size_t i = 0; i < full.outputs.size(); ++i) EXPECT_EQ(full.outputs[i].bits, reduced.outputs[i].bits);
  EXPECT_EQ(full.ret.bits, reduced.ret.bits);
}

namespace {
// Whether a store to fm sits in `b` (`nested`: inside a loop, a branch or a parallel loop).
bool storesToFm(const Block& b, bool nested, bool& sawNested) {
  bool any = false;
  for (const Stmt& s : b.stmts) {
    if (s.kind == StmtKind::Store && s.args[1] == kFm) any = true, sawNested |= nested;
    for (const Block& inner : s.blocks) any |= storesToFm(inner, true, sawNested);
  }
  return any;
}
}  // namespace

TEST(DifftestReducer, DescendsIntoLoopsAndBranches) {
  // A program whose store to fm is nested in control flow; the property kept is "stores to fm" alone, so the
  // reducer has to bring the store out of every loop and branch around it.
  std::uint64_t seed = 0;
  Program p;
  GeneratorOptions o;
  o.atomics = false;  // atomic updates are side effects the reducer keeps, whatever the property
  for (bool nested = false; !nested; ++seed) {
    p = generate(seed, o);
    bool sawNested = false;
    nested = storesToFm(p.body, false, sawNested) && sawNested && p.trap.empty();
  }
  const Program small = reduceWhile(p, [](const Program& c) {
    bool sawNested = false;
    return storesToFm(c.body, false, sawNested) && interpret(c).trap.empty();
  });
  EXPECT_EQ(countStatements(small.body), small.body.stmts.size()) << "seed " << p.seed << ":\n" << toBuilderSnippet(small);
  EXPECT_LT(countStatements(small.body), 12u) << toBuilderSnippet(small);
}

namespace {
int f32Stores(const Program& p, const Block& b) {
  int n = 0;
  for (const Stmt& s : b.stmts) {
    if (s.kind == StmtKind::Store && p.values[static_cast<std::size_t>(s.args[1])].elem == ElementType::F32) ++n;
    for (const Block& inner : s.blocks) n += f32Stores(p, inner);
  }
  return n;
}
}  // namespace

TEST(DifftestReducer, InlinesHelpers) {
  // A program whose only f32 stores are in a helper it calls once: keeping "stores to an f32 memref", the
  // reducer can drop the helper only by inlining its call.
  Program p;
  GeneratorOptions o;
  o.atomics = false;  // atomic updates are side effects the reducer keeps, whatever the property
  for (std::uint64_t seed = 0;; ++seed) {
    p = generate(seed, o);
    if (p.helpers.size() != 1 || !p.trap.empty() || f32Stores(p, p.body) != 0 ||
        f32Stores(p, p.helpers[0].body) == 0)
      continue;
    int calls = 0;
    std::function<void(const Block&)> count = [&](const Block& b) {
      for (const Stmt& s : b.stmts) {
        calls += s.kind == StmtKind::Call;
        for (const Block& inner : s.blocks) count(inner);
      }
    };
    count(p.body);
    if (calls == 1) break;
  }
  const Program small = reduceWhile(p, [](const Program& c) {
    int n = f32Stores(c, c.body);
    for (const Helper& h : c.helpers) n += f32Stores(c, h.body);
    return n > 0 && interpret(c).trap.empty();
  });
  EXPECT_TRUE(small.helpers.empty()) << "seed " << p.seed << ":\n" << toBuilderSnippet(small);
  EXPECT_GT(f32Stores(small, small.body), 0);
  EXPECT_LT(countStatements(small), 16u) << toBuilderSnippet(small);
}

TEST(DifftestOracles, ComparisonReportsEveryKindOfDifference) {
  const Program p = generate(3);
  const Outcome e = interpret(p);
  Observed got;
  got.io = p.io;
  for (int k = 0; k < p.outputs; ++k)
    got.io[static_cast<std::size_t>(p.inputs + k)] = e.outputs[static_cast<std::size_t>(k)].bits;
  for (const Val& v : e.fm) got.fm.push_back(v.bits);
  for (const Val& v : e.im) got.im.push_back(v.bits);
  got.ret = e.ret.bits;
  BatchStats stats;
  std::vector<std::string> diffs;
  compare(p, e, got, diffs, stats);
  EXPECT_TRUE(diffs.empty()) << diffs.front();
  EXPECT_GT(stats.compared, 0u);
  Observed wrongRet = got;
  wrongRet.ret ^= 1;
  compare(p, e, wrongRet, diffs, stats);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_NE(diffs[0].find("return: expected"), std::string::npos) << diffs[0];
  Observed wrongMemory = got;
  wrongMemory.im.back() ^= 0x80000000u;
  diffs.clear();
  compare(p, e, wrongMemory, diffs, stats);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_NE(diffs[0].find("i32 buffer element"), std::string::npos) << diffs[0];
  Observed failed = got;
  failed.error = "index 5 out of bounds";
  diffs.clear();
  compare(p, e, failed, diffs, stats);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0], "call failed: index 5 out of bounds");
  // A bf16 math result near a denormal may be flushed to a zero of its sign (vcvtneps2bf16), nothing else.
  ASSERT_GT(p.outputs, 0);
  Outcome sinhOfDenormal = e;
  sinhOfDenormal.outputs[0] = {0x007f, 8, kUlp};
  sinhOfDenormal.outputTypes[0] = ElementType::BF16;
  for (const auto& [bits, accepted] : std::vector<std::pair<std::uint64_t, bool>>{
           {0x0000, true}, {0x0080, true}, {0x8000, false}, {0x0100, false}}) {
    Observed flushed = got;
    flushed.io[static_cast<std::size_t>(p.inputs)] = outputBits(ElementType::BF16, bits);
    diffs.clear();
    compare(p, sinhOfDenormal, flushed, diffs, stats);
    EXPECT_EQ(diffs.empty(), accepted) << std::hex << bits;
  }
}

// docs/debugging.md's rule, checked on the sources: every public FunctionBuilder operation enters the difftest's
// generator and interpreter in the change that adds it, so the lowering calls it. The exceptions build no
// operation of their own, or one whose results the interpreter does not define.
TEST(DifftestCoverage, EveryBuilderOperationIsLowered) {
  const std::string header = memjit::test::readFile(MEMJIT_SOURCE_DIR "/include/memjit/codegen/builder.h");
  const std::string lowering = memjit::test::readFile(MEMJIT_SOURCE_DIR "/tests/difftest/lowering.cpp");
  const std::size_t begin = header.find("\nclass FunctionBuilder {");
  const std::size_t end = header.find("\n private:", begin);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string api = header.substr(begin, end - begin);
  const std::map<std::string, std::string> exempt = {
      {"arg", "the program's arguments (lowering.h's caller)"},
      {"finish", "ends every program (lowering.h's caller)"},
      {"callC", "calls C code the interpreter cannot model (tests/codegen/call_c_test.cpp)"},
      {"constantLike", "constant() of a literal's type"},
      {"constantVector", "inline: constant() per lane, then fromElements"},
      {"f32", "constant()"}, {"f64", "constant()"}, {"i32", "constant()"}, {"i64", "constant()"},
      {"fastMath", "reads the flags"},
      {"withFastMath", "results the interpreter does not define (tests/codegen/fast_math_test.cpp)"},
      {"name", "names a value"},
      {"wrap", "wraps LLVM values built through ir()"},
  };
  const std::regex declaration(R"(\n  (?:\[\[nodiscard\]\] )?[A-Za-z_][A-Za-z_:<>, ]*[ &*]([a-zA-Z0-9_]+)\()");
  std::map<std::string, int> seen;
  for (std::sregex_iterator it(api.begin(), api.end(), declaration), last; it != last; ++it) {
    const std::string name = (*it)[1];
    if (seen[name]++ || exempt.count(name)) continue;
    EXPECT_NE(lowering.find("b_." + name + "("), std::string::npos)
        << "FunctionBuilder::" << name << " is never generated: add it to the difftest's generator, interpreter, "
        << "lowering and snippet, or say here why not";
  }
  EXPECT_GT(seen.size(), 100u) << "the declarations were not found";
  for (const auto& [name, why] : exempt) EXPECT_TRUE(seen.count(name)) << name << " is exempt but not declared";
}
