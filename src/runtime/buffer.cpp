#include "memjit/runtime/buffer.h"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace memjit::runtime {

bool elementTypesCompatible(ElementType required, ElementType given) noexcept {
  if (required == given) return true;
  auto isInt64ish = [](ElementType t) {
    return t == ElementType::Index || t == ElementType::I64 || t == ElementType::SI64 ||
           t == ElementType::UI64;
  };
  if (required == ElementType::Index || given == ElementType::Index)
    return isInt64ish(required) && isInt64ish(given);
  if (!isInteger(required) || !isInteger(given)) return false;
  if (bitWidth(required) != bitWidth(given)) return false;
  // Signless on either side accepts the other's signedness; si vs ui does not.
  bool reqSignless = !isSignedInteger(required) && !isUnsignedInteger(required);
  bool givSignless = !isSignedInteger(given) && !isUnsignedInteger(given);
  return reqSignless || givSignless;
}

std::string rawElementName(ElementType t) {
  switch (t) {
    case ElementType::F32: return "float32";
    case ElementType::F16: return "float16";
    case ElementType::F64: return "float64";
    case ElementType::BF16: return "bfloat16";
    case ElementType::I8: case ElementType::SI8: return "sint8";
    case ElementType::I16: case ElementType::SI16: return "sint16";
    case ElementType::I32: case ElementType::SI32: return "sint32";
    case ElementType::I64: case ElementType::SI64: return "sint64";
    case ElementType::UI8: return "uint8";
    case ElementType::UI16: return "uint16";
    case ElementType::UI32: return "uint32";
    case ElementType::UI64: return "uint64";
    default: return std::string(spelling(t));
  }
}

static std::int64_t ptrWord(const void* p) { return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p)); }
static void* wordPtr(std::int64_t w) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(w)); }

Buffer Buffer::fromParts(ElementType element, void* allocated, void* aligned, std::int64_t offset,
                         std::span<const std::int64_t> sizes, std::span<const std::int64_t> strides,
                         std::shared_ptr<void> owner) {
  Buffer b;
  b.element_ = element;
  b.rank_ = static_cast<std::int64_t>(sizes.size());
  b.words_.resize(3 + 2 * sizes.size());
  b.words_[0] = ptrWord(allocated);
  b.words_[1] = ptrWord(aligned);
  b.words_[2] = offset;
  std::copy(sizes.begin(), sizes.end(), b.words_.begin() + 3);
  std::copy(strides.begin(), strides.end(), b.words_.begin() + 3 + b.rank_);
  b.owner_ = std::move(owner);
  return b;
}

Buffer Buffer::fromDescriptor(ElementType element, std::int64_t rank, const void* descriptor,
                              std::shared_ptr<void> owner) {
  Buffer b;
  b.element_ = element;
  b.rank_ = rank;
  b.words_.resize(static_cast<std::size_t>(3 + 2 * rank));
  std::memcpy(b.words_.data(), descriptor, b.words_.size() * sizeof(std::int64_t));
  b.owner_ = std::move(owner);
  return b;
}

static std::vector<std::int64_t> rowMajor(std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

Expected<Buffer> Buffer::view(ElementType element, void* data, std::vector<std::int64_t> shape,
                              std::vector<std::int64_t> strides, std::int64_t offset) {
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0)
      return Error(ErrorCode::InvalidArgument,
                   "buffer view: size of dim " + std::to_string(i) + " is negative (" +
                       std::to_string(shape[i]) + ")");
  if (strides.empty()) strides = rowMajor(shape);
  if (strides.size() != shape.size())
    return Error(ErrorCode::InvalidArgument, "buffer view: " + std::to_string(shape.size()) +
                                                 " sizes but " + std::to_string(strides.size()) +
                                                 " strides");
  if (offset < 0)
    return Error(ErrorCode::InvalidArgument, "buffer view: negative offset " + std::to_string(offset));
  return fromParts(element, data, data, offset, shape, strides);
}

Expected<Buffer> Buffer::allocate(ElementType element, std::vector<std::int64_t> shape,
                                  std::size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return Error(ErrorCode::InvalidArgument,
                 "buffer allocation: alignment " + std::to_string(alignment) + " is not a power of two");
  std::size_t count = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return Error(ErrorCode::InvalidArgument, "buffer allocation: size of dim " + std::to_string(i) +
                                                   " is negative (" + std::to_string(shape[i]) + ")");
    if (shape[i] != 0 && count > std::numeric_limits<std::size_t>::max() / 2 / static_cast<std::size_t>(shape[i]))
      return Error(ErrorCode::InvalidArgument, "buffer allocation: element count overflows");
    count *= static_cast<std::size_t>(shape[i]);
  }
  std::size_t esize = storageSize(element);
  if (count > (std::numeric_limits<std::size_t>::max() / 2 - alignment) / esize)
    return Error(ErrorCode::InvalidArgument, "buffer allocation: byte size overflows");
  std::size_t bytes = count * esize + alignment;
  void* allocated = std::calloc(1, bytes);
  if (!allocated)
    return Error(ErrorCode::InvalidArgument, "buffer allocation: out of memory for " +
                                                 std::to_string(bytes) + " bytes");
  auto addr = reinterpret_cast<std::uintptr_t>(allocated);
  void* aligned = reinterpret_cast<void*>((addr + alignment - 1) & ~(static_cast<std::uintptr_t>(alignment) - 1));
  std::shared_ptr<void> owner(allocated, [](void* p) { std::free(p); });
  return fromParts(element, allocated, aligned, 0, shape, rowMajor(shape), std::move(owner));
}

