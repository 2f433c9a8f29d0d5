#include "memjit/runtime/print.h"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <vector>

#include "support/mlir.h"

#ifdef MEMJIT_HAVE_MLIR_RUNNER_UTILS
#include "mlir/ExecutionEngine/RunnerUtils.h"
#endif

using namespace memjit;
using namespace memjit::runtime;

TEST(Print, TwoByThreeInMlirFormat) {
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  auto m = makeView<float, 2>(v.data(), {2, 3});
  std::ostringstream os;
  printMemref(os, m);
  std::ostringstream head;
  head << "Memref base@ = " << std::hex << std::showbase << reinterpret_cast<std::intptr_t>(v.data());
  EXPECT_EQ(os.str(), head.str() + " rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data = \n"
                                   "[[1,   2,   3], \n"
                                   " [4,   5,   6]]\n");
}

TEST(Print, RankZeroAndEmpty) {
  double x = 2.5;
  std::string s = formatMemref(Buffer::fromMemRef(makeView<double, 0>(&x, {})));
  EXPECT_NE(s.find("rank = 0 offset = 0 sizes = [] strides = [] data = \n[2.5]\n"), std::string::npos) << s;
  float none[1];
  std::string e = formatMemref(Buffer::fromMemRef(makeView<float, 1>(none, {0})));
  EXPECT_NE(e.find("data = \n[]\n"), std::string::npos) << e;
}

TEST(Print, UnrankedPrefixAndIntegers) {
  std::vector<std::int8_t> v{-1, 2, 3};
  auto m = makeView(v);
  auto u = makeUnranked(m);
  std::ostringstream os;
  printMemref(os, u);
  EXPECT_EQ(os.str().rfind("Unranked Memref base@ = ", 0), 0u);
  EXPECT_NE(os.str().find("[-1,  2,  3]"), std::string::npos) << os.str();
}

#ifdef MEMJIT_HAVE_MLIR_RUNNER_UTILS
// Whatever MLIR's own printMemRef prints, memjit prints the same.
template <typename T, int N>
void expectSameAsMlir(StridedMemRef<T, N> m) {
  StridedMemRefType<T, N> mlir;
  std::memcpy(&mlir, &m, sizeof m);
  std::ostringstream captured;
  auto* old = std::cout.rdbuf(captured.rdbuf());
  impl::printMemRef(mlir);
  std::cout.rdbuf(old);
  std::ostringstream mine;
  printMemref(mine, m);
  EXPECT_EQ(mine.str(), captured.str());
}

TEST(Print, MatchesMlirPrintMemref) {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = 0.5f * static_cast<float>(i);
  expectSameAsMlir(makeView<float, 1>(v.data(), {5}));
  expectSameAsMlir(makeView<float, 2>(v.data(), {4, 6}));
  expectSameAsMlir(makeView<float, 3>(v.data(), {2, 3, 4}));
  expectSameAsMlir(makeView<float, 2>(v.data(), {3, 2}, {1, 3}, 2));  // strided with offset
  expectSameAsMlir(makeView<float, 2>(v.data(), {1, 1}));
  std::vector<std::int64_t> w{7, -8, 9, 10};
  expectSameAsMlir(makeView<std::int64_t, 2>(w.data(), {2, 2}));
  double d = 3.25;
  expectSameAsMlir(makeView<double, 0>(&d, {}));
}
#else
TEST(Print, MatchesMlirPrintMemref) {
  MEMJIT_MLIR_UNAVAILABLE() << "MLIR's RunnerUtils.h was not found at configure time";
}
#endif

TEST(Print, HalfPrecisionElementsPrintTheirValues) {
  // Qualified: MLIR's RunnerUtils.h (included above) declares a global ::f16 and ::bf16 too.
  using H = memjit::f16;
  using B = memjit::bf16;
  std::vector<H> h{H(1.5), H(-0.0), H::fromBits(0x0001), H::fromBits(0x7c00)};
  std::string s = formatMemref(Buffer::fromMemRef(makeView(h)));
  EXPECT_NE(s.find("data = \n[1.5,  -0,  5.96046e-08,  inf]\n"), std::string::npos) << s;
  std::vector<B> g{B(3.140625f), B::fromBits(0xff80)};
  s = formatMemref(Buffer::fromMemRef(makeView(g)));
  EXPECT_NE(s.find("data = \n[3.14062,  -inf]\n"), std::string::npos) << s;
}
