#include "memjit/runtime/dlpack.h"

#include <string>
#include <vector>

namespace memjit::runtime {

static std::string dtypeText(DLDataType d) {
  return "{code " + std::to_string(d.code) + ", bits " + std::to_string(d.bits) + ", lanes " +
         std::to_string(d.lanes) + "}";
}

Expected<ElementType> elementTypeFromDLPack(DLDataType d) {
  if (d.lanes != 1)
    return Error(ErrorCode::Unsupported,
                 "DLPack dtype " + dtypeText(d) + ": vector lanes are not supported (lanes must be 1)");
  switch (d.code) {
    case kDLInt:
      switch (d.bits) {
        case 8: return ElementType::SI8;
        case 16: return ElementType::SI16;
        case 32: return ElementType::SI32;
        case 64: return ElementType::SI64;
      }
      break;
    case kDLUInt:
      switch (d.bits) {
        case 8: return ElementType::UI8;
        case 16: return ElementType::UI16;
        case 32: return ElementType::UI32;
        case 64: return ElementType::UI64;
      }
      break;
    case kDLFloat:
      switch (d.bits) {
        case 16: return ElementType::F16;
        case 32: return ElementType::F32;
        case 64: return ElementType::F64;
      }
      break;
    case kDLBfloat:
      if (d.bits == 16) return ElementType::BF16;
      break;
    case kDLComplex:
      if (d.bits == 64) return ElementType::ComplexF32;
      if (d.bits == 128) return ElementType::ComplexF64;
      break;
    case kDLOpaqueHandle:
      if (d.bits == 64) return ElementType::Ptr;
      break;
    case 6:  // kDLBool in DLPack >= 0.8
      if (d.bits == 8) return ElementType::I1;
      break;
  }
  return Error(ErrorCode::Unsupported, "DLPack dtype " + dtypeText(d) + " has no memref element type");
}

DLDataType dlpackDataType(ElementType t) noexcept {
  auto mk = [](std::uint8_t code, std::uint8_t bits) { return DLDataType{code, bits, 1}; };
  switch (t) {
    case ElementType::I1: return mk(kDLUInt, 8);
    case ElementType::I8: case ElementType::SI8: return mk(kDLInt, 8);
    case ElementType::I16: case ElementType::SI16: return mk(kDLInt, 16);
    case ElementType::I32: case ElementType::SI32: return mk(kDLInt, 32);
    case ElementType::I64: case ElementType::SI64: case ElementType::Index: return mk(kDLInt, 64);
    case ElementType::UI8: return mk(kDLUInt, 8);
    case ElementType::UI16: return mk(kDLUInt, 16);
    case ElementType::UI32: return mk(kDLUInt, 32);
    case ElementType::UI64: return mk(kDLUInt, 64);
    case ElementType::F16: return mk(kDLFloat, 16);
    case ElementType::BF16: return mk(kDLBfloat, 16);
    case ElementType::F32: return mk(kDLFloat, 32);
    case ElementType::F64: return mk(kDLFloat, 64);
    case ElementType::Ptr: return mk(kDLOpaqueHandle, 64);
    case ElementType::ComplexF32: return mk(kDLComplex, 64);
    case ElementType::ComplexF64: return mk(kDLComplex, 128);
  }
  return mk(kDLOpaqueHandle, 0);
}

Expected<Buffer> fromDLPack(const DLTensor& t) {
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost &&
      t.device.device_type != kDLROCMHost)
    return Error(ErrorCode::Unsupported, "DLPack tensor lives on device type " +
                                             std::to_string(t.device.device_type) +
                                             "; only host memory (kDLCPU, kDLCUDAHost, kDLROCMHost) can be passed");
  MEMJIT_ASSIGN_OR_RETURN(ElementType element, elementTypeFromDLPack(t.dtype));
  if (t.ndim < 0)
    return Error(ErrorCode::InvalidArgument, "DLPack tensor has negative ndim " + std::to_string(t.ndim));
  if (t.ndim > 0 && !t.shape)
    return Error(ErrorCode::InvalidArgument, "DLPack tensor of ndim " + std::to_string(t.ndim) + " has a NULL shape");
  std::vector<std::int64_t> shape(t.shape, t.shape + t.ndim);
  for (int i = 0; i < t.ndim; ++i)
    if (shape[static_cast<std::size_t>(i)] < 0)
      return Error(ErrorCode::InvalidArgument, "DLPack tensor dim " + std::to_string(i) + " has negative size " +
                                                   std::to_string(shape[static_cast<std::size_t>(i)]));
  std::vector<std::int64_t> strides;
  if (t.strides) {
    strides.assign(t.strides, t.strides + t.ndim);
  } else {  // DLPack: NULL strides mean compact row-major
    strides.resize(shape.size());
    std::int64_t s = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
      strides[i] = s;
      s *= shape[i];
    }
  }
  auto esize = static_cast<std::uint64_t>(storageSize(element));
  char* base = static_cast<char*>(t.data);
  // Keep the aligned pointer at `data` when byte_offset is a whole number of
  // elements (the usual case); otherwise fold it into the pointer.
  if (t.byte_offset % esize == 0)
    return Buffer::fromParts(element, base, base, static_cast<std::int64_t>(t.byte_offset / esize), shape, strides);
  return Buffer::fromParts(element, base, base + t.byte_offset, 0, shape, strides);
}

Expected<Buffer> adoptDLPack(DLManagedTensor* tensor) {
  if (!tensor) return Error(ErrorCode::InvalidArgument, "adoptDLPack: NULL managed tensor");
  MEMJIT_ASSIGN_OR_RETURN(Buffer view, fromDLPack(tensor->dl_tensor));
  std::shared_ptr<void> owner(tensor, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  return Buffer::fromDescriptor(view.elementType(), view.rank(), view.descriptor(), std::move(owner));
}

namespace {
// What a handed-out tensor owns besides itself: the buffer (a share of the
// memory) and the arrays its DLTensor points at.
struct ExportContext {
  DLManagedTensor managed;
  Buffer buffer;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
};
}  // namespace

Expected<DLManagedTensor*> toDLPack(const Buffer& buffer) {
  if (!buffer.valid()) return Error(ErrorCode::InvalidArgument, "toDLPack: empty buffer");
  auto* ctx = new ExportContext{};
  ctx->buffer = buffer;
  ctx->shape.assign(buffer.sizes().begin(), buffer.sizes().end());
  ctx->strides.assign(buffer.strides().begin(), buffer.strides().end());
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = buffer.aligned();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int>(buffer.rank());
  t.dtype = dlpackDataType(buffer.elementType());
  t.shape = ctx->shape.data();
  t.strides = ctx->strides.data();
  t.byte_offset = static_cast<std::uint64_t>(buffer.offset()) * buffer.elementSize();
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); };
  return &ctx->managed;
}

}  // namespace memjit::runtime
