// LoadedModule, the handle to a linked module, and the ModuleState it points at.
#include "memjit/jit/loaded_module.h"

#include <algorithm>
#include <optional>

#include "disassembly.h"
#include "engine.h"
#include "llvm_error.h"
#include "memjit/jit/embedded_metadata.h"
#include "memjit/metadata_symbols.h"

namespace memjit::jit {
namespace detail {

bool ModuleState::defers(std::string_view symbol) const {
  return std::find(deferred.begin(), deferred.end(), symbol) != deferred.end();
}

Expected<void*> ModuleState::lookupDeferred(const std::string& symbol) const {
  // Materialises the stub on first use; ORC serialises concurrent requests.
  auto address = core->lljit->getExecutionSession().lookup(
      llvm::orc::makeJITDylibSearchOrder(dylib, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
      core->lljit->mangleAndIntern(symbol));
  if (!address) return fromOrc(address.takeError(), "expanded entry '" + symbol + "' of module '" + name + "'");
  return address->getAddress().toPtr<void*>();
}

ModuleState::~ModuleState() {
  if (dylib && !codeOwner) {
    // Nothing can be reported from a destructor; ORC only fails here when
    // a plugin refuses to release, and the memory is gone either way.
    llvm::consumeError(core->lljit->getExecutionSession().removeJITDylib(*dylib));
  }
}

namespace {

// Reads the function's metadata constants out of `symbols` (loaded memory).
Expected<FunctionRecord> readFunction(const std::string& moduleName,
                                      const std::map<std::string, void*>& symbols,
                                      std::string_view function) {
  const std::string name(function);
  auto text = [&](std::string_view prefix) -> std::optional<std::string> {
    auto it = symbols.find(metadata::symbolName(prefix, name));
    if (it == symbols.end() || !it->second) return std::nullopt;
    return std::string(static_cast<const char*>(it->second));
  };
  FunctionRecord record;
  auto expanded = symbols.find(name);
  auto ciface = symbols.find(metadata::symbolName(metadata::kCInterfacePrefix, name));
  if (expanded == symbols.end() && ciface == symbols.end())
    return Error(ErrorCode::NotFound,
                 "module '" + moduleName + "' defines no function '" + name + "'");
  if (expanded != symbols.end()) record.expanded = expanded->second;
  if (ciface != symbols.end()) record.cInterface = ciface->second;
  MetadataStrings strings;
  auto type = text(metadata::kTypePrefix);
  if (!type)
    return Error(ErrorCode::NotFound, "module '" + moduleName + "' has no signature metadata for '" +
                                          name + "' (no symbol " +
                                          metadata::symbolName(metadata::kTypePrefix, name) + ")");
  strings.type = *type;
  strings.raw = text(metadata::kRawPrefix);
  strings.reflection = text(metadata::kReflectionPrefix);
  strings.sip = text(metadata::kSipPrefix);
  strings.resultAllocator = text(metadata::kAllocatorPrefix);
  MEMJIT_ASSIGN_OR_RETURN(record.signature, signatureFromMetadata(name, strings));
  if (record.signature.resultAllocator) {
    auto allocator = symbols.find(
        metadata::symbolName(metadata::kCInterfacePrefix, *record.signature.resultAllocator));
    if (allocator != symbols.end()) record.resultAllocator = allocator->second;
  }
  if (record.cInterface) {
    auto invoker = runtime::Callable::create(record.cInterface, record.signature, record.resultAllocator);
    if (!invoker) return invoker.error().withContext("function '" + name + "'");
    record.invoker = std::move(*invoker);
  }
  return record;
}

}  // namespace
}  // namespace detail

static const std::string kEmpty;

const std::string& LoadedModule::name() const { return state_ ? state_->name : kEmpty; }
bool LoadedModule::fromCache() const { return state_ && state_->fromCache; }
const std::string& LoadedModule::cacheKey() const { return state_ ? state_->cacheKey : kEmpty; }
const CompileStats& LoadedModule::compileStats() const {
  static const CompileStats kNone;
  return state_ ? state_->stats : kNone;
}

const std::vector<Remark>& LoadedModule::remarks() const {
  static const std::vector<Remark> kNone;
  return state_ ? state_->remarks : kNone;
}

Expected<std::string> LoadedModule::assembly(std::string_view name) const {
  if (!state_) return Error(ErrorCode::InvalidArgument, "empty module handle");
  const std::string where = "module '" + state_->name + "'";
  std::string symbol(name);
  auto address = state_->symbols.find(symbol);
  std::string note;
  if (address == state_->symbols.end() || state_->defers(name)) {
    // The body of a function compiled with a deferred expanded entry.
    const std::string cInterface = metadata::symbolName(metadata::kCInterfacePrefix, symbol);
    address = state_->symbols.find(cInterface);
    if (address == state_->symbols.end())
      return Error(ErrorCode::NotFound, where + " defines no function '" + symbol + "'");
    note = "# '" + symbol + "' is compiled on first use as a stub calling " + cInterface + ", which holds its body\n";
    symbol = cInterface;
  }
  auto text = detail::disassembleFunction(*state_->object, symbol, address->second);
  if (!text) return text.error().withContext(where);
  return note + *text;
}

Expected<Function> LoadedModule::function(std::string_view name) const {
  if (!state_) return Error(ErrorCode::InvalidArgument, "empty module handle");
  // A module sharing another's code shares its resolved functions too.
  detail::ModuleState& table = state_->codeOwner ? *state_->codeOwner : *state_;
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.functions.find(std::string(name));
  if (it == table.functions.end()) {
    MEMJIT_ASSIGN_OR_RETURN(auto record, detail::readFunction(table.name, table.symbols, name));
    if (!record.expanded && table.defers(name)) {
      record.lazyExpanded = std::make_shared<detail::LazyAddress>();
      // The record lives in the module's state, which this pointer outlives never.
      record.lazyExpanded->resolve = [state = &table, symbol = std::string(name)]() -> void* {
        auto address = state->lookupDeferred(symbol);
        return address ? *address : nullptr;
      };
    }
    it = table.functions
             .emplace(std::string(name), std::make_shared<detail::FunctionRecord>(std::move(record)))
             .first;
  }
  // Aliasing: the handle points at the record but owns the whole module
  // (and, through it, the code's owner).
  return Function(std::shared_ptr<const detail::FunctionRecord>(state_, it->second.get()));
}

std::vector<std::string> LoadedModule::functionNames() const {
  std::vector<std::string> names;
  if (!state_) return names;
  for (const auto& [symbol, address] : state_->symbols)
    if (std::string_view(symbol).substr(0, metadata::kTypePrefix.size()) == metadata::kTypePrefix)
      names.push_back(symbol.substr(metadata::kTypePrefix.size()));
  return names;
}

Expected<void*> LoadedModule::symbol(std::string_view name) const {
  if (!state_) return Error(ErrorCode::InvalidArgument, "empty module handle");
  auto it = state_->symbols.find(std::string(name));
  if (it == state_->symbols.end() && state_->defers(name)) return state_->lookupDeferred(std::string(name));
  if (it == state_->symbols.end())
    return Error(ErrorCode::NotFound,
                 "module '" + state_->name + "' defines no symbol '" + std::string(name) + "'");
  return it->second;
}

std::vector<std::string> LoadedModule::symbolNames() const {
  std::vector<std::string> names;
  if (!state_) return names;
  for (const auto& entry : state_->symbols) names.push_back(entry.first);
  names.insert(names.end(), state_->deferred.begin(), state_->deferred.end());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace memjit::jit
