// A recursive-descent reader for the subset of MLIR's type grammar memjit
// models, and the printer of MLIR 19's canonical spelling.
#include "memjit/type_syntax.h"

#include <cctype>
#include <string>

namespace memjit {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::size_t pos() const { return pos_; }
  bool atEnd() {
    skipSpace();
    return pos_ >= text_.size();
  }
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  /// Consumes `token` (after spaces) if it is next.
  bool accept(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  /// Consumes a keyword only when it is not followed by more identifier chars.
  bool acceptWord(std::string_view word) {
    skipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    std::size_t end = pos_ + word.size();
    if (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) ||
                               text_[end] == '_' || text_[end] == '.'))
      return false;
    pos_ = end;
    return true;
  }
  Error expect(std::string_view token, std::string_view what) {
    if (accept(token)) return Error::success();
    return errorHere("expected " + std::string(what));
  }
  Error errorHere(std::string message) {
    skipSpace();
    message += ", found ";
    if (pos_ >= text_.size()) {
      message += "end of input";
    } else {
      message += '\'';
      message.append(snippet());
      message += '\'';
    }
    return Error(ErrorCode::ParseError, std::move(message), pos_);
  }
  Error errorAt(std::size_t at, std::string message) {
    return Error(ErrorCode::ParseError, std::move(message), at);
  }

  /// An optionally negative decimal integer.
  Expected<std::int64_t> integer(std::string_view what) {
    skipSpace();
    std::size_t start = pos_;
    bool negative = pos_ < text_.size() && text_[pos_] == '-';
    if (negative) ++pos_;
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      pos_ = start;
      return errorHere("expected " + std::string(what));
    }
    // Accumulate as a negative number so INT64_MIN parses without overflow.
    std::int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int digit = text_[pos_] - '0';
      if (value < (std::numeric_limits<std::int64_t>::min() + digit) / 10)
        return errorAt(start, std::string(what) + " does not fit in 64 bits");
      value = value * 10 - digit;
      ++pos_;
    }
    if (!negative) {
      if (value == std::numeric_limits<std::int64_t>::min())
        return errorAt(start, std::string(what) + " does not fit in 64 bits");
      value = -value;
    }
    return value;
  }

  /// An integer or `?` (kDynamic).
  Expected<std::int64_t> integerOrDynamic(std::string_view what) {
    if (accept("?")) return kDynamic;
    std::size_t at = (skipSpace(), pos_);
    auto v = integer(std::string(what) + " or '?'");
    if (v && *v == kDynamic) return errorAt(at, std::string(what) + " is out of range");
    return v;
  }

 private:
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string_view snippet() const {
    std::size_t n = 0;
    while (pos_ + n < text_.size() && n < 12 && !std::isspace(static_cast<unsigned char>(text_[pos_ + n])))
      ++n;
    return text_.substr(pos_, n == 0 ? 1 : n);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

Expected<ElementType> readIntegerType(Reader& r, std::string_view prefix, ElementType w8,
                                      ElementType w16, ElementType w32, ElementType w64,
                                      std::size_t at) {
  auto width = r.integer("integer width");
  if (!width) return width.error();
  switch (*width) {
    case 1:
      if (prefix == "i") return ElementType::I1;
      break;
    case 8: return w8;
    case 16: return w16;
    case 32: return w32;
    case 64: return w64;
  }
  return r.errorAt(at, "unsupported integer type " + std::string(prefix) + std::to_string(*width) +
                           " (memjit supports widths 1 (signless only), 8, 16, 32, 64)");
}

Expected<ElementType> readElementType(Reader& r) {
  r.peek();
  std::size_t at = r.pos();
  if (r.acceptWord("f16")) return ElementType::F16;
  if (r.acceptWord("bf16")) return ElementType::BF16;
  if (r.acceptWord("f32")) return ElementType::F32;
  if (r.acceptWord("f64")) return ElementType::F64;
  if (r.acceptWord("index")) return ElementType::Index;
  if (r.acceptWord("!llvm.ptr")) return ElementType::Ptr;
  if (r.accept("complex")) {
    MEMJIT_TRY(r.expect("<", "'<' after 'complex'"));
    ElementType inner;
    if (r.acceptWord("f32"))
      inner = ElementType::F32;
    else if (r.acceptWord("f64"))
      inner = ElementType::F64;
    else
      return r.errorHere("expected f32 or f64 inside complex<>");
    MEMJIT_TRY(r.expect(">", "'>' closing complex<"));
    return inner == ElementType::F32 ? ElementType::ComplexF32 : ElementType::ComplexF64;
  }
  if (r.accept("si"))
    return readIntegerType(r, "si", ElementType::SI8, ElementType::SI16, ElementType::SI32,
                           ElementType::SI64, at);
  if (r.accept("ui"))
    return readIntegerType(r, "ui", ElementType::UI8, ElementType::UI16, ElementType::UI32,
                           ElementType::UI64, at);
  if (r.accept("i"))
    return readIntegerType(r, "i", ElementType::I8, ElementType::I16, ElementType::I32,
                           ElementType::I64, at);
  return r.errorHere(
      "expected a type (memref<...>, iN, siN, uiN, f16, bf16, f32, f64, index, !llvm.ptr or "
      "complex<f32|f64>)");
}

/// `strided<[s0, ...], offset: o>` after the word `strided`.
Expected<StridedLayout> readStrided(Reader& r) {
  StridedLayout layout;
  MEMJIT_TRY(r.expect("<", "'<' after 'strided'"));
  MEMJIT_TRY(r.expect("[", "'[' opening the stride list"));
  if (!r.accept("]")) {
    do {
      std::size_t at = (r.peek(), r.pos());
      auto s = r.integerOrDynamic("stride");
      if (!s) return s.error();
      // MLIR's StridedLayoutAttr verifier rejects static zero strides.
      if (*s == 0) return r.errorAt(at, "strides must not be zero");
      layout.strides.push_back(*s);
    } while (r.accept(","));
    MEMJIT_TRY(r.expect("]", "',' or ']' in the stride list"));
  }
  if (r.accept(",")) {
    MEMJIT_TRY(r.expect("offset", "'offset' after the stride list"));
    MEMJIT_TRY(r.expect(":", "':' after 'offset'"));
    auto o = r.integerOrDynamic("offset");
    if (!o) return o.error();
    layout.offset = *o;
  }
  MEMJIT_TRY(r.expect(">", "'>' closing strided<"));
  return layout;
}

/// `affine_map<(d0, d1) -> (d0, d1)>` after the word `affine_map`: only the
/// identity map is a layout memjit can hold (it means "no layout").
Error readIdentityAffineMap(Reader& r, std::size_t rank, std::size_t at) {
  MEMJIT_TRY(r.expect("<", "'<' after 'affine_map'"));
  std::vector<std::int64_t> dims;
  auto readDimList = [&](std::vector<std::int64_t>& out) -> Error {
    MEMJIT_TRY(r.expect("(", "'(' opening the affine map dims"));
    if (r.accept(")")) return Error::success();
    do {
      if (!r.accept("d")) return r.errorHere("expected a dim name d<N>");
      auto n = r.integer("dim number");
      if (!n) return n.error();
      out.push_back(*n);
    } while (r.accept(","));
    return r.expect(")", "',' or ')' in the affine map");
  };
  MEMJIT_TRY(readDimList(dims));
  MEMJIT_TRY(r.expect("->", "'->' in the affine map"));
  std::vector<std::int64_t> results;
  if (Error e = readDimList(results))
    return Error(ErrorCode::Unsupported,
                 "only identity affine_map layouts are supported; write a non-identity layout as "
                 "strided<[...], offset: ...>",
                 at);
  MEMJIT_TRY(r.expect(">", "'>' closing affine_map<"));
  bool identity = dims.size() == rank && results == dims;
  for (std::size_t i = 0; identity && i < dims.size(); ++i) identity = dims[i] == static_cast<std::int64_t>(i);
  if (!identity)
    return Error(ErrorCode::Unsupported,
                 "only identity affine_map layouts are supported; write a non-identity layout as "
                 "strided<[...], offset: ...>",
                 at);
  return Error::success();
}

Expected<unsigned> readMemorySpace(Reader& r) {
  std::size_t at = (r.peek(), r.pos());
  auto v = r.integer("a memory space (integer)");
  if (!v) return v.error();
  if (*v < 0 || *v > 0xFFFFFF)
    return r.errorAt(at, "memory space " + std::to_string(*v) + " is out of range (0 to 16777215)");
  return static_cast<unsigned>(*v);
}

/// `memref<...>` after the word `memref`.
Expected<Type> readMemRef(Reader& r) {
  MEMJIT_TRY(r.expect("<", "'<' after 'memref'"));
  if (r.accept("*")) {
    MEMJIT_TRY(r.expect("x", "'x' after '*' in an unranked memref"));
    auto element = readElementType(r);
    if (!element) return element.error();
    UnrankedMemRefType t{*element, 0};
    if (r.accept(",")) {
      auto space = readMemorySpace(r);
      if (!space) return space.error();
      t.memorySpace = *space;
    }
    MEMJIT_TRY(r.expect(">", "'>' closing memref<"));
    return Type(t);
  }
  std::vector<std::int64_t> shape;
  for (;;) {
    char c = r.peek();
    if (c != '?' && !std::isdigit(static_cast<unsigned char>(c))) break;
    std::size_t at = r.pos();
    auto d = r.integerOrDynamic("dim");
    if (!d) return d.error();
    if (*d < 0 && *d != kDynamic) return r.errorAt(at, "dims must be >= 0 or '?'");
    shape.push_back(*d);
    MEMJIT_TRY(r.expect("x", "'x' after a dim"));
  }
  auto element = readElementType(r);
  if (!element) return element.error();
  std::optional<StridedLayout> layout;
  unsigned space = 0;
  if (r.accept(",")) {
    std::size_t at = (r.peek(), r.pos());
    bool sawLayout = true;
    if (r.acceptWord("strided")) {
      auto l = readStrided(r);
      if (!l) return l.error();
      if (l->strides.size() != shape.size())
        return r.errorAt(at, "strided layout has " + std::to_string(l->strides.size()) +
                                 " strides for a memref of rank " + std::to_string(shape.size()));
      layout = std::move(*l);
    } else if (r.acceptWord("affine_map")) {
      MEMJIT_TRY(readIdentityAffineMap(r, shape.size(), at));
    } else {
      sawLayout = false;
      char c = r.peek();
      if (c != '-' && !std::isdigit(static_cast<unsigned char>(c)))
        return r.errorHere("expected a layout (strided<...>) or a memory space (integer)");
      auto s = readMemorySpace(r);
      if (!s) return s.error();
      space = *s;
    }
    if (sawLayout && r.accept(",")) {
      auto s = readMemorySpace(r);
      if (!s) return s.error();
      space = *s;
    }
  }
  MEMJIT_TRY(r.expect(">", "'>' closing memref<"));
  return Type(MemRefType(*element, std::move(shape), std::move(layout), space));
}

Expected<Type> readType(Reader& r) {
  if (r.acceptWord("memref")) return readMemRef(r);
  auto e = readElementType(r);
  if (!e) return e.error();
  return Type(*e);
}

Expected<std::vector<Type>> readTypeList(Reader& r) {
  std::vector<Type> types;
  MEMJIT_TRY(r.expect("(", "'(' opening a type list"));
  if (r.accept(")")) return types;
  do {
    auto t = readType(r);
    if (!t) return t.error();
    types.push_back(std::move(*t));
  } while (r.accept(","));
  MEMJIT_TRY(r.expect(")", "',' or ')' in a type list"));
  return types;
}

Error expectEnd(Reader& r, std::string_view what) {
  if (r.atEnd()) return Error::success();
  return r.errorHere("unexpected text after the " + std::string(what));
}

std::string dimText(std::int64_t v) { return v == kDynamic ? "?" : std::to_string(v); }

// All of `text` as one T; `what` names it when text follows.
template <typename T>
Expected<T> readWhole(std::string_view text, Expected<T> (*read)(Reader&), std::string_view what) {
  Reader r(text);
  auto v = read(r);
  if (!v) return v;
  MEMJIT_TRY(expectEnd(r, what));
  return v;
}

}  // namespace

