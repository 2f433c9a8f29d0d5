// memjit's runner utilities against MLIR's own libraries of LLVM's version
// (libmlir_c_runner_utils.so and libmlir_runner_utils.so, which load
// libmlir_float16_utils.so), loaded with dlopen: each function is called in
// both on the same inputs, and what each writes to stdout and stderr, what
// reached stdout before a flush, and what it returns or stores must be equal,
// byte for byte.
//
// The two sides are really two implementations: this executable does not
// export memjit's C names (NotInterposed checks it, so MLIR's libraries
// cannot bind to them), each MLIR function is looked up in its library
// (dladdr checks where it lives), and EmptyDimensionDiffers shows a case
// where they print differently.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "support/captured_output.h"
#include "memjit/runtime/runner_utils.h"
#include "support/mlir.h"

using namespace memjit;
using namespace memjit::runtime;
using memjit::test::captureOutput;
using Index = RunnerIndex;
using C32 = std::complex<float>;
using C64 = std::complex<double>;

namespace {

// MLIR's two libraries, loaded once; `why` says what is missing.
struct MlirLibraries {
  void* c = nullptr;  // mlir_c_runner_utils
  void* r = nullptr;  // mlir_runner_utils (its dependencies include mlir_float16_utils)
  std::string why;

  void* find(const char* name) const {
    if (void* p = ::dlsym(r, name)) return p;
    return ::dlsym(c, name);
  }
};

const MlirLibraries& mlir() {
  static const MlirLibraries libs = [] {
    MlirLibraries l;
    const std::string cPath = MEMJIT_MLIR_C_RUNNER_UTILS_LIB, rPath = MEMJIT_MLIR_RUNNER_UTILS_LIB;
    if (cPath.empty() || cPath.find("NOTFOUND") != std::string::npos || rPath.empty() ||
        rPath.find("NOTFOUND") != std::string::npos) {
      l.why = "MLIR " MEMJIT_MLIR_VERSION "'s libmlir_c_runner_utils/libmlir_runner_utils were not found at configure "
              "time (MEMJIT_MLIR_C_RUNNER_UTILS_LIB, MEMJIT_MLIR_RUNNER_UTILS_LIB)";
      return l;
    }
    // RTLD_LOCAL: their names stay out of the global scope; no RTLD_DEEPBIND,
    // which sanitizers refuse (and which is not needed: see NotInterposed).
    l.c = ::dlopen(cPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l.c) {
      l.why = "dlopen(" + cPath + "): " + ::dlerror();
      return l;
    }
    l.r = ::dlopen(rPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l.r) l.why = "dlopen(" + rPath + "): " + ::dlerror();
    return l;
  }();
  return libs;
}

#define REQUIRE_MLIR_LIBRARIES()                         \
  do {                                                   \
    if (!mlir().why.empty()) {                           \
      MEMJIT_MLIR_UNAVAILABLE() << mlir().why;           \
    }                                                    \
  } while (0)

// MLIR's function of the same name and type as memjit's `fn`.
template <typename F>
F* theirs(const char* name, F*) {
  void* p = mlir().find(name);
  EXPECT_NE(p, nullptr) << name << " is not in MLIR's libraries";
  return reinterpret_cast<F*>(p);
}
#define MLIR_VERSION_OF(fn) theirs(#fn, &::fn)

// Calls memjit's and MLIR's `fn` with the same arguments and expects the
// same output (stdout, stderr, and what reached stdout before a flush) and
// the same result.
template <typename F, typename... A>
void expectSame(const char* name, F* mine, F* mlirs, A... args) {
  ASSERT_NE(mlirs, nullptr) << name;
  SCOPED_TRACE(std::string(name) + ::testing::PrintToString(std::make_tuple(args...)));
  ::memjit::test::CapturedOutput a, b;
  if constexpr (std::is_void_v<std::invoke_result_t<F*, A...>>) {
    a = captureOutput([&] { mine(args...); });
    b = captureOutput([&] { mlirs(args...); });
  } else {
    std::invoke_result_t<F*, A...> ra{}, rb{};
    a = captureOutput([&] { ra = mine(args...); });
    b = captureOutput([&] { rb = mlirs(args...); });
    EXPECT_EQ(ra, rb) << "results differ";
  }
  EXPECT_EQ(a.out, b.out) << "stdout differs";
  EXPECT_EQ(a.err, b.err) << "stderr differs";
  EXPECT_EQ(a.outBeforeFlush, b.outBeforeFlush) << "flushing differs";
}
#define EXPECT_SAME(fn, ...) expectSame(#fn, &::fn, MLIR_VERSION_OF(fn) __VA_OPT__(, ) __VA_ARGS__)

// ---- test data: views of every rank over a buffer of edge values

constexpr std::int64_t kElements = 48;

template <typename T>
std::vector<T> bufferOf(const std::vector<T>& edges) {
  std::vector<T> v(kElements);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = edges[i % edges.size()];
  return v;
}

// Calls `use(stridedMemRef)` for in-bounds views of rank 0 to 4 of `data`
// (48 elements): row-major, one-element, strided, offset, transposed,
// negative-stride and broadcast (stride 0) views; no empty dimension (there
// MLIR reads past the view: see EmptyDimensionDiffers).
template <typename T, typename Use>
void forEachView(T* data, Use&& use) {
  use(makeView<T, 0>(data, {}, {}, 0));
  use(makeView<T, 0>(data, {}, {}, 17));
  use(makeView<T, 1>(data, {kElements}));
  use(makeView<T, 1>(data, {1}));
  use(makeView<T, 1>(data, {2}));
  use(makeView<T, 1>(data, {7}, {3}, 5));
  use(makeView<T, 1>(data, {6}, {-2}, 40));
  use(makeView<T, 1>(data, {4}, {0}, 9));
  use(makeView<T, 2>(data, {4, 6}));
  use(makeView<T, 2>(data, {6, 4}, {1, 6}, 0));
  use(makeView<T, 2>(data, {1, 1}, {1, 1}, 3));
  use(makeView<T, 2>(data, {3, 1}, {5, 1}, 2));
  use(makeView<T, 2>(data, {2, 3}, {8, 2}, 7));
  use(makeView<T, 3>(data, {2, 3, 4}));
  use(makeView<T, 3>(data, {3, 2, 2}, {-12, 1, 4}, 30));
  use(makeView<T, 4>(data, {2, 1, 3, 4}));
  use(makeView<T, 4>(data, {2, 2, 2, 3}, {24, 12, 6, 2}, 1));
}

template <typename T, int N, typename Use>
void forEachRankedView(T* data, Use&& use) {
  forEachView(data, [&](auto m) {
    if constexpr (decltype(m)::rank == N) use(m);
  });
}

const std::vector<float> kFloats = {0.0f, -0.0f, 1.0f, -1.5f, std::numeric_limits<float>::quiet_NaN(),
                                    -std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                    -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(),
                                    std::numeric_limits<float>::max(), 0.1f, 1e10f, 123456.7f, 1e-5f, 3.0f};
const std::vector<double> kDoubles = {0.0, -0.0, 1.0, -1.5, std::numeric_limits<double>::quiet_NaN(),
                                      -std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::max(), 0.1, 1e100, 1234567.125, 1e-300, 1.0 / 3};
const std::vector<std::int8_t> kI8 = {0, 'A', -1, 127, -128, '\n', 'z', 7, ' '};
const std::vector<std::int16_t> kI16 = {0, -1, 32767, -32768, 42};
const std::vector<std::int32_t> kI32 = {0, -1, 2147483647, -2147483647 - 1, 42};
const std::vector<std::int64_t> kI64 = {0, -1, std::numeric_limits<std::int64_t>::max(),
                                        std::numeric_limits<std::int64_t>::min(), 42};
const std::vector<Index> kIndex = {0, std::numeric_limits<Index>::max(), Index{1} << 63, 7};
const std::vector<std::uint16_t> kHalfBits = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x0001,
                                              0x3555, 0x7bff, 0x3c00, 0x7f80, 0xff80, 0x7fc1, 0x0080};

