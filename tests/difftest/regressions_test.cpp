// Regression tests printed by memjit-difftest (toBuilderSnippet): each builds a
// program with FunctionBuilder and checks, at O0..O3, the values the reference
// interpreter computed. Seed49 is a generated program kept as it was printed
// (loops, branches, subviews, stores through strided views); the DISABLED_
// ones are bugs the tester found, reduced, that are still open (issue 24): enable
// each with its fix.
#include <gtest/gtest.h>

#include <cmath>

#include "generator.h"
#include "memjit/codegen/builder.h"
#include "oracles.h"
#include "program.h"
#include "regression.h"

// memjit-difftest seed 49: `memjit-difftest --seed 49 --count 1`
TEST(DifftestRegression, Seed49) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 5;
  s.outputs = 4;
  s.io = {0xa78ab715e9e76cffULL, 0xb7caff4d6af90000ULL, 0xbfdff7fe1868e05aULL, 0xf3eecd3b059a3a55ULL, 0xf9e6aab139bb6180ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {4, 4};
  s.fm.strides = {-4, 1};
  s.fm.offset = 13;
  s.fm.data = {0x3f000000ULL, 0x3fa755eaULL, 0xbf98f294ULL, 0xdb000000ULL, 0x8053b948ULL, 0xd5c23eb4ULL, 0xbf800000ULL, 0x3fd228bbULL, 0x42b8957bULL, 0xffc00000ULL, 0x3e4235e1ULL, 0x80000000ULL, 0x3e5135d5ULL, 0x7f800000ULL, 0xff800000ULL, 0x807fffffULL, 0xc2ccb6a2ULL, 0x80800000ULL};
  s.im.sizes = {4, 5};
  s.im.strides = {10, 2};
  s.im.offset = 2;
  s.im.data = {0xffffffffULL, 0xffffffffULL, 0x7fffffffULL, 0xfb657c94ffcd7106ULL, 0x4ULL, 0x99c912744e5e0a59ULL, 0x7fffffffULL, 0xffffffffULL, 0x80000001ULL, 0xa1143f6d3865abb9ULL, 0x4ULL, 0x7fffffffULL, 0xe5e5b02722f863e4ULL, 0x80000000ULL, 0x3ffffffULL, 0x50c741b4c2064a8eULL, 0x7fffffffULL, 0x774dc4ff861fde0ULL, 0x0ULL, 0x1ULL, 0x3ULL, 0xfffffffffffffff9ULL, 0x1ffffffULL, 0x80000000ULL, 0x1ULL, 0x1ULL, 0xecae9b6e27bbfa18ULL, 0x7fffffffULL, 0xffffffffULL, 0x6d6df5a0baaac98cULL, 0xdbf08b639a3ef9c3ULL, 0x0ULL, 0x80000001ULL, 0x7fffffffULL, 0x80000000ULL, 0x1ULL, 0xffffffffULL, 0x7fffffffULL, 0x0ULL, 0x7fffffffULL, 0x80000001ULL, 0x7fffffffULL, 0xffffffULL};
  s.h = 0xfc00ULL, s.g = 0x1ULL, s.c = 0x18bb4b332e0a1087ULL, s.d = 0x7ff0000000000000ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x2ULL});
  e.outputs.push_back({1, 0x2ULL});
  e.outputs.push_back({2, 0x0ULL});
  e.outputs.push_back({3, 0xbfdff7fe1868e05aULL});
  e.hasRet = true, e.ret = 0xf9e6aab139bb6180ULL;
  e.fm.push_back({7, 0x0ULL});
  e.im.push_back({6, 0x59a3a55ULL});
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v7 = b.constant(ElementType::Index, 0LL);
    Value v8 = b.load(io, {v7});
    Value v9 = b.cast(v8, ElementType::I8);
    Value v10 = b.bitcast(v9, ElementType::SI8);
    Value v11 = b.constant(ElementType::Index, 1LL);
    Value v12 = b.load(io, {v11});
    Value v13 = b.cast(v12, ElementType::I16);
    Value v14 = b.bitcast(v13, ElementType::UI16);
    Value v15 = b.constant(ElementType::Index, 2LL);
    Value v16 = b.load(io, {v15});
    Value v17 = b.cast(v16, ElementType::I32);
    Value v18 = b.bitcast(v17, ElementType::SI32);
    Value v19 = b.constant(ElementType::Index, 3LL);
    Value v20 = b.load(io, {v19});
    Value v21 = b.cast(v20, ElementType::I32);
    Value v22 = b.bitcast(v21, ElementType::SI32);
    Value v23 = b.constant(ElementType::Index, 4LL);
    Value v24 = b.load(io, {v23});
    Value v25 = b.cast(v24, ElementType::I8);
    Value v26 = b.constant(ElementType::I1, 0x1ULL);
    Value v27 = b.constant(ElementType::SI64, -8876335780142059140LL);
    Value v28 = b.select(v26, v27, v27);
    Value v29 = b.cttz(v28);
    Value v30 = b.constant(ElementType::I8, 0LL);
    Value v31 = b.cmp(CmpPredicate::Eq, v9, v30);
    Value v32 = b.constant(ElementType::I8, 1LL);
    Value v33 = b.select(v31, v32, v9);
    Value v34 = b.remui(c, v33);
    Value v35 = b.subview(fm, {0, 2}, {2, 1}, {2, 2});
    Value v36 = b.dim(fm, 1);
    Value v37 = b.constant(ElementType::F32, 0x0p+0);
    Value v38 = b.constant(ElementType::Index, 4LL);
    Value v39 = b.remui(v15, v38);
    Value v40 = b.constant(ElementType::Index, 0LL);
    Value v41 = b.cmp(CmpPredicate::Eq, v39, v40);
    Value v42 = b.constant(ElementType::Index, 1LL);
    Value v43 = b.select(v41, v42, v39);
    Value v44 = b.divui(v23, v43);
    Value v45 = b.constant(ElementType::Index, 4LL);
    Value v46 = b.remui(v44, v45);
    b.store(v37, fm, {v39, v46});
    Value v47 = b.max(v12, v8);
    Value v48 = b.constant(ElementType::SI16, 16LL);
    Value v49 = v48 + 16LL;
    Value v50 = b.subview(fm, {2, 3}, {1, 1}, {1, 2});
    Value v51 = b.constant(ElementType::Index, 2LL);
    Value v52 = b.constant(ElementType::Index, 5LL);
    Value v53 = b.constant(ElementType::Index, 1LL);
    auto r1000000 = b.forLoop(v51, v52, v53, {}, [&](Value v54, const std::vector<Value>& carried) {
      Value v55 = b.constant(ElementType::Index, 0LL);
      Value v56 = b.cmp(CmpPredicate::Eq, v51, v55);
      Value v57 = b.constant(ElementType::Index, INT64_MIN);
      Value v58 = b.cmp(CmpPredicate::Eq, v15, v57);
      Value v59 = b.constant(ElementType::Index, -1LL);
      Value v60 = b.cmp(CmpPredicate::Eq, v51, v59);
      Value v61 = b.andi(v58, v60);
      Value v62 = b.ori(v56, v61);
      Value v63 = b.constant(ElementType::Index, 1LL);
      Value v64 = b.select(v62, v63, v51);
      Value v65 = b.floordivsi(v15, v64);
      Value v66 = b.constant(ElementType::Index, 4LL);
      Value v67 = b.remui(v65, v66);
      Value v68 = b.constant(ElementType::Index, 4LL);
      Value v69 = b.remui(v66, v68);
      Value v70 = b.load(fm, {v67, v69});
      Value v71 = b.subview(v35, {1, 0}, {1, 1}, {2, 2});
      Value v72 = b.constant(ElementType::UI8, 0x2ULL);
      Value v73 = v72 ^ 0x2ULL;
      Value v74 = b.constant(ElementType::UI8, 0x1ULL);
      Value v75 = b.rotr(v73, v74);
      auto r96 = b.ifElse(v41, [&] {
        Value v76 = b.ctlz(v22);
        Value v77 = b.constant(ElementType::Index, 0LL);
        Value v78 = b.cmp(CmpPredicate::Eq, v23, v77);
        Value v79 = b.constant(ElementType::Index, INT64_MIN);
        Value v80 = b.cmp(CmpPredicate::Eq, v59, v79);
        Value v81 = b.constant(ElementType::Index, -1LL);
        Value v82 = b.cmp(CmpPredicate::Eq, v23, v81);
        Value v83 = b.andi(v80, v82);
        Value v84 = b.ori(v78, v83);
        Value v85 = b.constant(ElementType::Index, 1LL);
        Value v86 = b.select(v84, v85, v23);
        Value v87 = b.rem(v59, v86);
        Value v88 = b.shrsi(v75, v73);
        Value v89 = b.constant(ElementType::UI32, 0x7fffffffULL);
        Value v90 = b.shrui(v89, v89);
        Value v91 = b.max(v90, v90);
        return std::vector<Value>{g};
      }, [&] {
        Value v92 = b.constant(ElementType::Index, 4LL);
        Value v93 = b.remui(v69, v92);
        Value v94 = b.constant(ElementType::Index, 5LL);
        Value v95 = b.remui(v15, v94);
        b.store(v21, im, {v93, v95});
        return std::vector<Value>{g};
      });
      Value v96 = r96[0];
      Value v97 = b.ctlz(v75);
      Value v98 = b.constant(ElementType::SI64, 0LL);
      Value v99 = b.cmp(CmpPredicate::Eq, v29, v98);
      Value v100 = b.constant(ElementType::SI64, 1LL);
      Value v101 = b.select(v99, v100, v29);
      Value v102 = b.divui(v29, v101);
      return std::vector<Value>{};
    });
    Value v103 = b.constant(ElementType::UI8, 0x2ULL);
    Value v104 = b.cmp(CmpPredicate::Le, v103, v103);
    b.store(b.cast(v103, ElementType::I64), io, {b.index(5)});
    b.store(b.cast(v44, ElementType::I64), io, {b.index(6)});
    b.store(b.cast(v13, ElementType::I64), io, {b.index(7)});
    b.store(v16, io, {b.index(8)});
    b.ret({v24});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}

