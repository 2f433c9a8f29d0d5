#include "memjit/error.h"

namespace memjit {

std::string_view errorCodeName(ErrorCode code) noexcept {
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

std::string Error::str() const {
  if (ok()) return "success";
  std::string s(errorCodeName(code_));
  if (offset_) s += " at byte " + std::to_string(*offset_);
  s += ": ";
  s += message_;
  return s;
}

Error Error::withContext(std::string_view context) const {
  if (ok()) return *this;
  std::string m(context);
  m += ": ";
  m += message_;
  return Error(code_, std::move(m), offset_);
}

}  // namespace memjit
