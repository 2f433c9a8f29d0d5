// The ORC side of deferred expanded entries: a materialization unit that
// claims their names when the module is linked and builds them on first
// lookup (deferred_entries.cpp takes them out of the module).
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>

#include "deferred_entries.h"

namespace memjit::jit::detail {
namespace {

// Stands for a module's deferred expanded entries in their JITDylib until one
// is looked up; then builds the stubs and hands them to LLJIT's compile layer.
class DeferredEntriesUnit final : public llvm::orc::MaterializationUnit {
 public:
  DeferredEntriesUnit(llvm::orc::LLJIT& lljit, std::string moduleName, DeferredEntries entries)
      : MaterializationUnit(interface(lljit, entries.names)),
        lljit_(lljit),
        moduleName_(std::move(moduleName)),
        entries_(std::move(entries)) {}

  llvm::StringRef getName() const override { return "memjit expanded entries"; }

  void materialize(std::unique_ptr<llvm::orc::MaterializationResponsibility> responsibility) override {
    auto stubs = entries_.buildStubs();
    if (!stubs) {
      lljit_.getExecutionSession().reportError(llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "cannot build the expanded entries of module '" + moduleName_ + "': " + stubs.error().str()));
      responsibility->failMaterialization();
      return;
    }
    lljit_.getIRCompileLayer().emit(std::move(responsibility),
                                    llvm::orc::ThreadSafeModule(std::move(stubs->second), std::move(stubs->first)));
  }

 private:
  static Interface interface(llvm::orc::LLJIT& lljit, const std::vector<std::string>& names) {
    llvm::orc::SymbolFlagsMap flags;
    for (const std::string& name : names)
      flags[lljit.mangleAndIntern(name)] = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
    return Interface(std::move(flags), nullptr);
  }
  void discard(const llvm::orc::JITDylib&, const llvm::orc::SymbolStringPtr&) override {}

  llvm::orc::LLJIT& lljit_;
  std::string moduleName_;
  DeferredEntries entries_;
};

}  // namespace

llvm::Error defineDeferredEntries(llvm::orc::LLJIT& lljit, const llvm::orc::ResourceTrackerSP& tracker,
                                  const std::string& moduleName, DeferredEntries& entries) {
  return tracker->getJITDylib().define(
      std::make_unique<DeferredEntriesUnit>(lljit, moduleName, std::move(entries)), tracker);
}

}  // namespace memjit::jit::detail