std::vector<C32> complexFloats() {
  std::vector<C32> v;
  for (std::size_t i = 0; i + 1 < kFloats.size(); ++i) v.emplace_back(kFloats[i], kFloats[kFloats.size() - 1 - i]);
  return v;
}
std::vector<C64> complexDoubles() {
  std::vector<C64> v;
  for (std::size_t i = 0; i + 1 < kDoubles.size(); ++i)
    v.emplace_back(kDoubles[i], kDoubles[kDoubles.size() - 1 - i]);
  return v;
}
template <typename H>
std::vector<H> halves() {
  std::vector<H> v;
  for (auto b : kHalfBits) v.push_back(H::fromBits(b));
  return v;
}

}  // namespace

TEST(RunnerUtilsMlir, LibrariesLoad) {
  REQUIRE_MLIR_LIBRARIES();
  Dl_info info{};
  void* theirsPrint = mlir().find("_mlir_ciface_printMemrefF32");
  ASSERT_NE(theirsPrint, nullptr);
  ASSERT_NE(::dladdr(theirsPrint, &info), 0);
  EXPECT_NE(std::string(info.dli_fname).find("libmlir_runner_utils"), std::string::npos) << info.dli_fname;
  void* theirsF16 = mlir().find("printF16");
  ASSERT_NE(theirsF16, nullptr);
  ASSERT_NE(::dladdr(theirsF16, &info), 0);
  EXPECT_NE(std::string(info.dli_fname).find("libmlir_float16_utils"), std::string::npos) << info.dli_fname;
}

// Every memjit runner utility is in MLIR's libraries under the same name,
// and this executable does not export it: MLIR's libraries, looking a name
// up in the global scope, cannot land in memjit's code.
TEST(RunnerUtilsMlir, NotInterposed) {
  REQUIRE_MLIR_LIBRARIES();
  for (const RunnerSymbol& s : runnerUtilitySymbols()) {
    void* theirsFn = mlir().find(s.name);
    EXPECT_NE(theirsFn, nullptr) << s.name << " is not in MLIR's libraries";
    EXPECT_NE(theirsFn, s.address) << s.name;
    EXPECT_NE(::dlsym(RTLD_DEFAULT, s.name), s.address) << s.name << " is exported by the test executable";
  }
}

