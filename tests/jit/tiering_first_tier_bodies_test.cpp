// First-tier bodies (jit/first_tier_bodies.h, memjit/metadata_symbols.h
// kFirstTierBodyAttribute): addMatmul's and addSgemm's first tier runs a
// plain loop nest in the kernel's summation order instead of the kernel's
// body. Its bits are compared with the tier-up's, a direct compile's and the
// documented order (kernels.h) computed here with std::fma, on partial tiles,
// several kc blocks, K = 0, empty matrices, transposed views and edge values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/tiering.h"
#include "memjit/metadata_symbols.h"
#include "memjit/runtime/memref.h"
#include "support/expected.h"
#include "support/files.h"
#include "support/jit.h"
#include "support/matmul_order.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::valueOrFail;

namespace {

struct Kernel {
  const char* name;
  codegen::MatrixLayout a = codegen::MatrixLayout::RowMajor, b = codegen::MatrixLayout::RowMajor;
  std::int64_t kc = 0;  // the summation's blocks (0: K is one block)
  bool sgemm = true;
};

// kc 256 is addSgemm's default for AVX-512 f32 (kernels_sgemm.cpp), 384 for AVX2: K = 600 spans blocks either way.
const Kernel kKernels[] = {
    {"matmul", codegen::MatrixLayout::RowMajor, codegen::MatrixLayout::RowMajor, 0, false},
    {"sgemm_kc8", codegen::MatrixLayout::RowMajor, codegen::MatrixLayout::RowMajor, 8},
    {"sgemm_packed_kc8", codegen::MatrixLayout::RowMajor, codegen::MatrixLayout::RowMajor, 8},
    {"sgemm_at_kc8", codegen::MatrixLayout::ColumnMajor, codegen::MatrixLayout::RowMajor, 8},
    {"sgemm_bt_kc8", codegen::MatrixLayout::RowMajor, codegen::MatrixLayout::ColumnMajor, 8},
    {"sgemm_default"},
};

template <typename T>
codegen::Module matmulModule() {
  const ElementType element = sizeof(T) == 4 ? ElementType::F32 : ElementType::F64;
  codegen::Module m("matmuls");
  for (const Kernel& k : kKernels) {
    if (!k.sgemm) {
      EXPECT_FALSE(codegen::addMatmul(m, k.name, {.element = element}));
      continue;
    }
    codegen::SgemmOptions o;
    o.element = element;
    o.a = k.a, o.b = k.b, o.kc = k.kc;
    if (std::string(k.name).find("packed") != std::string::npos) o.directBytes = 0;
    EXPECT_FALSE(codegen::addSgemm(m, k.name, o));
  }
  return m;
}

// Values whose products and sums round differently in every other order:
// magnitudes 2^-30 to 2^30, signed zeros, denormals, infinities, NaN.
template <typename T>
std::vector<T> values(std::size_t n, unsigned seed) {
  std::vector<T> v(n);
  std::uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (T& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double mantissa = static_cast<double>(state >> 40) / static_cast<double>(1ull << 24) - 0.5;
    x = static_cast<T>(std::ldexp(mantissa, static_cast<int>((state >> 20) % 61) - 30));
  }
  const T specials[] = {T(-0.0), T(0.0), std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min() / 3, std::numeric_limits<T>::max() / 2};
  for (std::size_t i = 0; i < n; i += 37) v[i] = specials[(i / 37) % std::size(specials)];
  if (n > 500) v[500] = std::numeric_limits<T>::infinity();
  if (n > 700) v[700] = std::numeric_limits<T>::quiet_NaN();
  return v;
}

template <typename T>
using Mat = runtime::StridedMemRef<T, 2>;

// An M x N view of `data`, row-major or its transpose's storage (column-major).
template <typename T>
Mat<T> view(std::vector<T>& data, std::int64_t rows, std::int64_t cols, codegen::MatrixLayout layout) {
  if (layout == codegen::MatrixLayout::RowMajor) return runtime::makeView<T, 2>(data.data(), {rows, cols});
  return runtime::makeView<T, 2>(data.data(), {rows, cols}, {1, std::max<std::int64_t>(rows, 1)});
}

template <typename T>
std::vector<T> reference(const Mat<T>& A, const Mat<T>& B, std::int64_t M, std::int64_t N, std::int64_t K,
                         std::int64_t kc) {
  return test::matmulInDocumentedOrder(A, B, M, N, K, kc);
}

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Every kernel on every shape: C's bits, concatenated, each NaN as all ones;
// each also checked against the documented order. An arithmetic NaN is only
// promised to be a NaN (docs/kernel-language.md, "NaNs"): which operand's
// NaN an addition of two passes on is the code generator's choice, and the
// first tier's precompiled loop and LLVM's code choose differently.
template <typename T>
std::vector<Bits<T>> run(const LoadedModule& mod, std::int64_t defaultKc) {
  std::vector<Bits<T>> bits;
  const std::int64_t shapes[][3] = {{37, 29, 45}, {1, 1, 1}, {16, 3, 17}, {5, 0, 9}, {3, 600, 33},
                                    {0, 4, 5},    {4, 4, 0}, {15, 70, 32}};
  unsigned seed = 1;
  for (const Kernel& k : kKernels) {
    auto fn = valueOrFail(valueOrFail(mod.function(k.name)).as<void(Mat<T>, Mat<T>, Mat<T>)>());
    for (const auto& [M, K, N] : shapes) {
      std::vector<T> a = values<T>(M * K, seed++), b = values<T>(K * N, seed++), c(M * N, T(-7.0));
      const Mat<T> A = view(a, M, K, k.a), B = view(b, K, N, k.b);
      fn(A, B, runtime::makeView<T, 2>(c.data(), {M, N}));
      const std::vector<T> expected = reference(A, B, M, N, K, k.sgemm ? (k.kc ? k.kc : defaultKc) : 0);
      for (std::size_t i = 0; i < c.size(); ++i) {
        bits.push_back(std::isnan(c[i]) ? ~Bits<T>{0} : std::bit_cast<Bits<T>>(c[i]));
        if (std::isnan(expected[i]) && std::isnan(c[i])) continue;
        EXPECT_EQ(std::bit_cast<Bits<T>>(c[i]), std::bit_cast<Bits<T>>(expected[i]))
            << k.name << " " << M << "x" << K << "x" << N << " element " << i << ": " << c[i] << " for "
            << expected[i];
      }
    }
  }
  return bits;
}

// Tiering whose tier-up waits for requestTierUp; dumps in `dumps` when given.
JitOptions firstTierUntilAsked(const std::filesystem::path& dumps = {}) {
  JitOptions options;
  options.tiering.enabled = true;
  options.tiering.callThreshold = 1000000;
  options.dumpDirectory = dumps.string();
  return options;
}

template <typename T>
void checkAcrossTiers(const std::string& tag) {
  const std::int64_t defaultKc = codegen::VectorTarget::host().registers >= 32 ? 256 : 384;
  JitOptions direct;
  direct.dumpDirectory = test::freshDir("tiering_first_tier_bodies/direct_" + tag).string();
  Jit directJit = test::makeJit(direct);
  const std::vector<Bits<T>> expected = run<T>(valueOrFail(directJit.add(matmulModule<T>())), defaultKc);
  // A direct compile drops the first-tier bodies before it optimises.
  for (const auto& entry : std::filesystem::directory_iterator(direct.dumpDirectory))
    EXPECT_EQ(test::readFile(entry.path()).find("first_tier_body"), std::string::npos) << entry.path();

  const std::filesystem::path dumps = test::freshDir("tiering_first_tier_bodies/tiered_" + tag);
  Jit jit = test::makeJit(firstTierUntilAsked(dumps));
  LoadedModule mod = valueOrFail(jit.add(matmulModule<T>()));
  ASSERT_EQ(currentTier(mod), Tier::First);
  // The first tier calls each kernel's first-tier body and has none of the blocked kernels' masks.
  const std::string ir = test::firstTierDump(dumps);
  for (const Kernel& k : kKernels)
    EXPECT_NE(ir.find("call void @" + std::string(k.name) + ".c_interface.memjit.first_tier_body("), std::string::npos)
        << k.name;
  EXPECT_EQ(ir.find("call void @llvm.masked"), std::string::npos);
  EXPECT_EQ(ir.find("@llvm.masked.load.v16f32.p0(ptr %"), std::string::npos);
  EXPECT_EQ(run<T>(mod, defaultKc), expected);
  requestTierUp(mod);
  ASSERT_FALSE(waitForTierUp(mod));
  EXPECT_EQ(run<T>(mod, defaultKc), expected);
}

}  // namespace

