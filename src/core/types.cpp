#include "memjit/types.h"
#include "memjit/vector_type.h"

#include <string>

namespace memjit {

bool isInteger(ElementType t) noexcept {
  return t >= ElementType::I1 && t <= ElementType::UI64;
}
bool isSignedInteger(ElementType t) noexcept {
  return t >= ElementType::SI8 && t <= ElementType::SI64;
}
bool isUnsignedInteger(ElementType t) noexcept {
  return t >= ElementType::UI8 && t <= ElementType::UI64;
}
bool isFloat(ElementType t) noexcept {
  return t >= ElementType::F16 && t <= ElementType::F64;
}
bool isComplex(ElementType t) noexcept {
  return t == ElementType::ComplexF32 || t == ElementType::ComplexF64;
}

unsigned bitWidth(ElementType t) noexcept {
  switch (t) {
    case ElementType::I1: return 1;
    case ElementType::I8: case ElementType::SI8: case ElementType::UI8: return 8;
    case ElementType::I16: case ElementType::SI16: case ElementType::UI16:
    case ElementType::F16: case ElementType::BF16: return 16;
    case ElementType::I32: case ElementType::SI32: case ElementType::UI32:
    case ElementType::F32: return 32;
    case ElementType::I64: case ElementType::SI64: case ElementType::UI64:
    case ElementType::F64: case ElementType::Index: case ElementType::Ptr:
    case ElementType::ComplexF32: return 64;
    case ElementType::ComplexF64: return 128;
  }
  return 0;
}

std::size_t storageSize(ElementType t) noexcept {
  return t == ElementType::I1 ? 1 : bitWidth(t) / 8;
}

ElementType componentType(ElementType t) noexcept {
  if (t == ElementType::ComplexF32) return ElementType::F32;
  if (t == ElementType::ComplexF64) return ElementType::F64;
  return t;
}

std::string_view spelling(ElementType t) noexcept {
  switch (t) {
    case ElementType::I1: return "i1";
    case ElementType::I8: return "i8";
    case ElementType::I16: return "i16";
    case ElementType::I32: return "i32";
    case ElementType::I64: return "i64";
    case ElementType::SI8: return "si8";
    case ElementType::SI16: return "si16";
    case ElementType::SI32: return "si32";
    case ElementType::SI64: return "si64";
    case ElementType::UI8: return "ui8";
    case ElementType::UI16: return "ui16";
    case ElementType::UI32: return "ui32";
    case ElementType::UI64: return "ui64";
    case ElementType::F16: return "f16";
    case ElementType::BF16: return "bf16";
    case ElementType::F32: return "f32";
    case ElementType::F64: return "f64";
    case ElementType::Index: return "index";
    case ElementType::Ptr: return "!llvm.ptr";
    case ElementType::ComplexF32: return "complex<f32>";
    case ElementType::ComplexF64: return "complex<f64>";
  }
  return "<invalid element type>";
}

ElementType elementOf(const Type& t) noexcept {
  switch (t.index()) {
    case 0: return std::get<0>(t);
    case 1: return std::get<1>(t).element();
    default: return std::get<2>(t).element;
  }
}

Expected<MemRefType> MemRefType::get(ElementType element, std::vector<std::int64_t> shape,
                                     std::optional<StridedLayout> layout,
                                     unsigned memorySpace) {
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0 && shape[i] != kDynamic)
      return Error(ErrorCode::InvalidArgument,
                   "memref dim #" + std::to_string(i) + " is " + std::to_string(shape[i]) +
                       "; dims must be >= 0 or dynamic");
  if (layout && layout->strides.size() != shape.size())
    return Error(ErrorCode::InvalidArgument,
                 "strided layout has " + std::to_string(layout->strides.size()) +
                     " strides for a memref of rank " + std::to_string(shape.size()));
  if (layout)
    for (std::size_t i = 0; i < layout->strides.size(); ++i)
      if (layout->strides[i] == 0)
        return Error(ErrorCode::InvalidArgument,
                     "stride #" + std::to_string(i) + " is zero; MLIR's strided layouts need non-zero static strides");
  return MemRefType(element, std::move(shape), std::move(layout), memorySpace);
}

bool MemRefType::hasStaticShape() const noexcept {
  for (std::int64_t d : shape_)
    if (d == kDynamic) return false;
  return true;
}

std::size_t MemRefType::numDynamicDims() const noexcept {
  std::size_t n = 0;
  for (std::int64_t d : shape_) n += d == kDynamic;
  return n;
}

std::int64_t MemRefType::effectiveOffset() const noexcept {
  return layout_ ? layout_->offset : 0;
}

std::vector<std::int64_t> MemRefType::effectiveStrides() const {
  if (layout_) return layout_->strides;
  // Row-major: each stride is the product of the later sizes; once a later
  // size is dynamic, so is the stride (as MLIR's getStridesAndOffset says).
  std::vector<std::int64_t> strides(shape_.size());
  std::int64_t running = 1;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    strides[i] = running;
    if (running == kDynamic || shape_[i] == kDynamic)
      running = kDynamic;
    else
      running *= shape_[i];
  }
  return strides;
}

std::optional<std::int64_t> MemRefType::numElements() const noexcept {
  std::int64_t n = 1;
  for (std::int64_t d : shape_) {
    if (d == kDynamic) return std::nullopt;
    n *= d;
  }
  return n;
}

}  // namespace memjit

// --- vector types (vector_type.h) ---

namespace memjit {

bool isVectorElement(ElementType t) noexcept { return isInteger(t) || isFloat(t) || t == ElementType::Index; }

Expected<VectorType> VectorType::get(ElementType element, std::int64_t lanes) {
  if (!isVectorElement(element))
    return Error(ErrorCode::InvalidArgument, "vector element type " + std::string(spelling(element)) +
                                                 " is not an integer, index or float type");
  if (lanes < 1 || lanes > kMaxLanes)
    return Error(ErrorCode::InvalidArgument, "vector of " + std::to_string(lanes) + " lanes (memjit takes 1 to " +
                                                 std::to_string(kMaxLanes) + ")");
  return VectorType{element, static_cast<std::uint32_t>(lanes)};
}

}  // namespace memjit