// Found by memjit-difftest --strict: a bf16 denormal scalar argument (0x8001) arrives as -0
// through every invoker at every level (issue 24 item 1's family: bf16 bits not kept).
// memjit-difftest seed 500080: `memjit-difftest --seed 500080 --count 1`
TEST(DifftestRegression, DISABLED_Seed500080Bf16DenormalArgument) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 5;
  s.outputs = 7;
  s.io = {0xf31b3b015543fc00ULL, 0xfffffffffffffffcULL, 0x8000000000000002ULL, 0x96d3449e10000000ULL, 0xedf7ffd72aa62314ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {2, 2};
  s.fm.strides = {2, -1};
  s.fm.offset = 3;
  s.fm.data = {0x80000000ULL, 0xc15ae051ULL, 0x1ULL, 0x7f7fffffULL, 0x40600000ULL, 0x7f800000ULL, 0xe1ff1410ULL, 0xff800000ULL};
  s.im.sizes = {1, 4};
  s.im.strides = {8, 2};
  s.im.offset = 2;
  s.im.data = {0x1ULL, 0x35aaca8c5f027237ULL, 0x1ULL, 0xffffffffffffffffULL, 0x80000000ULL, 0x1ULL, 0xffffffffULL, 0xfffffffffffffff9ULL, 0x1ULL, 0x1fffULL};
  s.h = 0x4fc0ULL, s.g = 0x8001ULL, s.c = 0x1ULL, s.d = 0xc390000000000000ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x0ULL});
  e.outputs.push_back({1, 0x0ULL});
  e.outputs.push_back({2, 0x0ULL});
  e.outputs.push_back({3, 0xffffffffffff8001ULL});
  e.outputs.push_back({4, 0x0ULL});
  e.outputs.push_back({5, 0x0ULL});
  e.outputs.push_back({6, 0x0ULL});
  e.hasRet = true, e.ret = 0xf31b3b015543fc00ULL;
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v8 = b.constant(ElementType::I64, -929084021210350592LL);
    b.store(b.cast(b.bitcast(g, ElementType::I16), ElementType::I64), io, {b.index(8)});
    b.ret({v8});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}

// Found by memjit-difftest: a bf16 denormal (0x007f) yielded by a forLoop that also carries a ui8
// comes out as +0 at O0 (issue 24 item 1's family; the loop alone, in a smaller function, keeps it).
// memjit-difftest seed 497: `memjit-difftest --seed 497 --count 1`
TEST(DifftestRegression, DISABLED_Seed497Bf16DenormalThroughLoop) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 7;
  s.outputs = 5;
  s.io = {0xcac8bcac3fb69e56ULL, 0xefdfbbf3ef7c835eULL, 0x6b02082100000010ULL, 0x104353b6a5116767ULL, 0xd800a823aaf28000ULL, 0x491074100a2c2eeULL, 0xc43f7d0f0d82e08ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {4, 3};
  s.fm.strides = {-3, 1};
  s.fm.offset = 11;
  s.fm.data = {0x7f7fffffULL, 0xe99e4061ULL, 0x404f1583ULL, 0x43ff8000ULL, 0x0ULL, 0x7fffffULL, 0xd7000000ULL, 0x4245fddeULL, 0x57800000ULL, 0xc8800000ULL, 0x7fffffULL, 0xffc00000ULL, 0xbeb22231ULL, 0xff800000ULL, 0xffc00000ULL, 0x807fffffULL};
  s.im.sizes = {3, 3};
  s.im.strides = {7, 2};
  s.im.offset = 2;
  s.im.data = {0x80000000ULL, 0x9824130a65b3528cULL, 0xb22456f237e6dbedULL, 0x7fffffffULL, 0x7fffffffULL, 0xffffffffULL, 0xffffffffULL, 0x1ULL, 0x80000000ULL, 0x7fffffffULL, 0x2264f8b72206be73ULL, 0xec7c8fea9790eff0ULL, 0xffffffffULL, 0x80000000ULL, 0x0ULL, 0x80000000ULL, 0x80000000ULL, 0x80000000ULL, 0x40238eabda39a6daULL, 0x0ULL, 0x0ULL, 0x8ULL, 0x80000002ULL};
  s.h = 0xd70ULL, s.g = 0xddc2ULL, s.c = 0x7fULL, s.d = 0x10000000000000ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x0ULL});
  e.outputs.push_back({1, 0x0ULL});
  e.outputs.push_back({2, 0x7fULL});
  e.outputs.push_back({3, 0x0ULL});
  e.outputs.push_back({4, 0x0ULL});
  e.hasRet = true, e.ret = 0x6b02082100000010ULL;
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v16 = b.constant(ElementType::I64, 7710734449838653456LL);
    Value v50 = b.constant(ElementType::UI8, 0x80ULL);
    Value v61 = b.constant(ElementType::Index, 0LL);
    Value v62 = b.constant(ElementType::Index, 4LL);
    Value v63 = b.constant(ElementType::Index, 2LL);
    Value v65 = b.constant(ElementType::BF16, -0x1.aep+22);
    Value v66 = b.constant(ElementType::UI8, 0x8ULL);
    auto r80 = b.forLoop(v61, v62, v63, {v65, v66}, [&](Value v67, const std::vector<Value>& carried) {
      Value v68 = carried[0];
      Value v69 = carried[1];
      Value v79 = b.constant(ElementType::BF16, 0x1.fcp-127);
      return std::vector<Value>{v79, v50};
    });
    Value v80 = r80[0];
    Value v81 = r80[1];
    b.store(b.cast(b.bitcast(v80, ElementType::I16), ElementType::I64), io, {b.index(9)});
    b.ret({v16});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}
