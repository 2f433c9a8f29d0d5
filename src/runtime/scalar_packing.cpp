#include "scalar_packing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "memjit/runtime/half.h"

namespace memjit::runtime::detail {
namespace {

// `x` with the shortest digits that identify it in `t` (the diagnostics' "becomes").
std::string floatText(double x, ElementType t) {
  int digits = t == ElementType::F64 ? 17 : t == ElementType::F32 ? 9 : t == ElementType::F16 ? 5 : 4;
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

// Converts a numeric scalar to the float type `want`, refusing a conversion
// that changes the value: an integer or a float that `want` cannot hold
// exactly, or a finite value too large for it. NaN stays NaN.
Error packFloat(const RawParam& p, std::size_t r, const Variant& v, ElementType want, std::uint64_t& word) {
  const Scalar& s = v.scalar();
  if (s.type == want && (want == ElementType::F16 || want == ElementType::BF16)) {
    word = s.u & 0xffffu;  // the bits as given, NaN payloads included
    return Error::success();
  }
  const bool fromInt = isInteger(s.type) || s.type == ElementType::Index;
  const __int128 x = isUnsignedInteger(s.type) ? static_cast<__int128>(s.u) : static_cast<__int128>(s.i);
  const double d = fromInt ? 0.0 : s.toDouble();
  double converted;  // the value `want` holds, exactly
  switch (want) {
    case ElementType::F64: {
      converted = fromInt ? static_cast<double>(x) : d;
      std::memcpy(&word, &converted, 8);
      break;
    }
    case ElementType::F32: {
      float f = fromInt ? static_cast<float>(x) : static_cast<float>(d);
      converted = f;
      std::memcpy(&word, &f, 4);
      break;
    }
    case ElementType::F16: {
      f16 h(fromInt ? static_cast<double>(x) : d);  // |x| > 2^53 overflows f16 either way
      converted = h;
      word = h.bits();
      break;
    }
    default: {  // BF16: an integer that double rounds is not a bf16 either, so the check below holds
      bf16 h(fromInt ? static_cast<double>(x) : d);
      converted = h;
      word = h.bits();
      break;
    }
  }
  if (std::isnan(converted)) return Error::success();
  const bool sourceInfinite = !fromInt && std::isinf(d);
  if (std::isinf(converted) && !sourceInfinite)
    return mismatch(p, r, v.describe(), " (out of range: becomes inf in " + rawElementName(want) + ")");
  const bool exact = fromInt ? static_cast<__int128>(converted) == x : converted == d;
  if (!exact)
    return mismatch(p, r, v.describe(), " (not exact in " + rawElementName(want) + ": becomes " +
                                            floatText(converted, want) + ")");
  return Error::success();
}

}  // namespace

Error mismatch(const RawParam& p, std::size_t r, const std::string& received, const std::string& extra) {
  return Error(ErrorCode::TypeMismatch, p.path + " (raw #" + std::to_string(r) + "): expected " + p.expected +
                                            ", received " + received + extra);
}

// Converts a scalar value to the parameter's type, into the low bytes of
// `word`; refuses a conversion that would change the value.
Error packScalar(const RawParam& p, std::size_t r, const Variant& v, std::uint64_t& word) {
  if (!v.isScalar()) return mismatch(p, r, v.describe());
  const Scalar& s = v.scalar();
  ElementType want = p.element;
  bool valueIsInt = isInteger(s.type) || s.type == ElementType::Index;
  word = 0;
  if (isFloat(want)) {
    if (!valueIsInt && !isFloat(s.type)) return mismatch(p, r, v.describe());
    return packFloat(p, r, v, want, word);
  }
  if (want == ElementType::Ptr) {
    if (s.type != ElementType::Ptr) return mismatch(p, r, v.describe());
    word = reinterpret_cast<std::uintptr_t>(s.p);
    return Error::success();
  }
  if (!isInteger(want) && want != ElementType::Index) return mismatch(p, r, v.describe());
  // A float for an integer is refused whatever its value, as Python's
  // int-only parameters do: a whole-valued float is usually a mistake too.
  if (!valueIsInt) return mismatch(p, r, v.describe());
  // Range check in 128-bit arithmetic: the value as a mathematical integer.
  __int128 x = isUnsignedInteger(s.type) ? static_cast<__int128>(s.u) : static_cast<__int128>(s.i);
  unsigned bits = want == ElementType::I1 ? 1 : bitWidth(want);
  __int128 lo, hi;
  if (want == ElementType::I1) {
    lo = 0, hi = 1;
  } else if (isSignedInteger(want) || want == ElementType::Index) {
    lo = -(static_cast<__int128>(1) << (bits - 1)), hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
  } else if (isUnsignedInteger(want)) {
    lo = 0, hi = (static_cast<__int128>(1) << bits) - 1;
  } else {  // signless: either reading
    lo = -(static_cast<__int128>(1) << (bits - 1)), hi = (static_cast<__int128>(1) << bits) - 1;
  }
  if (x < lo || x > hi) return mismatch(p, r, v.describe(), " (out of range)");
  word = static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  if (isUnsignedInteger(want) || bits == 1) word = static_cast<std::uint64_t>(x);
  return Error::success();
}

// Reads a scalar result of type `t` stored at `p`.
Variant readScalar(ElementType t, const void* p) {
  Scalar s;
  s.type = t;
  switch (t) {
    case ElementType::I1: { std::uint8_t v; std::memcpy(&v, p, 1); s.i = v & 1; break; }
    case ElementType::I8: case ElementType::SI8: { std::int8_t v; std::memcpy(&v, p, 1); s.i = v; break; }
    case ElementType::UI8: { std::uint8_t v; std::memcpy(&v, p, 1); s.u = v; break; }
    case ElementType::I16: case ElementType::SI16: { std::int16_t v; std::memcpy(&v, p, 2); s.i = v; break; }
    case ElementType::UI16: { std::uint16_t v; std::memcpy(&v, p, 2); s.u = v; break; }
    case ElementType::I32: case ElementType::SI32: { std::int32_t v; std::memcpy(&v, p, 4); s.i = v; break; }
    case ElementType::UI32: { std::uint32_t v; std::memcpy(&v, p, 4); s.u = v; break; }
    case ElementType::I64: case ElementType::SI64: case ElementType::Index: std::memcpy(&s.i, p, 8); break;
    case ElementType::UI64: std::memcpy(&s.u, p, 8); break;
    case ElementType::F32: { float v; std::memcpy(&v, p, 4); s.f = v; break; }
    case ElementType::F64: std::memcpy(&s.f, p, 8); break;
    case ElementType::Ptr: std::memcpy(&s.p, p, sizeof(void*)); break;
    default: std::memcpy(&s.u, p, std::min<std::size_t>(8, storageSize(t))); break;
  }
  return Variant(s);
}

}  // namespace memjit::runtime::detail
