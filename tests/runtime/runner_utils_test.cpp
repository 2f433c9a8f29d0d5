// memjit's runner utilities on their own (no MLIR needed): exact output for
// known inputs, verifyMemRef's results, memrefCopy, allocation, random
// numbers, sorting and the symbol table. runner_utils_mlir_test.cpp compares
// every function with MLIR's libraries.
#include "memjit/runtime/runner_utils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/captured_output.h"

using namespace memjit;
using namespace memjit::runtime;
using memjit::test::captureOutput;

namespace {

std::string out(auto&& call) { return captureOutput(call).out; }
std::string err(auto&& call) { return captureOutput(call).err; }

std::string hexAddress(const void* p) {
  std::ostringstream os;
  os << std::hex << std::showbase << reinterpret_cast<std::intptr_t>(p);
  return os.str();
}

void* symbol(const std::string& name) {
  for (const RunnerSymbol& s : runnerUtilitySymbols())
    if (name == s.name) return s.address;
  return nullptr;
}

}  // namespace

TEST(RunnerUtils, SymbolTable) {
  std::set<std::string> names;
  for (const RunnerSymbol& s : runnerUtilitySymbols()) {
    EXPECT_NE(s.address, nullptr) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << s.name << " twice";
  }
  EXPECT_EQ(names.size(), 84u);  // MLIR 19's 84 C functions (runner_utils_mlir_test checks they match)
  EXPECT_EQ(symbol("printI64"), reinterpret_cast<void*>(&printI64));
  EXPECT_EQ(symbol("_mlir_ciface_printMemrefF32"), reinterpret_cast<void*>(&_mlir_ciface_printMemrefF32));
  EXPECT_NE(symbol("__truncsfbf2"), nullptr);
  EXPECT_EQ(symbol("printMemrefF16"), nullptr);  // MLIR has no such function either
}

TEST(RunnerUtils, ScalarPrinters) {
  EXPECT_EQ(out([] { printI64(std::numeric_limits<std::int64_t>::min()); }), "-9223372036854775808");
  EXPECT_EQ(out([] { printU64(std::numeric_limits<std::uint64_t>::max()); }), "18446744073709551615");
  EXPECT_EQ(out([] { printF32(0.1f); }), "0.1");
  EXPECT_EQ(out([] { printF32(-0.0f); }), "-0");
  EXPECT_EQ(out([] { printF32(1e10f); }), "1e+10");
  EXPECT_EQ(out([] { printF32(std::numeric_limits<float>::denorm_min()); }), "1.4013e-45");
  EXPECT_EQ(out([] { printF32(std::numeric_limits<float>::quiet_NaN()); }), "nan");
  EXPECT_EQ(out([] { printF32(-std::numeric_limits<float>::quiet_NaN()); }), "-nan");
  EXPECT_EQ(out([] { printF64(-std::numeric_limits<double>::infinity()); }), "-inf");
  EXPECT_EQ(out([] { printF64(1.0 / 3); }), "0.333333");
  EXPECT_EQ(out([] {
              printOpen();
              printI64(1);
              printComma();
              printString("two");
              printClose();
              printNewline();
            }),
            "( 1, two )\n");
  EXPECT_EQ(out([] { printF16(0x3c00); }), "1");
  EXPECT_EQ(out([] { printF16(0xfc00); }), "-inf");
  EXPECT_EQ(out([] { printF16(0x0001); }), "5.96046e-08");
  EXPECT_EQ(out([] { printBF16(0x3fc0); }), "1.5");
  EXPECT_EQ(out([] { printBF16(0xffc1); }), "-nan");
  const auto flops = captureOutput([] { printFlops(1.5e9); });
  EXPECT_EQ(flops.out, "");
  EXPECT_EQ(flops.err, "1.500000 GFLOPS\n");
}

// vector.print's printers leave stdout's buffer alone; printMemref flushes
// std::cout, so its text is in the file before the caller flushes anything.
TEST(RunnerUtils, Flushing) {
  const auto scalar = captureOutput([] { printI64(5); });
  EXPECT_EQ(scalar.outBeforeFlush, "");
  EXPECT_EQ(scalar.out, "5");
  float x = 2;
  auto m = makeView<float, 0>(&x, {});
  const auto memref = captureOutput([&] { _mlir_ciface_printMemref0dF32(&m); });
  EXPECT_EQ(memref.outBeforeFlush, memref.out);
  EXPECT_NE(memref.out, "");
}

