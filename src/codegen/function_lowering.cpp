#include "memjit/codegen/function_lowering.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "descriptor_ops.h"
#include "memjit/codegen/metadata.h"
#include "memjit/metadata_symbols.h"
#include "memjit/type_syntax.h"
#include "module_impl.h"

namespace memjit::codegen {

bool isValidSymbolName(std::string_view name) noexcept {
  // The first character is a letter or '_' (not a digit, '.' or '$').
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '$') return false;
  return true;
}

namespace {

ArgumentAttributes attributesOf(const FunctionOptions& o, std::size_t input) {
  ArgumentAttributes a = input < o.arguments.size() ? o.arguments[input] : ArgumentAttributes{};
  a.noalias |= o.noalias;
  return a;
}

void addPointerAttributes(llvm::Function* f, unsigned argNo, const ArgumentAttributes& a) {
  if (a.noalias) f->addParamAttr(argNo, llvm::Attribute::NoAlias);
  if (a.alignment) f->addParamAttr(argNo, llvm::Attribute::getWithAlignment(f->getContext(), llvm::Align(a.alignment)));
}

Error checkDeclaration(Module& module, std::string_view name, const FunctionType& type,
                       const FunctionOptions& options) {
  MEMJIT_TRY(ModuleAccess::checkLive(module));
  if (!isValidSymbolName(name))
    return Error(ErrorCode::InvalidArgument,
                 "'" + std::string(name) + "' is not a valid function name ([A-Za-z_][A-Za-z0-9_.$]*)");
  auto& impl = ModuleAccess::impl(module);
  if (impl.functions.count(name) || impl.module->getNamedValue(name))
    return Error(ErrorCode::InvalidArgument,
                 "module '" + impl.name + "' already has a symbol named '" + std::string(name) + "'");
  if (!options.arguments.empty() && options.arguments.size() != type.inputs.size())
    return Error(ErrorCode::ArityMismatch,
                 "function '" + std::string(name) + "': " + std::to_string(options.arguments.size()) +
                     " argument attributes given for " + std::to_string(type.inputs.size()) + " inputs");
  for (std::size_t i = 0; i < options.arguments.size(); ++i) {
    unsigned a = options.arguments[i].alignment;
    if (a & (a - 1))
      return Error(ErrorCode::InvalidArgument, "function '" + std::string(name) + "' argument #" +
                                                   std::to_string(i) + ": alignment " + std::to_string(a) +
                                                   " is not a power of two");
  }
  MEMJIT_TRY(checkOptions(options.lowering));
  if (options.lowering.barePtr) {
    for (std::size_t i = 0; i < type.inputs.size(); ++i)
      if (Error e = checkBarePtr(type.inputs[i]))
        return e.withContext("function '" + std::string(name) + "' argument #" + std::to_string(i));
    for (std::size_t i = 0; i < type.results.size(); ++i)
      if (Error e = checkBarePtr(type.results[i]))
        return e.withContext("function '" + std::string(name) + "' result #" + std::to_string(i));
  }
  return Error::success();
}

// Creates `name` with the expanded convention and attributes on data pointers.
Expected<llvm::Function*> createLowered(Module& module, std::string_view name, const FunctionType& type,
                                        const FunctionOptions& options) {
  auto ft = lowerFunctionType(module.context(), type, options.lowering);
  if (!ft) return ft.error().withContext("function '" + std::string(name) + "'");
  auto* f = llvm::Function::Create(*ft, llvm::GlobalValue::ExternalLinkage, name, module.llvm());
  unsigned argNo = 0;
  for (std::size_t i = 0; i < type.inputs.size(); ++i) {
    const Type& t = type.inputs[i];
    if (isScalar(t)) {
      ++argNo;
    } else if (options.lowering.barePtr) {
      addPointerAttributes(f, argNo++, attributesOf(options, i));
    } else if (isUnrankedMemRef(t)) {
      argNo += 2;
    } else {
      // Only the aligned pointer: the allocated one aliases it by design.
      addPointerAttributes(f, argNo + 1, attributesOf(options, i));
      argNo += 3 + 2 * static_cast<unsigned>(std::get<MemRefType>(t).rank());
    }
  }
  return f;
}

Expected<llvm::Function*> createCInterface(Module& module, std::string_view name, const FunctionType& type,
                                           const FunctionOptions& options) {
  auto ft = cInterfaceFunctionType(module.context(), type, options.lowering);
  if (!ft) return ft.error().withContext("function '" + std::string(name) + "'");
  auto* f = llvm::Function::Create(*ft, llvm::GlobalValue::ExternalLinkage,
                                   metadata::symbolName(metadata::kCInterfacePrefix, name), module.llvm());
  unsigned first = cInterfaceReturnsByPointer(module.context(), type, options.lowering) ? 1 : 0;
  for (std::size_t i = 0; i < type.inputs.size(); ++i)
    if (isMemRef(type.inputs[i])) addPointerAttributes(f, first + static_cast<unsigned>(i), attributesOf(options, i));
  return f;
}

// The defined C interface: load, unpack, call, store or return.
void fillCInterface(llvm::Function* ciface, llvm::Function* fn, const FunctionType& type,
                    const LoweringOptions& o) {
  llvm::LLVMContext& ctx = ciface->getContext();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "", ciface));
  const bool byPointer = !ciface->getReturnType()->isVoidTy() ? false : !fn->getReturnType()->isVoidTy();
  unsigned argNo = byPointer ? 1 : 0;
  std::vector<llvm::Value*> args;
  for (const Type& t : type.inputs) {
    llvm::Value* a = ciface->getArg(argNo++);
    if (isMemRef(t)) {
      llvm::Type* d = *lowerType(ctx, t, o);
      llvm::Value* loaded = b.CreateAlignedLoad(d, a, llvm::Align(8));
      auto parts = detail::unpackArgument(b, t, o, loaded);
      args.insert(args.end(), parts.begin(), parts.end());
    } else {
      args.push_back(a);
    }
  }
  llvm::Value* r = b.CreateCall(fn, args);
  if (byPointer) {
    b.CreateAlignedStore(r, ciface->getArg(0), llvm::Align(8));
    b.CreateRetVoid();
  } else if (fn->getReturnType()->isVoidTy()) {
    b.CreateRetVoid();
  } else {
    b.CreateRet(r);
  }
}

