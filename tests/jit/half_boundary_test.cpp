// f16 and bf16 across the runtime boundary, end to end: kernels JIT-compiled
// by LLVM (half_kernels.h) called through the typed invoker (memjit::f16/bf16
// and the compiler's _Float16), the dynamic invoker (scalars by value,
// through libffi and the thunks, buffers, lists) and DLPack tensors, every
// edge pattern compared bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "half_kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/dlpack.h"
#include "memjit/runtime/callable.h"
#include "support/dlpack.h"

using namespace memjit;
using namespace memjit::runtime;
using memjit::test::kBF16EdgeBits;
using memjit::test::kF16EdgeBits;

namespace {

class HalfBoundary : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto j = jit::Jit::create();
    ASSERT_TRUE(j.ok()) << j.error().str();
    codegen::Module m("half");
    Error e = test::addHalfKernels(m);
    ASSERT_FALSE(e) << e.str();
    jit_ = new jit::Jit(std::move(*j));
    auto loaded = jit_->add(std::move(m));
    ASSERT_TRUE(loaded.ok()) << loaded.error().str();
    module_ = new jit::LoadedModule(std::move(*loaded));
  }
  static void TearDownTestSuite() {
    delete module_;
    delete jit_;
  }
  static runtime::Callable fn(const char* name) {
    auto f = module_->function(name);
    EXPECT_TRUE(f.ok()) << name;
    return f.ok() ? f->runtime() : runtime::Callable();
  }
  static inline jit::Jit* jit_ = nullptr;
  static inline jit::LoadedModule* module_ = nullptr;
};

template <typename H>
std::vector<H> fromBits(const std::vector<std::uint16_t>& bits) {
  std::vector<H> v;
  for (auto b : bits) v.push_back(H::fromBits(b));
  return v;
}
template <typename H>
std::vector<std::uint16_t> bitsOf(const H* data, std::size_t n) {
  std::vector<std::uint16_t> v(n);
  std::memcpy(v.data(), data, 2 * n);
  return v;
}
std::uint16_t scalarBits(const Variant& v) { return static_cast<std::uint16_t>(v.scalar().u); }

}  // namespace

TEST_F(HalfBoundary, TypedScalarsByValue) {
  auto hpass = fn("hpass").as<f16(f16)>();
  auto bpass = fn("bpass").as<bf16(bf16)>();
  ASSERT_TRUE(hpass.ok()) << hpass.error().str();
  ASSERT_TRUE(bpass.ok()) << bpass.error().str();
  for (auto b : kF16EdgeBits) EXPECT_EQ((*hpass)(f16::fromBits(b)).bits(), b) << std::hex << b;
  for (auto b : kBF16EdgeBits) EXPECT_EQ((*bpass)(bf16::fromBits(b)).bits(), b) << std::hex << b;

  // Values, not only bits: a product of two halves is exact in float, so
  // rounding it once is what the kernel's half multiply must give.
  auto hmul = fn("hmul").as<f16(f16, f16)>();
  auto bmul = fn("bmul").as<bf16(bf16, bf16)>();
  ASSERT_TRUE(hmul.ok() && bmul.ok());
  for (float a : {1.5f, -3.25f, 0.1f, 255.0f})
    for (float b : {2.0f, 0.3f, -7.0f}) {
      EXPECT_EQ((*hmul)(f16(a), f16(b)).bits(), f16(float(f16(a)) * float(f16(b))).bits()) << a << " * " << b;
      EXPECT_EQ((*bmul)(bf16(a), bf16(b)).bits(), bf16(float(bf16(a)) * float(bf16(b))).bits()) << a << " * " << b;
    }
  EXPECT_EQ((*hmul)(f16(300.0), f16(300.0)).bits(), 0x7c00);  // overflows to inf in the kernel
}