TEST(RunnerUtils, PrintMemrefFormats) {
  std::vector<float> v{1, 2.5f, -0.0f, std::numeric_limits<float>::infinity(), 5, 6};
  auto m = makeView<float, 2>(v.data(), {2, 3});
  auto u = makeUnranked(m);
  const std::string head = "base@ = " + hexAddress(v.data()) + " rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1]";
  EXPECT_EQ(out([&] { _mlir_ciface_printMemrefF32(&u); }), "Unranked Memref " + head +
                                                               " data = \n"
                                                               "[[1,   2.5,   -0], \n"
                                                               " [inf,   5,   6]]\n");
  EXPECT_EQ(out([&] { printMemrefF32(2, &m); }), out([&] { _mlir_ciface_printMemrefF32(&u); }));
  EXPECT_EQ(out([&] { _mlir_ciface_printMemref2dF32(&m); }), "Memref " + head +
                                                                 " data = \n"
                                                                 "[[1,   2.5,   -0], \n"
                                                                 " [inf,   5,   6]]\n");
  EXPECT_EQ(out([&] { _mlir_ciface_printMemrefShapeF32(&u); }), "Unranked Memref " + head + "\n");

  // Rank 0, at an offset.
  auto scalar = makeView<float, 0>(v.data(), {}, {}, 1);
  EXPECT_EQ(out([&] { _mlir_ciface_printMemref0dF32(&scalar); }),
            "Memref base@ = " + hexAddress(v.data()) + " rank = 0 offset = 1 sizes = [] strides = [] data = \n[2.5]\n");
  // A null data pointer prints as 0, as std::showbase does.
  auto null = makeView<float, 1>(static_cast<float*>(nullptr), {0});
  EXPECT_EQ(out([&] { _mlir_ciface_printMemref1dF32(&null); }),
            "Memref base@ = 0 rank = 1 offset = 0 sizes = [0] strides = [1] data = \n[]\n");
}

// Where MLIR reads past the view (a dimension of size 0), memjit prints `[]`.
TEST(RunnerUtils, EmptyDimensions) {
  float none[4] = {7, 7, 7, 7};
  auto rows = makeView<float, 2>(none, {2, 0});
  auto cols = makeView<float, 2>(none, {0, 3});
  const std::string r = out([&] { _mlir_ciface_printMemref2dF32(&rows); });
  const std::string c = out([&] { _mlir_ciface_printMemref2dF32(&cols); });
  EXPECT_EQ(r.substr(r.find(" data = ")), " data = \n[[], \n []]\n");
  EXPECT_EQ(c.substr(c.find(" data = ")), " data = \n[]\n");
}

TEST(RunnerUtils, ElementTypesPrintAsMlir) {
  // i8 as characters, index unsigned, complex as (re,im), halves as floats.
  std::vector<std::int8_t> chars{'h', 'i', '!'};
  auto mc = makeView(chars);
  auto uc = makeUnranked(mc);
  const std::string c = out([&] { _mlir_ciface_printMemrefI8(&uc); });
  EXPECT_EQ(c.substr(c.find(" data = ")), " data = \n[h,  i,  !]\n");
  std::vector<RunnerIndex> idx{std::numeric_limits<RunnerIndex>::max(), 0};
  auto mi = makeView(idx);
  const std::string i = out([&] { _mlir_ciface_printMemref1dInd(&mi); });
  EXPECT_EQ(i.substr(i.find(" data = ")), " data = \n[18446744073709551615,  0]\n");
  std::vector<std::complex<double>> z{{1, -2}, {0.5, std::nan("")}};
  auto mz = makeView(z);
  const std::string zs = out([&] { _mlir_ciface_printMemref1dC64(&mz); });
  EXPECT_EQ(zs.substr(zs.find(" data = ")), " data = \n[(1,-2),  (0.5,nan)]\n");
  std::vector<f16> h{f16::fromBits(0x3e00), f16::fromBits(0xfe00)};
  auto mh = makeView(h);
  auto uh = makeUnranked(mh);
  const std::string hs = out([&] { _mlir_ciface_printMemrefF16(&uh); });
  EXPECT_EQ(hs.substr(hs.find(" data = ")), " data = \n[1.5,  -nan]\n");
  std::vector<Vector4x4F32> vec(1);
  for (std::size_t k = 0; k < 16; ++k) vec[0][k / 4][k % 4] = static_cast<float>(k + 1);
  auto mv = makeView<Vector4x4F32, 2>(vec.data(), {1, 1});
  const std::string vs = out([&] { _mlir_ciface_printMemrefVector4x4xf32(&mv); });
  EXPECT_EQ(vs.substr(vs.find(" data = ")),
            " data = \n[[((1, 2, 3, 4),   (5, 6, 7, 8),   (9, 10, 11, 12),  (13, 14, 15, 16))]]\n");
}

