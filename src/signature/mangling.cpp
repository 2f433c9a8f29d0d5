#include "memjit/signature/mangling.h"

#include <charconv>
#include <optional>
#include <string>

namespace memjit::signature {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Printable description of a byte for messages ('x', or 0x01 for control bytes).
std::string describeByte(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

// Appends the decimal digits of `value` without a temporary string.
void appendDecimal(std::string& out, std::int64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// Where and why a component is malformed.
struct Malformed {
  std::size_t at;
  std::string message;
};

// The number after a component's tag: an integer's value or a span's length.
struct Number {
  std::int64_t value = 0;
  std::size_t digitsBegin = 0;
  std::size_t end = 0;  // past the last digit
};

std::string tooWide(char tag, unsigned bits) {
  return "integer after tag '" + std::string(1, tag) + "' does not fit in " + std::to_string(bits) + " bits";
}

// Reads the number after `tag` from `pos`: an optional '-' (integers only)
// and decimal digits, whose value must fit in `bits` bits.
std::optional<Malformed> readNumber(std::string_view text, std::size_t pos, char tag, bool integerTag, unsigned bits,
                                    Number& out) {
  bool negative = false;
  if (pos < text.size() && text[pos] == '-') {
    if (!integerTag) return Malformed{pos, std::string("negative length for span '") + tag + "'"};
    negative = true;
    ++pos;
  }
  out.digitsBegin = pos;
  if (pos >= text.size() || !isDigit(text[pos]))
    return Malformed{pos, std::string(integerTag ? "expected digits of the integer after tag '"
                                                 : "expected the length of span '") +
                              tag + "'" +
                              (pos >= text.size() ? ", found the end" : ", found " + describeByte(text[pos]))};
  // Accumulate as a negative number so that the most negative value fits.
  const std::int64_t minValue = bits == 64 ? INT64_MIN : -(std::int64_t(1) << (bits - 1));
  const std::int64_t maxValue = -(minValue + 1);
  std::int64_t acc = 0;
  while (pos < text.size() && isDigit(text[pos])) {
    const int d = text[pos] - '0';
    if (acc < (minValue + d) / 10) return Malformed{out.digitsBegin, tooWide(tag, bits)};
    acc = acc * 10 - d;
    ++pos;
  }
  if (!negative) {
    if (acc < -maxValue) return Malformed{out.digitsBegin, tooWide(tag, bits)};
    acc = -acc;
  }
  out.value = acc;
  out.end = pos;
  return std::nullopt;
}

// A span of `length` bytes must follow, the first of which is the '!'.
std::optional<Malformed> checkSpanBytes(std::string_view text, const Number& length, char tag) {
  const std::size_t pos = length.end;
  const std::size_t available = text.size() - pos;
  if (length.value == 0)
    return Malformed{pos, std::string("span '") + tag + "' has length 0, expected at least 1 for the '!'"};
  if (static_cast<std::uint64_t>(length.value) > available)
    return Malformed{length.digitsBegin, std::string("span '") + tag + "' of length " + std::to_string(length.value) +
                                             " runs past the end (" + std::to_string(available) + " bytes left)"};
  if (text[pos] != '!')
    return Malformed{pos, std::string("expected '!' after the length of span '") + tag + "', found " +
                              describeByte(text[pos])};
  return std::nullopt;
}

}  // namespace

SignatureBuilder& SignatureBuilder::integer(std::int64_t value, char tag) {
  if (!isIntegerTag(tag)) {
    if (error_.ok())
      error_ = Error(ErrorCode::InvalidArgument,
                     "integer tag must be '_' or 'a'..'z', got " + describeByte(tag));
    return *this;
  }
  encoded_.push_back(tag);
  appendDecimal(encoded_, value);
  return *this;
}

SignatureBuilder& SignatureBuilder::span(std::string_view contents, char tag) {
  if (!isSpanTag(tag)) {
    if (error_.ok())
      error_ = Error(ErrorCode::InvalidArgument,
                     "span tag must be 'A'..'Z', got " + describeByte(tag));
    return *this;
  }
  encoded_.push_back(tag);
  appendDecimal(encoded_, static_cast<std::int64_t>(contents.size() + 1));
  encoded_.push_back('!');
  encoded_.append(contents);
  return *this;
}

SignatureBuilder& SignatureBuilder::append(const SignatureBuilder& nested, char tag) {
  if (error_.ok() && !nested.ok()) error_ = nested.error();
  return span(nested.encoded(), tag);
}

SignatureParser::SignatureParser(std::string_view encoded, std::size_t baseOffset,
                                 unsigned integerBits) noexcept
    : text_(encoded), base_(baseOffset),
      integerBits_(integerBits == 0 || integerBits > 64 ? 64 : integerBits) {
  kind_ = Component::Integer;  // anything but End/Error so next() runs
  next();
}

void SignatureParser::fail(std::size_t localOffset, std::string message) noexcept {
  kind_ = Component::Error;
  tag_ = 0;
  value_ = 0;
  bytes_ = {};
  try {
    error_ = memjit::Error(ErrorCode::ParseError, std::move(message), base_ + localOffset);
  } catch (...) {
    // Allocation failure while describing a failure: keep the kind, lose the text.
  }
}

std::size_t SignatureParser::contentOffset() const noexcept {
  if (kind_ != Component::Span) return offset();
  return base_ + static_cast<std::size_t>(bytes_.data() - text_.data());
}

SignatureParser SignatureParser::nested() const noexcept {
  if (kind_ != Component::Span) return SignatureParser(std::string_view(), offset(), integerBits_);
  return SignatureParser(bytes_, contentOffset(), integerBits_);
}

Component SignatureParser::next() noexcept {
  if (kind_ == Component::Error || kind_ == Component::End) return kind_;
  tag_ = 0;
  value_ = 0;
  bytes_ = {};
  start_ = cursor_;
  if (cursor_ >= text_.size()) {
    kind_ = Component::End;
    return kind_;
  }
  const char tag = text_[cursor_];
  const bool integerTag = isIntegerTag(tag);
  if (!integerTag && !isSpanTag(tag)) {
    fail(cursor_, "illegal component tag " + describeByte(tag) +
                      ", expected '_', 'a'..'z' (integer) or 'A'..'Z' (span)");
    return kind_;
  }
  Number number;
  std::optional<Malformed> malformed = readNumber(text_, cursor_ + 1, tag, integerTag, integerBits_, number);
  if (!malformed && !integerTag) malformed = checkSpanBytes(text_, number, tag);
  if (malformed) {
    fail(malformed->at, std::move(malformed->message));
    return kind_;
  }
  tag_ = tag;
  if (integerTag) {
    kind_ = Component::Integer;
    value_ = number.value;
    cursor_ = number.end;
    return kind_;
  }
  // Span: number.value bytes follow, the first of which is the '!'.
  kind_ = Component::Span;
  value_ = number.value - 1;
  bytes_ = text_.substr(number.end + 1, static_cast<std::size_t>(number.value - 1));
  cursor_ = number.end + static_cast<std::size_t>(number.value);
  return kind_;
}

Expected<std::string> canonicalize(std::string_view encoded, unsigned integerBits) {
  SignatureBuilder out;
  SignatureParser p(encoded, 0, integerBits);
  for (; p.kind() != Component::End; p.next()) {
    if (p.failed()) return p.error();
    if (p.kind() == Component::Integer)
      out.integer(p.value(), p.tag());
    else
      out.span(p.bytes(), p.tag());
  }
  return out.encoded();
}

}  // namespace memjit::signature