// The external function's private body: descriptors to the stack, call the interface.
void fillExternalBody(llvm::Function* fn, llvm::Function* ciface, const FunctionType& type,
                      const LoweringOptions& o) {
  llvm::LLVMContext& ctx = fn->getContext();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "", fn));
  const bool byPointer = fn->getReturnType()->isStructTy();
  std::vector<llvm::Value*> args;
  llvm::AllocaInst* result = nullptr;
  if (byPointer) {
    result = b.CreateAlloca(fn->getReturnType());
    args.push_back(result);
  }
  std::vector<llvm::Value*> expanded;
  for (llvm::Argument& a : fn->args()) expanded.push_back(&a);
  auto it = std::as_const(expanded).begin();
  for (const Type& t : type.inputs) {
    llvm::Value* v = detail::packArgument(b, t, o, it);
    if (isMemRef(t)) {
      llvm::AllocaInst* slot = b.CreateAlloca(v->getType());
      b.CreateStore(v, slot);
      args.push_back(slot);
    } else {
      args.push_back(v);
    }
  }
  llvm::Value* r = b.CreateCall(ciface, args);
  if (byPointer) {
    b.CreateRet(b.CreateLoad(fn->getReturnType(), result));
  } else if (fn->getReturnType()->isVoidTy()) {
    b.CreateRetVoid();
  } else {
    b.CreateRet(r);
  }
}

Expected<signature::FunctionSignature> signatureFor(std::string_view name, const FunctionType& type,
                                                    const FunctionOptions& options) {
  if (options.signature) {
    if (!options.argumentNames.empty())
      return Error(ErrorCode::InvalidArgument,
                   "function '" + std::string(name) +
                       "': argument names are given both in FunctionOptions::argumentNames and by the "
                       "signature (put them into the signature's reflection)");
    if (options.signature->name != name || !(options.signature->type == type))
      return Error(ErrorCode::InvalidArgument,
                   "function '" + std::string(name) + "': the given signature describes '" +
                       options.signature->name + "' of type " + toString(options.signature->type) +
                       ", not " + toString(type));
    return *options.signature;
  }
  // Its errors (argument names) already name the function.
  return signature::describe(std::string(name), type, options.argumentNames);
}

}  // namespace

/// The expanded function and, unless bare pointers rule it out, its C
/// interface (still empty); nothing is left in the module on failure.
static Expected<LoweredFunction> createWithInterface(Module& module, std::string_view name,
                                                     const FunctionType& type, const FunctionOptions& options,
                                                     bool external) {
  LoweredFunction lf{std::string(name), type, options, nullptr, nullptr, external};
  MEMJIT_ASSIGN_OR_RETURN(lf.function, createLowered(module, name, type, options));
  if (options.emitCInterface && !options.lowering.barePtr) {
    auto ciface = createCInterface(module, name, type, options);
    if (!ciface) {
      lf.function->eraseFromParent();
      return ciface.error();
    }
    lf.cInterface = *ciface;
  }
  // An i1 result reaches C as a bool, whose bits 1-7 the x86-64 ABI says are zero; LLVM returns an i1 as the byte
  // the computation left (`trunc i32 2 to i1` returned 2) unless the result is zeroext. MLIR's lowering does not
  // say so (the attribute changes no signature); an external function's result is its C definition's business.
  if (!external)
    for (llvm::Function* f : {lf.function, lf.cInterface})
      if (f && f->getReturnType()->isIntegerTy(1)) f->addRetAttr(llvm::Attribute::ZExt);
  return lf;
}

