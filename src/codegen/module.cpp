#include "memjit/codegen/module.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "module_impl.h"

namespace memjit::codegen {

Module::Module(std::string name) : impl_(std::make_unique<Impl>()) {
  impl_->name = std::move(name);
  impl_->context = std::make_unique<llvm::LLVMContext>();
  impl_->module = std::make_unique<llvm::Module>(impl_->name, *impl_->context);
}

Module::~Module() {
  // The llvm::Module refers to the context: destroy it first.
  if (impl_) impl_->module.reset();
}
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    if (impl_) impl_->module.reset();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

const std::string& Module::name() const noexcept { return impl_->name; }
llvm::LLVMContext& Module::context() { return *impl_->context; }
llvm::Module& Module::llvm() { return *impl_->module; }
const llvm::Module& Module::llvm() const { return *impl_->module; }

const std::vector<signature::FunctionSignature>& Module::signatures() const noexcept {
  return impl_->signatures;
}

Error Module::verify() const {
  MEMJIT_TRY(ModuleAccess::checkLive(*this));
  std::string report;
  llvm::raw_string_ostream os(report);
  if (llvm::verifyModule(*impl_->module, &os)) {
    os.flush();
    return Error(ErrorCode::CompileError,
                 "LLVM rejected module '" + impl_->name + "': " + report);
  }
  return Error::success();
}

std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>> Module::release() && {
  std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>> out{
      std::move(impl_->context), std::move(impl_->module)};
  impl_->functions.clear();
  return out;
}

}  // namespace memjit::codegen
