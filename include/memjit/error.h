// memjit's error values: every fallible public call returns Expected<T> or Error.
//
// Like llvm::Expected and asmjit's Error, failures are values, never exceptions
// or aborts. Unlike llvm::Expected, an unchecked failure does not abort the
// process; [[nodiscard]] makes the compiler insist that results are looked at.
#pragma once

#include <cstddef>
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

/// Human-readable name of an error code, e.g. "parse error".
std::string_view errorCodeName(ErrorCode code) noexcept;

/// A failure: its kind, a message naming what was wrong and where, and for
/// parse errors the byte offset into the input.
class [[nodiscard]] Error {
 public:
  /// The success value.
  Error() noexcept = default;
  Error(ErrorCode code, std::string message,
        std::optional<std::size_t> offset = std::nullopt)
      : code_(code), message_(std::move(message)), offset_(offset) {}

  static Error success() noexcept { return Error(); }

  /// True when this is a failure.
  explicit operator bool() const noexcept { return code_ != ErrorCode::Ok; }
  bool ok() const noexcept { return code_ == ErrorCode::Ok; }

  ErrorCode code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  std::optional<std::size_t> offset() const noexcept { return offset_; }

  /// "parse error at byte 7: expected 'x' after dimension" and the like.
  std::string str() const;

  /// The same error with `context + ": "` in front of its message, for
  /// callers that add where it happened (an argument, a file, a function).
  Error withContext(std::string_view context) const;

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

  /// True when a value is held.
  explicit operator bool() const noexcept { return storage_.index() == 0; }
  bool ok() const noexcept { return storage_.index() == 0; }

  T& operator*() & { return std::get<0>(storage_); }
  const T& operator*() const& { return std::get<0>(storage_); }
  T&& operator*() && { return std::get<0>(std::move(storage_)); }
  T* operator->() { return &std::get<0>(storage_); }
  const T* operator->() const { return &std::get<0>(storage_); }
  T& value() & { return std::get<0>(storage_); }
  const T& value() const& { return std::get<0>(storage_); }
  T&& value() && { return std::get<0>(std::move(storage_)); }

  /// The failure; only valid when !ok().
  const Error& error() const& { return std::get<1>(storage_); }
  Error&& error() && { return std::get<1>(std::move(storage_)); }
  /// The failure, or success when a value is held.
  Error takeError() const { return ok() ? Error::success() : std::get<1>(storage_); }

 private:
  std::variant<T, Error> storage_;
};

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
