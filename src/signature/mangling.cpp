#include "memjit/signature/mangling.h"

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

}  // namespace

SignatureBuilder& SignatureBuilder::integer(std::int64_t value, char tag) {
  if (!isIntegerTag(tag)) {
    if (error_.ok())
      error_ = Error(ErrorCode::InvalidArgument,
                     "integer tag must be '_' or 'a'..'z', got " + describeByte(tag));
    return *this;
  }
  encoded_.push_back(tag);
  encoded_.append(std::to_string(value));
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
  encoded_.append(std::to_string(contents.size() + 1));
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
  std::size_t pos = cursor_ + 1;
  bool negative = false;
  if (pos < text_.size() && text_[pos] == '-') {
    if (!integerTag) {
      fail(pos, std::string("negative length for span '") + tag + "'");
      return kind_;
    }
    negative = true;
    ++pos;
  }
  const std::size_t digitsBegin = pos;
  if (pos >= text_.size() || !isDigit(text_[pos])) {
    fail(pos, std::string(integerTag ? "expected digits of the integer after tag '"
                                     : "expected the length of span '") +
                  tag + "'" + (pos >= text_.size() ? ", found the end" : ", found " + describeByte(text_[pos])));
    return kind_;
  }
  // Accumulate as a negative number so that the most negative value fits.
  const std::int64_t minValue =
      integerBits_ == 64 ? INT64_MIN : -(std::int64_t(1) << (integerBits_ - 1));
  const std::int64_t maxValue = -(minValue + 1);
  std::int64_t acc = 0;
  while (pos < text_.size() && isDigit(text_[pos])) {
    const int d = text_[pos] - '0';
    if (acc < (minValue + d) / 10) {
      fail(digitsBegin, "integer after tag '" + std::string(1, tag) + "' does not fit in " +
                            std::to_string(integerBits_) + " bits");
      return kind_;
    }
    acc = acc * 10 - d;
    ++pos;
  }
  if (!negative) {
    if (acc < -maxValue) {
      fail(digitsBegin, "integer after tag '" + std::string(1, tag) + "' does not fit in " +
                            std::to_string(integerBits_) + " bits");
      return kind_;
    }
    acc = -acc;
  }
  if (integerTag) {
    kind_ = Component::Integer;
    tag_ = tag;
    value_ = acc;
    cursor_ = pos;
    return kind_;
  }
  // Span: `acc` bytes follow, the first of which is the '!'.
  const std::size_t available = text_.size() - pos;
  if (acc == 0) {
    fail(pos, std::string("span '") + tag + "' has length 0, expected at least 1 for the '!'");
    return kind_;
  }
  if (static_cast<std::uint64_t>(acc) > available) {
    fail(digitsBegin, std::string("span '") + tag + "' of length " + std::to_string(acc) +
                          " runs past the end (" + std::to_string(available) + " bytes left)");
    return kind_;
  }
  if (text_[pos] != '!') {
    fail(pos, std::string("expected '!' after the length of span '") + tag + "', found " +
                  describeByte(text_[pos]));
    return kind_;
  }
  kind_ = Component::Span;
  tag_ = tag;
  value_ = acc - 1;
  bytes_ = text_.substr(pos + 1, static_cast<std::size_t>(acc - 1));
  cursor_ = pos + static_cast<std::size_t>(acc);
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
