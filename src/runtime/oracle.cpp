#include "memjit/runtime/oracle.h"

#include "memjit/type_syntax.h"

namespace memjit::runtime {

BufferDescription BufferDescription::of(const Buffer& b) {
  BufferDescription d;
  d.elementType = b.elementType();
  d.shape.assign(b.sizes().begin(), b.sizes().end());
  d.strides.assign(b.strides().begin(), b.strides().end());
  d.offset = b.offset();
  d.len = static_cast<std::size_t>(b.numElements()) * b.elementSize();
  return d;
}

BufferDescription BufferDescription::rowMajor(ElementType t, std::vector<std::int64_t> shape) {
  BufferDescription d;
  d.elementType = t;
  d.strides.resize(shape.size());
  std::int64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    d.strides[i] = s;
    s *= shape[i];
  }
  d.shape = std::move(shape);
  d.len = static_cast<std::size_t>(s) * storageSize(t);
  return d;
}

std::string describeExpected(const Type& required) {
  if (const auto* e = std::get_if<ElementType>(&required)) return rawElementName(*e);
  if (const auto* u = std::get_if<UnrankedMemRefType>(&required))
    return "Buffer<" + rawElementName(u->element) + "[*]>";
  const auto& m = std::get<MemRefType>(required);
  std::string s = "Buffer<" + rawElementName(m.element()) + "[";
  for (std::size_t i = 0; i < m.rank(); ++i) {
    if (i) s += 'x';
    s += m.isDynamicDim(i) ? std::string("?") : std::to_string(m.dim(i));
  }
  s += "]>";
  if (m.layout()) {
    std::string full = toString(m);
    // `memref<4x?xf32, strided<[?, 1], offset: ?>>`: keep the layout part.
    auto comma = full.find(", strided");
    if (comma != std::string::npos) {
      s += ' ';
      s.append(full, comma + 2, full.size() - comma - 3);
    }
  }
  return s;
}

namespace {

std::string dimsText(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (v[i] == kDynamic ? std::string("?") : std::to_string(v[i]));
  return s + "]";
}

// Does a layout (strides, offset) satisfy the declared static strides/offset
// for this shape? Strides of size-1 dims never matter (index 0 only).
bool satisfies(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
               const std::vector<std::int64_t>& want, std::string* why) {
  std::int64_t elements = 1;
  for (auto s : shape) elements *= s;
  if (elements == 0) return true;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (want[i] == kDynamic || shape[i] == 1) continue;
    if (strides[i] != want[i]) {
      if (why)
        *why = "dim " + std::to_string(i) + " has stride " + std::to_string(strides[i]) +
               ", the layout needs " + std::to_string(want[i]);
      return false;
    }
  }
  return true;
}

}  // namespace

Expected<OracleDecision> bufferDescriptionOracle(const Type& required, const BufferDescription& given) {
  auto mismatch = [&](const std::string& what) {
    return Error(ErrorCode::TypeMismatch, what + ": expected " + describeExpected(required) +
                                              ", received " + rawElementName(given.elementType) +
                                              dimsText(given.shape));
  };
  if (isScalar(required)) return mismatch("a scalar parameter cannot take a buffer");
  if (given.strides.size() != given.shape.size())
    return Error(ErrorCode::InvalidArgument, "buffer description has " + std::to_string(given.shape.size()) +
                                                 " sizes but " + std::to_string(given.strides.size()) + " strides");
  if (!elementTypesCompatible(elementOf(required), given.elementType)) return mismatch("element type differs");
  OracleDecision d;
  d.target = given;
  if (isUnrankedMemRef(required)) return d;  // any rank, any layout

  const auto& m = std::get<MemRefType>(required);
  if (m.rank() != given.rank()) return mismatch("rank differs");
  for (std::size_t i = 0; i < m.rank(); ++i)
    if (!m.isDynamicDim(i) && m.dim(i) != given.shape[i])
      return mismatch("dim " + std::to_string(i) + " differs");

  std::vector<std::int64_t> want = m.effectiveStrides();
  // With an identity layout every stride is fixed by the (actual) shape,
  // including those MLIR prints as `?` because a later dim is dynamic.
  if (m.hasIdentityLayout()) want = BufferDescription::rowMajor(given.elementType, given.shape).strides;
  std::int64_t wantOffset = m.effectiveOffset();

  std::string why;
  if (satisfies(given.shape, given.strides, want, &why)) {
    if (wantOffset == kDynamic || wantOffset == given.offset) return d;
    d.usability = Usability::Rebase;
    d.reason = "offset " + std::to_string(given.offset) + " differs from the layout's " + std::to_string(wantOffset);
    d.target.offset = wantOffset;
    return d;
  }
  // A copy: try a packed row-major, then a packed column-major layout.
  BufferDescription target = BufferDescription::rowMajor(given.elementType, given.shape);
  if (!satisfies(target.shape, target.strides, want, nullptr)) {
    std::int64_t s = 1;
    for (std::size_t i = 0; i < target.shape.size(); ++i) {
      target.strides[i] = s;
      s *= target.shape[i];
    }
    if (!satisfies(target.shape, target.strides, want, nullptr))
      return mismatch("no packed layout satisfies the declared strides " + dimsText(want));
  }
  target.offset = wantOffset == kDynamic ? 0 : wantOffset;
  d.usability = Usability::Copy;
  d.target = std::move(target);
  d.reason = why;
  return d;
}

}  // namespace memjit::runtime
