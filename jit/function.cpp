// jit::Function's accessors, out of line so that the public header needs
// only an incomplete FunctionRecord.
#include "memjit/jit/function.h"

#include "function_record.h"

namespace memjit::jit {

const std::string& Function::name() const noexcept { return record_->signature.name; }

const signature::FunctionSignature& Function::signature() const noexcept { return record_->signature; }

void* Function::cInterface() const noexcept { return record_->cInterface; }

void* Function::expanded() const noexcept {
  if (record_->expanded || !record_->lazyExpanded) return record_->expanded;
  return record_->lazyExpanded->get();
}

const runtime::Callable& Function::runtime() const noexcept { return record_->invoker; }

std::shared_ptr<const void> Function::keepAlive() const noexcept { return record_; }

}  // namespace memjit::jit
