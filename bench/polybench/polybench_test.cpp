// PolyBench/C 4.2.1 in memjit: at MINI and SMALL, every kernel's memjit build (serial, parallel where it has one,
// checked) and its clang twin equal its g++ twin bit for bit on every live-out array. Exact equality holds because
// every side performs the same IEEE operations in the same order: the twins are compiled with -ffp-contract=off,
// memjit adds no fast-math flags, parallel loops split only independent iterations, and the math functions
// (deriche's expf/powf, sqrt) are libm's on every side.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>

#include "memjit/jit/jit.h"
#include "polybench.h"

namespace memjit::polybench {
namespace {

jit::Jit& sharedJit() {
  static jit::Jit j = *jit::Jit::create({.optLevel = jit::OptLevel::O3});
  return j;
}

const Kernel& kernelNamed(const std::string& name) {
  for (const Kernel& k : kernels())
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

std::string hex(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", v);
  return text;
}

// The first differing element of each live-out array, as a failure message; empty when all are equal.
std::string compare(const Kernel& k, const Data& expected, const Data& actual) {
  std::string out;
  for (std::size_t i = 0; i < k.arrays.size(); ++i) {
    if (!k.arrays[i].output) continue;
    const Storage &e = expected.a[i], &a = actual.a[i];
    if (std::memcmp(e.data.get(), a.data.get(), e.bytes) == 0) continue;
    const std::size_t width = storageSize(e.type);
    for (std::int64_t n = 0; n < e.elements(); ++n) {
      if (std::memcmp(e.data.get() + n * width, a.data.get() + n * width, width) == 0) continue;
      auto value = [&](const Storage& s) {
        switch (s.type) {
          // %a: every bit of a float shows.
          case ElementType::F64: return hex(s.as<double>()[n]);
          case ElementType::F32: return hex(s.as<float>()[n]);
          default: return std::to_string(s.as<std::int32_t>()[n]);
        }
      };
      out += std::string(k.arrays[i].name) + "[" + std::to_string(n) + "]: expected " + value(e) + ", got " +
             value(a) + "\n";
      break;
    }
  }
  return out;
}

using Param = std::tuple<std::string, Dataset>;
class PolyBenchTest : public ::testing::TestWithParam<Param> {};

TEST_P(PolyBenchTest, EqualsTheTwinsBitForBit) {
  const Kernel& k = kernelNamed(std::get<0>(GetParam()));
  const Dataset ds = std::get<1>(GetParam());
  Data reference = makeData(k, ds);
  runTwin(k.gcc, reference);

  Data d = makeData(k, ds);
  runTwin(k.clang, d);
  EXPECT_EQ(compare(k, reference, d), "") << "clang twin";

  for (Flavor f : {Flavor::Serial, Flavor::Parallel, Flavor::Checked}) {
    if (f == Flavor::Parallel && !k.omp) continue;
    const char* flavor = f == Flavor::Serial ? "memjit" : f == Flavor::Parallel ? "memjit_par" : "memjit_checked";
    auto fn = compile(sharedJit(), k, f);
    ASSERT_TRUE(fn) << flavor << ": " << fn.error().str();
    Data in = makeData(k, ds);
    Error e = run(*fn, k, in);
    ASSERT_FALSE(e) << flavor << ": " << e.str();
    EXPECT_EQ(compare(k, reference, in), "") << flavor;
  }
  if (k.omp) {
    Data in = makeData(k, ds);
    runTwin(k.omp, in);
    EXPECT_EQ(compare(k, reference, in), "") << "OpenMP twin";
  }
}

std::vector<Param> params() {
  std::vector<Param> v;
  for (const Kernel& k : kernels())
    for (Dataset d : {Dataset::Mini, Dataset::Small}) v.emplace_back(k.name, d);
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, PolyBenchTest, ::testing::ValuesIn(params()), [](const auto& info) {
  std::string name = std::get<0>(info.param) + "_" + datasetName(std::get<1>(info.param));
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
});

// The suite has PolyBench's 30 kernels, each with a live-out array, sizes for the four datasets and two twins.
TEST(PolyBenchSuite, HasTheThirtyKernels) {
  ASSERT_EQ(kernels().size(), 30u);
  for (const Kernel& k : kernels()) {
    bool output = false;
    for (const ArraySpec& a : k.arrays) output = output || a.output;
    EXPECT_TRUE(output) << k.name;
    for (const auto& s : k.sizes) EXPECT_EQ(s.size(), k.sizeNames.size()) << k.name;
    EXPECT_TRUE(k.gcc && k.clang) << k.name;
  }
}

}  // namespace
}  // namespace memjit::polybench