TEST(FirstTierBodies, MatmulsGiveTheSameBitsInBothTiersAsADirectCompileAndTheDocumentedOrderF32) {
  checkAcrossTiers<float>("f32");
}

TEST(FirstTierBodies, MatmulsGiveTheSameBitsInBothTiersAsADirectCompileAndTheDocumentedOrderF64) {
  checkAcrossTiers<double>("f64");
}

namespace {

// C's whole buffer, padding included, after `name`'s C interface ran on
// descriptors whose offsets are 3 (A), 5 (B) and 2 (C): 4 x 3 = (4 x 6)(6 x 3).
std::vector<float> productAtOffsets(const LoadedModule& mod, const char* name) {
  std::vector<float> a = values<float>(3 + 24, 11), b = values<float>(5 + 18, 12), c(2 + 12, -7.0f);
  Mat<float> A = runtime::makeView<float, 2>(a.data(), {4, 6}), B = runtime::makeView<float, 2>(b.data(), {6, 3}),
             C = runtime::makeView<float, 2>(c.data(), {4, 3});
  A.offset = 3, B.offset = 5, C.offset = 2;
  auto* fn = reinterpret_cast<void (*)(Mat<float>*, Mat<float>*, Mat<float>*)>(valueOrFail(mod.function(name)).cInterface());
  fn(&A, &B, &C);
  return c;
}

}  // namespace

