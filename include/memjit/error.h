// memjit's error values: every fallible public call returns Expected<T> or Error.
//
// Like llvm::Expected and asmjit's Error, failures are values, never
// exceptions; [[nodiscard]] makes the compiler insist that results are looked
// at. Taking the value of a failed Expected (`*e`, `e->`, `e.value()`) or the
// error of a successful one is a programming error: like llvm::cantFail, it
// prints memjit's message to stderr and aborts, instead of ending in an
// anonymous std::bad_variant_access. `cantFail(e)` says the same on purpose,
// for code (examples, tools, tests) where a failure is a bug.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace memjit {

/// What kind of failure an Error reports. Stable: tools and tests switch on it.
enum class ErrorCode : int {
  Ok = 0,
  ParseError,       ///< malformed text (type syntax, signature, JSON); `offset` is set
  InvalidArgument,  ///< a value the caller passed is out of range or inconsistent
  TypeMismatch,     ///< a value's type differs from what a signature requires
  ArityMismatch,    ///< wrong number of arguments, results, indices or values
  NotFound,         ///< a named function, symbol, key or file does not exist
  Unsupported,      ///< valid input that this configuration cannot handle
  CompileError,     ///< LLVM rejected a module or failed to generate code
  IoError,          ///< a file could not be read or written
  Internal,         ///< a memjit bug; the message says where
  RuntimeCheckFailed,  ///< a checked-mode kernel stopped at a failed check (runtime/checks.h)
};

/// Human-readable name of an error code, e.g. "parse error". Inline, like
/// Error::abortWith, so that every layer can name codes without a
/// link-order dependency on memjit::core.
inline std::string_view errorCodeName(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::Ok: return "success";
    case ErrorCode::ParseError: return "parse error";
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::TypeMismatch: return "type mismatch";
    case ErrorCode::ArityMismatch: return "arity mismatch";
    case ErrorCode::NotFound: return "not found";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::CompileError: return "compile error";
    case ErrorCode::IoError: return "I/O error";
    case ErrorCode::Internal: return "internal error";
    case ErrorCode::RuntimeCheckFailed: return "runtime check failed";
  }
  return "unknown error";
}

/// A failure: its kind, a message naming what was wrong and where, and for
/// parse errors the byte offset into the input.
class [[nodiscard]] Error {
 public:
  Error() noexcept = default;  ///< success
  Error(ErrorCode code, std::string message, std::optional<std::size_t> offset = std::nullopt)
      : code_(code), message_(std::move(message)), offset_(offset) {}
  static Error success() noexcept { return Error(); }

  explicit operator bool() const noexcept { return code_ != ErrorCode::Ok; }  ///< true when this is a failure
  bool ok() const noexcept { return code_ == ErrorCode::Ok; }

  ErrorCode code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  std::optional<std::size_t> offset() const noexcept { return offset_; }

  /// "parse error at byte 7: expected 'x' after dimension" and the like.
  std::string str() const;

  /// The same error with `context + ": "` in front of its message, for
  /// callers that add where it happened (an argument, a file, a function).
  Error withContext(std::string_view context) const;

  /// Prints "memjit: <what>: <str()>" to stderr and aborts: what a failure
  /// that is a bug comes to (cantFail, a failed Expected's value). Inline so
  /// that every layer can abort without a link-order dependency on memjit::core.
  [[noreturn]] void abortWith(const char* what) const noexcept {
    // One fputs, so that the line stays whole when other threads write too.
    std::string line = ok() ? std::string("success") : std::string(errorCodeName(code_));
    if (offset_) line += " at byte " + std::to_string(*offset_);
    if (!ok()) line += ": " + message_;
    line = std::string("memjit: ") + what + ": " + line + "\n";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    std::abort();
  }

 private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
  std::optional<std::size_t> offset_;
};

/// A T or an Error.
template <typename T>
class [[nodiscard]] Expected {
  static_assert(!std::is_same_v<T, Error>, "use Error directly");

 public:
  Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : storage_(std::in_place_index<1>, std::move(error)) {}

  explicit operator bool() const noexcept { return storage_.index() == 0; }  ///< true when a value is held
  bool ok() const noexcept { return storage_.index() == 0; }

  /// The value. A failed Expected aborts with its message (see the top).
  T& operator*() & { return checkedValue(); }
  const T& operator*() const& { return checkedValue(); }
  T&& operator*() && { return std::move(checkedValue()); }
  T* operator->() { return &checkedValue(); }
  const T* operator->() const { return &checkedValue(); }
  T& value() & { return checkedValue(); }
  const T& value() const& { return checkedValue(); }
  T&& value() && { return std::move(checkedValue()); }

  /// The failure; a successful Expected aborts (see the top).
  const Error& error() const& { return checkedError(); }
  Error&& error() && { return std::move(checkedError()); }
  /// The failure, or success when a value is held.
  Error takeError() const { return ok() ? Error::success() : std::get<1>(storage_); }

 private:
  T& checkedValue() {
    if (T* v = std::get_if<0>(&storage_)) [[likely]]
      return *v;
    std::get<1>(storage_).abortWith("value of a failed Expected taken");
  }
  const T& checkedValue() const { return const_cast<Expected*>(this)->checkedValue(); }
  Error& checkedError() {
    if (Error* e = std::get_if<1>(&storage_)) [[likely]]
      return *e;
    Error().abortWith("error() of a successful Expected taken");
  }
  const Error& checkedError() const { return const_cast<Expected*>(this)->checkedError(); }

  std::variant<T, Error> storage_;
};

/// The value of an Expected whose failure would be a bug; aborts with the
/// error's message otherwise (llvm::cantFail's contract, memjit's message).
template <typename T>
T cantFail(Expected<T> expected, const char* what = "unexpected failure") {
  if (!expected) expected.error().abortWith(what);
  return std::move(*expected);
}
/// The same for an Error that must be success.
inline void cantFail(Error error, const char* what = "unexpected failure") {
  if (error) error.abortWith(what);
}

}  // namespace memjit

/// Propagates a failure out of a function that returns Error or Expected<U>.
#define MEMJIT_TRY(expr)                          \
  do {                                            \
    if (::memjit::Error memjit_err_ = (expr))     \
      return memjit_err_;                         \
  } while (0)

#define MEMJIT_CONCAT_IMPL_(a, b) a##b
#define MEMJIT_CONCAT_(a, b) MEMJIT_CONCAT_IMPL_(a, b)

/// `MEMJIT_ASSIGN_OR_RETURN(auto x, parse(s));` declares x from an Expected's
/// value, or returns its error from the enclosing function.
#define MEMJIT_ASSIGN_OR_RETURN(decl, expr) \
  MEMJIT_ASSIGN_OR_RETURN_IMPL_(MEMJIT_CONCAT_(memjit_tmp_, __LINE__), decl, expr)
#define MEMJIT_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                                    \
  if (!tmp) return std::move(tmp).error();              \
  decl = std::move(*tmp)