TEST(RunnerUtils, VerifyMemRefCountsAndDescribes) {
  std::vector<float> a{1, 2, 3, std::nanf(""), 0};
  std::vector<float> e{1 + 1e-7f, 2.0001f, 3, std::nanf(""), -0.0f};
  auto ma = makeView(a);
  auto me = makeView(e);
  auto ua = makeUnranked(ma);
  auto ue = makeUnranked(me);
  std::int64_t errors = 0;
  // Within 1e-6 relative: equal; NaN never equals; -0 equals 0.
  EXPECT_EQ(err([&] { errors = _mlir_ciface_verifyMemRefF32(&ua, &ue); }),
            "2 != 2.0001 offset = 1\nnan != nan offset = 3\n");
  EXPECT_EQ(errors, 2);
  EXPECT_EQ(err([&] { errors = verifyMemRefF32(1, &ma, &ma); }), "nan != nan offset = 3\n");
  EXPECT_EQ(errors, 1);  // the NaN, even against itself

  // f16 compares bit patterns: NaN equals the same NaN, -0 differs from 0.
  std::vector<f16> ha{f16::fromBits(0x7e00), f16::fromBits(0x0000)};
  std::vector<f16> he{f16::fromBits(0x7e00), f16::fromBits(0x8000)};
  auto mha = makeView(ha);
  auto mhe = makeView(he);
  auto uha = makeUnranked(mha);
  auto uhe = makeUnranked(mhe);
  EXPECT_EQ(err([&] { errors = _mlir_ciface_verifyMemRefF16(&uha, &uhe); }), "0 != -0 offset = 1\n");
  EXPECT_EQ(errors, 1);

  // i8 elements are described as characters.
  std::vector<std::int8_t> ca{'a', 'b'}, ce{'a', 'c'};
  auto mca = makeView(ca);
  auto mce = makeView(ce);
  auto uca = makeUnranked(mca);
  auto uce = makeUnranked(mce);
  EXPECT_EQ(err([&] { errors = _mlir_ciface_verifyMemRefI8(&uca, &uce); }), "b != c offset = 1\n");
  EXPECT_EQ(errors, 1);
}

TEST(RunnerUtils, VerifyMemRefDescribesTenAtMost) {
  std::vector<std::int32_t> a(12, 0), e(12, 1);
  auto ma = makeView<std::int32_t, 2>(a.data(), {3, 4});
  auto me = makeView<std::int32_t, 2>(e.data(), {3, 4});
  std::int64_t errors = 0;
  const std::string text = err([&] { errors = verifyMemRefI32(2, &ma, &me); });
  EXPECT_EQ(errors, 12);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 10);
  EXPECT_EQ(text.rfind("0 != 1 offset = 9\n"), text.size() - 18);
}

TEST(RunnerUtils, VerifyMemRefLayoutMismatch) {
  std::vector<double> a(6), e(6);
  auto ma = makeView<double, 2>(a.data(), {2, 3});
  auto me = makeView<double, 2>(e.data(), {3, 2});
  std::int64_t result = 0;
  EXPECT_EQ(err([&] { result = verifyMemRefF64(2, &ma, &me); }),
            "base@ = " + hexAddress(a.data()) + " rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1]" +
                "base@ = " + hexAddress(e.data()) + " rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1]");
  EXPECT_EQ(result, -1);
  // Different ranks, and (unlike MLIR, which then compares anyway) a rank-0
  // `actual` at another offset than `expected`.
  auto one = makeView<double, 1>(e.data(), {6});
  auto ua = makeUnranked(ma);
  auto uo = makeUnranked(one);
  EXPECT_EQ(err([&] { result = _mlir_ciface_verifyMemRefF64(&ua, &uo); }),
            "base@ = " + hexAddress(a.data()) + " rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1]" +
                "base@ = " + hexAddress(e.data()) + " rank = 1 offset = 0 sizes = [6] strides = [1]");
  EXPECT_EQ(result, -1);
  auto s0 = makeView<double, 0>(a.data(), {}, {}, 0);
  auto s1 = makeView<double, 0>(e.data(), {}, {}, 1);
  auto us0 = makeUnranked(s0);
  auto us1 = makeUnranked(s1);
  EXPECT_EQ(err([&] { result = _mlir_ciface_verifyMemRefF64(&us0, &us1); }),
            "base@ = " + hexAddress(a.data()) + " rank = 0 offset = 0 sizes = [] strides = []" +
                "base@ = " + hexAddress(e.data()) + " rank = 0 offset = 1 sizes = [] strides = []");
  EXPECT_EQ(result, -1);
}

