#include "call_values.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "memjit/runtime/half.h"
#include "memjit/runtime/npy.h"
#include "memjit/type_syntax.h"

namespace memjit::cli {
namespace {

constexpr std::int64_t kRandomIntRange = 100;  // integers: uniform in [0, 100)

std::string typeText(const Type& t) { return toString(t); }

Error inputError(ErrorCode code, std::string_view name, const Type& type, const std::string& message) {
  return Error(code, "input '" + std::string(name) + "' (" + typeText(type) + "): " + message);
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Stores `v` (an integer, wrapped to the type's width) or `d` (a float) as element `t` at `p`.
void storeInteger(void* p, ElementType t, std::uint64_t v) { std::memcpy(p, &v, storageSize(t)); }  // little-endian

void storeReal(void* p, ElementType t, double d) {
  switch (t) {
    case ElementType::F16: { f16 h(d); std::memcpy(p, &h, 2); break; }
    case ElementType::BF16: { bf16 h(d); std::memcpy(p, &h, 2); break; }
    case ElementType::F32: { float f = static_cast<float>(d); std::memcpy(p, &f, 4); break; }
    case ElementType::F64: std::memcpy(p, &d, 8); break;
    case ElementType::ComplexF32: { float f[2] = {static_cast<float>(d), 0}; std::memcpy(p, f, 8); break; }
    case ElementType::ComplexF64: { double f[2] = {d, 0}; std::memcpy(p, f, 16); break; }
    default: break;
  }
}

// A uniform value in [0, 1) with `bits` bits of precision, exact in a type with that many.
double unitInterval(std::uint64_t x, int bits) { return std::ldexp(static_cast<double>(x >> (64 - bits)), -bits); }

int randomBits(ElementType component) {
  switch (component) {
    case ElementType::F16: return 11;
    case ElementType::BF16: return 8;
    case ElementType::F32: return 24;
    default: return 53;
  }
}

Error checkShape(std::string_view name, const Type& type, ElementType got, std::span<const std::int64_t> shape,
                 const std::string& source) {
  const ElementType want = elementOf(type);
  if (got != want && !runtime::elementTypesCompatible(want, got))
    return inputError(ErrorCode::TypeMismatch, name, type, source + " holds " + std::string(spelling(got)) + " elements");
  const auto* m = std::get_if<MemRefType>(&type);
  if (!m) return Error::success();  // unranked: any shape
  if (shape.size() != m->rank())
    return inputError(ErrorCode::TypeMismatch, name, type, "expected rank " + std::to_string(m->rank()) + ", " +
                                                               source + " has shape " + shapeText(shape) + " (rank " +
                                                               std::to_string(shape.size()) + ")");
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (m->dim(i) != kDynamic && m->dim(i) != shape[i])
      return inputError(ErrorCode::TypeMismatch, name, type, "expected size " + std::to_string(m->dim(i)) +
                                                                 " in dim " + std::to_string(i) + ", " + source +
                                                                 " has shape " + shapeText(shape));
  return Error::success();
}

const char* generatorName(GeneratorKind k) {
  switch (k) {
    case GeneratorKind::Zeros: return "zeros";
    case GeneratorKind::Ones: return "ones";
    case GeneratorKind::Iota: return "iota";
    case GeneratorKind::Random: return "random";
  }
  return "?";
}

Expected<runtime::Variant> npyArgument(std::string_view path, const Type& type, std::string_view name) {
  auto b = runtime::readNpy(std::string(path));
  if (!b) return b.error().withContext("input '" + std::string(name) + "'");
  MEMJIT_TRY(checkShape(name, type, b->elementType(), b->sizes(), std::string(path)));
  const auto* m = std::get_if<MemRefType>(&type);
  if (m && m->hasIdentityLayout() && !b->isRowMajorContiguous()) {
    MEMJIT_ASSIGN_OR_RETURN(runtime::Buffer copy, b->copy());
    return runtime::Variant(std::move(copy));
  }
  return runtime::Variant(std::move(*b));
}

Expected<runtime::Variant> generatedArgument(const GeneratorSpec& g, const Type& type, std::string_view name,
                                           std::size_t position) {
  const std::string what = std::string(generatorName(g.kind));
  std::vector<std::int64_t> shape;
  if (g.shape) {
    shape = *g.shape;
  } else if (const auto* m = std::get_if<MemRefType>(&type); m && m->hasStaticShape()) {
    shape = m->shape();
  } else {
    return inputError(ErrorCode::InvalidArgument, name, type,
                      what + " needs a shape here (the type's is not static), e.g. " + what + ":128");
  }
  MEMJIT_TRY(checkShape(name, type, elementOf(type), shape, what));
  auto b = generate(g.kind, elementOf(type), shape, g.seed.value_or(position));
  if (!b) return b.error().withContext("input '" + std::string(name) + "'");
  return runtime::Variant(std::move(*b));
}

bool nonzeroMantissa(std::string_view text) {
  for (char c : text) {
    if (c == 'e' || c == 'E' || c == 'p' || c == 'P') break;
    if (c >= '1' && c <= '9') return true;
  }
  return false;
}

}  // namespace

Expected<std::vector<std::int64_t>> parseShape(std::string_view text) {
  std::vector<std::int64_t> shape;
  if (text == "()") return shape;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = std::min(text.find('x', start), text.size());
    std::string_view dim = text.substr(start, end - start);
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), v);
    if (dim.empty() || ec != std::errc() || p != dim.data() + dim.size() || v < 0)
      return Error(ErrorCode::InvalidArgument, "bad shape '" + std::string(text) +
                                                   "': expected sizes >= 0 separated by 'x', e.g. 128x64 (or () for rank 0)");
    shape.push_back(v);
    if (end == text.size()) return shape;
    start = end + 1;
  }
}