// Every C function MLIR 19's libraries export (`nm -D --defined-only` of
// libmlir_c_runner_utils.so, libmlir_runner_utils.so and
// libmlir_float16_utils.so, without the sparse-tensor runtime that
// mlir_c_runner_utils also holds) is in memjit's table, and nothing else:
// with NotInterposed, the two sets are equal.
TEST(RunnerUtilsMlir, EveryMlirFunctionIsProvided) {
  REQUIRE_MLIR_LIBRARIES();
  const std::vector<std::string> mlirs = {
      // mlir_c_runner_utils
      "memrefCopy", "mlirAlignedAlloc", "mlirAlignedFree", "mlirAlloc", "mlirFree", "printClose", "printComma",
      "printF32", "printF64", "printFlops", "printI64", "printNewline", "printOpen", "printString", "printU64",
      "rtclock", "rtdrand", "rtrand", "rtsrand", "_mlir_ciface_shuffle", "_mlir_ciface_stdSortF32",
      "_mlir_ciface_stdSortF64", "_mlir_ciface_stdSortI64",
      // mlir_float16_utils
      "printF16", "printBF16", "__truncsfbf2", "__truncdfbf2",
      // mlir_runner_utils
      "_mlir_ciface_nanoTime", "_mlir_ciface_printMemref0dF32", "_mlir_ciface_printMemref1dC32",
      "_mlir_ciface_printMemref1dC64", "_mlir_ciface_printMemref1dF32", "_mlir_ciface_printMemref1dF64",
      "_mlir_ciface_printMemref1dI32", "_mlir_ciface_printMemref1dI64", "_mlir_ciface_printMemref1dI8",
      "_mlir_ciface_printMemref1dInd", "_mlir_ciface_printMemref2dF32", "_mlir_ciface_printMemref3dF32",
      "_mlir_ciface_printMemref4dF32", "_mlir_ciface_printMemrefBF16", "_mlir_ciface_printMemrefC32",
      "_mlir_ciface_printMemrefC64", "_mlir_ciface_printMemrefF16", "_mlir_ciface_printMemrefF32",
      "_mlir_ciface_printMemrefF64", "_mlir_ciface_printMemrefI16", "_mlir_ciface_printMemrefI32",
      "_mlir_ciface_printMemrefI64", "_mlir_ciface_printMemrefI8", "_mlir_ciface_printMemrefInd",
      "_mlir_ciface_printMemrefShapeC32", "_mlir_ciface_printMemrefShapeC64", "_mlir_ciface_printMemrefShapeF32",
      "_mlir_ciface_printMemrefShapeF64", "_mlir_ciface_printMemrefShapeI32", "_mlir_ciface_printMemrefShapeI64",
      "_mlir_ciface_printMemrefShapeI8", "_mlir_ciface_printMemrefShapeInd", "_mlir_ciface_printMemrefVector4x4xf32",
      "_mlir_ciface_verifyMemRefBF16", "_mlir_ciface_verifyMemRefC32", "_mlir_ciface_verifyMemRefC64",
      "_mlir_ciface_verifyMemRefF16", "_mlir_ciface_verifyMemRefF32", "_mlir_ciface_verifyMemRefF64",
      "_mlir_ciface_verifyMemRefI16", "_mlir_ciface_verifyMemRefI32", "_mlir_ciface_verifyMemRefI64",
      "_mlir_ciface_verifyMemRefI8", "_mlir_ciface_verifyMemRefInd", "printMemrefC32", "printMemrefC64",
      "printMemrefF32", "printMemrefF64", "printMemrefI32", "printMemrefI64", "printMemrefInd", "verifyMemRefC32",
      "verifyMemRefC64", "verifyMemRefF32", "verifyMemRefF64", "verifyMemRefI32", "verifyMemRefInd"};
  std::vector<std::string> provided;
  for (const RunnerSymbol& s : runnerUtilitySymbols()) provided.emplace_back(s.name);
  for (const auto& n : mlirs) {
    EXPECT_NE(mlir().find(n.c_str()), nullptr) << n << " is not in MLIR's libraries";
    EXPECT_NE(std::find(provided.begin(), provided.end(), n), provided.end()) << n << " is not provided";
  }
  EXPECT_EQ(provided.size(), mlirs.size());
}