namespace {
template <typename T, int N>
void copy(StridedMemRef<T, N>& src, StridedMemRef<T, N>& dst) {
  auto us = makeUnranked(src);
  auto ud = makeUnranked(dst);
  memrefCopy(sizeof(T), reinterpret_cast<UnrankedMemRef<char>*>(&us), reinterpret_cast<UnrankedMemRef<char>*>(&ud));
}
}  // namespace

TEST(RunnerUtils, MemrefCopyStrided) {
  std::vector<int> b(12);
  std::iota(b.begin(), b.end(), 0);
  std::vector<int> d(6, -1);
  auto column = makeView<int, 2>(b.data(), {3, 2}, {4, 2}, 1);  // b[1], b[3], b[5], b[7], b[9], b[11]
  auto dense = makeView<int, 2>(d.data(), {3, 2});
  copy(column, dense);
  EXPECT_EQ(d, (std::vector<int>{1, 3, 5, 7, 9, 11}));
  // Transposed destination.
  std::vector<int> t(6, -1);
  auto transposed = makeView<int, 2>(t.data(), {3, 2}, {1, 3}, 0);
  copy(dense, transposed);
  EXPECT_EQ(t, (std::vector<int>{1, 5, 9, 3, 7, 11}));
  // Rank 0.
  auto s = makeView<int, 0>(b.data(), {}, {}, 4);
  auto r = makeView<int, 0>(t.data(), {}, {}, 0);
  copy(s, r);
  EXPECT_EQ(t[0], 4);
}

// Overlapping views are copied one element at a time in row-major order:
// shifting right by one element repeats the first element (what MLIR's
// element loop gives); shifting left moves everything.
TEST(RunnerUtils, MemrefCopyOverlapping) {
  std::vector<int> b{0, 1, 2, 3, 4, 5};
  auto from = makeView<int, 1>(b.data(), {5});
  auto to = makeView<int, 1>(b.data(), {5}, {1}, 1);
  copy(from, to);
  EXPECT_EQ(b, (std::vector<int>{0, 0, 0, 0, 0, 0}));
  std::vector<int> c{0, 1, 2, 3, 4, 5};
  auto later = makeView<int, 1>(c.data(), {5}, {1}, 1);
  auto earlier = makeView<int, 1>(c.data(), {5});
  copy(later, earlier);
  EXPECT_EQ(c, (std::vector<int>{1, 2, 3, 4, 5, 5}));
  // Onto itself: unchanged.
  copy(earlier, earlier);
  EXPECT_EQ(c, (std::vector<int>{1, 2, 3, 4, 5, 5}));
}

TEST(RunnerUtils, MemrefCopyEmptyOrNegativeSizes) {
  std::vector<int> b{1, 2, 3}, d{9, 9, 9};
  auto e1 = makeView<int, 2>(b.data(), {0, 3});
  auto e2 = makeView<int, 2>(d.data(), {0, 3});
  copy(e1, e2);
  auto n1 = makeView<int, 1>(b.data(), {-2});  // MLIR's loop would never end here
  auto n2 = makeView<int, 1>(d.data(), {-2});
  copy(n1, n2);
  EXPECT_EQ(d, (std::vector<int>{9, 9, 9}));
}

TEST(RunnerUtils, AllocationAlignment) {
  for (std::uint64_t alignment = 1; alignment <= 4096; alignment *= 2) {
    for (std::uint64_t size : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{100}, alignment + 1}) {
      void* p = mlirAlignedAlloc(alignment, size);
      ASSERT_NE(p, nullptr) << alignment << " " << size;
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0u) << alignment;
      std::memset(p, 0xab, size);
      mlirAlignedFree(p);
    }
  }
  EXPECT_EQ(mlirAlignedAlloc(0, 16), nullptr);
  EXPECT_EQ(mlirAlignedAlloc(48, 96), nullptr);
  EXPECT_EQ(mlirAlignedAlloc(64, std::numeric_limits<std::uint64_t>::max() - 2), nullptr);
  void* p = mlirAlloc(33);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 33);
  mlirFree(p);
}

