#include "memjit/signature/raw_signature.h"

#include <array>

namespace memjit::signature {

namespace {

constexpr std::array<std::string_view, kNumRawElements> kNames = {
    "float32", "float16", "float64", "bfloat16", "sint8",  "sint16",
    "sint32",  "sint64",  "uint8",   "uint16",   "uint32", "uint64"};
constexpr std::array<std::size_t, kNumRawElements> kSizes = {4, 2, 8, 2, 1, 2, 4, 8, 1, 2, 4, 8};

Error parseError(std::size_t offset, std::string message) {
  return Error(ErrorCode::ParseError, std::move(message), offset);
}

// Reads the optional 't' field that begins a buffer or scalar span.
Error parseElementField(SignatureParser& p, std::optional<RawElement>& element) {
  if (p.kind() != Component::Integer || p.tag() != 't') return Error::success();
  auto e = rawElementFromCode(p.value());
  if (!e)
    return parseError(p.offset(), "illegal element code t" + std::to_string(p.value()) +
                                      ", expected t0..t11");
  element = *e;
  p.next();
  return Error::success();
}

Expected<RawType> parseBuffer(SignatureParser p) {
  RawBuffer buffer;
  MEMJIT_TRY(parseElementField(p, buffer.element));
  for (; !p.atEnd(); p.next()) {
    if (p.failed()) return p.error();
    if (p.kind() == Component::Integer && p.tag() == 'd') {
      if (p.value() < kRawDynamicDim)
        return parseError(p.offset(), "buffer dim " + std::to_string(p.value()) +
                                          " is negative, expected >= 0 or -1 (dynamic)");
      buffer.dims.push_back(p.value());
      continue;
    }
    if (p.kind() == Component::Integer && p.tag() == 't')
      return parseError(p.offset(), "buffer element field 't' must come first and only once");
    return parseError(p.offset(), std::string("unknown buffer field '") + p.tag() +
                                      "', expected 't' (element) or 'd' (dim)");
  }
  return RawType(std::move(buffer));
}

Expected<RawType> parseScalar(SignatureParser p) {
  RawScalar scalar;
  MEMJIT_TRY(parseElementField(p, scalar.element));
  if (p.failed()) return p.error();
  if (!p.atEnd())
    return parseError(p.offset(), std::string("unknown scalar field '") + p.tag() +
                                      "', expected only 't' (element)");
  return RawType(scalar);
}

Expected<std::vector<RawType>> parseSequence(SignatureParser p) {
  std::vector<RawType> types;
  for (; !p.atEnd(); p.next()) {
    if (p.failed()) return p.error();
    if (p.kind() != Component::Span)
      return parseError(p.offset(), std::string("expected a type span 'B', 'S', 'O' or 'U', found integer '") +
                                        p.tag() + "'");
    switch (p.tag()) {
      case 'B': {
        MEMJIT_ASSIGN_OR_RETURN(RawType t, parseBuffer(p.nested()));
        types.push_back(std::move(t));
        break;
      }
      case 'S': {
        MEMJIT_ASSIGN_OR_RETURN(RawType t, parseScalar(p.nested()));
        types.push_back(std::move(t));
        break;
      }
      case 'O':
        types.push_back(RawRefObject{std::string(p.bytes())});
        break;
      case 'U':
        types.push_back(RawUnrecognized{std::string(p.bytes())});
        break;
      default:
        return parseError(p.offset(), std::string("unknown type span '") + p.tag() +
                                          "', expected 'B', 'S', 'O' or 'U'");
    }
  }
  return types;
}

void appendElement(SignatureBuilder& b, const std::optional<RawElement>& e) {
  if (e) b.integer(static_cast<std::int64_t>(*e), 't');
}

}  // namespace

std::string_view rawElementName(RawElement e) noexcept {
  auto i = static_cast<unsigned>(e);
  return i < kNumRawElements ? kNames[i] : std::string_view("!BADTYPE!");
}

std::size_t rawElementSize(RawElement e) noexcept {
  auto i = static_cast<unsigned>(e);
  return i < kNumRawElements ? kSizes[i] : 0;
}

std::optional<RawElement> rawElementFromCode(std::int64_t code) noexcept {
  if (code < 0 || code >= static_cast<std::int64_t>(kNumRawElements)) return std::nullopt;
  return static_cast<RawElement>(code);
}

Expected<RawSignature> parseRawSignature(std::string_view f) {
  SignatureParser p(f);
  RawSignature sig;
  if (p.failed()) return p.error();
  if (p.kind() != Component::Span || p.tag() != 'I')
    return parseError(p.offset(), "expected the inputs span 'I' at the start of the signature");
  {
    MEMJIT_ASSIGN_OR_RETURN(sig.inputs, parseSequence(p.nested()));
  }
  p.next();
  if (p.failed()) return p.error();
  if (p.kind() != Component::Span || p.tag() != 'R')
    return parseError(p.offset(), "expected the results span 'R' after the inputs");
  {
    MEMJIT_ASSIGN_OR_RETURN(sig.results, parseSequence(p.nested()));
  }
  p.next();
  if (p.failed()) return p.error();
  if (!p.atEnd()) return parseError(p.offset(), "unexpected data after the results span");
  return sig;
}

std::string mangle(const RawType& type) {
  SignatureBuilder out;
  if (auto* b = std::get_if<RawBuffer>(&type)) {
    SignatureBuilder inner;
    appendElement(inner, b->element);
    for (std::int64_t d : b->dims) inner.integer(d, 'd');
    out.append(inner, 'B');
  } else if (auto* s = std::get_if<RawScalar>(&type)) {
    SignatureBuilder inner;
    appendElement(inner, s->element);
    out.append(inner, 'S');
  } else if (auto* o = std::get_if<RawRefObject>(&type)) {
    out.span(o->details, 'O');
  } else {
    out.span(std::get<RawUnrecognized>(type).details, 'U');
  }
  return out.encoded();
}

std::string mangle(const RawSignature& sig) {
  std::string inputs, results;
  for (const RawType& t : sig.inputs) inputs += mangle(t);
  for (const RawType& t : sig.results) results += mangle(t);
  SignatureBuilder out;
  out.span(inputs, 'I').span(results, 'R');
  return out.encoded();
}

std::string toString(const RawType& type) {
  std::string s;
  if (auto* b = std::get_if<RawBuffer>(&type)) {
    s.append("Buffer<").append(rawElementName(b->elementOrDefault())).append("[");
    for (std::size_t i = 0; i < b->dims.size(); ++i) {
      if (i) s.push_back('x');
      if (b->dims[i] >= 0)
        s.append(std::to_string(b->dims[i]));
      else
        s.push_back('?');
    }
    s.append("]>");
  } else if (auto* sc = std::get_if<RawScalar>(&type)) {
    s.append(rawElementName(sc->elementOrDefault()));
  } else if (std::holds_alternative<RawRefObject>(type)) {
    s.append("RefObject<?>");
  } else {
    s.append("Unrecognized<?>");
  }
  return s;
}

std::string toString(const RawSignature& sig) {
  std::string s = "(";
  for (std::size_t i = 0; i < sig.inputs.size(); ++i) {
    if (i) s.append(", ");
    s.append(toString(sig.inputs[i]));
  }
  s.append(") -> (");
  for (std::size_t i = 0; i < sig.results.size(); ++i) {
    if (i) s.append(", ");
    s.append(toString(sig.results[i]));
  }
  s.push_back(')');
  return s;
}

std::optional<RawElement> toRawElement(ElementType type) noexcept {
  switch (type) {
    case ElementType::F32: return RawElement::Float32;
    case ElementType::F16: return RawElement::Float16;
    case ElementType::F64: return RawElement::Float64;
    case ElementType::BF16: return RawElement::BFloat16;
    case ElementType::I1:
    case ElementType::I8:
    case ElementType::SI8: return RawElement::SInt8;
    case ElementType::I16:
    case ElementType::SI16: return RawElement::SInt16;
    case ElementType::I32:
    case ElementType::SI32: return RawElement::SInt32;
    case ElementType::I64:
    case ElementType::SI64:
    case ElementType::Index: return RawElement::SInt64;
    case ElementType::UI8: return RawElement::UInt8;
    case ElementType::UI16: return RawElement::UInt16;
    case ElementType::UI32: return RawElement::UInt32;
    case ElementType::UI64: return RawElement::UInt64;
    case ElementType::Ptr:
    case ElementType::ComplexF32:
    case ElementType::ComplexF64: return std::nullopt;
  }
  return std::nullopt;
}

ElementType toElementType(RawElement element) noexcept {
  switch (element) {
    case RawElement::Float32: return ElementType::F32;
    case RawElement::Float16: return ElementType::F16;
    case RawElement::Float64: return ElementType::F64;
    case RawElement::BFloat16: return ElementType::BF16;
    case RawElement::SInt8: return ElementType::SI8;
    case RawElement::SInt16: return ElementType::SI16;
    case RawElement::SInt32: return ElementType::SI32;
    case RawElement::SInt64: return ElementType::SI64;
    case RawElement::UInt8: return ElementType::UI8;
    case RawElement::UInt16: return ElementType::UI16;
    case RawElement::UInt32: return ElementType::UI32;
    case RawElement::UInt64: return ElementType::UI64;
  }
  return ElementType::F32;
}

RawType toRawType(const Type& type) {
  // float32 is the default element, so it is left out as the reference does.
  auto element = [](RawElement e) -> std::optional<RawElement> {
    if (e == RawElement::Float32) return std::nullopt;
    return e;
  };
  if (auto* scalar = std::get_if<ElementType>(&type)) {
    if (*scalar == ElementType::Ptr) return RawRefObject{};
    auto e = toRawElement(*scalar);
    if (!e) return RawUnrecognized{};
    return RawScalar{element(*e)};
  }
  if (auto* memref = std::get_if<MemRefType>(&type)) {
    auto e = toRawElement(memref->element());
    if (!e) return RawUnrecognized{};
    RawBuffer buffer{element(*e), {}};
    for (std::int64_t d : memref->shape()) buffer.dims.push_back(d == kDynamic ? kRawDynamicDim : d);
    return buffer;
  }
  return RawUnrecognized{};  // unranked: the grammar has no rank-erased buffer
}

RawSignature toRawSignature(const FunctionType& type) {
  RawSignature sig;
  for (const Type& t : type.inputs) sig.inputs.push_back(toRawType(t));
  for (const Type& t : type.results) sig.results.push_back(toRawType(t));
  return sig;
}

AttributeMap rawAttributes(const FunctionType& type, std::optional<std::string> resultAllocator) {
  AttributeMap attrs;
  attrs.emplace("fv", std::string(1, '1'));
  attrs.emplace("f", mangle(toRawSignature(type)));
  if (resultAllocator) attrs.emplace("fbr", std::move(*resultAllocator));
  return attrs;
}

Expected<RawSignature> parseRawAttributes(const AttributeMap& attributes) {
  auto fv = attributes.find("fv");
  if (fv != attributes.end() && fv->second != "1")
    return Error(ErrorCode::Unsupported,
                 "raw function ABI version fv = '" + fv->second + "' is not supported, expected 1");
  auto f = attributes.find("f");
  if (f == attributes.end())
    return Error(ErrorCode::NotFound, "attribute 'f' (raw function signature) is missing");
  auto sig = parseRawSignature(f->second);
  if (!sig) return sig.error().withContext("attribute 'f'");
  return sig;
}

}  // namespace memjit::signature