// memjit-difftest seed 255626718953969: `memjit-difftest --seed 255626718953969 --count 1`
// Found by the 60-s clock-seeded run in a clean-clone ./dev.sh test after the
// half-precision fixes merged: at O1-O3, round(copysign(bf16 constant, g)) with
// g a bf16 register argument gives +0 where -0 is right. The IR after the
// optimiser is correct (sign taken with integer ops on g's bits, then
// llvm.round.v8bf16); the x86 back end computes the wrong lane. Still open.
TEST(DifftestRegression, DISABLED_Seed255626718953969Bf16ArgumentSignThroughRound) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 5;
  s.outputs = 7;
  s.io = {0x7e7fff9aff9b9e67ULL, 0xf9f5ffffdd7f0a32ULL, 0xfefb5cbdffecfa54ULL, 0xb212c4f200000000ULL, 0xd8508a045fe107ffULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {4, 5};
  s.fm.strides = {6, 1};
  s.fm.offset = 0;
  s.fm.data = {0x7f800000ULL, 0x807fffffULL, 0x3c8e4dbeULL, 0xc0b00000ULL, 0x414406faULL, 0x7fffffULL, 0x7f800000ULL, 0xbe8d0108ULL, 0xc16fec0bULL, 0x1ULL, 0xf604cf71ULL, 0x7fffffULL, 0x4e000000ULL, 0x0ULL, 0x0ULL, 0x7fffffULL, 0x7f7fffffULL, 0xff800000ULL, 0xc0800000ULL, 0xbe4a6160ULL, 0x80000001ULL, 0x3ce80199ULL, 0xc0283020ULL, 0xfff433f0ULL, 0x7fd596feULL};
  s.im.sizes = {3, 3};
  s.im.strides = {3, 1};
  s.im.offset = 0;
  s.im.data = {0x80000000ULL, 0x1ULL, 0x80000000ULL, 0x9774ee58a10af042ULL, 0x80000000ULL, 0x80000000ULL, 0x0ULL, 0x1ULL, 0x1ULL, 0xfd90741daed0cb8bULL};
  s.h = 0xddd2ULL, s.g = 0xb5cbULL, s.c = 0x0ULL, s.d = 0x40052cd13274ff60ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x0ULL});
  e.outputs.push_back({1, 0x0ULL});
  e.outputs.push_back({2, 0x0ULL});
  e.outputs.push_back({3, 0xffffffffffff8000ULL});
  e.outputs.push_back({4, 0x0ULL});
  e.outputs.push_back({5, 0x0ULL});
  e.outputs.push_back({6, 0x0ULL});
  e.hasRet = true, e.ret = 0xd85008045fe00254ULL;
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v72 = b.constant(ElementType::BF16, -0x1.96p-20);
    Value v73 = b.constant(ElementType::BF16, 0x1.4ap-16);
    Value v142 = b.constant(ElementType::I1, 0x0ULL);
    auto r171 = b.ifElse(v142, [&] {
      return std::vector<Value>{v73, h, v72};
    }, [&] {
      Value v170 = b.copysign(v73, g);
      return std::vector<Value>{v170, h, v170};
    });
    Value v171 = r171[0];
    Value v172 = r171[1];
    Value v173 = r171[2];
    Value v219 = b.constant(ElementType::BF16, 0x0p+0);
    Value x223_0 = b.fromElements({v171, v171, v171, v171, v171, v219, v219, v173});
    Value x223 = b.round(x223_0);
    Value v223 = b.extract(x223, 0);
    Value v224 = b.extract(x223, 1);
    Value v225 = b.extract(x223, 2);
    Value v226 = b.extract(x223, 3);
    Value v227 = b.extract(x223, 4);
    Value v228 = b.extract(x223, 5);
    Value v229 = b.extract(x223, 6);
    Value v230 = b.extract(x223, 7);
    b.store(b.cast(b.bitcast(v230, ElementType::I16), ElementType::I64), io, {b.index(8)});
    Value v231 = b.constant(ElementType::I64, -2859776948498857388LL);
    b.ret({v231});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}

// Found once generated float -> integer casts skipped their range guard (the
// mutation score's saturating-cast mutant survived without it): f16 -inf to a
// signed type whose lowest value is beyond f16's range (i32, i64) gave 0, not
// the lowest value, at every level: the range test's bound was -inf itself.
TEST(DifftestRegression, Seed368F16MinusInfinityToSignedSaturates) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 0;
  s.outputs = 3;
  s.io = {0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {4, 1};
  s.fm.strides = {1, 4};
  s.fm.offset = 0;
  s.fm.data = {0x741d757fULL, 0x0ULL, 0x1ULL, 0x40a00000ULL, 0xd306e305ULL, 0xc1100000ULL};
  s.im.sizes = {1, 1};
  s.im.strides = {1, 1};
  s.im.offset = 0;
  s.im.data = {0x0ULL};
  s.h = 0xfc00ULL, s.g = 0x7fULL, s.c = 0x1ULL, s.d = 0x0ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x8000000000000000ULL});
  e.outputs.push_back({1, 0xffffffff80000000ULL});
  e.outputs.push_back({2, 0x0ULL});
  e.hasRet = true, e.ret = 0xffffffffffffffffULL;
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value minusInf = b.constant(ElementType::F16, -INFINITY);
    b.store(b.cast(minusInf, ElementType::I64), io, {b.index(0)});
    b.store(b.cast(b.cast(h, ElementType::SI32), ElementType::I64), io, {b.index(1)});  // h is -inf too
    b.store(b.cast(b.cast(h, ElementType::UI32), ElementType::I64), io, {b.index(2)});
    b.ret({b.constant(ElementType::I64, -1LL)});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}

// Open: LLVM 19 aborts ("Cannot emit physreg copy instruction") while the JIT
// compiles generated program 1001323 at O0 (the whole process ends, so the
// reducer cannot shrink it; llc-19 -O0 on the same IR does not abort). Found
// once every unread value became an output; difftest_seed_range stops before it.
TEST(DifftestRegression, DISABLED_Seed1001323LlvmCannotEmitPhysregCopy) {
  auto runner = memjit::difftest::Runner::create();
  ASSERT_TRUE(static_cast<bool>(runner)) << runner.error().message();
  std::vector<memjit::difftest::Mismatch> mismatches;
  memjit::difftest::BatchStats stats;
  runner->run({memjit::difftest::generate(1001323)}, memjit::difftest::standardOracles(), memjit::difftest::KnownBugs{},
              mismatches, stats);
  EXPECT_TRUE(mismatches.empty()) << mismatches.front().oracle << ": " << mismatches.front().what;
}

// Found by memjit-difftest --isolate (the in-process run dies): at O0, LLVM aborts with "Cannot emit
// physreg copy instruction" on a bf16 div carried through a forLoop into an ifElse arm (O1-O3 compile it;
// an x86 backend failure on a bf16 copy, not yet diagnosed further; issue 24 item 1's family).
// memjit-difftest seed 424244: `memjit-difftest --seed 424244 --count 1`
TEST(DifftestRegression, DISABLED_Seed424244Bf16LoopIntoIfElseAbortsAtO0) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 8;
  s.outputs = 6;
  s.io = {0xf92f1345547e5e82ULL, 0x89f08a8600000000ULL, 0xa9693a3dff800000ULL, 0xd435fc3bd1b18131ULL, 0x8000000000000001ULL, 0x15cf659c06457fffULL, 0xad5ef7bdfffff52aULL, 0x421a072500000001ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {3, 4};
  s.fm.strides = {-4, 1};
  s.fm.offset = 8;
  s.fm.data = {0xc21bb2e2ULL, 0x50000000ULL, 0x800000ULL, 0x1ULL, 0x2dc274aULL, 0x8a3e6357ULL, 0x7f800000ULL, 0x41f80000ULL, 0x7fc00000ULL, 0x430976c5ULL, 0xc11d5620ULL, 0x7f800000ULL, 0x800000ULL};
  s.im.sizes = {1, 4};
  s.im.strides = {1, 1};
  s.im.offset = 2;
  s.im.data = {0x80000002ULL, 0xffffffffULL, 0x80000001ULL, 0x7fffffffULL, 0xffffffffULL, 0x7fffffffULL, 0x0ULL, 0x6ULL};
  s.h = 0x1ULL, s.g = 0xdc00ULL, s.c = 0x0ULL, s.d = 0x42affffffffffe00ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x0ULL});
  e.outputs.push_back({1, 0x0ULL});
  e.outputs.push_back({2, 0x0ULL});
  e.outputs.push_back({3, 0x0ULL});
  e.outputs.push_back({4, 0x0ULL});
  e.outputs.push_back({5, 0x0ULL});
  e.hasRet = true, e.ret = 0x573d96701915fffcULL;
  e.fm.push_back({11, 0x2dc274aULL});
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v22 = b.constant(ElementType::BF16, -0x1.62p-125);
    Value v29 = b.constant(ElementType::I16, 32767LL);
    Value v39 = b.constant(ElementType::UI16, 0x0ULL);
    Value v43 = b.constant(ElementType::I1, 0x1ULL);
    Value v56 = b.constant(ElementType::BF16, 0x0p+0);
    Value v57 = b.copysign(v56, g);
    Value v61 = b.constant(ElementType::SI8, 0LL);
    Value v70 = b.constant(ElementType::Index, 3LL);
    Value v95 = b.constant(ElementType::F32, 0x1.b84e94p-122);
    Value v153 = b.div(v57, v56);
    Value v159 = b.constant(ElementType::Index, 2LL);
    Value v160 = b.dim(fm, 0);
    Value v161 = b.constant(ElementType::Index, 2LL);
    auto r179 = b.forLoop(v159, v160, v161, {v39, v57}, [&](Value v162, const std::vector<Value>& carried) {
      Value v163 = carried[0];
      Value v164 = carried[1];
      Value v178 = b.constant(ElementType::UI16, 0x0ULL);
      return std::vector<Value>{v178, v153};
    });
    Value v179 = r179[0];
    Value v180 = r179[1];
    auto r233 = b.ifElse(v43, [&] {
      Value v181 = b.constant(ElementType::Index, 3LL);
      Value v182 = b.remui(v70, v181);
      Value v183 = b.constant(ElementType::Index, 4LL);
      Value v184 = b.remui(v160, v183);
      b.store(v95, fm, {v182, v184});
      return std::vector<Value>{v22, v29, v61};
    }, [&] {
      return std::vector<Value>{v180, v29, v61};
    });
    Value v233 = r233[0];
    Value v234 = r233[1];
    Value v235 = r233[2];
    Value v237 = b.constant(ElementType::I64, 6286346063080456188LL);
    b.ret({v237});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}