TEST(RunnerUtils, RandomNumbers) {
  void* g = rtsrand(7);
  void* h = rtsrand(7);
  void* other = rtsrand(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = rtrand(g, 10);
    EXPECT_LE(x, 10u);  // [0, m], m included, as MLIR's
    EXPECT_EQ(x, rtrand(h, 10));
    differs = differs || x != rtrand(other, 10);
    EXPECT_EQ(rtrand(g, 0), 0u);  // still draws from the generator
    EXPECT_EQ(rtrand(h, 0), 0u);
  }
  EXPECT_TRUE(differs);
  // A seed is its low 32 bits (std::mt19937's seed type).
  void* wide = rtsrand((std::uint64_t{1} << 32) + 7);
  void* narrow = rtsrand(7);
  EXPECT_EQ(rtrand(wide, 1000000), rtrand(narrow, 1000000));
  for (void* p : {g, h, other, wide, narrow}) rtdrand(p);
}

TEST(RunnerUtils, ShuffleIsAPermutationThroughTheStride) {
  void* g = rtsrand(3);
  std::vector<std::uint64_t> v(20, 99);
  auto every2nd = makeView<std::uint64_t, 1>(v.data(), {10}, {2}, 0);
  _mlir_ciface_shuffle(&every2nd, g);
  std::vector<std::uint64_t> picked;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i % 2)
      EXPECT_EQ(v[i], 99u) << i;
    else
      picked.push_back(v[i]);
  }
  std::sort(picked.begin(), picked.end());
  std::vector<std::uint64_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(picked, expected);
  rtdrand(g);
}

TEST(RunnerUtils, StdSortSortsTheFirstN) {
  std::vector<std::int64_t> v{9, 5, 3, 1, 0, -4};
  auto m = makeView<std::int64_t, 1>(v.data(), {5}, {1}, 1);
  _mlir_ciface_stdSortI64(3, &m);
  EXPECT_EQ(v, (std::vector<std::int64_t>{9, 1, 3, 5, 0, -4}));
  std::vector<double> d{2, -0.5, std::numeric_limits<double>::infinity(), -1};
  auto md = makeView(d);
  _mlir_ciface_stdSortF64(4, &md);
  EXPECT_EQ(d, (std::vector<double>{-1, -0.5, 2, std::numeric_limits<double>::infinity()}));
  std::vector<float> f{3, 1, 2};
  auto mf = makeView(f);
  _mlir_ciface_stdSortF32(0, &mf);
  EXPECT_EQ(f, (std::vector<float>{3, 1, 2}));
}

// __truncsfbf2 rounds to nearest even like memjit::bf16; NaNs become the
// quiet NaN of their sign; __truncdfbf2 rounds to float first.
TEST(RunnerUtils, BF16Truncation) {
  auto* fromFloat = reinterpret_cast<float (*)(float)>(symbol("__truncsfbf2"));
  auto* fromDouble = reinterpret_cast<float (*)(double)>(symbol("__truncdfbf2"));
  ASSERT_TRUE(fromFloat && fromDouble);
  auto low16 = [](float carrier) { return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(carrier)); };
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 65521) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    if (std::isnan(x))
      EXPECT_EQ(low16(fromFloat(x)), std::signbit(x) ? 0xffc0 : 0x7fc0) << std::hex << b;
    else
      EXPECT_EQ(low16(fromFloat(x)), bf16(x).bits()) << std::hex << b;
  }
  EXPECT_EQ(low16(fromFloat(std::numeric_limits<float>::max())), 0x7f80);  // rounds up to inf
  const double tricky = 1.0 + 0x1p-8 + 0x1p-40;  // above halfway in double, halfway (ties to even) in float
  EXPECT_EQ(low16(fromDouble(tricky)), bf16(static_cast<float>(tricky)).bits());
  EXPECT_NE(bf16(tricky).bits(), bf16(static_cast<float>(tricky)).bits());
}

TEST(RunnerUtils, Clocks) {
  const double before = rtclock();
  const std::int64_t nanos = _mlir_ciface_nanoTime();
  const double after = rtclock();
  // Both read the system clock since the epoch: seconds and nanoseconds.
  // rtclock truncates to whole microseconds (gettimeofday) and a double near
  // 1.7e9 s resolves only ~0.24 us, so the reads agree to within 1 us of
  // truncation plus a few ulps of rounding: 2 us, still far below a wrong
  // clock (boot time, milliseconds, a day off).
  constexpr double kSlack = 2e-6;
  EXPECT_LE(before, static_cast<double>(nanos) * 1e-9 + kSlack);
  EXPECT_LE(static_cast<double>(nanos) * 1e-9, after + kSlack);
  EXPECT_GT(before, 1.0e9);  // after 2001: seconds since 1970, not since boot
}
