#include "memjit/runtime/dlpack.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/dlpack.h"

using namespace memjit;
using namespace memjit::runtime;

namespace {
DLTensor tensor(void* data, std::vector<std::int64_t>& shape, std::int64_t* strides, DLDataType dtype,
                std::uint64_t byteOffset = 0) {
  return test::hostTensor(data, shape, strides, dtype, byteOffset);
}
}  // namespace

TEST(DLPack, NullStridesMeanRowMajor) {
  std::vector<float> v(6);
  std::vector<std::int64_t> shape{2, 3};
  auto b = fromDLPack(tensor(v.data(), shape, nullptr, {kDLFloat, 32, 1}));
  ASSERT_TRUE(b) << b.error().str();
  EXPECT_EQ(b->elementType(), ElementType::F32);
  EXPECT_EQ(b->strides()[0], 3);
  EXPECT_EQ(b->strides()[1], 1);
  EXPECT_EQ(b->aligned(), v.data());  // no copy
  EXPECT_FALSE(b->owning());
}

TEST(DLPack, ByteOffsetAndStridesHonoured) {
  std::vector<std::int32_t> v{0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<std::int64_t> shape{3};
  std::int64_t strides[1] = {2};
  auto b = fromDLPack(tensor(v.data(), shape, strides, {kDLInt, 32, 1}, 2 * sizeof(std::int32_t)));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->offset(), 2);
  EXPECT_EQ(*static_cast<std::int32_t*>(b->data()), 2);
  std::int64_t i[1] = {2};
  EXPECT_EQ(*static_cast<std::int32_t*>(b->at(i)), 6);
  // A byte offset that is not a whole element moves the aligned pointer instead.
  std::vector<std::uint8_t> bytes(16);
  bytes[3] = 42;
  std::vector<std::int64_t> s1{4};
  auto c = fromDLPack(tensor(bytes.data(), s1, nullptr, {kDLUInt, 8, 1}, 3));
  ASSERT_TRUE(c);
  EXPECT_EQ(*static_cast<std::uint8_t*>(c->data()), 42);
}

TEST(DLPack, ChecksDtypeLanesAndDevice) {
  float x[2];
  std::vector<std::int64_t> shape{2};
  EXPECT_EQ(fromDLPack(tensor(x, shape, nullptr, {kDLFloat, 32, 4})).error().code(), ErrorCode::Unsupported);
  EXPECT_EQ(fromDLPack(tensor(x, shape, nullptr, {kDLFloat, 8, 1})).error().code(), ErrorCode::Unsupported);
  DLTensor gpu = tensor(x, shape, nullptr, {kDLFloat, 32, 1});
  gpu.device.device_type = kDLCUDA;
  auto e = fromDLPack(gpu);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("device type 2"), std::string::npos);
  DLTensor neg = tensor(x, shape, nullptr, {kDLFloat, 32, 1});
  neg.ndim = -1;
  EXPECT_EQ(fromDLPack(neg).error().code(), ErrorCode::InvalidArgument);
}

TEST(DLPack, TypedView) {
  std::vector<double> v(4);
  std::vector<std::int64_t> shape{2, 2};
  auto m = fromDLPackAs<double, 2>(tensor(v.data(), shape, nullptr, {kDLFloat, 64, 1}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->data, v.data());
  EXPECT_FALSE((fromDLPackAs<float, 2>(tensor(v.data(), shape, nullptr, {kDLFloat, 64, 1}))));
}

TEST(DLPack, ExportedTensorKeepsMemoryAndFreesOnce) {
  auto b = Buffer::allocate(ElementType::SI64, {2, 2});
  ASSERT_TRUE(b);
  static_cast<std::int64_t*>(b->data())[3] = 9;
  auto t = toDLPack(*b);
  ASSERT_TRUE(t);
  *b = Buffer();  // drop our share: the tensor keeps the memory alive
  DLManagedTensor* m = *t;
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.dtype.code, kDLInt);
  EXPECT_EQ(m->dl_tensor.strides[0], 2);
  EXPECT_EQ(static_cast<std::int64_t*>(m->dl_tensor.data)[3], 9);
  // Round trip: adopt it back; the buffer calls the deleter once.
  auto back = adoptDLPack(m);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->describe(), "sint64[2x2]");
}

TEST(DLPack, AdoptCallsDeleterExactlyOnce) {
  static int deleted = 0;
  deleted = 0;
  auto* m = new DLManagedTensor{};
  static float storage[3];
  static std::int64_t shape[1] = {3};
  m->dl_tensor.data = storage;
  m->dl_tensor.device = {kDLCPU, 0};
  m->dl_tensor.ndim = 1;
  m->dl_tensor.dtype = {kDLFloat, 32, 1};
  m->dl_tensor.shape = shape;
  m->deleter = [](DLManagedTensor* self) {
    ++deleted;
    delete self;
  };
  {
    auto b = adoptDLPack(m);
    ASSERT_TRUE(b);
    Buffer copy = *b;
  }
  EXPECT_EQ(deleted, 1);
  // On failure nothing is taken.
  auto* bad = new DLManagedTensor{};
  bad->dl_tensor.dtype = {kDLFloat, 32, 2};
  bad->dl_tensor.device = {kDLCPU, 0};
  EXPECT_FALSE(adoptDLPack(bad));
  delete bad;
}

TEST(DLPack, HalfPrecisionDtypesBothWays) {
  EXPECT_EQ(*elementTypeFromDLPack({kDLFloat, 16, 1}), ElementType::F16);
  EXPECT_EQ(*elementTypeFromDLPack({kDLBfloat, 16, 1}), ElementType::BF16);
  EXPECT_FALSE(elementTypeFromDLPack({kDLBfloat, 32, 1}));
  DLDataType h = dlpackDataType(ElementType::F16), g = dlpackDataType(ElementType::BF16);
  EXPECT_EQ(h.code, kDLFloat);
  EXPECT_EQ(h.bits, 16);
  EXPECT_EQ(g.code, kDLBfloat);
  EXPECT_EQ(g.bits, 16);
  // A typed view of a bf16 tensor, and the buffer handed back out.
  std::vector<bf16> v{bf16::fromBits(0x7f81), bf16(1.0f)};
  std::vector<std::int64_t> shape{2};
  auto m = fromDLPackAs<bf16, 1>(tensor(v.data(), shape, nullptr, {kDLBfloat, 16, 1}));
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ((*m)({0}).bits(), 0x7f81);
  EXPECT_FALSE((fromDLPackAs<f16, 1>(tensor(v.data(), shape, nullptr, {kDLBfloat, 16, 1}))));
  auto out = toDLPack(Buffer::fromMemRef(*m));
  ASSERT_TRUE(out);
  EXPECT_EQ((*out)->dl_tensor.dtype.code, kDLBfloat);
  EXPECT_EQ((*out)->dl_tensor.dtype.bits, 16);
  (*out)->deleter(*out);
}