// A generated program kept as printed, with the vector operations beyond lane by lane (insert, splat,
// dynamic extract, masked store, scatter, transfer_read): the printer's output compiles and agrees at O0..O3.
// memjit-difftest seed 75: `memjit-difftest --seed 75 --count 1 --statements 10`
TEST(DifftestRegression, Seed75VectorLanesAndMemory) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 5;
  s.outputs = 8;
  s.io = {0xfffffffffffffffaULL, 0xffffffffffffffffULL, 0xf813f18e00800000ULL, 0x7fffffffffffffffULL, 0x9bb545b43e34f3d4ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {3, 2};
  s.fm.strides = {3, 1};
  s.fm.offset = 1;
  s.fm.data = {0x80800000ULL, 0x80800000ULL, 0x2ee903f9ULL, 0x80000001ULL, 0xc361a4fcULL, 0x0ULL, 0x4048c19cULL, 0x800000ULL, 0x7f800000ULL, 0xc7000000ULL, 0xc8800000ULL};
  s.im.sizes = {2, 1};
  s.im.strides = {-3, 1};
  s.im.offset = 3;
  s.im.data = {0xffffffffULL, 0x80000001ULL, 0x0ULL, 0xffffffffULL, 0x3ffffffULL, 0xd420671f5865fc97ULL};
  s.h = 0xfc00ULL, s.g = 0x1ULL, s.c = 0x4ULL, s.d = 0x3fe696b0a1a758acULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0xffffffffffffffffULL});
  e.outputs.push_back({1, 0xffffffffffffffffULL});
  e.outputs.push_back({2, 0x3ULL});
  e.outputs.push_back({4, 0xfffffffffffffc00ULL});
  e.outputs.push_back({5, 0x3ULL});
  e.outputs.push_back({6, 0xfffffffffffffc00ULL});
  e.outputs.push_back({7, 0x1ULL});
  e.hasRet = true, e.ret = 0x7fffffffffffffffULL;
  e.im.push_back({3, 0x800000ULL});
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v7 = b.constant(ElementType::Index, 0LL);
    Value v8 = b.load(io, {v7});
    Value v9 = b.cast(v8, ElementType::I32);
    Value v10 = b.bitcast(v9, ElementType::UI32);
    Value v11 = b.constant(ElementType::Index, 1LL);
    Value v12 = b.load(io, {v11});
    Value v13 = b.cast(v12, ElementType::I64);
    Value v14 = b.bitcast(v13, ElementType::UI64);
    Value v15 = b.constant(ElementType::Index, 2LL);
    Value v16 = b.load(io, {v15});
    Value v17 = b.cast(v16, ElementType::I32);
    Value v18 = b.bitcast(v17, ElementType::F32);
    Value v19 = b.constant(ElementType::Index, 3LL);
    Value v20 = b.load(io, {v19});
    Value v21 = b.cast(v20, ElementType::I64);
    Value v22 = b.bitcast(v21, ElementType::UI64);
    Value v23 = b.constant(ElementType::Index, 4LL);
    Value v24 = b.load(io, {v23});
    Value v25 = b.cast(v24, ElementType::I64);
    Value v26 = b.bitcast(v25, ElementType::SI64);
    Value v27 = b.add(v9, v17);
    Value v28 = b.constant(ElementType::SI32, 0LL);
    Value v29 = b.shrsi(v28, v28);
    Value v30 = b.constant(ElementType::I8, -126LL);
    Value v31 = b.constant(ElementType::I8, 1LL);
    Value v32 = b.cmp(CmpPredicate::Gt, v30, v31);
    Value v33 = b.select(v32, v10, v10);
    Value v34 = b.constant(ElementType::Index, 2LL);
    Value v35 = b.remui(v23, v34);
    Value v36 = b.constant(ElementType::Index, 1LL);
    Value v37 = b.remui(v11, v36);
    b.store(v17, im, {v35, v37});
    Value v38 = b.min(v18, v18);
    Value v39 = b.cast(v33, ElementType::F16);
    Value v40 = b.constant(ElementType::Index, 2LL);
    Value v41 = b.remui(v7, v40);
    Value v42 = b.constant(ElementType::Index, 1LL);
    Value v43 = b.remui(v41, v42);
    Value v44 = b.load(im, {v41, v43});
    auto r72 = b.ifElse(v32, [&] {
      Value v45 = b.constant(ElementType::Index, 0LL);
      Value v46 = b.constant(ElementType::Index, 11LL);
      Value v47 = b.constant(ElementType::Index, 1LL);
      Value v48 = b.constant(ElementType::UI8, 0x80ULL);
      Value v49 = b.select(v32, v48, v48);
      auto r53 = b.parallelReduce(v45, v46, v47, ParallelOptions{.chunk = 2, .schedule = ParallelSchedule::Static}, {Reduction::product(v49), Reduction::max(v25)}, [&](Value v50) {
        Value v51 = b.cast(v50, ElementType::I64);
        Value v52 = b.dim(fm, 1);
        return std::vector<Value>{v48, v21};
      });
      Value v53 = r53[0];
      Value v54 = r53[1];
      Value v55 = b.sqrt(v18);
      Value v56 = b.constant(ElementType::UI64, 0x0ULL);
      Value v57 = b.cmp(CmpPredicate::Eq, v14, v56);
      Value v58 = b.constant(ElementType::UI64, 0x1ULL);
      Value v59 = b.select(v57, v58, v14);
      Value v60 = b.ceildivui(v22, v59);
      Value v61 = b.cmp(CmpPredicate::Eq, g, g);
      return std::vector<Value>{g, d, v27};
    }, [&] {
      Value v62 = b.constant(ElementType::Index, 38LL);
      Value v63 = b.shrsi(v43, v62);
      Value v64 = b.constant(ElementType::Index, 3LL);
      Value v65 = b.remui(v63, v64);
      Value v66 = b.constant(ElementType::Index, 2LL);
      Value v67 = b.remui(v42, v66);
      Value v68 = b.constant(ElementType::Index, 2LL);
      Value v69 = b.remui(v64, v68);
      Value v70 = b.abs(v18);
      b.maskedStore(b.fromElements({v18, v18, v70}), b.reinterpretCast(fm, memjit::MemRefType(ElementType::F32, {memjit::kDynamic, memjit::kDynamic}, memjit::StridedLayout{.offset = memjit::kDynamic, .strides = {memjit::kDynamic, 1}}), 1, {3, 2}, {3, 1}), {v65, v69}, b.andi(b.fromElements({v32, v32, v32}), b.createMask(3, b.sub(b.dim(fm, 1), v69))));
      Value v71 = b.noti(v29);
      return std::vector<Value>{g, d, v44};
    });
    Value v72 = r72[0];
    Value v73 = r72[1];
    Value v74 = r72[2];
    Value v75 = b.constant(ElementType::I16, 0LL);
    Value v76 = b.cast(v75, ElementType::SI8);
    Value v77 = b.bitcast(v76, ElementType::I8);
    auto r162 = b.ifElse(v32, [&] {
      Value v78 = b.constant(ElementType::SI16, 32767LL);
      Value v80 = b.noti(v78);
      Value x79_0 = b.fromElements({v78, v78, v78, v80});
      Value x79_1 = b.fromElements({v78, v80, v80, v78});
      Value x79 = b.max(x79_0, x79_1);
      Value v79 = b.extract(x79, 0);
      Value v81 = b.extract(x79, 1);
      Value v82 = b.extract(x79, 2);
      Value v83 = b.extract(x79, 3);
      Value v84 = b.cttz(v79);
      Value v85 = b.ctpop(v26);
      Value v86 = b.constant(ElementType::Index, 2LL);
      Value v87 = b.constant(ElementType::Index, 5LL);
      Value v88 = b.constant(ElementType::Index, 2LL);
      auto r106 = b.forLoop(v86, v87, v88, {v76}, [&](Value v89, const std::vector<Value>& carried) {
        Value v90 = carried[0];
        Value v91 = b.constant(ElementType::Index, 3LL);
        Value v92 = b.remui(v88, v91);
        Value v93 = b.constant(ElementType::Index, 2LL);
        Value v94 = b.remui(v89, v93);
        Value v95 = b.constant(ElementType::Index, 3LL);
        Value v96 = b.remui(v34, v95);
        Value l1000001 = b.transferRead(fm, {v92, v96}, 2, v18);
        Value v97 = b.extract(l1000001, 0);
        Value v98 = b.extract(l1000001, 1);
        Value v99 = b.constant(ElementType::UI16, 0x8000ULL);
        Value v100 = b.constant(ElementType::UI16, 0x3ULL);
        Value v101 = b.shr(v99, v100);
        Value v102 = b.andi(v75, v75);
        Value v103 = b.select(v32, v39, v39);
        Value v104 = b.abs(v29);
        Value v105 = b.subview(im, {1, 0}, {1, 1}, {2, 1});
        return std::vector<Value>{v76};
      });
      Value v106 = r106[0];
      auto r131 = b.ifElse(v32, [&] {
        Value l1000002 = b.splat(v81, 7);
        Value v107 = b.extract(l1000002, 0);
        Value v108 = b.extract(l1000002, 1);
        Value v109 = b.extract(l1000002, 2);
        Value v110 = b.extract(l1000002, 3);
        Value v111 = b.extract(l1000002, 4);
        Value v112 = b.extract(l1000002, 5);
        Value v113 = b.extract(l1000002, 6);
        Value v114 = b.maximumf(h, v39);
        return std::vector<Value>{g, v22, v72};
      }, [&] {
        Value v115 = b.constant(ElementType::Index, -9223372036854775807LL);
        Value v116 = b.constant(ElementType::Index, 2LL);
        Value v117 = b.remui(v115, v116);
        Value v118 = b.constant(ElementType::Index, 1LL);
        Value v119 = b.remui(v116, v118);
        Value v120 = b.constant(ElementType::Index, 0LL);
        Value v121 = b.constant(ElementType::Index, 1LL);
        Value v122 = b.remui(v35, v121);
        Value v123 = b.constant(ElementType::Index, 2845470564853367864LL);
        Value v124 = b.constant(ElementType::Index, 1LL);
        Value v125 = b.remui(v123, v124);
        Value v126 = b.constant(ElementType::Index, -589254847149355527LL);
        Value v127 = b.constant(ElementType::Index, 1LL);
        Value v128 = b.remui(v126, v127);
        b.scatter(b.fromElements({v27, v44, v27}), im, {v117, v120}, b.fromElements({v122, v125, v128}), b.fromElements({v32, v32, v32}));
        Value v129 = b.ctpop(v16);
        Value v130 = b.constant(ElementType::BF16, -0x1.fcp-127);
        return std::vector<Value>{v130, v14, v72};
      });
      Value v131 = r131[0];
      Value v132 = r131[1];
      Value v133 = r131[2];
      Value v134 = b.exp(v39);
      Value v135 = b.cast(v9, ElementType::BF16);
      Value v136 = b.constant(ElementType::Index, 8LL);
      Value v137 = b.remui(v86, v136);
      Value v138 = b.extract(b.fromElements({v131, v135, v131, v131, v133, v135, v72, v131}), v137);
      return std::vector<Value>{v131, v133};
    }, [&] {
      Value v139 = b.constant(ElementType::Index, 0LL);
      Value v140 = b.cmp(CmpPredicate::Eq, v42, v139);
      Value v141 = b.constant(ElementType::Index, INT64_MIN);
      Value v142 = b.cmp(CmpPredicate::Eq, v40, v141);
      Value v143 = b.constant(ElementType::Index, -1LL);
      Value v144 = b.cmp(CmpPredicate::Eq, v42, v143);
      Value v145 = b.andi(v142, v144);
      Value v146 = b.ori(v140, v145);
      Value v147 = b.constant(ElementType::Index, 1LL);
      Value v148 = b.select(v146, v147, v42);
      Value v149 = b.ceildivsi(v40, v148);
      Value v150 = b.constant(ElementType::Index, 2LL);
      Value v151 = b.remui(v149, v150);
      Value v152 = b.constant(ElementType::Index, 1LL);
      Value v153 = b.remui(v150, v152);
      b.store(v17, im, {v151, v153});
      Value v154 = b.constant(ElementType::SI64, 9223372036854775807LL);
      Value v155 = b.constant(ElementType::Index, 5LL);
      Value v156 = b.remui(v151, v155);
      Value l1000005 = b.insert(b.fromElements({v154, v26, v154, v154, v26}), v26, v156);
      Value v157 = b.extract(l1000005, 0);
      Value v158 = b.extract(l1000005, 1);
      Value v159 = b.extract(l1000005, 2);
      Value v160 = b.extract(l1000005, 3);
      Value v161 = b.extract(l1000005, 4);
      return std::vector<Value>{g, g};
    });
    Value v162 = r162[0];
    Value v163 = r162[1];
    b.store(v12, io, {b.index(5)});
    b.store(v13, io, {b.index(6)});
    b.store(b.cast(v19, ElementType::I64), io, {b.index(7)});
    b.store(b.cast(b.bitcast(v162, ElementType::I16), ElementType::I64), io, {b.index(8)});
    b.store(b.cast(b.bitcast(h, ElementType::I16), ElementType::I64), io, {b.index(9)});
    b.store(b.cast(v19, ElementType::I64), io, {b.index(10)});
    b.store(b.cast(b.bitcast(h, ElementType::I16), ElementType::I64), io, {b.index(11)});
    b.store(b.cast(v11, ElementType::I64), io, {b.index(12)});
    b.ret({v21});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}