#if defined(MEMJIT_HAS_FLOAT16)
TEST_F(HalfBoundary, TypedCompilerFloat16) {
  auto hpass = fn("hpass").as<_Float16(_Float16)>();
  ASSERT_TRUE(hpass.ok()) << hpass.error().str();
  for (auto b : kF16EdgeBits) {
    _Float16 x;
    std::memcpy(&x, &b, 2);
    _Float16 r = (*hpass)(x);
    EXPECT_EQ(std::bit_cast<std::uint16_t>(r), b) << std::hex << b;
  }
  auto hcopy = fn("hcopy").as<void(StridedMemRef<_Float16, 1>, StridedMemRef<_Float16, 1>)>();
  ASSERT_TRUE(hcopy.ok()) << hcopy.error().str();
  std::vector<_Float16> in(kF16EdgeBits.size()), out(in.size());
  std::memcpy(in.data(), kF16EdgeBits.data(), 2 * in.size());
  (*hcopy)(makeView(in), makeView(out));
  EXPECT_EQ(bitsOf(out.data(), out.size()), kF16EdgeBits);
}
#endif

TEST_F(HalfBoundary, TypedBuffers) {
  auto hcopy = fn("hcopy").as<void(StridedMemRef<f16, 1>, OwnedMemRef<f16, 1>)>();
  auto bcopy = fn("bcopy").as<void(StridedMemRef<bf16, 1>, StridedMemRef<bf16, 1>)>();
  ASSERT_TRUE(hcopy.ok()) << hcopy.error().str();
  ASSERT_TRUE(bcopy.ok()) << bcopy.error().str();
  auto hin = fromBits<f16>(kF16EdgeBits);
  auto out = OwnedMemRef<f16, 1>::allocate({static_cast<std::int64_t>(hin.size())});
  ASSERT_TRUE(out.ok());
  (*hcopy)(makeView(hin), *out);
  EXPECT_EQ(bitsOf(out->get().data, hin.size()), kF16EdgeBits);
  auto bin = fromBits<bf16>(kBF16EdgeBits);
  std::vector<bf16> bout(bin.size());
  (*bcopy)(makeView(bin), makeView(bout));
  EXPECT_EQ(bitsOf(bout.data(), bout.size()), kBF16EdgeBits);

  // A scalar result read from a buffer (all-integer parameters: the thunk path).
  auto hload = fn("hload").as<f16(StridedMemRef<f16, 1>, std::int64_t)>();
  ASSERT_TRUE(hload.ok());
  for (std::size_t i = 0; i < hin.size(); ++i)
    EXPECT_EQ((*hload)(makeView(hin), static_cast<std::int64_t>(i)).bits(), kF16EdgeBits[i]);

  // uint16_t is ui16, not f16: refused once, by name.
  auto wrong = fn("hcopy").as<void(StridedMemRef<std::uint16_t, 1>, StridedMemRef<std::uint16_t, 1>)>();
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message().find("parameter 0 is memref<?xf16>, the C++ signature passes "
                                         "StridedMemRef<ui16, 1>"),
            std::string::npos)
      << wrong.error().str();
}

TEST_F(HalfBoundary, TypedManyArgumentsSpillToTheStack) {
  auto spill = fn("spill").as<bf16(StridedMemRef<f16, 1>, StridedMemRef<bf16, 1>, StridedMemRef<float, 1>, f16,
                                   bf16, float, f16, bf16, float, f16, bf16, float, f16, bf16, float, f16, bf16)>();
  ASSERT_TRUE(spill.ok()) << spill.error().str();
  std::vector<f16> h(5);
  std::vector<bf16> g(5);
  std::vector<float> f(4);
  const std::uint16_t hb[5] = {0x7d01, 0x8000, 0x0001, 0x7bff, 0xfe55};
  const std::uint16_t gb[5] = {0xff81, 0x0001, 0x7f80, 0x8000, 0x7fd5};
  bf16 r = (*spill)(makeView(h), makeView(g), makeView(f), f16::fromBits(hb[0]), bf16::fromBits(gb[0]), 1.5f,
                    f16::fromBits(hb[1]), bf16::fromBits(gb[1]), -2.25f, f16::fromBits(hb[2]), bf16::fromBits(gb[2]),
                    1e30f, f16::fromBits(hb[3]), bf16::fromBits(gb[3]), 7.0f, f16::fromBits(hb[4]),
                    bf16::fromBits(gb[4]));
  EXPECT_EQ(bitsOf(h.data(), 5), std::vector<std::uint16_t>(hb, hb + 5));
  EXPECT_EQ(bitsOf(g.data(), 5), std::vector<std::uint16_t>(gb, gb + 5));
  EXPECT_EQ(f, (std::vector<float>{1.5f, -2.25f, 1e30f, 7.0f}));
  EXPECT_EQ(r.bits(), gb[4]);
}

