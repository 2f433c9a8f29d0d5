// Jit, the handle to the engine: its lifetime, and finding, removing and
// registering symbols. Adding modules is in add_module.cpp.
#include "memjit/jit/jit.h"

#include <string>

#include "engine.h"
#include "llvm_error.h"
#include "memjit/metadata_symbols.h"

namespace memjit::jit {

using detail::JitCore;
using detail::ModuleState;

namespace {

Error ambiguous(std::string_view what, std::string_view name, const std::vector<std::shared_ptr<ModuleState>>& definers,
                std::string_view instead) {
  return Error(ErrorCode::InvalidArgument, std::string(what) + "'" + std::string(name) + "' is defined by " +
                                               detail::moduleList(definers) + ": use " + std::string(instead));
}

}  // namespace

Error detail::movedFromJit(std::string_view method) {
  return Error(ErrorCode::InvalidArgument, "Jit::" + std::string(method) +
                                               " called on a moved-from Jit: it holds no engine "
                                               "(assign Jit::create's result to it before use)");
}

Jit::Jit(std::shared_ptr<JitCore> core) noexcept : core_(std::move(core)) {}
Jit::Jit(Jit&&) noexcept = default;
Jit& Jit::operator=(Jit&& other) noexcept {
  if (this != &other) {
    if (core_) {
      std::lock_guard<std::mutex> lock(core_->mutex);
      core_->modules.clear();
    }
    core_ = std::move(other.core_);
  }
  return *this;
}

Jit::~Jit() {
  if (!core_) return;
  // Break the core <-> module cycle; modules still referenced by a Function
  // keep the core (and LLJIT) alive until they go.
  std::unordered_map<ModuleState*, std::shared_ptr<ModuleState>> modules;
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    modules.swap(core_->modules);
    core_->owners.clear();
  }
  modules.clear();
}

Expected<Jit> Jit::create(JitOptions options) {
  MEMJIT_ASSIGN_OR_RETURN(std::shared_ptr<JitCore> core, JitCore::create(std::move(options)));
  return Jit(std::move(core));
}

const TargetSpec& Jit::target() const noexcept { return TargetSpec::host(); }
const JitOptions& Jit::options() const noexcept {
  static const JitOptions movedFrom;
  return core_ ? core_->options : movedFrom;
}

std::size_t Jit::moduleCount() const {
  if (!core_) return 0;
  std::lock_guard<std::mutex> lock(core_->mutex);
  return core_->modules.size();
}

Error Jit::remove(LoadedModule& module) {
  if (!core_) return detail::movedFromJit("remove");
  std::shared_ptr<ModuleState> state = module.state();
  if (!state) return Error(ErrorCode::InvalidArgument, "empty module handle");
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    if (!core_->removeLocked(state.get()))
      return Error(ErrorCode::NotFound, "module '" + state->name + "' is not loaded in this JIT");
  }
  module = LoadedModule();
  // Once `state` goes (unless a Function or a module linking against it
  // still holds it) its JITDylib is removed and the code freed.
  return Error::success();
}

Expected<Function> Jit::lookup(std::string_view name) const {
  if (!core_) return detail::movedFromJit("lookup");
  std::vector<std::shared_ptr<ModuleState>> definers;
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    definers = core_->definersLocked({std::string(name), metadata::symbolName(metadata::kCInterfacePrefix, name)});
  }
  if (definers.empty())
    return Error(ErrorCode::NotFound, "no loaded module defines function '" + std::string(name) + "'");
  if (definers.size() > 1) return ambiguous("", name, definers, "LoadedModule::function");
  return LoadedModule(std::move(definers.front())).function(name);
}

Expected<void*> Jit::lookupSymbol(std::string_view name) const {
  if (!core_) return detail::movedFromJit("lookupSymbol");
  std::vector<std::shared_ptr<ModuleState>> definers;
  {
    std::lock_guard<std::mutex> lock(core_->mutex);
    definers = core_->definersLocked({std::string(name)});
  }
  if (definers.size() > 1) return ambiguous("symbol ", name, definers, "LoadedModule::symbol");
  if (definers.size() == 1) return LoadedModule(std::move(definers.front())).symbol(name);
  // Not a module's: what every module links against.
  auto address = core_->lljit->getExecutionSession().lookup(
      core_->sharedLinks, core_->lljit->mangleAndIntern(llvm::StringRef(name.data(), name.size())));
  if (!address) return detail::fromOrc(address.takeError(), "symbol '" + std::string(name) + "'");
  return address->getAddress().toPtr<void*>();
}

Error Jit::registerSymbol(std::string name, void* address, std::optional<FunctionType> type) {
  if (!core_) return detail::movedFromJit("registerSymbol");
  if (name.empty()) return Error(ErrorCode::InvalidArgument, "cannot register a symbol with an empty name");
  if (!address)
    return Error(ErrorCode::InvalidArgument, "cannot register symbol '" + name + "' at a null address");
  std::lock_guard<std::mutex> lock(core_->mutex);
  llvm::orc::SymbolMap symbols;
  symbols[core_->lljit->mangleAndIntern(name)] = {
      llvm::orc::ExecutorAddr::fromPtr(address),
      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto err = core_->userDylib->define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return detail::fromOrc(std::move(err), "cannot register symbol '" + name + "'");
  core_->registered.push_back({std::move(name), address, std::move(type)});
  return Error::success();
}

std::vector<RegisteredSymbol> Jit::registeredSymbols() const {
  if (!core_) return {};
  std::lock_guard<std::mutex> lock(core_->mutex);
  return core_->registered;
}

}  // namespace memjit::jit