void* Buffer::allocated() const noexcept { return valid() ? wordPtr(words_[0]) : nullptr; }
void* Buffer::aligned() const noexcept { return valid() ? wordPtr(words_[1]) : nullptr; }

std::int64_t Buffer::numElements() const noexcept {
  std::int64_t n = 1;
  for (auto s : sizes()) n *= s;
  return n;
}

void* Buffer::data() const noexcept {
  return static_cast<char*>(aligned()) + offset() * static_cast<std::int64_t>(elementSize());
}

void* Buffer::at(std::span<const std::int64_t> indices) const noexcept {
  std::int64_t linear = offset();
  auto st = strides();
  for (std::size_t i = 0; i < indices.size(); ++i) linear += indices[i] * st[i];
  return static_cast<char*>(aligned()) + linear * static_cast<std::int64_t>(elementSize());
}

bool Buffer::isRowMajorContiguous() const noexcept {
  std::int64_t expect = 1;
  auto sz = sizes();
  auto st = strides();
  for (std::size_t i = sz.size(); i-- > 0;) {
    if (sz[i] != 1 && st[i] != expect) return sz[i] == 0;  // an empty buffer is trivially packed
    expect *= sz[i];
  }
  return true;
}

std::string Buffer::describe() const {
  if (!valid()) return "empty buffer";
  std::string s = rawElementName(element_) + "[";
  auto sz = sizes();
  for (std::size_t i = 0; i < sz.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(sz[i]);
  }
  s += ']';
  return s;
}

void stridedCopy(void* dst, std::span<const std::int64_t> dstStrides, const void* src,
                 std::span<const std::int64_t> srcStrides, std::span<const std::int64_t> sizes,
                 std::size_t elementSize) noexcept {
  std::size_t rank = sizes.size();
  for (auto s : sizes)
    if (s == 0) return;
  if (rank == 0) {
    std::memcpy(dst, src, elementSize);
    return;
  }
  // Odometer over all but the innermost dim; the innermost runs as a loop.
  std::vector<std::int64_t> idx(rank, 0);
  auto esize = static_cast<std::int64_t>(elementSize);
  while (true) {
    std::int64_t d = 0, s = 0;
    for (std::size_t i = 0; i + 1 < rank; ++i) {
      d += idx[i] * dstStrides[i];
      s += idx[i] * srcStrides[i];
    }
    auto* dp = static_cast<char*>(dst) + d * esize;
    auto* sp = static_cast<const char*>(src) + s * esize;
    std::int64_t n = sizes[rank - 1], ds = dstStrides[rank - 1] * esize, ss = srcStrides[rank - 1] * esize;
    if (ds == esize && ss == esize) {
      std::memcpy(dp, sp, static_cast<std::size_t>(n * esize));
    } else {
      for (std::int64_t i = 0; i < n; ++i) std::memcpy(dp + i * ds, sp + i * ss, elementSize);
    }
    std::size_t k = rank - 1;
    while (k > 0) {
      --k;
      if (++idx[k] < sizes[k]) break;
      idx[k] = 0;
      if (k == 0) return;
    }
    if (rank == 1) return;
  }
}

Error Buffer::copyFrom(const Buffer& from) const {
  if (!valid() || !from.valid()) return Error(ErrorCode::InvalidArgument, "copy: empty buffer");
  if (from.elementSize() != elementSize() || from.rank() != rank() ||
      !std::equal(sizes().begin(), sizes().end(), from.sizes().begin()))
    return Error(ErrorCode::TypeMismatch,
                 "copy: cannot copy " + from.describe() + " into " + describe());
  stridedCopy(data(), strides(), from.data(), from.strides(), sizes(), elementSize());
  return Error::success();
}

Expected<Buffer> Buffer::copy(std::size_t alignment) const {
  if (!valid()) return Error(ErrorCode::InvalidArgument, "copy: empty buffer");
  MEMJIT_ASSIGN_OR_RETURN(Buffer b, allocate(element_, std::vector<std::int64_t>(sizes().begin(), sizes().end()), alignment));
  MEMJIT_TRY(b.copyFrom(*this));
  return b;
}

}  // namespace memjit::runtime