TEST_F(HalfBoundary, TypedOwnedUnrankedResult) {
  auto clone = fn("hclone").as<OwnedUnrankedMemRef<f16>(UnrankedMemRef<f16>)>();
  ASSERT_TRUE(clone.ok()) << clone.error().str();
  auto in = fromBits<f16>(kF16EdgeBits);
  auto view = makeView(in);
  OwnedUnrankedMemRef<f16> r = (*clone)(makeUnranked(view));
  ASSERT_TRUE(r.valid());
  EXPECT_TRUE(r.owning());
  EXPECT_EQ(r.rank(), 1);
  auto ranked = r.ranked<1>();
  ASSERT_TRUE(ranked.ok()) << ranked.error().str();
  EXPECT_EQ(bitsOf((*ranked)->data, in.size()), kF16EdgeBits);
  // It passes back in as an unranked argument.
  OwnedUnrankedMemRef<f16> again = (*clone)(r);
  EXPECT_EQ(bitsOf(again.ranked<1>()->get().data, in.size()), kF16EdgeBits);
}

TEST_F(HalfBoundary, DynamicScalarsByValue) {
  runtime::Callable hpass = fn("hpass"), bpass = fn("bpass");
  for (auto b : kF16EdgeBits) {
    auto r = hpass.invoke({Variant(f16::fromBits(b))});
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->scalar().type, ElementType::F16);
    EXPECT_EQ(scalarBits(*r), b) << std::hex << b;
    EXPECT_EQ(r->toF16().bits(), b);
  }
  for (auto b : kBF16EdgeBits) {
    auto r = bpass.invoke({Variant(bf16::fromBits(b))});
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->scalar().type, ElementType::BF16);
    EXPECT_EQ(scalarBits(*r), b) << std::hex << b;
  }
  // Exact values of other types convert; the result reads back as a number.
  auto r = fn("hmul").invoke({1.5, 3});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(r->toDouble(), 4.5);
  EXPECT_EQ(r->describe(), "float16 4.5");
  r = fn("bmul").invoke({Variant(0.5f), Variant(f16(-2.0))});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(scalarBits(*r), bf16(-1.0f).bits());
  // Through the all-integer thunk with an f16 result.
  std::vector<f16> v = fromBits<f16>(kF16EdgeBits);
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto x = fn("hload").invoke({Variant(makeView(v)), static_cast<long long>(i)});
    ASSERT_TRUE(x.ok()) << x.error().str();
    EXPECT_EQ(scalarBits(*x), kF16EdgeBits[i]);
  }
}

