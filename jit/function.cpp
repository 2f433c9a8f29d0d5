// jit::Function's accessors, out of line so that the public header needs
// only an incomplete FunctionRecord. On an empty handle they answer empty
// (no name, no addresses, an empty Callable), as LoadedModule's do.
#include "memjit/jit/function.h"

#include "function_record.h"

namespace memjit::jit {
namespace {

const detail::FunctionRecord& emptyRecord() {
  static const detail::FunctionRecord empty;
  return empty;
}

}  // namespace

const std::string& Function::name() const noexcept { return signature().name; }

const signature::FunctionSignature& Function::signature() const noexcept {
  return (record_ ? *record_ : emptyRecord()).signature;
}

void* Function::cInterface() const noexcept { return record_ ? record_->cInterface : nullptr; }

void* Function::expanded() const noexcept {
  if (!record_) return nullptr;
  if (record_->expanded || !record_->lazyExpanded) return record_->expanded;
  return record_->lazyExpanded->get();
}

const runtime::Callable& Function::runtime() const noexcept { return (record_ ? *record_ : emptyRecord()).invoker; }

std::shared_ptr<const void> Function::keepAlive() const noexcept { return record_; }

}  // namespace memjit::jit