std::string shapeText(std::span<const std::int64_t> shape) {
  if (shape.empty()) return "()";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

Expected<std::optional<GeneratorSpec>> parseGenerator(std::string_view text) {
  std::string_view head = text.substr(0, text.find(':'));
  GeneratorSpec g;
  if (head == "zeros") g.kind = GeneratorKind::Zeros;
  else if (head == "ones") g.kind = GeneratorKind::Ones;
  else if (head == "iota") g.kind = GeneratorKind::Iota;
  else if (head == "random") g.kind = GeneratorKind::Random;
  else return std::optional<GeneratorSpec>();
  std::string_view rest = head.size() < text.size() ? text.substr(head.size() + 1) : std::string_view();
  while (!rest.empty()) {
    std::string_view part = rest.substr(0, rest.find(':'));
    rest = part.size() < rest.size() ? rest.substr(part.size() + 1) : std::string_view();
    if (part.rfind("seed=", 0) == 0) {
      if (g.kind != GeneratorKind::Random)
        return Error(ErrorCode::InvalidArgument, "'" + std::string(text) + "': only random takes a seed");
      std::uint64_t seed = 0;
      std::string_view v = part.substr(5);
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), seed);
      if (v.empty() || ec != std::errc() || p != v.data() + v.size())
        return Error(ErrorCode::InvalidArgument, "'" + std::string(text) + "': the seed must be a whole number >= 0");
      g.seed = seed;
    } else if (!g.shape && !g.seed) {
      auto shape = parseShape(part);
      if (!shape) return shape.error().withContext("'" + std::string(text) + "'");
      g.shape = std::move(*shape);
    } else {
      return Error(ErrorCode::InvalidArgument, "'" + std::string(text) + "': unexpected '" + std::string(part) +
                                                   "' (expected " + generatorName(g.kind) + "[:SHAPE]" +
                                                   (g.kind == GeneratorKind::Random ? "[:seed=S]" : "") + ")");
    }
  }
  return std::optional<GeneratorSpec>(g);
}

Expected<runtime::Buffer> generate(GeneratorKind kind, ElementType element, const std::vector<std::int64_t>& shape,
                                   std::uint64_t seed) {
  if (element == ElementType::Ptr)
    return Error(ErrorCode::Unsupported, std::string(generatorName(kind)) + " cannot make !llvm.ptr elements");
  MEMJIT_ASSIGN_OR_RETURN(runtime::Buffer b, runtime::Buffer::allocate(element, shape));
  if (kind == GeneratorKind::Zeros) return b;  // allocate zero-fills
  const std::int64_t n = b.numElements();
  const std::size_t size = b.elementSize();
  auto* data = static_cast<unsigned char*>(b.data());
  const ElementType component = componentType(element);
  const bool real = isFloat(component);
  std::mt19937_64 engine(seed);
  for (std::int64_t k = 0; k < n; ++k) {
    void* p = data + static_cast<std::size_t>(k) * size;
    switch (kind) {
      case GeneratorKind::Zeros: break;
      case GeneratorKind::Ones:
        if (real) storeReal(p, element, 1.0);
        else storeInteger(p, element, 1);
        break;
      case GeneratorKind::Iota:
        if (real) storeReal(p, element, static_cast<double>(k));
        else storeInteger(p, element, element == ElementType::I1 ? static_cast<std::uint64_t>(k % 2)
                                                                 : static_cast<std::uint64_t>(k));
        break;
      case GeneratorKind::Random:
        if (isComplex(element)) {
          const int bits = randomBits(component);
          const double re = unitInterval(engine(), bits), im = unitInterval(engine(), bits);
          if (element == ElementType::ComplexF32) {
            float f[2] = {static_cast<float>(re), static_cast<float>(im)};
            std::memcpy(p, f, 8);
          } else {
            double f[2] = {re, im};
            std::memcpy(p, f, 16);
          }
        } else if (real) {
          storeReal(p, element, unitInterval(engine(), randomBits(element)));
        } else if (element == ElementType::I1) {
          storeInteger(p, element, engine() >> 63);
        } else {
          storeInteger(p, element, ((engine() >> 32) * static_cast<std::uint64_t>(kRandomIntRange)) >> 32);
        }
        break;
    }
  }
  return b;
}