TEST_F(HalfBoundary, DynamicManyArgumentsSpillToTheStack) {
  std::vector<f16> h(5);
  std::vector<bf16> g(5);
  std::vector<float> f(4);
  const std::uint16_t hb[5] = {0xfc02, 0x03ff, 0x8000, 0x7e55, 0x3555};
  const std::uint16_t gb[5] = {0x7f81, 0xff7f, 0x0001, 0xffc1, 0x4049};
  auto r = fn("spill").invoke({Variant(makeView(h)), Variant(makeView(g)), Variant(makeView(f)), f16::fromBits(hb[0]),
                               bf16::fromBits(gb[0]), 0.5f, f16::fromBits(hb[1]), bf16::fromBits(gb[1]), -3.0,
                               f16::fromBits(hb[2]), bf16::fromBits(gb[2]), 1e-30f, f16::fromBits(hb[3]),
                               bf16::fromBits(gb[3]), 12, f16::fromBits(hb[4]), bf16::fromBits(gb[4])});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(bitsOf(h.data(), 5), std::vector<std::uint16_t>(hb, hb + 5));
  EXPECT_EQ(bitsOf(g.data(), 5), std::vector<std::uint16_t>(gb, gb + 5));
  EXPECT_EQ(f, (std::vector<float>{0.5f, -3.0f, 1e-30f, 12.0f}));
  EXPECT_EQ(scalarBits(*r), gb[4]);
}

TEST_F(HalfBoundary, DynamicBuffersAndLists) {
  auto in = fromBits<f16>(kF16EdgeBits);
  auto out = Buffer::allocate(ElementType::F16, {static_cast<std::int64_t>(in.size())});
  ASSERT_TRUE(out.ok());
  auto r = fn("hcopy").invoke({Variant(makeView(in)), Variant(*out)});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(bitsOf(static_cast<const f16*>(out->data()), in.size()), kF16EdgeBits);
  // A list of scalars becomes an f16 buffer when every value is exact.
  std::vector<bf16> bout(3);
  r = fn("bcopy").invoke({Variant::list({Variant(bf16::fromBits(0xff81)), 2.0, 3}), Variant(makeView(bout))});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(bitsOf(bout.data(), 3), (std::vector<std::uint16_t>{0xff81, 0x4000, 0x4040}));
}

TEST_F(HalfBoundary, DLPackTensors) {
  auto hin = fromBits<f16>(kF16EdgeBits);
  std::vector<f16> hout(hin.size());
  std::vector<std::int64_t> shape = {static_cast<std::int64_t>(hin.size())};
  DLTensor in = test::hostTensor(hin.data(), shape, nullptr, {kDLFloat, 16, 1});
  DLTensor out = test::hostTensor(hout.data(), shape, nullptr, {kDLFloat, 16, 1});
  auto vin = Variant::fromDLPack(in), vout = Variant::fromDLPack(out);
  ASSERT_TRUE(vin.ok() && vout.ok());
  EXPECT_EQ(vin->buffer().elementType(), ElementType::F16);
  auto r = fn("hcopy").invoke({*vin, *vout});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(bitsOf(hout.data(), hout.size()), kF16EdgeBits);

  auto bin = fromBits<bf16>(kBF16EdgeBits);
  std::vector<bf16> bout(bin.size());
  in.data = bin.data();
  in.dtype = {kDLBfloat, 16, 1};
  out = in;
  out.data = bout.data();
  vin = Variant::fromDLPack(in);
  vout = Variant::fromDLPack(out);
  ASSERT_TRUE(vin.ok() && vout.ok());
  EXPECT_EQ(vin->buffer().elementType(), ElementType::BF16);
  r = fn("bcopy").invoke({*vin, *vout});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(bitsOf(bout.data(), bout.size()), kBF16EdgeBits);

  // A result handed back out as DLPack keeps the dtype.
  in.data = hin.data();
  in.dtype = {kDLFloat, 16, 1};
  vin = Variant::fromDLPack(in);
  ASSERT_TRUE(vin.ok());
  auto clone = fn("hclone").invoke({*vin});
  ASSERT_TRUE(clone.ok()) << clone.error().str();
  auto exported = toDLPack(clone->buffer());
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ((*exported)->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ((*exported)->dl_tensor.dtype.bits, 16);
  EXPECT_EQ(bitsOf(static_cast<const f16*>((*exported)->dl_tensor.data), hin.size()), kF16EdgeBits);
  (*exported)->deleter(*exported);
}
