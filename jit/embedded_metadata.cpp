#include "memjit/jit/embedded_metadata.h"

#include <algorithm>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

#include "memjit/metadata_symbols.h"
#include "memjit/type_syntax.h"

namespace memjit::jit {

Expected<signature::FunctionSignature> signatureFromMetadata(std::string name,
                                                             const MetadataStrings& strings) {
  auto type = parseFunctionType(strings.type);
  if (!type)
    return type.error().withContext("function '" + name + "': " +
                                    std::string(metadata::kTypePrefix) + name);
  signature::FunctionSignature sig;
  if (!strings.raw || !strings.reflection) {
    // Older or hand-written modules may carry only the type; derive the rest.
    auto described = signature::describe(name, *type);
    if (!described) return described.error().withContext("function '" + name + "'");
    sig = std::move(*described);
  }
  sig.name = std::move(name);
  sig.type = std::move(*type);
  if (strings.raw) sig.raw = *strings.raw;
  if (strings.reflection) sig.reflection = *strings.reflection;
  sig.sip = strings.sip;
  sig.resultAllocator = strings.resultAllocator;
  return sig;
}

namespace {

Expected<std::optional<std::string>> constantString(const llvm::Module& module,
                                                    const std::string& symbol) {
  const llvm::GlobalVariable* global = module.getNamedGlobal(symbol);
  if (!global) return std::optional<std::string>();
  const auto* data = global->hasInitializer()
                         ? llvm::dyn_cast<llvm::ConstantDataSequential>(global->getInitializer())
                         : nullptr;
  if (!data || !data->isCString())
    return Error(ErrorCode::ParseError, "metadata global '" + symbol + "' in module '" +
                                            module.getModuleIdentifier() +
                                            "' is not a NUL-terminated constant string");
  return std::optional<std::string>(data->getAsCString().str());
}

}  // namespace

Expected<std::vector<signature::FunctionSignature>> readEmbeddedSignatures(
    const llvm::Module& module) {
  std::vector<std::string> names;
  for (const llvm::GlobalVariable& global : module.globals()) {
    llvm::StringRef symbol = global.getName();
    if (symbol.starts_with(metadata::kTypePrefix))
      names.push_back(symbol.drop_front(metadata::kTypePrefix.size()).str());
  }
  std::sort(names.begin(), names.end());
  std::vector<signature::FunctionSignature> result;
  for (const std::string& name : names) {
    MetadataStrings strings;
    MEMJIT_ASSIGN_OR_RETURN(auto type, constantString(module, metadata::symbolName(metadata::kTypePrefix, name)));
    strings.type = *type;
    MEMJIT_ASSIGN_OR_RETURN(strings.raw, constantString(module, metadata::symbolName(metadata::kRawPrefix, name)));
    MEMJIT_ASSIGN_OR_RETURN(strings.reflection, constantString(module, metadata::symbolName(metadata::kReflectionPrefix, name)));
    MEMJIT_ASSIGN_OR_RETURN(strings.sip, constantString(module, metadata::symbolName(metadata::kSipPrefix, name)));
    MEMJIT_ASSIGN_OR_RETURN(strings.resultAllocator, constantString(module, metadata::symbolName(metadata::kAllocatorPrefix, name)));
    MEMJIT_ASSIGN_OR_RETURN(auto sig, signatureFromMetadata(name, strings));
    result.push_back(std::move(sig));
  }
  return result;
}

static Error addString(llvm::Module& module, const std::string& symbol, const std::string& text) {
  if (module.getNamedValue(symbol))
    return Error(ErrorCode::InvalidArgument,
                 "module '" + module.getModuleIdentifier() + "' already defines '" + symbol + "'");
  llvm::Constant* init = llvm::ConstantDataArray::getString(module.getContext(), text, true);
  auto* global = new llvm::GlobalVariable(module, init->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::ExternalLinkage, init, symbol);
  global->setAlignment(llvm::Align(1));
  return Error::success();
}

Error embedSignature(llvm::Module& module, const signature::FunctionSignature& sig) {
  MEMJIT_TRY(addString(module, metadata::symbolName(metadata::kTypePrefix, sig.name), toString(sig.type)));
  MEMJIT_TRY(addString(module, metadata::symbolName(metadata::kRawPrefix, sig.name), sig.raw));
  MEMJIT_TRY(addString(module, metadata::symbolName(metadata::kReflectionPrefix, sig.name), sig.reflection));
  if (sig.sip) MEMJIT_TRY(addString(module, metadata::symbolName(metadata::kSipPrefix, sig.name), *sig.sip));
  if (sig.resultAllocator)
    MEMJIT_TRY(addString(module, metadata::symbolName(metadata::kAllocatorPrefix, sig.name), *sig.resultAllocator));
  return Error::success();
}

}  // namespace memjit::jit