namespace {

// An integer literal, [-+]digits or [-+]0x hex digits: signed, or unsigned
// above int64's range; nothing when `text` is not one.
Expected<std::optional<runtime::Variant>> integerLiteral(std::string_view text, const Type& t, std::string_view name) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  std::uint64_t magnitude = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (digits.empty() || p != digits.data() + digits.size()) return std::optional<runtime::Variant>();
  constexpr std::uint64_t int64Limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (ec == std::errc::result_out_of_range || (negative && magnitude > int64Limit + 1))
    return inputError(ErrorCode::InvalidArgument, name, t, "'" + std::string(text) + "' is out of range");
  if (negative) return std::optional(runtime::Variant(static_cast<long long>(0 - magnitude)));
  if (magnitude > int64Limit) return std::optional(runtime::Variant(static_cast<unsigned long>(magnitude)));
  return std::optional(runtime::Variant(static_cast<long long>(magnitude)));
}

// `d`, parsed from `s`, in the float type `type`: refused where it
// overflows (unless `s` spells an infinity) or underflows to 0 there.
Expected<runtime::Variant> inFloatType(const std::string& s, double d, bool literalInfinite, ElementType type,
                                     std::string_view name) {
  const Type t = type;
  auto checked = [&](double value) -> Error {
    if (std::isinf(value) && !literalInfinite)
      return inputError(ErrorCode::InvalidArgument, name, t, "'" + s + "' is out of range for " +
                                                                 std::string(spelling(type)));
    if (value == 0 && nonzeroMantissa(s))
      return inputError(ErrorCode::InvalidArgument, name, t, "'" + s + "' underflows to 0 in " +
                                                                 std::string(spelling(type)));
    return Error::success();
  };
  switch (type) {
    case ElementType::F32: {
      errno = 0;
      const float f = std::strtof(s.c_str(), nullptr);
      MEMJIT_TRY(checked(f));
      return runtime::Variant(f);
    }
    case ElementType::F16: {
      const f16 h(d);
      MEMJIT_TRY(checked(static_cast<float>(h)));
      return runtime::Variant(h);
    }
    case ElementType::BF16: {
      const bf16 h(d);
      MEMJIT_TRY(checked(static_cast<float>(h)));
      return runtime::Variant(h);
    }
    default:
      MEMJIT_TRY(checked(d));
      return runtime::Variant(d);
  }
}

// A float literal, parsed in the input's type when that is a float type.
Expected<runtime::Variant> floatLiteral(std::string_view text, ElementType type, std::string_view name) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0])))
    return inputError(ErrorCode::InvalidArgument, name, type, "'" + s + "' is not a number (nor true or false)");
  if (!isFloat(type)) return runtime::Variant(d);  // the invoker refuses a float for an integer, naming both
  return inFloatType(s, d, std::isinf(d) && errno != ERANGE, type, name);
}

}  // namespace

Expected<runtime::Variant> parseLiteral(std::string_view text, ElementType type, std::string_view name) {
  const Type t = type;
  if (type == ElementType::Ptr || isComplex(type))
    return inputError(ErrorCode::Unsupported, name, t, "memjit call cannot take a " + std::string(spelling(type)) +
                                                           " scalar from the command line");
  if (text == "true") return runtime::Variant(true);
  if (text == "false") return runtime::Variant(false);
  MEMJIT_ASSIGN_OR_RETURN(std::optional<runtime::Variant> integer, integerLiteral(text, t, name));
  if (integer) return std::move(*integer);
  return floatLiteral(text, type, name);
}

Expected<runtime::Variant> makeArgument(std::string_view text, const Type& type, std::string_view name,
                                      std::size_t position) {
  const bool isNpy = endsWith(text, ".npy");
  MEMJIT_ASSIGN_OR_RETURN(std::optional<GeneratorSpec> generator, parseGenerator(text));
  if (const auto* e = std::get_if<ElementType>(&type)) {
    if (isNpy || generator)
      return inputError(ErrorCode::TypeMismatch, name, type, "a scalar takes a literal, not '" + std::string(text) + "'");
    return parseLiteral(text, *e, name);
  }
  if (isNpy) return npyArgument(text, type, name);
  if (generator) return generatedArgument(*generator, type, name, position);
  return inputError(ErrorCode::TypeMismatch, name, type,
                    "a memref takes a .npy file or a generator (zeros, ones, iota, random[:SHAPE]), not '" +
                        std::string(text) + "'");
}

}  // namespace memjit::cli
