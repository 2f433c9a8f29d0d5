// The kernel language's integer operations against MLIR's own lowering (of
// LLVM's version) of the arith/math ops they are named after: the same function
// written in MLIR (lowered by mlir-opt --arith-expand --convert-math-to-llvm ...
// and mlir-translate) and with memjit's builder, both JIT-compiled and called
// on every pair of edge values where MLIR defines the result.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/type_syntax.h"
#include "support/mlir_tools.h"

namespace memjit {
namespace {

using codegen::FunctionBuilder;
using codegen::Value;

// MLIR of LLVM's version (tests/CMakeLists.txt passes its major as a string).
constexpr int mlirMajor() {
  int v = 0;
  for (const char* p = MEMJIT_MLIR_VERSION; *p; ++p) v = v * 10 + (*p - '0');
  return v;
}
// MLIR 19's --arith-expand of ceildivsi is wrong at the edges below. MLIR 22's
// is memjit's (a / b, plus one when inexact and the signs agree), so there the
// edges are compared with MLIR too. (20 and 21 are untested: treated as 19.)
constexpr bool kMlirCeildivsiIsExact = mlirMajor() >= 22;

// The shift counts are masked to [0, 64), where MLIR defines shifts.
constexpr const char* kMlir = R"(
func.func @ops(%a: i64, %b: i64) -> (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
    attributes {llvm.emit_c_interface} {
  %c63 = arith.constant 63 : i64
  %s = arith.andi %b, %c63 : i64
  %0 = arith.ceildivsi %a, %b : i64
  %1 = arith.floordivsi %a, %b : i64
  %2 = arith.ceildivui %a, %b : i64
  %3 = arith.remui %a, %b : i64
  %lo, %hi = arith.mulsi_extended %a, %b : i64
  %ulo, %uhi = arith.mului_extended %a, %b : i64
  %4 = math.ctlz %a : i64
  %5 = math.cttz %a : i64
  %6 = math.ctpop %a : i64
  %7 = arith.shli %a, %s : i64
  %8 = arith.shrsi %a, %s : i64
  %9 = arith.shrui %a, %s : i64
  return %0, %1, %2, %3, %hi, %uhi, %4, %5, %6, %7, %8 , %9
      : i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64
}
)";

TEST(ArithConformance, IntegerOpsMatchMlirsLowering) {
  const std::string missing = test::missingMlirTools();
  if (!missing.empty()) MEMJIT_MLIR_UNAVAILABLE() << "MLIR tools absent, arith ops not compared: " << missing;
  struct Twelve {
    std::int64_t r[12];
  };
  test::PipelineOptions pipeline;
  pipeline.firstPasses = "--arith-expand --convert-math-to-llvm";
  auto ir = test::lowerWithMlir(kMlir, pipeline);
  ASSERT_TRUE(ir.ok()) << ir.error().str();

  codegen::Module m("memjit_ops");
  {
    FunctionBuilder b(m, "mine", *parseFunctionType(
                                     "(i64, i64) -> (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)"));
    Value a = b.arg(0), c = b.arg(1), s = c & 63;
    auto unsignedHigh = b.bitcast(b.mulhi(b.bitcast(a, ElementType::UI64), b.bitcast(c, ElementType::UI64)),
                                  ElementType::I64);
    b.ret({b.ceildivsi(a, c), b.floordivsi(a, c), b.ceildivui(a, c), b.remui(a, c), b.mulhi(a, c), unsignedHigh,
           b.ctlz(a), b.cttz(a), b.ctpop(a), a << s, b.shrsi(a, s), b.shrui(a, s)});
    ASSERT_FALSE(b.finish());
  }
  auto jit = jit::Jit::create();
  ASSERT_TRUE(jit.ok()) << jit.error().str();
  auto theirs = jit->addIR(*ir, "mlir_ops");
  ASSERT_TRUE(theirs.ok()) << theirs.error().str();
  auto ours = jit->add(std::move(m));
  ASSERT_TRUE(ours.ok()) << ours.error().str();
  auto mlirFn = jit->lookupSymbol("_mlir_ciface_ops");
  auto memjitFn = jit->lookupSymbol("_mlir_ciface_mine");
  ASSERT_TRUE(mlirFn.ok() && memjitFn.ok());
  using Fn = void(Twelve*, std::int64_t, std::int64_t);
  auto* mlir = reinterpret_cast<Fn*>(*mlirFn);
  auto* mine = reinterpret_cast<Fn*>(*memjitFn);

  const std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  const std::vector<std::int64_t> edges{0,  1,  -1, 2, -2, 7, -7, 63, 64, 65, kMin, kMin + 1,
                                        std::numeric_limits<std::int64_t>::max(), (1LL << 53) + 1,
                                        static_cast<std::int64_t>(0xff51afd7ed558ccdULL)};
  const char* names[12] = {"ceildivsi", "floordivsi", "ceildivui", "remui", "mulsi_extended.high",
                           "mului_extended.high", "ctlz", "cttz", "ctpop", "shli", "shrsi", "shrui"};
  int compared = 0;
  for (std::int64_t a : edges)
    for (std::int64_t c : edges) {
      if (c == 0 || (a == kMin && c == -1)) continue;  // undefined in MLIR and in memjit
      Twelve want{}, got{};
      mine(&got, a, c);
      if (!kMlirCeildivsiIsExact && a == std::numeric_limits<std::int64_t>::max() && c == -1) {
        // MLIR 19's ceildivsi expansion computes (a + 1) / b in both arms of a
        // select: INT64_MAX + 1 wraps to INT64_MIN, and INT64_MIN / -1 traps
        // (SIGFPE) on a defined input. memjit's answer is checked instead.
        EXPECT_EQ(got.r[0], -a);
        EXPECT_EQ(got.r[1], -a);
        continue;
      }
      mlir(&want, a, c);
      for (int k = 0; k < 12; ++k) {
        // MLIR 19's ceildivsi expansion is wrong for an INT_MIN dividend
        // (ceildivsi(INT64_MIN, 2) gives +2^62). memjit's expansion is exact
        // there: the exact value is checked here instead.
        if (!kMlirCeildivsiIsExact && k == 0 && a == kMin) {
          const __int128 q = static_cast<__int128>(a) / c, r = static_cast<__int128>(a) % c;
          EXPECT_EQ(got.r[k], static_cast<std::int64_t>(r != 0 && ((r < 0) == (c < 0)) ? q + 1 : q)) << a << ", " << c;
          continue;
        }
        EXPECT_EQ(got.r[k], want.r[k]) << names[k] << "(" << a << ", " << c << ")";
      }
      ++compared;
    }
  EXPECT_GT(compared, 200);
}

}  // namespace
}  // namespace memjit