// addMatmul's memref<?x?xf32> fixes its offsets at 0, so its code reads
// every matrix from the aligned pointer, whatever offset a descriptor holds;
// the first-tier body does too (it honoured the offsets, unlike the tier-up).
// addSgemm's offsets are dynamic: both tiers honour them.
TEST(FirstTierBodies, BothTiersReadOffsetsAsTheKernelsTypesSay) {
  auto build = [] {
    codegen::Module m("offsets");
    EXPECT_FALSE(codegen::addMatmul(m, "matmul"));
    EXPECT_FALSE(codegen::addSgemm(m, "sgemm", {.kc = 4}));
    return m;
  };
  Jit directJit = test::makeJit();
  LoadedModule direct = valueOrFail(directJit.add(build()));
  Jit tieredJit = test::makeJit(firstTierUntilAsked());
  LoadedModule tiered = valueOrFail(tieredJit.add(build()));
  ASSERT_EQ(currentTier(tiered), Tier::First);
  for (const char* name : {"matmul", "sgemm"}) {
    const std::vector<float> expected = productAtOffsets(direct, name);
    EXPECT_EQ(productAtOffsets(tiered, name), expected) << name << ", first tier";
  }
  requestTierUp(tiered);
  ASSERT_FALSE(waitForTierUp(tiered));
  for (const char* name : {"matmul", "sgemm"})
    EXPECT_EQ(productAtOffsets(tiered, name), productAtOffsets(direct, name)) << name << ", tier-up";
  // What each read: matmul from offset 0 (C's first two elements written),
  // sgemm from the descriptors' offsets (C's padding left alone).
  std::vector<float> a = values<float>(3 + 24, 11), b = values<float>(5 + 18, 12);
  const std::vector<float> atZero = reference(runtime::makeView<float, 2>(a.data(), {4, 6}),
                                              runtime::makeView<float, 2>(b.data(), {6, 3}), 4, 3, 6, 0);
  Mat<float> A = runtime::makeView<float, 2>(a.data(), {4, 6}), B = runtime::makeView<float, 2>(b.data(), {6, 3});
  A.offset = 3, B.offset = 5;
  const std::vector<float> atOffsets = reference(A, B, 4, 3, 6, 4);
  const std::vector<float> matmul = productAtOffsets(direct, "matmul"), sgemm = productAtOffsets(direct, "sgemm");
  EXPECT_EQ(std::vector<float>(matmul.begin(), matmul.begin() + 12), atZero);
  EXPECT_EQ(std::vector<float>(sgemm.begin() + 2, sgemm.end()), atOffsets);
  EXPECT_EQ(sgemm[0], -7.0f);
}

