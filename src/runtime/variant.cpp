#include "memjit/runtime/variant.h"

#include <sstream>

#include "memjit/runtime/dlpack.h"

namespace memjit::runtime {

double Scalar::toDouble() const noexcept {
  if (type == ElementType::F16) return f16::fromBits(static_cast<std::uint16_t>(u));
  if (type == ElementType::BF16) return bf16::fromBits(static_cast<std::uint16_t>(u));
  if (isFloat(type)) return f;
  if (type == ElementType::UI64 || type == ElementType::UI32 || type == ElementType::UI16 ||
      type == ElementType::UI8)
    return static_cast<double>(u);
  return static_cast<double>(i);
}

std::string Scalar::str() const {
  std::ostringstream os;
  if (type == ElementType::I1) {
    os << (i ? "true" : "false");
  } else if (isFloat(type)) {
    os << toDouble();
  } else if (type == ElementType::Ptr) {
    os << p;
  } else if (isUnsignedInteger(type)) {
    os << u;
  } else {
    os << i;
  }
  return os.str();
}

Variant::Variant(bool v) : kind_(Kind::Scalar) {
  scalar_.type = ElementType::I1;
  scalar_.i = v ? 1 : 0;
}
Variant::Variant(long long v) : kind_(Kind::Scalar) {
  scalar_.type = ElementType::I64;
  scalar_.i = v;
}
Variant::Variant(unsigned long v) : kind_(Kind::Scalar) {
  scalar_.type = ElementType::UI64;
  scalar_.u = v;
}
Variant::Variant(float v) : kind_(Kind::Scalar) {
  scalar_.type = ElementType::F32;
  scalar_.f = v;
}
Variant::Variant(double v) : kind_(Kind::Scalar) {
  scalar_.type = ElementType::F64;
  scalar_.f = v;
}
Variant::Variant(f16 v) : kind_(Kind::Scalar) {
  scalar_.type = ElementType::F16;
  scalar_.u = v.bits();
}
Variant::Variant(bf16 v) : kind_(Kind::Scalar) {
  scalar_.type = ElementType::BF16;
  scalar_.u = v.bits();
}
f16 Variant::toF16() const noexcept {
  if (scalar_.type == ElementType::F16) return f16::fromBits(static_cast<std::uint16_t>(scalar_.u));
  return f16(scalar_.toDouble());
}
bf16 Variant::toBF16() const noexcept {
  if (scalar_.type == ElementType::BF16) return bf16::fromBits(static_cast<std::uint16_t>(scalar_.u));
  return bf16(scalar_.toDouble());
}
Variant::Variant(void* p) : kind_(Kind::Scalar) {
  scalar_.type = ElementType::Ptr;
  scalar_.p = p;
}
Variant::Variant(Scalar s) : kind_(Kind::Scalar), scalar_(s) {}
Variant::Variant(std::string s) : kind_(Kind::String) {
  auto a = std::make_shared<Aggregate>();
  a->string = std::move(s);
  agg_ = std::move(a);
}

const Variant::Aggregate& Variant::aggregate() const noexcept {
  static const Aggregate empty;
  return agg_ ? *agg_ : empty;
}
Variant::Variant(Buffer b) : kind_(Kind::Buffer), buffer_(std::move(b)) {}

Expected<Variant> Variant::fromDLPack(const DLTensor& tensor) {
  MEMJIT_ASSIGN_OR_RETURN(Buffer b, runtime::fromDLPack(tensor));
  return Variant(std::move(b));
}
Expected<Variant> Variant::adoptDLPack(DLManagedTensor* tensor) {
  MEMJIT_ASSIGN_OR_RETURN(Buffer b, runtime::adoptDLPack(tensor));
  return Variant(std::move(b));
}

Variant Variant::list(std::vector<Variant> items) {
  Variant v;
  v.kind_ = Kind::List;
  auto a = std::make_shared<Aggregate>();
  a->items = std::move(items);
  v.agg_ = std::move(a);
  return v;
}
Variant Variant::tuple(std::vector<Variant> items) {
  Variant v = list(std::move(items));
  v.kind_ = Kind::Tuple;
  return v;
}
Variant Variant::dict(std::vector<std::pair<std::string, Variant>> entries) {
  Variant v;
  v.kind_ = Kind::Dict;
  auto a = std::make_shared<Aggregate>();
  for (auto& [k, x] : entries) {
    a->keys.push_back(std::move(k));
    a->items.push_back(std::move(x));
  }
  v.agg_ = std::move(a);
  return v;
}

const Variant* Variant::find(std::string_view key) const noexcept {
  const Aggregate& a = aggregate();
  for (std::size_t i = 0; i < a.keys.size(); ++i)
    if (a.keys[i] == key) return &a.items[i];
  return nullptr;
}

std::string Variant::describe() const {
  switch (kind_) {
    case Kind::None: return "None";
    case Kind::Scalar:
      if (scalar_.type == ElementType::I64) return "int " + scalar_.str();
      if (scalar_.type == ElementType::F64) return "float " + scalar_.str();
      if (scalar_.type == ElementType::I1) return "bool " + scalar_.str();
      return rawElementName(scalar_.type) + " " + scalar_.str();
    case Kind::String: return "string of " + std::to_string(string().size()) + " bytes";
    case Kind::Buffer: return buffer_.describe();
    case Kind::List: return "list of " + std::to_string(size());
    case Kind::Tuple: return "tuple of " + std::to_string(size());
    case Kind::Dict: {
      std::string s = "dict {";
      for (std::size_t i = 0; i < keys().size(); ++i) s += (i ? ", " : "") + keys()[i];
      return s + "}";
    }
  }
  return "?";
}

}  // namespace memjit::runtime