Expected<LoweredFunction> defineFunction(Module& module, std::string_view name, const FunctionType& type,
                                         const FunctionOptions& options) {
  MEMJIT_TRY(checkDeclaration(module, name, type, options));
  MEMJIT_ASSIGN_OR_RETURN(signature::FunctionSignature sig, signatureFor(name, type, options));
  MEMJIT_ASSIGN_OR_RETURN(LoweredFunction lf, createWithInterface(module, name, type, options, false));
  if (lf.cInterface) fillCInterface(lf.cInterface, lf.function, type, options.lowering);
  if (Error e = emitFunctionMetadata(module, sig)) {
    if (lf.cInterface) lf.cInterface->eraseFromParent();  // it calls the function: first
    lf.function->eraseFromParent();
    return e;
  }
  ModuleAccess::impl(module).functions.emplace(lf.name, lf);
  return lf;
}

Expected<LoweredFunction> declareExternalFunction(Module& module, std::string_view name,
                                                  const FunctionType& type, const FunctionOptions& options) {
  MEMJIT_TRY(checkDeclaration(module, name, type, options));
  MEMJIT_ASSIGN_OR_RETURN(LoweredFunction lf, createWithInterface(module, name, type, options, true));
  if (lf.cInterface) {
    lf.function->setLinkage(llvm::GlobalValue::PrivateLinkage);
    // The data-pointer attributes belong to the interface, as MLIR places them.
    lf.function->setAttributes(llvm::AttributeList());
    fillExternalBody(lf.function, lf.cInterface, type, options.lowering);
  }
  ModuleAccess::impl(module).functions.emplace(lf.name, lf);
  return lf;
}

Expected<LoweredFunction> lookupFunction(const Module& module, std::string_view name) {
  MEMJIT_TRY(ModuleAccess::checkLive(module));
  const auto& impl = ModuleAccess::impl(module);
  auto it = impl.functions.find(name);
  if (it == impl.functions.end())
    return Error(ErrorCode::NotFound,
                 "module '" + impl.name + "' declares no function '" + std::string(name) + "'");
  return it->second;
}

Error emitZeroBody(Module& module, std::string_view name) {
  MEMJIT_ASSIGN_OR_RETURN(LoweredFunction lf, lookupFunction(module, name));
  if (lf.external || !lf.function->empty())
    return Error(ErrorCode::InvalidArgument, "function '" + lf.name + "' already has a body or is external");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(module.context(), "", lf.function));
  llvm::Type* rt = lf.function->getReturnType();
  if (rt->isVoidTy())
    b.CreateRetVoid();
  else
    b.CreateRet(detail::zeroValue(rt));
  return Error::success();
}

Expected<std::vector<llvm::Value*>> emitCall(Module& module, llvm::IRBuilderBase& b,
                                             const LoweredFunction& callee,
                                             const std::vector<llvm::Value*>& arguments) {
  MEMJIT_TRY(ModuleAccess::checkLive(module));
  const FunctionType& type = callee.type;
  const LoweringOptions& o = callee.options.lowering;
  if (arguments.size() != type.inputs.size())
    return Error(ErrorCode::ArityMismatch, "call to '" + callee.name + "' of type " + toString(type) +
                                               ": " + std::to_string(arguments.size()) +
                                               " arguments given, " + std::to_string(type.inputs.size()) +
                                               " expected");
  std::vector<llvm::Value*> expanded;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const Type& t = type.inputs[i];
    llvm::Type* want = isMemRef(t) && o.barePtr
                           ? descriptorType(module.context(), std::get<MemRefType>(t), o)
                           : *lowerType(module.context(), t, o);
    if (!arguments[i] || arguments[i]->getType() != want)
      return Error(ErrorCode::TypeMismatch, "call to '" + callee.name + "' argument #" + std::to_string(i) +
                                                ": expected a value of " + toString(t) +
                                                ", got a different LLVM type");
    auto parts = detail::unpackArgument(b, t, o, arguments[i]);
    expanded.insert(expanded.end(), parts.begin(), parts.end());
  }
  llvm::CallInst* call = b.CreateCall(callee.function, expanded);
  std::vector<llvm::Value*> results;
  if (type.results.size() == 1) {
    results.push_back(call);
  } else {
    for (unsigned i = 0; i < type.results.size(); ++i) results.push_back(b.CreateExtractValue(call, {i}));
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Type& t = type.results[i];
    if (isUnrankedMemRef(t)) {
      results[i] = detail::copyUnrankedToStack(b, results[i], o);
    } else if (isRankedMemRef(t) && o.barePtr) {
      std::vector<llvm::Value*> one{results[i]};
      auto it = std::as_const(one).begin();
      results[i] = detail::packArgument(b, t, o, it);
    }
  }
  return results;
}

}  // namespace memjit::codegen