// A generated program kept as printed: a parallelFor whose iterations store to their own rows, and a
// parallelReduce with a custom combiner.
// memjit-difftest seed 168: `memjit-difftest --seed 168 --count 1 --statements 8`
TEST(DifftestRegression, Seed168ParallelForStoresAndCustomReduction) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 7;
  s.outputs = 8;
  s.io = {0x5fd7f375f6eebfc1ULL, 0x6bd294f7f6690002ULL, 0xeed11fe1e28f07ffULL, 0x4c147354ffffffffULL, 0xe3b7453cffffffffULL, 0x8000000000000000ULL, 0x9e7fdb78a8c26bffULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {1, 2};
  s.fm.strides = {2, 1};
  s.fm.offset = 0;
  s.fm.data = {0x7f7fffffULL, 0x42ba5d74ULL, 0xffe62290ULL, 0x7f7fffffULL};
  s.im.sizes = {4, 1};
  s.im.strides = {3, 1};
  s.im.offset = 2;
  s.im.data = {0xffffffffULL, 0x0ULL, 0x0ULL, 0xffffffffULL, 0xb54ef3072d2df42cULL, 0x1ULL, 0x80000000ULL, 0x1ULL, 0xffffffffULL, 0x80000000ULL, 0xc00151bf114b8185ULL, 0xfffffffffffffffaULL, 0x1ULL, 0x3ULL};
  s.h = 0xca74ULL, s.g = 0xc0f0ULL, s.c = 0xffULL, s.d = 0x3ff88f9792e6c562ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x0ULL});
  e.outputs.push_back({1, 0x2ULL});
  e.outputs.push_back({2, 0x0ULL});
  e.outputs.push_back({3, 0x5fd7f375f6eebfc1ULL});
  e.outputs.push_back({4, 0x2ULL});
  e.outputs.push_back({5, 0xffffffffffffca74ULL});
  e.outputs.push_back({6, 0x1ULL});
  e.outputs.push_back({7, 0x1ULL});
  e.hasRet = true, e.ret = 0x8000000000000001ULL;
  e.im.push_back({5, 0xffffffffULL});
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v7 = b.constant(ElementType::Index, 0LL);
    Value v8 = b.load(io, {v7});
    Value v9 = b.cast(v8, ElementType::I16);
    Value v10 = b.constant(ElementType::Index, 1LL);
    Value v11 = b.load(io, {v10});
    Value v12 = b.cast(v11, ElementType::I16);
    Value v13 = b.bitcast(v12, ElementType::UI16);
    Value v14 = b.constant(ElementType::Index, 2LL);
    Value v15 = b.load(io, {v14});
    Value v16 = b.cast(v15, ElementType::I16);
    Value v17 = b.bitcast(v16, ElementType::SI16);
    Value v18 = b.constant(ElementType::Index, 3LL);
    Value v19 = b.load(io, {v18});
    Value v20 = b.cast(v19, ElementType::I32);
    Value v21 = b.bitcast(v20, ElementType::UI32);
    Value v22 = b.constant(ElementType::Index, 4LL);
    Value v23 = b.load(io, {v22});
    Value v24 = b.cast(v23, ElementType::I32);
    Value v25 = b.constant(ElementType::Index, 5LL);
    Value v26 = b.load(io, {v25});
    Value v27 = b.cast(v26, ElementType::Index);
    Value v28 = b.constant(ElementType::Index, 6LL);
    Value v29 = b.load(io, {v28});
    Value v30 = b.cast(v29, ElementType::I8);
    Value v31 = b.bitcast(v30, ElementType::UI8);
    Value v32 = b.constant(ElementType::Index, 1LL);
    Value v33 = b.constant(ElementType::Index, 8LL);
    Value v34 = b.constant(ElementType::Index, 3LL);
    Value v35 = b.constant(ElementType::SI64, 1LL);
    Value v36 = b.cast(v23, ElementType::SI32);
    auto r54 = b.parallelReduce(v32, v33, v34, ParallelOptions{.chunk = 1, .schedule = ParallelSchedule::Dynamic}, {Reduction::max(v35), Reduction::custom(v21, b.constant(ElementType::UI32, 0), [&](Value x, Value y) { return b.ori(x, y); }), Reduction::custom(v36, b.constant(ElementType::SI32, 0), [&](Value x, Value y) { return b.ori(x, y); })}, [&](Value v37) {
      Value v38 = b.cast(v37, ElementType::I64);
      Value v39 = b.cast(v35, ElementType::I64);
      Value v40 = b.constant(ElementType::Index, 1LL);
      Value v41 = b.remui(v10, v40);
      Value v42 = b.constant(ElementType::Index, 2LL);
      Value v43 = b.remui(v41, v42);
      Value v44 = b.constant(ElementType::Index, 3LL);
      Value v45 = b.remui(v18, v44);
      Value v46 = b.cast(v35, ElementType::F32);
      Value l1000000 = b.transferRead(fm, {v41, v45}, 4, v46);
      Value v47 = b.extract(l1000000, 0);
      Value v48 = b.extract(l1000000, 1);
      Value v49 = b.extract(l1000000, 2);
      Value v50 = b.extract(l1000000, 3);
      Value v51 = b.mulhi(v30, c);
      Value v52 = b.cmp(CmpPredicate::Le, v51, c);
      Value v53 = b.ori(c, c);
      return std::vector<Value>{v35, v21, v36};
    });
    Value v54 = r54[0];
    Value v55 = r54[1];
    Value v56 = r54[2];
    Value v57 = b.constant(ElementType::Index, 1LL);
    Value v58 = b.remui(v7, v57);
    Value v59 = b.constant(ElementType::Index, 2LL);
    Value v60 = b.remui(v33, v59);
    Value v61 = b.load(fm, {v58, v60});
    Value v62 = b.reduce(FunctionBuilder::VectorReduction::And, b.fromElements({v17, v17, v17, v17, v17, v17, v17}));
    Value v63 = b.constant(ElementType::Index, 4LL);
    Value v64 = b.remui(v10, v63);
    Value v65 = b.constant(ElementType::Index, 1LL);
    Value v66 = b.remui(v10, v65);
    b.store(v20, im, {v64, v66});
    Value v67 = b.subview(fm, {0, 1}, {1, 1}, {1, 1});
    Value v68 = b.constant(ElementType::Index, 1LL);
    Value v69 = b.remui(v66, v68);
    Value v70 = b.constant(ElementType::Index, 1LL);
    Value v71 = b.remui(v65, v70);
    Value v72 = b.load(v67, {v69, v71});
    Value v73 = b.xori(v12, v9);
    Value v74 = b.cast(v29, ElementType::I1);
    auto r139 = b.ifElse(v74, [&] {
      Value v75 = b.dim(fm, 0);
      Value v76 = b.constant(ElementType::Index, 1LL);
      Value v77 = b.constant(ElementType::Index, 2LL);
      b.parallelFor(v76, v75, v77, ParallelOptions{.chunk = 0, .schedule = ParallelSchedule::Dynamic}, [&](Value v78) {
        Value v79 = b.constant(ElementType::Index, -465080937555795166LL);
        Value v80 = b.constant(ElementType::Index, 6LL);
        Value v81 = b.remui(v79, v80);
        Value v82 = b.extract(b.fromElements({v56, v36, v36, v36, v36, v36}), v81);
        Value v83 = b.constant(ElementType::Index, 4LL);
        Value v84 = b.remui(v14, v83);
        Value v85 = b.constant(ElementType::Index, 65535LL);
        Value v86 = b.andi(v81, v85);
        Value v87 = b.neg(v86);
        Value v88 = b.constant(ElementType::Index, 1LL);
        Value v89 = b.remui(v87, v88);
        Value v90 = b.load(im, {v84, v89});
        Value v91 = b.constant(ElementType::Index, 2LL);
        Value v92 = b.remui(v59, v91);
        b.store(v72, fm, {v78, v92});
      });
      Value v93 = b.constant(ElementType::Index, 256LL);
      Value v94 = b.cast(v93, ElementType::SI16);
      Value v95 = b.noti(v54);
      Value v96 = b.ctlz(v17);
      Value l1000003 = b.splat(v72, 2);
      Value v97 = b.extract(l1000003, 0);
      Value v98 = b.extract(l1000003, 1);
      Value v99 = b.constant(ElementType::SI8, -128LL);
      return std::vector<Value>{v99};
    }, [&] {
      auto r133 = b.ifElse(v74, [&] {
        Value v100 = b.round(g);
        Value v101 = b.constant(ElementType::Index, 1LL);
        Value v102 = b.remui(v68, v101);
        Value v103 = b.constant(ElementType::Index, 2LL);
        Value v104 = b.remui(v101, v103);
        Value v105 = b.constant(ElementType::Index, 2LL);
        Value v106 = b.remui(v102, v105);
        Value l1000004 = b.maskedLoad(b.reinterpretCast(fm, memjit::MemRefType(ElementType::F32, {memjit::kDynamic, memjit::kDynamic}, memjit::StridedLayout{.offset = memjit::kDynamic, .strides = {memjit::kDynamic, 1}}), 0, {1, 2}, {2, 1}), {v102, v106}, b.andi(b.fromElements({v74, v74, v74, v74}), b.createMask(4, b.sub(b.dim(fm, 1), v106))), b.fromElements({v61, v61, v72, v72}));
        Value v107 = b.extract(l1000004, 0);
        Value v108 = b.extract(l1000004, 1);
        Value v109 = b.extract(l1000004, 2);
        Value v110 = b.extract(l1000004, 3);
        Value v111 = b.constant(ElementType::Index, 1LL);
        Value v112 = b.remui(v22, v111);
        Value v113 = b.constant(ElementType::Index, 2LL);
        Value v114 = b.remui(v60, v113);
        Value v115 = b.load(fm, {v112, v114});
        Value v116 = b.constant(ElementType::SI8, 53LL);
        Value v117 = b.select(v74, v116, v116);
        return std::vector<Value>{d, d, v117};
      }, [&] {
        Value v118 = b.constant(ElementType::Index, 1LL);
        Value v119 = b.remui(v71, v118);
        Value v120 = b.constant(ElementType::Index, 1LL);
        Value v121 = b.remui(v119, v120);
        Value v122 = b.load(v67, {v119, v121});
        Value v123 = b.constant(ElementType::Index, 1LL);
        Value v124 = b.remui(v119, v123);
        Value v125 = b.andi(v124, v27);
        Value v126 = b.constant(ElementType::Index, 2LL);
        Value v127 = b.remui(v125, v126);
        Value v128 = b.constant(ElementType::Index, 2LL);
        Value v129 = b.remui(v124, v128);
        Value v130 = b.min(v122, v61);
        b.maskedStore(b.fromElements({v61, v61, v122, v130, v72}), b.reinterpretCast(fm, memjit::MemRefType(ElementType::F32, {memjit::kDynamic, memjit::kDynamic}, memjit::StridedLayout{.offset = memjit::kDynamic, .strides = {memjit::kDynamic, 1}}), 0, {1, 2}, {2, 1}), {v124, v129}, b.andi(b.fromElements({v74, v74, v74, v74, v74}), b.createMask(5, b.sub(b.dim(fm, 1), v129))));
        Value v131 = b.constant(ElementType::SI8, -3LL);
        Value v132 = b.andi(v131, v131);
        return std::vector<Value>{d, d, v132};
      });
      Value v133 = r133[0];
      Value v134 = r133[1];
      Value v135 = r133[2];
      Value v136 = b.add(g, g);
      Value v137 = b.select(v74, v135, v135);
      Value v138 = b.select(v74, v137, v137);
      return std::vector<Value>{v138};
    });
    Value v139 = r139[0];
    b.store(b.cast(v71, ElementType::I64), io, {b.index(7)});
    b.store(b.cast(v59, ElementType::I64), io, {b.index(8)});
    b.store(b.cast(v7, ElementType::I64), io, {b.index(9)});
    b.store(v8, io, {b.index(10)});
    b.store(b.cast(v13, ElementType::I64), io, {b.index(11)});
    b.store(b.cast(b.bitcast(h, ElementType::I16), ElementType::I64), io, {b.index(12)});
    b.store(b.cast(v64, ElementType::I64), io, {b.index(13)});
    b.store(b.bitcast(v35, ElementType::I64), io, {b.index(14)});
    Value v140 = b.constant(ElementType::I64, -9223372036854775807LL);
    b.ret({v140});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}

