#include "memjit/codegen/metadata.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include "function_removal.h"
#include "memjit/metadata_symbols.h"
#include "memjit/type_syntax.h"
#include "module_impl.h"

namespace memjit::codegen {

namespace {

void appendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// Creates or replaces an exported NUL-terminated string constant.
void setStringGlobal(llvm::Module& m, const std::string& symbol, std::string_view text) {
  llvm::Constant* init = llvm::ConstantDataArray::getString(m.getContext(), text, true);
  if (llvm::GlobalVariable* old = m.getGlobalVariable(symbol)) {
    if (old->getValueType() == init->getType()) {
      old->setInitializer(init);
      return;
    }
    old->setName(symbol + ".old");
    auto* fresh = new llvm::GlobalVariable(m, init->getType(), true, llvm::GlobalValue::ExternalLinkage,
                                           init, symbol);
    fresh->setAlignment(llvm::Align(1));
    old->replaceAllUsesWith(fresh);
    old->eraseFromParent();
    return;
  }
  auto* gv = new llvm::GlobalVariable(m, init->getType(), true, llvm::GlobalValue::ExternalLinkage,
                                      init, symbol);
  gv->setAlignment(llvm::Align(1));
}

}  // namespace

std::string manifestJson(std::string_view moduleName, const std::vector<std::string>& functions) {
  std::string out = "{\"memjit\":1,\"module\":";
  appendJsonString(out, moduleName);
  out += ",\"functions\":[";
  for (std::size_t i = 0; i < functions.size(); ++i) {
    if (i) out += ',';
    appendJsonString(out, functions[i]);
  }
  out += "]}";
  return out;
}

std::string manifestSymbol(std::string_view moduleName) {
  std::string name(moduleName);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return metadata::symbolName(metadata::kManifestPrefix, name);
}

Error emitFunctionMetadata(Module& module, const signature::FunctionSignature& sig) {
  MEMJIT_TRY(ModuleAccess::checkLive(module));
  auto& impl = ModuleAccess::impl(module);
  for (const auto& s : impl.signatures)
    if (s.name == sig.name)
      return Error(ErrorCode::InvalidArgument,
                   "function '" + sig.name + "' already has metadata in module '" + impl.name + "'");
  llvm::Module& m = *impl.module;
  setStringGlobal(m, metadata::symbolName(metadata::kTypePrefix, sig.name), toString(sig.type));
  if (!sig.raw.empty()) setStringGlobal(m, metadata::symbolName(metadata::kRawPrefix, sig.name), sig.raw);
  if (!sig.reflection.empty())
    setStringGlobal(m, metadata::symbolName(metadata::kReflectionPrefix, sig.name), sig.reflection);
  if (sig.sip) setStringGlobal(m, metadata::symbolName(metadata::kSipPrefix, sig.name), *sig.sip);
  if (sig.resultAllocator)
    setStringGlobal(m, metadata::symbolName(metadata::kAllocatorPrefix, sig.name), *sig.resultAllocator);
  impl.signatures.push_back(sig);
  impl.definedOrder.push_back(sig.name);
  setStringGlobal(m, manifestSymbol(impl.name), manifestJson(impl.name, impl.definedOrder));
  return Error::success();
}

namespace detail {

void removeFunctionMetadata(Module& module, std::string_view name) {
  auto& impl = ModuleAccess::impl(module);
  llvm::Module& m = *impl.module;
  for (std::string_view prefix : {metadata::kTypePrefix, metadata::kRawPrefix, metadata::kReflectionPrefix,
                                  metadata::kSipPrefix, metadata::kAllocatorPrefix})
    if (llvm::GlobalVariable* gv = m.getGlobalVariable(metadata::symbolName(prefix, name))) {
      gv->removeDeadConstantUsers();
      if (gv->use_empty()) gv->eraseFromParent();
    }
  std::erase_if(impl.signatures, [&](const signature::FunctionSignature& s) { return s.name == name; });
  const auto before = impl.definedOrder.size();
  std::erase(impl.definedOrder, name);
  if (impl.definedOrder.size() == before) return;
  // A module without functions has no manifest, as before its first one.
  if (impl.definedOrder.empty()) {
    if (llvm::GlobalVariable* gv = m.getGlobalVariable(manifestSymbol(impl.name))) gv->eraseFromParent();
  } else {
    setStringGlobal(m, manifestSymbol(impl.name), manifestJson(impl.name, impl.definedOrder));
  }
}

}  // namespace detail

Expected<std::string> readMetadataString(const Module& module, std::string_view symbol) {
  MEMJIT_TRY(ModuleAccess::checkLive(module));
  const llvm::GlobalVariable* gv = module.llvm().getGlobalVariable(symbol);
  if (!gv || !gv->hasInitializer())
    return Error(ErrorCode::NotFound, "module '" + module.name() + "' has no global '" +
                                          std::string(symbol) + "'");
  const auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(gv->getInitializer());
  if (!data || !data->isCString())
    return Error(ErrorCode::InvalidArgument,
                 "global '" + std::string(symbol) + "' is not a NUL-terminated string");
  return std::string(data->getAsCString());
}

}  // namespace memjit::codegen