// A dimension of size 0: MLIR prints the element at the view's offset (past
// the view's end, here a sentinel inside the buffer), memjit prints `[]`.
// Equal outputs here would mean both sides ran the same code.
TEST(RunnerUtilsMlir, EmptyDimensionDiffers) {
  REQUIRE_MLIR_LIBRARIES();
  std::vector<float> data{42.5f, 1.0f};
  auto m = makeView<float, 1>(data.data(), {0});
  auto u = makeUnranked(m);
  auto* other = MLIR_VERSION_OF(_mlir_ciface_printMemrefF32);
  ASSERT_NE(other, nullptr);
  const auto mine = captureOutput([&] { _mlir_ciface_printMemrefF32(&u); });
  const auto mlirs = captureOutput([&] { other(&u); });
  EXPECT_NE(mine.out.find("data = \n[]\n"), std::string::npos) << mine.out;
  EXPECT_NE(mlirs.out.find("data = \n[42.5]\n"), std::string::npos) << mlirs.out;
}

TEST(RunnerUtilsMlir, ScalarPrinters) {
  REQUIRE_MLIR_LIBRARIES();
  for (std::int64_t i : kI64) EXPECT_SAME(printI64, i);
  for (std::uint64_t u : {std::uint64_t{0}, std::uint64_t{1}, std::numeric_limits<std::uint64_t>::max()})
    EXPECT_SAME(printU64, u);
  for (float f : kFloats) EXPECT_SAME(printF32, f);
  for (float f : {-std::numeric_limits<float>::denorm_min(), 1e-40f, std::numeric_limits<float>::min(), 0.5f,
                  100000.0f, 1000000.0f, 1e-4f, 2.5e-5f})
    EXPECT_SAME(printF32, f);
  for (double d : kDoubles) EXPECT_SAME(printF64, d);
  for (double d : {-std::numeric_limits<double>::denorm_min(), 1e-310, 1e16, 0.000123456789}) EXPECT_SAME(printF64, d);
  for (const char* s : {"", "hello", "two\nlines\n", "100% %d %s"}) EXPECT_SAME(printString, s);
  EXPECT_SAME(printOpen);
  EXPECT_SAME(printClose);
  EXPECT_SAME(printComma);
  EXPECT_SAME(printNewline);
  for (double f : {0.0, 1.5e9, 123456789012.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity()})
    EXPECT_SAME(printFlops, f);
}

// All 65536 bit patterns of each half type.
TEST(RunnerUtilsMlir, HalfPrintersEveryBitPattern) {
  REQUIRE_MLIR_LIBRARIES();
  auto* theirsF16 = MLIR_VERSION_OF(printF16);
  auto* theirsBF16 = MLIR_VERSION_OF(printBF16);
  ASSERT_TRUE(theirsF16 && theirsBF16);
  auto all = [](auto* print) {
    return captureOutput([&] {
      for (std::uint32_t b = 0; b <= 0xffff; ++b) {
        print(static_cast<std::uint16_t>(b));
        std::fputc('\n', stdout);
      }
    });
  };
  const auto mineF16 = all(&printF16), mlirF16 = all(theirsF16);
  EXPECT_EQ(mineF16.out, mlirF16.out);
  EXPECT_EQ(mineF16.outBeforeFlush, mlirF16.outBeforeFlush);
  const auto mineBF16 = all(&printBF16), mlirBF16 = all(theirsBF16);
  EXPECT_EQ(mineBF16.out, mlirBF16.out);
}

// memjit's __truncsfbf2/__truncdfbf2 (table entries only) against MLIR's.
TEST(RunnerUtilsMlir, BF16Truncation) {
  REQUIRE_MLIR_LIBRARIES();
  using FromFloat = float(float);
  using FromDouble = float(double);
  FromFloat* mineF = nullptr;
  FromDouble* mineD = nullptr;
  for (const RunnerSymbol& s : runnerUtilitySymbols()) {
    if (std::string(s.name) == "__truncsfbf2") mineF = reinterpret_cast<FromFloat*>(s.address);
    if (std::string(s.name) == "__truncdfbf2") mineD = reinterpret_cast<FromDouble*>(s.address);
  }
  auto* theirsF = reinterpret_cast<FromFloat*>(mlir().find("__truncsfbf2"));
  auto* theirsD = reinterpret_cast<FromDouble*>(mlir().find("__truncdfbf2"));
  ASSERT_TRUE(mineF && mineD && theirsF && theirsD);
  auto low16 = [](float carrier) { return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(carrier)); };
  // Every 4099th float bit pattern, and the neighbourhoods of halfway points.
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 4099) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    ASSERT_EQ(low16(mineF(x)), low16(theirsF(x))) << std::hex << b;
  }
  for (std::uint32_t hi : {0x3f80u, 0x3f81u, 0x7f7fu, 0xff7fu, 0x0000u, 0x8000u, 0x7f80u, 0x7fc0u})
    for (std::uint32_t lo : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const float x = std::bit_cast<float>(hi << 16 | lo);
      ASSERT_EQ(low16(mineF(x)), low16(theirsF(x))) << std::hex << (hi << 16 | lo);
    }
  for (double d : kDoubles) EXPECT_EQ(low16(mineD(d)), low16(theirsD(d))) << d;
  // Just above a bf16 halfway point in double, exactly halfway in float.
  const double tricky = 1.0 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(low16(mineD(tricky)), low16(theirsD(tricky)));
  EXPECT_EQ(low16(mineD(-tricky)), low16(theirsD(-tricky)));
}