// A generated program kept as printed: helper functions (scalars and a memref in, scalars out) that the
// main function calls.
// memjit-difftest seed 33: `memjit-difftest --seed 33 --count 1 --statements 6`
TEST(DifftestRegression, Seed33Calls) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 6;
  s.outputs = 5;
  s.io = {0xbb60dbc6cd00ffffULL, 0xfffffffffffffff9ULL, 0x0ULL, 0x927a6aec28c7bd7fULL, 0xb5fb3f5e80000000ULL, 0x462922cf26030f7fULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {3, 4};
  s.fm.strides = {-4, 1};
  s.fm.offset = 10;
  s.fm.data = {0x1ULL, 0x43800000ULL, 0x3e10e0fdULL, 0xb8ab1bb5ULL, 0x1a5e624eULL, 0x3f800000ULL, 0x32727942ULL, 0x7f800000ULL, 0x800000ULL, 0xff7fffffULL, 0x7ff31708ULL, 0x31178e4aULL, 0xce800000ULL, 0x770284ccULL, 0x43800000ULL, 0xff7fffffULL};
  s.im.sizes = {3, 4};
  s.im.strides = {1, 3};
  s.im.offset = 0;
  s.im.data = {0x9ebf642ddce46f5dULL, 0x9f73520efa57e420ULL, 0x7fffffffULL, 0x7fffffffULL, 0x1ULL, 0x1ULL, 0x80000000ULL, 0x80000000ULL, 0x0ULL, 0x80000000ULL, 0x80000000ULL, 0x9763553e52c2a37eULL, 0x7ffffffULL, 0x2ddae8a96341bdb3ULL};
  s.h = 0xcc92ULL, s.g = 0x437fULL, s.c = 0xffULL, s.d = 0x7ff0000000000000ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x437fULL});
  e.outputs.push_back({1, 0xffffffffffffffeeULL});
  e.outputs.push_back({2, 0x0ULL});
  e.outputs.push_back({3, 0x4ULL});
  e.outputs.push_back({4, 0x0ULL});
  e.hasRet = true, e.ret = 0x0ULL;
  auto helpers = [&](Module& module) -> memjit::Error {
    {
      FunctionBuilder b(module, "h0", *memjit::parseFunctionType("(memref<?x?xf32, strided<[?, ?], offset: ?>>, f32, f16, i16, si16) -> (ui32)"));
      Value v7 = b.arg(0);
      Value v8 = b.arg(1);
      Value v9 = b.arg(2);
      Value v10 = b.arg(3);
      Value v11 = b.arg(4);
      Value v12 = b.constant(ElementType::I1, 0x1ULL);
      Value v13 = b.abs(v12);
      Value v14 = b.constant(ElementType::Index, 9223372036854775807LL);
      Value v15 = b.constant(ElementType::Index, 3LL);
      Value v16 = b.remui(v14, v15);
      Value v17 = b.constant(ElementType::Index, 4LL);
      Value v18 = b.remui(v16, v17);
      Value v19 = b.load(v7, {v16, v18});
      Value v20 = b.constant(ElementType::Index, 3LL);
      Value v21 = b.remui(v17, v20);
      Value v22 = b.constant(ElementType::Index, 4LL);
      Value v23 = b.remui(v21, v22);
      b.store(v19, v7, {v21, v23});
      Value v24 = b.constant(ElementType::F16, -0x1p+0);
      Value v25 = b.constant(ElementType::F16, 0x1p+8);
      Value v26 = b.cmp(CmpPredicate::Gt, v9, v24);
      Value v27 = b.cmp(CmpPredicate::Lt, v9, v25);
      Value v28 = b.andi(v26, v27);
      Value v29 = b.constant(ElementType::F16, 0x0p+0);
      Value v30 = b.select(v28, v9, v29);
      Value v31 = b.cast(v30, ElementType::UI8);
      Value v32 = b.constant(ElementType::SI32, 1LL);
      Value v33 = b.xori(v32, v32);
      Value v34 = b.subview(v7, {0, 0}, {1, 1}, {1, 1});
      Value v35 = b.constant(ElementType::UI32, 0x7fffffffULL);
      Value v36 = v35 + 0x7fffffffULL;
      b.ret({v35});
      if (memjit::Error e = b.finish()) return e;
    }
    {
      FunctionBuilder b(module, "h1", *memjit::parseFunctionType("(memref<?x?xf32, strided<[?, ?], offset: ?>>, i16) -> (f64, si32)"));
      Value v37 = b.arg(0);
      Value v38 = b.arg(1);
      Value v39 = b.constant(ElementType::I64, INT64_MIN);
      Value v40 = b.constant(ElementType::I64, 6LL);
      Value v41 = b.rotr(v39, v40);
      Value v42 = b.constant(ElementType::I64, 62LL);
      Value v43 = b.rotl(v41, v42);
      Value v44 = b.constant(ElementType::Index, -9223372036854775807LL);
      Value v45 = b.cast(v44, ElementType::I64);
      Value v46 = b.constant(ElementType::F64, 0x1.eb72242d9c69cp+595);
      Value v47 = b.constant(ElementType::SI32, -3LL);
      Value v48 = b.sub(v47, v47);
      b.ret({v46, v48});
      if (memjit::Error e = b.finish()) return e;
    }
    return memjit::Error::success();
  };
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v49 = b.constant(ElementType::Index, 0LL);
    Value v50 = b.load(io, {v49});
    Value v51 = b.cast(v50, ElementType::I16);
    Value v52 = b.bitcast(v51, ElementType::UI16);
    Value v53 = b.constant(ElementType::Index, 1LL);
    Value v54 = b.load(io, {v53});
    Value v55 = b.cast(v54, ElementType::I32);
    Value v56 = b.constant(ElementType::Index, 2LL);
    Value v57 = b.load(io, {v56});
    Value v58 = b.cast(v57, ElementType::I64);
    Value v59 = b.bitcast(v58, ElementType::F64);
    Value v60 = b.constant(ElementType::Index, 3LL);
    Value v61 = b.load(io, {v60});
    Value v62 = b.cast(v61, ElementType::I8);
    Value v63 = b.bitcast(v62, ElementType::SI8);
    Value v64 = b.constant(ElementType::Index, 4LL);
    Value v65 = b.load(io, {v64});
    Value v66 = b.cast(v65, ElementType::I32);
    Value v67 = b.bitcast(v66, ElementType::UI32);
    Value v68 = b.constant(ElementType::Index, 5LL);
    Value v69 = b.load(io, {v68});
    Value v70 = b.cast(v69, ElementType::I8);
    Value v71 = b.bitcast(v70, ElementType::UI8);
    Value v72 = b.constant(ElementType::F16, -INFINITY);
    Value v73 = b.constant(ElementType::F16, INFINITY);
    Value v74 = b.cmp(CmpPredicate::Gt, h, v72);
    Value v75 = b.cmp(CmpPredicate::Lt, h, v73);
    Value v76 = b.andi(v74, v75);
    Value v77 = b.constant(ElementType::F16, 0x0p+0);
    Value v78 = b.select(v76, h, v77);
    Value v79 = b.cast(v78, ElementType::Index);
    Value v80 = b.constant(ElementType::I32, 9LL);
    Value v81 = b.rotr(v66, v80);
    Value v82 = b.constant(ElementType::Index, 3LL);
    Value v83 = b.remui(v64, v82);
    Value v84 = b.constant(ElementType::Index, 4LL);
    Value v85 = b.remui(v68, v84);
    Value v86 = b.load(im, {v83, v85});
    auto r1000000 = b.ifElse(v75, [&] {
      Value v87 = b.constant(ElementType::Index, 0LL);
      Value v88 = b.dim(im, 0);
      Value v89 = b.constant(ElementType::Index, 2LL);
      Value v90 = b.constant(ElementType::UI64, 0xc4e1a62b0ec915b0ULL);
      Value v91 = b.ctlz(v90);
      auto r105 = b.forLoop(v87, v88, v89, {c, v91}, [&](Value v92, const std::vector<Value>& carried) {
        Value v93 = carried[0];
        Value v94 = carried[1];
        Value v95 = b.dim(fm, 1);
        Value v96 = b.dim(fm, 1);
        Value v97 = b.constant(ElementType::UI64, 0x0ULL);
        Value v98 = b.cmp(CmpPredicate::Eq, v90, v97);
        Value v99 = b.constant(ElementType::UI64, 0x1ULL);
        Value v100 = b.select(v98, v99, v90);
        Value v101 = b.div(v90, v100);
        Value v102 = b.select(v75, v67, v67);
        Value v103 = b.cast(v52, ElementType::SI32);
        Value v104 = b.dim(fm, 1);
        return std::vector<Value>{v62, v94};
      });
      Value v105 = r105[0];
      Value v106 = r105[1];
      return std::vector<Value>{};
    }, [&] {
      Value v107 = b.bitcast(v52, ElementType::I16);
      auto r137 = b.ifElse(v76, [&] {
        Value v108 = b.subview(fm, {1, 2}, {1, 2}, {1, 1});
        return std::vector<Value>{v52};
      }, [&] {
        Value v109 = b.andi(v71, v71);
        Value v110 = b.constant(ElementType::SI8, 31LL);
        Value v111 = b.bitcast(v110, ElementType::UI8);
        Value v112 = b.constant(ElementType::UI8, 0x0ULL);
        Value v113 = b.cmp(CmpPredicate::Eq, v109, v112);
        Value v114 = b.constant(ElementType::UI8, 0x1ULL);
        Value v115 = b.select(v113, v114, v109);
        Value v116 = b.div(v71, v115);
        Value v117 = b.andi(v111, v116);
        Value v118 = b.reduce(FunctionBuilder::VectorReduction::Xor, b.fromElements({v71, v109, v111, v117, v114}));
        Value v119 = b.constant(ElementType::F32, 0x1p-126);
        Value v120 = b.rem(v119, v119);
        Value v121 = b.cast(v52, ElementType::SI16);
        Value v122 = b.neg(v121);
        Value v123 = b.constant(ElementType::SI16, 0LL);
        Value v124 = b.cmp(CmpPredicate::Eq, v122, v123);
        Value v125 = b.constant(ElementType::SI16, -32768LL);
        Value v126 = b.cmp(CmpPredicate::Eq, v122, v125);
        Value v127 = b.constant(ElementType::SI16, -1LL);
        Value v128 = b.cmp(CmpPredicate::Eq, v122, v127);
        Value v129 = b.andi(v126, v128);
        Value v130 = b.ori(v124, v129);
        Value v131 = b.constant(ElementType::SI16, 1LL);
        Value v132 = b.select(v130, v131, v122);
        Value v133 = b.ceildivsi(v122, v132);
        Value v134 = b.mulhi(v133, v132);
        auto r135 = b.call("h0", {fm, v120, v73, v51, v134});
        Value v135 = r135[0];
        Value v136 = b.ceil(v78);
        return std::vector<Value>{v52};
      });
      Value v137 = r137[0];
      Value v138 = b.constant(ElementType::UI8, 0x0ULL);
      Value v139 = b.cmp(CmpPredicate::Eq, v71, v138);
      Value v140 = b.constant(ElementType::UI8, 0x1ULL);
      Value v141 = b.select(v139, v140, v71);
      Value v142 = b.remui(v71, v141);
      Value v143 = b.rem(v77, v72);
      Value v144 = b.rotr(v107, v107);
      Value v145 = b.constant(ElementType::Index, 0LL);
      Value v146 = b.constant(ElementType::Index, 2LL);
      Value v147 = b.constant(ElementType::Index, 2LL);
      auto r155 = b.forLoop(v145, v146, v147, {v85}, [&](Value v148, const std::vector<Value>& carried) {
        Value v149 = carried[0];
        Value v150 = b.subview(im, {0, 3}, {2, 1}, {2, 2});
        Value v151 = b.constant(ElementType::F32, -0x1.7b5d0cp-113);
        Value v152 = b.constant(ElementType::SI16, 28702LL);
        auto r153 = b.call("h0", {fm, v151, h, v51, v152});
        Value v153 = r153[0];
        Value v154 = b.subview(v150, {1, 0}, {1, 1}, {2, 2});
        return std::vector<Value>{v149};
      });
      Value v155 = r155[0];
      return std::vector<Value>{};
    });
    Value v156 = b.constant(ElementType::UI32, 0x0ULL);
    Value v157 = b.cmp(CmpPredicate::Eq, v67, v156);
    Value v158 = b.constant(ElementType::UI32, 0x1ULL);
    Value v159 = b.select(v157, v158, v67);
    Value v160 = b.remui(v67, v159);
    Value v161 = b.constant(ElementType::SI64, -1LL);
    Value v162 = b.constant(ElementType::SI64, 2LL);
    Value v163 = b.constant(ElementType::SI64, 0LL);
    Value v164 = b.cmp(CmpPredicate::Eq, v162, v163);
    Value v165 = b.constant(ElementType::SI64, INT64_MIN);
    Value v166 = b.cmp(CmpPredicate::Eq, v161, v165);
    Value v167 = b.constant(ElementType::SI64, -1LL);
    Value v168 = b.cmp(CmpPredicate::Eq, v162, v167);
    Value v169 = b.andi(v166, v168);
    Value v170 = b.ori(v164, v169);
    Value v171 = b.constant(ElementType::SI64, 1LL);
    Value v172 = b.select(v170, v171, v162);
    Value v173 = b.remsi(v161, v172);
    b.store(b.cast(b.bitcast(g, ElementType::I16), ElementType::I64), io, {b.index(6)});
    b.store(b.cast(v79, ElementType::I64), io, {b.index(7)});
    b.store(v57, io, {b.index(8)});
    b.store(b.cast(v84, ElementType::I64), io, {b.index(9)});
    b.store(b.cast(v157, ElementType::I64), io, {b.index(10)});
    b.ret({v58});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e, helpers), "");
}