Expected<ElementType> parseElementType(std::string_view text) {
  return readWhole<ElementType>(text, readElementType, "element type");
}

Expected<Type> parseType(std::string_view text) { return readWhole<Type>(text, readType, "type"); }

Expected<FunctionType> parseFunctionType(std::string_view text) {
  Reader r(text);
  FunctionType fn;
  auto inputs = readTypeList(r);
  if (!inputs) return inputs.error();
  fn.inputs = std::move(*inputs);
  MEMJIT_TRY(r.expect("->", "'->' after the input types"));
  if (r.peek() == '(') {
    auto results = readTypeList(r);
    if (!results) return results.error();
    fn.results = std::move(*results);
  } else {
    auto t = readType(r);
    if (!t) return t.error();
    fn.results.push_back(std::move(*t));
  }
  MEMJIT_TRY(expectEnd(r, "function type"));
  return fn;
}

Expected<VectorType> parseVectorType(std::string_view text) {
  Reader r(text);
  r.peek();
  if (!r.acceptWord("vector")) return r.errorHere("expected 'vector<'");
  MEMJIT_TRY(r.expect("<", "'<' after 'vector'"));
  r.peek();
  if (r.peek() == '[') return r.errorHere("scalable vectors are not supported (memjit's vectors have fixed lanes)");
  if (!std::isdigit(static_cast<unsigned char>(r.peek())))
    return r.errorHere("expected the lane count (0-d vectors are not supported)");
  std::size_t at = r.pos();
  auto lanes = r.integer("lane count");
  if (!lanes) return lanes.error();
  MEMJIT_TRY(r.expect("x", "'x' after the lane count"));
  r.peek();
  if (std::isdigit(static_cast<unsigned char>(r.peek())) || r.peek() == '[')
    return r.errorHere("multi-dimensional vectors are not supported (memjit's vectors have one dimension)");
  std::size_t elementAt = r.pos();
  auto element = readElementType(r);
  if (!element) return element.error();
  MEMJIT_TRY(r.expect(">", "'>' closing vector<"));
  MEMJIT_TRY(expectEnd(r, "vector type"));
  if (!isVectorElement(*element))
    return r.errorAt(elementAt, "vector element type " + toString(*element) + " is not an integer, index or float type");
  auto t = VectorType::get(*element, *lanes);
  if (!t) return r.errorAt(at, t.error().message());
  return t;
}