namespace {

// The memjit function of MLIR's name `name`, with the type `F`.
template <typename F>
F* ours(const std::string& name) {
  for (const RunnerSymbol& s : runnerUtilitySymbols())
    if (name == s.name) return reinterpret_cast<F*>(s.address);
  ADD_FAILURE() << name << " is not in runnerUtilitySymbols()";
  return nullptr;
}

// _mlir_ciface_printMemref<suffix>, _mlir_ciface_printMemrefShape<suffix>
// (if `shape`) and printMemref<suffix> (if `plain`) of every view of `data`.
template <typename T>
void comparePrinters(std::vector<T> data, const std::string& suffix, bool shape, bool plain) {
  using Unranked = void(UnrankedMemRef<T>*);
  using Plain = void(std::int64_t, void*);
  auto* printC = ours<Unranked>("_mlir_ciface_printMemref" + suffix);
  auto* theirsC = reinterpret_cast<Unranked*>(mlir().find(("_mlir_ciface_printMemref" + suffix).c_str()));
  auto* printShape = shape ? ours<Unranked>("_mlir_ciface_printMemrefShape" + suffix) : nullptr;
  auto* theirsShape =
      shape ? reinterpret_cast<Unranked*>(mlir().find(("_mlir_ciface_printMemrefShape" + suffix).c_str())) : nullptr;
  auto* printPlain = plain ? ours<Plain>("printMemref" + suffix) : nullptr;
  auto* theirsPlain = plain ? reinterpret_cast<Plain*>(mlir().find(("printMemref" + suffix).c_str())) : nullptr;
  ASSERT_TRUE(printC && theirsC) << suffix;
  ASSERT_EQ(shape, printShape && theirsShape) << suffix;
  ASSERT_EQ(plain, printPlain && theirsPlain) << suffix;
  forEachView(data.data(), [&](auto m) {
    auto u = makeUnranked(m);
    SCOPED_TRACE(suffix + " rank " + std::to_string(decltype(m)::rank) + " offset " + std::to_string(m.offset));
    auto mine = captureOutput([&] { printC(&u); });
    auto mlirs = captureOutput([&] { theirsC(&u); });
    EXPECT_EQ(mine.out, mlirs.out);
    EXPECT_EQ(mine.outBeforeFlush, mlirs.outBeforeFlush);
    if (shape) {
      mine = captureOutput([&] { printShape(&u); });
      mlirs = captureOutput([&] { theirsShape(&u); });
      EXPECT_EQ(mine.out, mlirs.out);
      EXPECT_EQ(mine.outBeforeFlush, mlirs.outBeforeFlush);
    }
    if (plain) {
      mine = captureOutput([&] { printPlain(u.rank, u.descriptor); });
      mlirs = captureOutput([&] { theirsPlain(u.rank, u.descriptor); });
      EXPECT_EQ(mine.out, mlirs.out);
    }
  });
}

}  // namespace

TEST(RunnerUtilsMlir, PrintMemrefEveryType) {
  REQUIRE_MLIR_LIBRARIES();
  comparePrinters(bufferOf(kI8), "I8", true, false);
  comparePrinters(bufferOf(kI16), "I16", false, false);
  comparePrinters(bufferOf(kI32), "I32", true, true);
  comparePrinters(bufferOf(kI64), "I64", true, true);
  comparePrinters(bufferOf(kIndex), "Ind", true, true);
  comparePrinters(bufferOf(kFloats), "F32", true, true);
  comparePrinters(bufferOf(kDoubles), "F64", true, true);
  comparePrinters(bufferOf(complexFloats()), "C32", true, true);
  comparePrinters(bufferOf(complexDoubles()), "C64", true, true);
  comparePrinters(bufferOf(halves<f16>()), "F16", false, false);
  comparePrinters(bufferOf(halves<bf16>()), "BF16", false, false);
}

namespace {
template <typename T, int N, typename F>
void compareRanked(std::vector<T> data, F mine, F mlirs) {
  ASSERT_NE(mlirs, nullptr);
  forEachRankedView<T, N>(data.data(), [&](StridedMemRef<T, N> m) {
    const auto a = captureOutput([&] { mine(&m); });
    const auto b = captureOutput([&] { mlirs(&m); });
    EXPECT_EQ(a.out, b.out);
    EXPECT_EQ(a.outBeforeFlush, b.outBeforeFlush);
  });
}
}  // namespace

#define COMPARE_RANKED(T, N, fn, EDGES) compareRanked<T, N>(bufferOf<T>(EDGES), &::fn, MLIR_VERSION_OF(fn))

