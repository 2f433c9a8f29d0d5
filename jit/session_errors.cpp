#include "session_errors.h"

#include <utility>

namespace memjit::jit::detail {
namespace {

thread_local std::vector<OrcFailure> reported;

}  // namespace

void reportSessionError(llvm::Error error) {
  for (auto& failure : classifyOrc(std::move(error))) reported.push_back(std::move(failure));
}

void clearSessionErrors() noexcept { reported.clear(); }

std::vector<OrcFailure> takeSessionErrors() noexcept {
  std::vector<OrcFailure> failures;
  failures.swap(reported);
  return failures;
}

}  // namespace memjit::jit::detail