std::string toString(ElementType t) { return std::string(spelling(t)); }

std::string toString(const VectorType& t) {
  return "vector<" + std::to_string(t.lanes) + "x" + std::string(spelling(t.element)) + ">";
}

std::string toString(const MemRefType& t) {
  std::string s = "memref<";
  for (std::int64_t d : t.shape()) s += dimText(d) + "x";
  s += spelling(t.element());
  if (const auto& layout = t.layout()) {
    s += ", strided<[";
    for (std::size_t i = 0; i < layout->strides.size(); ++i) {
      if (i) s += ", ";
      s += dimText(layout->strides[i]);
    }
    s += "]";
    if (layout->offset != 0) s += ", offset: " + dimText(layout->offset);
    s += ">";
  }
  if (t.memorySpace() != 0) s += ", " + std::to_string(t.memorySpace());
  return s + ">";
}

std::string toString(const UnrankedMemRefType& t) {
  std::string s = "memref<*x";
  s += spelling(t.element);
  if (t.memorySpace != 0) s += ", " + std::to_string(t.memorySpace);
  return s + ">";
}

std::string toString(const Type& t) {
  switch (t.index()) {
    case 0: return toString(std::get<0>(t));
    case 1: return toString(std::get<1>(t));
    default: return toString(std::get<2>(t));
  }
}

std::string toString(const FunctionType& t) {
  std::string s = "(";
  for (std::size_t i = 0; i < t.inputs.size(); ++i) {
    if (i) s += ", ";
    s += toString(t.inputs[i]);
  }
  s += ") -> ";
  if (t.results.size() == 1) return s + toString(t.results[0]);
  s += "(";
  for (std::size_t i = 0; i < t.results.size(); ++i) {
    if (i) s += ", ";
    s += toString(t.results[i]);
  }
  return s + ")";
}

}  // namespace memjit