// Checked mode's reports are the kernel's own: no first-tier body, so the
// first tier reports a shape mismatch as a direct compile does. Nor has a
// matmul whose C may overlap A or B one (the order of its reads and writes).
TEST(FirstTierBodies, CheckedAndOverlappingKernelsHaveNone) {
  Jit jit = test::makeJit(firstTierUntilAsked());
  codegen::Module m("checked");
  ASSERT_FALSE(codegen::addSgemm(m, "sgemm", {.checked = true}));
  ASSERT_FALSE(codegen::addMatmul(m, "matmul", {.checked = true}));
  ASSERT_FALSE(codegen::addMatmul(m, "overlapping", {.noalias = false}));
  for (const llvm::Function& f : m.llvm()) EXPECT_FALSE(f.getName().contains("first_tier_body")) << f.getName().str();
  LoadedModule mod = valueOrFail(jit.add(std::move(m)));
  ASSERT_EQ(currentTier(mod), Tier::First);
  std::vector<float> a(6), b(6), c(4);
  for (const char* name : {"sgemm", "matmul"}) {
    auto fn = valueOrFail(valueOrFail(mod.function(name)).as<void(Mat<float>, Mat<float>, Mat<float>)>());
    // A is 2 x 3, B 2 x 3 (should be 3 x N).
    const Error called = fn.call(runtime::makeView<float, 2>(a.data(), {2, 3}),
                                 runtime::makeView<float, 2>(b.data(), {2, 3}), runtime::makeView<float, 2>(c.data(), {2, 2}));
    ASSERT_TRUE(called) << name;
    EXPECT_EQ(called.code(), ErrorCode::RuntimeCheckFailed) << name;
  }
}

