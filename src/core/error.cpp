#include "memjit/error.h"

namespace memjit {

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
