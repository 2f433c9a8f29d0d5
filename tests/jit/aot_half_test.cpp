// f16 and bf16 through an AOT object (half_kernels.h, compiled at build time
// by half_kernels_generator): the generated header's C-interface
// declarations called directly with memjit::f16/bf16 elements and the
// by-value carriers, and the same functions through both invokers made from
// the header's metadata. This binary links memjit::runtime only.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "aot_half_kernels.h"
#include "half_kernels.h"
#include "memjit/runtime/callable.h"

using namespace memjit;
using namespace memjit::runtime;
using memjit::test::kBF16EdgeBits;
using memjit::test::kF16EdgeBits;

namespace {

template <typename H>
std::vector<std::uint16_t> bitsOf(const std::vector<H>& v) {
  std::vector<std::uint16_t> b(v.size());
  std::memcpy(b.data(), v.data(), 2 * v.size());
  return b;
}
template <typename H>
std::vector<H> fromBits(const std::vector<std::uint16_t>& bits) {
  std::vector<H> v;
  for (auto b : bits) v.push_back(H::fromBits(b));
  return v;
}
runtime::Callable fromMetadata(const char* name) {
  const auto* info = half_kernels::findFunction(name);
  EXPECT_NE(info, nullptr) << name;
  if (!info) return {};
  auto f = runtime::Callable::fromTypeText(info->cInterface, info->name, info->type);
  EXPECT_TRUE(f.ok()) << f.error().str();
  return f.ok() ? *f : runtime::Callable();
}

}  // namespace

TEST(AotHalf, HeaderDeclarationsCarryEveryPattern) {
  // The declarations spell scalars with the ABI carriers and elements with the value types.
  static_assert(std::is_same_v<decltype(&_mlir_ciface_hpass), f16::abi_type (*)(f16::abi_type)>);
  static_assert(std::is_same_v<decltype(&_mlir_ciface_bcopy),
                               void (*)(StridedMemRef<bf16, 1>*, StridedMemRef<bf16, 1>*)>);
  for (auto b : kF16EdgeBits) EXPECT_EQ(f16::fromAbi(_mlir_ciface_hpass(f16::fromBits(b).toAbi())).bits(), b);
  for (auto b : kBF16EdgeBits) EXPECT_EQ(bf16::fromAbi(_mlir_ciface_bpass(bf16::fromBits(b).toAbi())).bits(), b);

  auto in = fromBits<bf16>(kBF16EdgeBits);
  std::vector<bf16> out(in.size());
  auto vin = makeView(in), vout = makeView(out);
  _mlir_ciface_bcopy(&vin, &vout);
  EXPECT_EQ(bitsOf(out), kBF16EdgeBits);

  std::vector<f16> h(5);
  std::vector<bf16> g(5);
  std::vector<float> f(4);
  auto vh = makeView(h);
  auto vg = makeView(g);
  auto vf = makeView(f);
  auto H = [](std::uint16_t b) { return f16::fromBits(b).toAbi(); };
  auto G = [](std::uint16_t b) { return bf16::fromBits(b).toAbi(); };
  auto r = _mlir_ciface_spill(&vh, &vg, &vf, H(0x7d01), G(0xff81), 1.0f, H(0x8000), G(0x0001), 2.0f, H(0x0001),
                              G(0x7f80), 3.0f, H(0x7bff), G(0x8000), 4.0f, H(0xfe55), G(0x7fd5));
  EXPECT_EQ(bitsOf(h), (std::vector<std::uint16_t>{0x7d01, 0x8000, 0x0001, 0x7bff, 0xfe55}));
  EXPECT_EQ(bitsOf(g), (std::vector<std::uint16_t>{0xff81, 0x0001, 0x7f80, 0x8000, 0x7fd5}));
  EXPECT_EQ(f, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(bf16::fromAbi(r).bits(), 0x7fd5);
}

TEST(AotHalf, TypedInvokerFromTheHeadersMetadata) {
  auto hpass = fromMetadata("hpass").as<f16(f16)>();
  ASSERT_TRUE(hpass.ok()) << hpass.error().str();
  for (auto b : kF16EdgeBits) EXPECT_EQ((*hpass)(f16::fromBits(b)).bits(), b);
  auto hcopy = fromMetadata("hcopy").as<void(StridedMemRef<f16, 1>, StridedMemRef<f16, 1>)>();
  ASSERT_TRUE(hcopy.ok()) << hcopy.error().str();
  auto in = fromBits<f16>(kF16EdgeBits);
  std::vector<f16> out(in.size());
  (*hcopy)(makeView(in), makeView(out));
  EXPECT_EQ(bitsOf(out), kF16EdgeBits);
}

TEST(AotHalf, DynamicInvokerFromTheHeadersMetadata) {
  runtime::Callable bpass = fromMetadata("bpass");
  for (auto b : kBF16EdgeBits) {
    auto r = bpass.invoke({Variant(bf16::fromBits(b))});
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->toBF16().bits(), b);
  }
  auto r = fromMetadata("hmul").invoke({0.5, Variant(f16(6.0))});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(r->toDouble(), 3.0);
}