TEST(RunnerUtilsMlir, PrintMemrefRanked) {
  REQUIRE_MLIR_LIBRARIES();
  COMPARE_RANKED(float, 0, _mlir_ciface_printMemref0dF32, kFloats);
  COMPARE_RANKED(float, 1, _mlir_ciface_printMemref1dF32, kFloats);
  COMPARE_RANKED(float, 2, _mlir_ciface_printMemref2dF32, kFloats);
  COMPARE_RANKED(float, 3, _mlir_ciface_printMemref3dF32, kFloats);
  COMPARE_RANKED(float, 4, _mlir_ciface_printMemref4dF32, kFloats);
  COMPARE_RANKED(std::int8_t, 1, _mlir_ciface_printMemref1dI8, kI8);
  COMPARE_RANKED(std::int32_t, 1, _mlir_ciface_printMemref1dI32, kI32);
  COMPARE_RANKED(std::int64_t, 1, _mlir_ciface_printMemref1dI64, kI64);
  COMPARE_RANKED(double, 1, _mlir_ciface_printMemref1dF64, kDoubles);
  COMPARE_RANKED(Index, 1, _mlir_ciface_printMemref1dInd, kIndex);
  COMPARE_RANKED(C32, 1, _mlir_ciface_printMemref1dC32, complexFloats());
  COMPARE_RANKED(C64, 1, _mlir_ciface_printMemref1dC64, complexDoubles());
}

TEST(RunnerUtilsMlir, PrintMemrefVector4x4) {
  REQUIRE_MLIR_LIBRARIES();
  std::vector<Vector4x4F32> data(6);
  for (std::size_t v = 0; v < data.size(); ++v)
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 0; c < 4; ++c) data[v][r][c] = kFloats[(v * 16 + r * 4 + c) % kFloats.size()];
  auto* mlirs = MLIR_VERSION_OF(_mlir_ciface_printMemrefVector4x4xf32);
  ASSERT_NE(mlirs, nullptr);
  for (auto m : {makeView<Vector4x4F32, 2>(data.data(), {2, 3}), makeView<Vector4x4F32, 2>(data.data(), {1, 1}),
                 makeView<Vector4x4F32, 2>(data.data(), {3, 2}, {1, 3}, 0)}) {
    const auto a = captureOutput([&] { _mlir_ciface_printMemrefVector4x4xf32(&m); });
    const auto b = captureOutput([&] { mlirs(&m); });
    EXPECT_EQ(a.out, b.out);
  }
}

namespace {

// Both verifiers on one pair of views: same result, same output.
template <typename T, int N, int M>
void verifyBoth(const std::string& suffix, bool plain, StridedMemRef<T, N> a, StridedMemRef<T, M> e) {
  using Unranked = std::int64_t(UnrankedMemRef<T>*, UnrankedMemRef<T>*);
  using Plain = std::int64_t(std::int64_t, void*, void*);
  auto ua = makeUnranked(a);
  auto ue = makeUnranked(e);
  expectSame(("_mlir_ciface_verifyMemRef" + suffix).c_str(), ours<Unranked>("_mlir_ciface_verifyMemRef" + suffix),
             reinterpret_cast<Unranked*>(mlir().find(("_mlir_ciface_verifyMemRef" + suffix).c_str())), &ua, &ue);
  if (plain && N == M)
    expectSame(("verifyMemRef" + suffix).c_str(), ours<Plain>("verifyMemRef" + suffix),
               reinterpret_cast<Plain*>(mlir().find(("verifyMemRef" + suffix).c_str())), ua.rank, ua.descriptor,
               ue.descriptor);
}

// verifyMemRef<suffix> of every view of `edges` against the same view of a
// copy with some elements replaced by `others`; and with layouts that differ.
template <typename T>
void compareVerify(const std::vector<T>& edges, const std::vector<T>& others, const std::string& suffix, bool plain) {
  std::vector<T> actual = bufferOf(edges);
  for (std::size_t changes : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{kElements}}) {
    std::vector<T> expected = actual;
    for (std::size_t i = 0; i < changes; ++i) expected[(i * 7) % expected.size()] = others[i % others.size()];
    SCOPED_TRACE(std::to_string(changes) + " changes");
    forEachView(actual.data(), [&](auto ma) {
      auto me = ma;
      me.basePtr = me.data = expected.data();
      verifyBoth(suffix, plain, ma, me);
    });
  }
  // Sizes, strides, offsets or ranks that differ: -1.
  auto a = makeView<T, 2>(actual.data(), {4, 6});
  verifyBoth(suffix, plain, a, makeView<T, 2>(actual.data(), {6, 4}));
  verifyBoth(suffix, plain, a, makeView<T, 2>(actual.data(), {4, 6}, {6, 1}, 1));
  verifyBoth(suffix, plain, a, makeView<T, 2>(actual.data(), {4, 6}, {1, 4}, 0));
  verifyBoth(suffix, plain, a, makeView<T, 3>(actual.data(), {4, 6, 1}));
}

}  // namespace