// A kernel with a first-tier body leaves its blocked body to the tier-up:
// the first tier neither verifies nor inlines it (sgemm: 57M instructions
// on the first call's path), the tier-up does both, and the expanded entry
// is the deferred stub in either tier.
TEST(FirstTierBodies, TheTierUpInlinesTheExpandedEntryTheFirstTierLeftOut) {
  const std::filesystem::path dumps = test::freshDir("tiering_first_tier_bodies/expanded");
  Jit jit = test::makeJit(firstTierUntilAsked(dumps));
  codegen::Module m("expanded");
  ASSERT_FALSE(codegen::addSgemm(m, "sgemm"));
  LoadedModule mod = valueOrFail(jit.add(std::move(m)));
  ASSERT_EQ(currentTier(mod), Tier::First);
  const std::string first = test::firstTierDump(dumps);
  EXPECT_EQ(first.find("define void @sgemm"), std::string::npos) << first;
  EXPECT_EQ(first.find("@sgemm("), std::string::npos) << first;  // gone with the body it replaced

  // C = A B, 3 x 2 = (3 x 4)(4 x 2), through the expanded convention (allocated, aligned, offset, sizes, strides).
  using Expanded = void(float*, float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                        float*, float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                        float*, float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
  auto expanded = valueOrFail(mod.function("sgemm")).expandedAs<Expanded>();
  auto product = [&] {
    std::vector<float> a{1, 2, 3, 4, -0.0f, 5, 6, 7, 8, 9, 10, 0x1p-149f}, b{1, -1, 0.5f, 2, 0.25f, -3, 4, 8};
    std::vector<float> c(6, std::nanf(""));
    expanded(a.data(), a.data(), 0, 3, 4, 4, 1, b.data(), b.data(), 0, 4, 2, 2, 1, c.data(), c.data(), 0, 3, 2, 2, 1);
    return c;
  };
  const std::vector<float> expected{1 + 1 + 0.75f + 16, -1 + 4 - 9 + 32, -0.0f + 2.5f + 1.5f + 28, -0.0f + 10 - 18 + 56,
                                    8 + 4.5f + 2.5f + 0x1p-147f, -8 + 18 - 30 + 0x1p-146f};
  EXPECT_EQ(product(), expected);

  requestTierUp(mod);
  ASSERT_FALSE(waitForTierUp(mod));
  EXPECT_EQ(product(), expected);
  std::string tierUp;
  for (const auto& entry : std::filesystem::directory_iterator(dumps))
    if (entry.path().string().ends_with(".tier-up.before.ll")) tierUp = test::readFile(entry.path());
  ASSERT_FALSE(tierUp.empty());
  EXPECT_NE(tierUp.find("define void @_mlir_ciface_sgemm("), std::string::npos);
  EXPECT_EQ(tierUp.find("@sgemm("), std::string::npos) << "inlined into its C interface and erased";
}

// What the first tier leaves out it does not verify: a replaced body that
// the verifier rejects fails the tier-up, with the verifier's words, and the
// module keeps its correct first tier.
TEST(FirstTierBodies, AReplacedBodyThatFailsToVerifyFailsTheTierUpNotTheAdd) {
  Jit jit = test::makeJit(firstTierUntilAsked());
  codegen::Module m("broken");
  ASSERT_FALSE(codegen::addSgemm(m, "sgemm"));
  llvm::Function* kernel = m.llvm().getFunction("sgemm");
  ASSERT_NE(kernel, nullptr);
  llvm::BasicBlock& entry = kernel->getEntryBlock();
  llvm::IRBuilder<>(&entry, entry.getFirstInsertionPt()).CreateUnreachable();  // a terminator mid-block
  LoadedModule mod = valueOrFail(jit.add(std::move(m)));
  ASSERT_EQ(currentTier(mod), Tier::First);
  std::vector<float> a{1, 2, 3, 4}, b{5, 6, 7, 8}, c(4);
  auto fn = valueOrFail(valueOrFail(mod.function("sgemm")).as<void(Mat<float>, Mat<float>, Mat<float>)>());
  auto product = [&] {
    fn(runtime::makeView<float, 2>(a.data(), {2, 2}), runtime::makeView<float, 2>(b.data(), {2, 2}),
       runtime::makeView<float, 2>(c.data(), {2, 2}));
    return c;
  };
  EXPECT_EQ(product(), (std::vector<float>{19, 22, 43, 50}));
  requestTierUp(mod);
  const Error failed = waitForTierUp(mod);
  ASSERT_TRUE(failed);
  EXPECT_NE(failed.str().find("Terminator found in the middle of a basic block"), std::string::npos) << failed.str();
  EXPECT_NE(failed.str().find("tier-up of module 'broken'"), std::string::npos) << failed.str();
  EXPECT_EQ(currentTier(mod), Tier::FirstTierOnly);
  EXPECT_EQ(product(), (std::vector<float>{19, 22, 43, 50}));
}

namespace {

// Softmax's bits on rows holding -0, +0, denormals, infinities, quiet and
// signalling NaNs, a row of one value, an empty matrix, a strided input and
// an in-place call; each NaN as all ones (only "a NaN" is promised).
template <typename T>
std::vector<Bits<T>> runSoftmax(const LoadedModule& mod) {
  auto fn = valueOrFail(valueOrFail(mod.function("softmax")).as<void(Mat<T>, Mat<T>)>());
  std::vector<Bits<T>> bits;
  auto record = [&](const std::vector<T>& out) {
    for (T x : out) bits.push_back(std::isnan(x) ? ~Bits<T>{0} : std::bit_cast<Bits<T>>(x));
  };
  const T signalling = std::numeric_limits<T>::signaling_NaN();
  // Mostly within [-8, 8), where many exps are alike and their sum's order shows in the last bits.
  auto inputs = [&](std::size_t n, unsigned seed) {
    std::vector<T> in = values<T>(n, seed);
    for (std::size_t i = 0; i < n; ++i)
      if (i % 37 != 0 && i != 500 && i != 700) in[i] = static_cast<T>(std::ldexp(static_cast<double>((seed * 7919u + i * 104729u) % 4096u), -8) - 8.0);
    for (std::size_t i = 11; i < n; i += 53) in[i] = signalling;
    for (std::size_t i = 29; i < n; i += 97) in[i] = -std::numeric_limits<T>::infinity();
    return in;
  };
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{7, 45}, {1, 1}, {3, 200}, {0, 5}, {4, 0}, {2, 900}}) {
    std::vector<T> in = inputs(static_cast<std::size_t>(rows * cols), static_cast<unsigned>(rows * 31 + cols));
    std::vector<T> out(in.size(), T(-7.0));
    fn(runtime::makeView<T, 2>(in.data(), {rows, cols}), runtime::makeView<T, 2>(out.data(), {rows, cols}));
    record(out);
    fn(runtime::makeView<T, 2>(in.data(), {rows, cols}), runtime::makeView<T, 2>(in.data(), {rows, cols}));
    record(in);  // in place
  }
  // Rows 60 and 40 apart (memref<?x?xT>: the row stride is the descriptor's, the column's 1).
  std::vector<T> in = inputs(300, 77), out(200, T(-7.0));
  fn(runtime::makeView<T, 2>(in.data(), {5, 30}, {60, 1}), runtime::makeView<T, 2>(out.data(), {5, 30}, {40, 1}));
  record(out);
  return bits;
}

