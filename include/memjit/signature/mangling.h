// Generic signature mangling: the tagged-integer / length-prefixed-span text
// that the Raw Function ABI (`f`) and the SIP ABI (`sip`) are written in.
//
//   integer ::= tag -?[0-9]+           tag is '_' or 'a'..'z'
//   span    ::= tag length '!' bytes   tag is 'A'..'Z'; length counts the '!'
//
// e.g. `_5a1z10x-5991`, `A7!foobar`, `Z1!` (an empty span). A span's bytes may
// hold anything, including further components (nesting) or a leading '!'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "memjit/error.h"

namespace memjit::signature {

/// How deep spans (and JSON arrays) may nest before a parser gives up with a
/// ParseError. Keeps recursive parsers' stack use bounded on hostile input.
inline constexpr std::size_t kMaxNestingDepth = 64;

/// The attributes a function carries its metadata in (`fv`, `f`, `fbr`,
/// `sipv`/`sip`, `abi`/`abiv`, `iree.abi`): name to value, both as text.
using AttributeMap = std::map<std::string, std::string, std::less<>>;

/// True for '_' and 'a'..'z', the tags of integer components.
constexpr bool isIntegerTag(char c) noexcept { return c == '_' || (c >= 'a' && c <= 'z'); }
/// True for 'A'..'Z', the tags of span components.
constexpr bool isSpanTag(char c) noexcept { return c >= 'A' && c <= 'Z'; }

/// Appends components to a growing encoding. Calls chain; a call with an
/// illegal tag appends nothing and records the first such error (see error()),
/// so a builder is never left half-written by a bad component.
class SignatureBuilder {
 public:
  /// Appends `tag` and the decimal value. `tag` must be '_' or 'a'..'z'.
  SignatureBuilder& integer(std::int64_t value, char tag = '_');
  /// Appends `tag`, contents.size() + 1, '!', contents. `tag` must be 'A'..'Z'.
  SignatureBuilder& span(std::string_view contents, char tag);
  /// Appends everything `nested` built as one span with `tag`
  /// (e.g. a builder holding `_6` appended with 'X' gives `X3!_6`).
  /// An error recorded in `nested` is carried over.
  SignatureBuilder& append(const SignatureBuilder& nested, char tag);

  /// The encoding built so far.
  const std::string& encoded() const noexcept { return encoded_; }
  /// True when nothing has been appended.
  bool empty() const noexcept { return encoded_.empty(); }
  /// The first illegal-tag error (InvalidArgument), or success.
  const Error& error() const noexcept { return error_; }
  bool ok() const noexcept { return error_.ok(); }

 private:
  std::string encoded_;
  Error error_;
};

/// What a SignatureParser is positioned on.
enum class Component : std::uint8_t {
  Integer,  ///< a tagged integer: tag(), value()
  Span,     ///< a tagged span: tag(), bytes() (value() is the byte count)
  End,      ///< the input is exhausted
  Error,    ///< malformed input: error() says where and what (sticky)
};

/// A pull parser over an encoding. Construction reads the first component;
/// next() reads the following one. It never reads past the end, each step
/// consumes at least two bytes (so loops over it terminate), and once it has
/// reached End or Error it stays there. Offsets are absolute: a nested parser
/// reports positions within the outermost string.
class SignatureParser {
 public:
  /// `integerBits` (1..64) bounds integer values: a value that does not fit a
  /// signed integer of that width is an overflow error. `baseOffset` is added
  /// to every reported offset (nested() uses it).
  explicit SignatureParser(std::string_view encoded, std::size_t baseOffset = 0,
                           unsigned integerBits = 64) noexcept;

  /// Advances to the next component and returns its kind.
  Component next() noexcept;

  Component kind() const noexcept { return kind_; }
  bool atEnd() const noexcept { return kind_ == Component::End; }
  bool failed() const noexcept { return kind_ == Component::Error; }
  /// The current component's tag ('\0' at End or Error).
  char tag() const noexcept { return tag_; }
  /// An Integer's value; a Span's content length (excluding the '!').
  std::int64_t value() const noexcept { return value_; }
  /// A Span's content (after the '!'); empty otherwise.
  std::string_view bytes() const noexcept { return bytes_; }
  /// Absolute offset of the current component's tag (of the end at End).
  std::size_t offset() const noexcept { return base_ + start_; }
  /// Absolute offset of a Span's first content byte.
  std::size_t contentOffset() const noexcept;
  /// A parser over the current Span's content, inheriting offsets and the
  /// integer width. On anything but a Span it is at End.
  SignatureParser nested() const noexcept;
  /// The ParseError (with offset) once failed(); success otherwise.
  const memjit::Error& error() const noexcept { return error_; }

 private:
  void fail(std::size_t localOffset, std::string message) noexcept;

  std::string_view text_;
  std::size_t base_ = 0;
  std::size_t cursor_ = 0;  // local offset of the next unread byte
  std::size_t start_ = 0;   // local offset of the current component
  unsigned integerBits_ = 64;
  Component kind_ = Component::End;
  char tag_ = 0;
  std::int64_t value_ = 0;
  std::string_view bytes_;
  memjit::Error error_;
};

/// Reads a whole encoding and rebuilds it component by component (spans kept
/// opaque). Returns the canonical re-encoding, or the first error. Useful to
/// validate and normalize (`_05` becomes `_5`).
Expected<std::string> canonicalize(std::string_view encoded, unsigned integerBits = 64);

}  // namespace memjit::signature