TEST(RunnerUtilsMlir, VerifyMemRefEveryType) {
  REQUIRE_MLIR_LIBRARIES();
  // Values near the edges too: within and beyond the relative tolerances.
  const std::vector<float> nearFloats = {1.0f + 1e-7f, 1.0f + 1e-5f, -0.0f, 0.0f, std::nanf(""), 3.0000002f, 5.0f};
  const std::vector<double> nearDoubles = {1.0 + 1e-13, 1.0 + 1e-11, -0.0, 0.0, std::nan(""), 1.0 / 3 + 1e-17, 5.0};
  compareVerify<std::int8_t>(kI8, {'x', 0, 100}, "I8", false);
  compareVerify<std::int16_t>(kI16, {1, 2, -3}, "I16", false);
  compareVerify<std::int32_t>(kI32, {1, 2, -3}, "I32", true);
  compareVerify<std::int64_t>(kI64, {1, 2, -3}, "I64", false);
  compareVerify<Index>(kIndex, {1, 2, 3}, "Ind", true);
  compareVerify<float>(kFloats, nearFloats, "F32", true);
  compareVerify<double>(kDoubles, nearDoubles, "F64", true);
  compareVerify<C32>(complexFloats(), {{1, 2}, {-0.0f, 0.0f}, {std::nanf(""), 1}}, "C32", true);
  compareVerify<C64>(complexDoubles(), {{1, 2}, {-0.0, 0.0}, {std::nan(""), 1}}, "C64", true);
  compareVerify<f16>(halves<f16>(), {f16(1.0f), f16::fromBits(0x8000), f16::fromBits(0x7e00)}, "F16", false);
  compareVerify<bf16>(halves<bf16>(), {bf16(1.0f), bf16::fromBits(0x8000), bf16::fromBits(0x7fc1)}, "BF16", false);
}

namespace {

// memrefCopy from `src` into two identical destinations, by memjit and by
// MLIR: the destination buffers must end up equal.
template <typename T, int N>
void compareCopy(std::vector<T>& buffer, StridedMemRef<T, N> src, StridedMemRef<T, N> dst, bool sameBuffer) {
  auto* mlirs = MLIR_VERSION_OF(memrefCopy);
  ASSERT_NE(mlirs, nullptr);
  std::vector<T> dstA(buffer.size(), T{-1}), dstB(buffer.size(), T{-1});
  std::vector<T> srcA = buffer, srcB = buffer;
  auto run = [&](auto* fn, std::vector<T>& s, std::vector<T>& d) {
    auto sm = src;
    auto dm = dst;
    sm.basePtr = sm.data = s.data();
    dm.basePtr = dm.data = sameBuffer ? s.data() : d.data();
    auto us = makeUnranked(sm);
    auto ud = makeUnranked(dm);
    fn(static_cast<std::int64_t>(sizeof(T)), reinterpret_cast<UnrankedMemRef<char>*>(&us),
       reinterpret_cast<UnrankedMemRef<char>*>(&ud));
  };
  run(&memrefCopy, srcA, dstA);
  run(mlirs, srcB, dstB);
  EXPECT_EQ(srcA, srcB);
  EXPECT_EQ(dstA, dstB);
}

}  // namespace

TEST(RunnerUtilsMlir, MemrefCopy) {
  REQUIRE_MLIR_LIBRARIES();
  std::vector<std::int32_t> b(64);
  std::iota(b.begin(), b.end(), 0);
  compareCopy<std::int32_t, 0>(b, makeView<std::int32_t, 0>(b.data(), {}, {}, 5), makeView<std::int32_t, 0>(b.data(), {}, {}, 9), false);
  compareCopy<std::int32_t, 1>(b, makeView<std::int32_t, 1>(b.data(), {10}), makeView<std::int32_t, 1>(b.data(), {10}, {3}, 2), false);
  compareCopy<std::int32_t, 2>(b, makeView<std::int32_t, 2>(b.data(), {3, 4}, {1, 3}, 0),
                               makeView<std::int32_t, 2>(b.data(), {3, 4}, {8, 1}, 4), false);
  compareCopy<std::int32_t, 3>(b, makeView<std::int32_t, 3>(b.data(), {2, 3, 4}, {-12, 4, 1}, 40),
                               makeView<std::int32_t, 3>(b.data(), {2, 3, 4}, {1, 2, 6}, 0), false);
  // Within one buffer, overlapping: forward and backward by whole elements,
  // strided onto itself, a broadcast source.
  compareCopy<std::int32_t, 1>(b, makeView<std::int32_t, 1>(b.data(), {20}), makeView<std::int32_t, 1>(b.data(), {20}, {1}, 3), true);
  compareCopy<std::int32_t, 1>(b, makeView<std::int32_t, 1>(b.data(), {20}, {1}, 3), makeView<std::int32_t, 1>(b.data(), {20}), true);
  compareCopy<std::int32_t, 2>(b, makeView<std::int32_t, 2>(b.data(), {4, 5}, {5, 1}, 0),
                               makeView<std::int32_t, 2>(b.data(), {4, 5}, {1, 4}, 2), true);
  compareCopy<std::int32_t, 1>(b, makeView<std::int32_t, 1>(b.data(), {8}, {0}, 7), makeView<std::int32_t, 1>(b.data(), {8}, {2}, 1), true);
  // Empty: nothing is copied.
  compareCopy<std::int32_t, 2>(b, makeView<std::int32_t, 2>(b.data(), {0, 4}), makeView<std::int32_t, 2>(b.data(), {0, 4}), false);
  compareCopy<std::int32_t, 2>(b, makeView<std::int32_t, 2>(b.data(), {3, 0}), makeView<std::int32_t, 2>(b.data(), {3, 0}), true);
}