template <typename T>
void checkSoftmaxAcrossTiers() {
  const ElementType element = sizeof(T) == 4 ? ElementType::F32 : ElementType::F64;
  auto module = [&] {
    codegen::Module m("softmax");
    EXPECT_FALSE(codegen::addSoftmax(m, "softmax", {.element = element}));
    return m;
  };
  Jit o0 = test::makeJit({.optLevel = OptLevel::O0});
  const std::vector<Bits<T>> expected = runSoftmax<T>(valueOrFail(o0.add(module())));
  // Scalar libm calls in the tier-up too, so that it must give the same bits.
  JitOptions options = firstTierUntilAsked(test::freshDir("tiering_first_tier_bodies/softmax"));
  options.vectorMath = false;
  Jit jit = test::makeJit(options);
  LoadedModule mod = valueOrFail(jit.add(module()));
  ASSERT_EQ(currentTier(mod), Tier::First);
  const std::string ir = test::firstTierDump(options.dumpDirectory);
  EXPECT_NE(ir.find("call void @softmax.c_interface.memjit.first_tier_body("), std::string::npos) << ir;
  EXPECT_EQ(ir.find("@llvm.exp"), std::string::npos);
  EXPECT_EQ(runSoftmax<T>(mod), expected) << "first tier";
  requestTierUp(mod);
  ASSERT_FALSE(waitForTierUp(mod));
  EXPECT_EQ(runSoftmax<T>(mod), expected) << "tier-up";
  // Checked and fast-math softmaxes keep their own bodies.
  codegen::Module other("other");
  ASSERT_FALSE(codegen::addSoftmax(other, "checked", {.element = element, .checked = true}));
  ASSERT_FALSE(codegen::addSoftmax(other, "fast", {.element = element, .fastMath = codegen::FastMath::Fast}));
  for (const llvm::Function& f : other.llvm())
    EXPECT_FALSE(f.hasFnAttribute(metadata::kFirstTierBodyAttribute)) << f.getName().str();
}

}  // namespace

TEST(FirstTierBodies, SoftmaxGivesAnO0CompilesBitsInBothTiersF32) { checkSoftmaxAcrossTiers<float>(); }

TEST(FirstTierBodies, SoftmaxGivesAnO0CompilesBitsInBothTiersF64) { checkSoftmaxAcrossTiers<double>(); }