// Found by memjit-difftest after parallelFor entered the generator: at O3, copysign(bf16 2^-123, g) with g the
// bf16 register argument -7.5 (0xc0f0) loses g's sign (0x0200, expected 0x8200) when a parallelFor comes
// before it (the reducer could not remove the loop or flatten it to one iteration). `memjit-difftest --seed 168
// --count 1 --batch 1` reproduces it at O3 through the typed invoker (O3 with debug info, the dynamic invoker
// and O1/O2 agree), but this printed test passes at every level: what else the runner's call differs in is not
// yet diagnosed. Likely Seed255626718953969's family (bf16 argument sign); not fixed here.
// memjit-difftest seed 168: `memjit-difftest --seed 168 --count 1`
TEST(DifftestRegression, DISABLED_Seed168Bf16ArgumentSignAfterParallelFor) {
  using namespace memjit::codegen;
  using memjit::ElementType;
  memjit::difftest::Program s;
  s.inputs = 5;
  s.outputs = 3;
  s.io = {0xb9aa220e8eb2f280ULL, 0x7fbf398b02a50200ULL, 0x7feeeffb9fe1eb8fULL, 0xbd817decaa030000ULL, 0xe1b50916036e6f3eULL, 0x0ULL, 0x0ULL, 0x0ULL};
  s.fm.sizes = {1, 2};
  s.fm.strides = {2, 1};
  s.fm.offset = 0;
  s.fm.data = {0x7f7fffffULL, 0x42ba5d74ULL, 0xffe62290ULL, 0x7f7fffffULL};
  s.im.sizes = {4, 1};
  s.im.strides = {3, 1};
  s.im.offset = 2;
  s.im.data = {0xffffffffULL, 0x0ULL, 0x0ULL, 0xffffffffULL, 0xb54ef3072d2df42cULL, 0x1ULL, 0x80000000ULL, 0x1ULL, 0xffffffffULL, 0x80000000ULL, 0xc00151bf114b8185ULL, 0xfffffffffffffffaULL, 0x1ULL, 0x3ULL};
  s.h = 0xca74ULL, s.g = 0xc0f0ULL, s.c = 0xffULL, s.d = 0x3ff88f9792e6c562ULL;
  memjit::difftest::Expectations e;
  e.outputs.push_back({0, 0x0ULL});
  e.outputs.push_back({1, 0xffffffffffff8200ULL});
  e.outputs.push_back({2, 0x0ULL});
  e.hasRet = true, e.ret = 0x1ULL;
  auto build = [&](FunctionBuilder& b) {
    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);
    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;
    Value v24 = b.dim(fm, 0);
    Value v25 = b.constant(ElementType::Index, 0LL);
    Value v26 = b.constant(ElementType::Index, 2LL);
    b.parallelFor(v25, v24, v26, ParallelOptions{.chunk = 0, .schedule = ParallelSchedule::Dynamic}, [&](Value v27) {
      Value v30 = b.constant(ElementType::Index, 1LL);
      Value v31 = b.remui(v27, v30);
      Value v44 = b.bitcast(b.constant(ElementType::I32, 0xffe2f031ULL), ElementType::F32);
      Value v45 = b.floor(v44);
      Value v46 = b.constant(ElementType::Index, 2LL);
      Value v47 = b.remui(v31, v46);
      b.store(v45, fm, {v27, v47});
    });
    Value v209 = b.constant(ElementType::I64, 1LL);
    Value v260 = b.constant(ElementType::BF16, 0x1p-123);
    Value v261 = b.copysign(v260, g);
    b.store(b.cast(b.bitcast(v261, ElementType::I16), ElementType::I64), io, {b.index(6)});
    b.ret({v209});
  };
  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), "");
}