TEST(RunnerUtilsMlir, RandomNumbersAndShuffle) {
  REQUIRE_MLIR_LIBRARIES();
  auto* mlirSrand = MLIR_VERSION_OF(rtsrand);
  auto* mlirRand = MLIR_VERSION_OF(rtrand);
  auto* mlirDrand = MLIR_VERSION_OF(rtdrand);
  auto* mlirShuffle = MLIR_VERSION_OF(_mlir_ciface_shuffle);
  ASSERT_TRUE(mlirSrand && mlirRand && mlirDrand && mlirShuffle);
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{42}, (std::uint64_t{1} << 40) + 5}) {
    void* a = rtsrand(seed);
    void* b = mlirSrand(seed);
    for (std::uint64_t m : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{10}, std::uint64_t{1} << 40,
                            std::numeric_limits<std::uint64_t>::max()})
      for (int i = 0; i < 20; ++i) ASSERT_EQ(rtrand(a, m), mlirRand(b, m)) << "seed " << seed << " m " << m;
    for (std::int64_t n : {0, 1, 2, 17, 100}) {
      std::vector<std::uint64_t> x(static_cast<std::size_t>(n) + 1, 99), y = x;
      auto mx = makeView<std::uint64_t, 1>(x.data(), {n});
      auto my = makeView<std::uint64_t, 1>(y.data(), {n});
      _mlir_ciface_shuffle(&mx, a);
      mlirShuffle(&my, b);
      EXPECT_EQ(x, y) << "n " << n;
    }
    rtdrand(a);
    mlirDrand(b);
  }
}

TEST(RunnerUtilsMlir, StdSort) {
  REQUIRE_MLIR_LIBRARIES();
  auto* sortF32 = MLIR_VERSION_OF(_mlir_ciface_stdSortF32);
  auto* sortF64 = MLIR_VERSION_OF(_mlir_ciface_stdSortF64);
  auto* sortI64 = MLIR_VERSION_OF(_mlir_ciface_stdSortI64);
  ASSERT_TRUE(sortF32 && sortF64 && sortI64);
  // No NaN: std::sort needs a strict weak order. -0 and +0 are equivalent:
  // where each ends up shows both sorts move elements alike.
  std::vector<float> f;
  for (int i = 0; i < 40; ++i) f.push_back(i % 3 == 0 ? -0.0f : i % 3 == 1 ? 0.0f : static_cast<float>((i * 37) % 11) - 5);
  f.push_back(-std::numeric_limits<float>::infinity());
  f.push_back(std::numeric_limits<float>::denorm_min());
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{16}, std::uint64_t{30}}) {
    std::vector<float> a = f, b = f;
    auto ma = makeView<float, 1>(a.data(), {static_cast<std::int64_t>(a.size()) - 2}, {1}, 2);
    auto mb = makeView<float, 1>(b.data(), {static_cast<std::int64_t>(b.size()) - 2}, {1}, 2);
    _mlir_ciface_stdSortF32(n, &ma);
    sortF32(n, &mb);
    ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << n;
  }
  std::vector<double> d(kDoubles.begin(), kDoubles.end());
  d.erase(std::remove_if(d.begin(), d.end(), [](double x) { return std::isnan(x); }), d.end());
  std::vector<double> da = d, db = d;
  auto mda = makeView(da);
  auto mdb = makeView(db);
  _mlir_ciface_stdSortF64(da.size(), &mda);
  sortF64(db.size(), &mdb);
  EXPECT_EQ(std::memcmp(da.data(), db.data(), da.size() * sizeof(double)), 0);
  std::vector<std::int64_t> ia = bufferOf(kI64), ib = ia;
  auto mia = makeView(ia);
  auto mib = makeView(ib);
  _mlir_ciface_stdSortI64(ia.size(), &mia);
  sortI64(ib.size(), &mib);
  EXPECT_EQ(ia, ib);
}

// Clocks cannot be compared byte for byte: memjit's reading falls between
// two of MLIR's taken around it (same clock, same unit).
TEST(RunnerUtilsMlir, Clocks) {
  REQUIRE_MLIR_LIBRARIES();
  auto* mlirClock = MLIR_VERSION_OF(rtclock);
  auto* mlirNano = MLIR_VERSION_OF(_mlir_ciface_nanoTime);
  ASSERT_TRUE(mlirClock && mlirNano);
  const double c1 = mlirClock(), c2 = rtclock(), c3 = mlirClock();
  EXPECT_LE(c1, c2);
  EXPECT_LE(c2, c3);
  const std::int64_t n1 = mlirNano(), n2 = _mlir_ciface_nanoTime(), n3 = mlirNano();
  EXPECT_LE(n1, n2);
  EXPECT_LE(n2, n3);
}
