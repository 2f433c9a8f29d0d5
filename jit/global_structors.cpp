#include "global_structors.h"

#include <algorithm>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace memjit::jit::detail {
namespace {

struct Entry {
  std::uint64_t priority;
  llvm::Constant* function;
};

// The entries of `{ i32 priority, ptr function, ptr data }` array `name`;
// the array is erased.
std::vector<Entry> takeEntries(llvm::Module& module, llvm::StringRef name) {
  std::vector<Entry> entries;
  llvm::GlobalVariable* array = module.getNamedGlobal(name);
  if (!array) return entries;
  if (array->hasInitializer())
    if (auto* init = llvm::dyn_cast<llvm::ConstantArray>(array->getInitializer()))
      for (llvm::Use& element : init->operands()) {
        auto* entry = llvm::dyn_cast<llvm::ConstantStruct>(element.get());
        if (!entry || entry->getNumOperands() < 2) continue;
        auto* priority = llvm::dyn_cast<llvm::ConstantInt>(entry->getOperand(0));
        llvm::Constant* function = entry->getOperand(1);
        if (!priority || function->isNullValue()) continue;
        entries.push_back({priority->getZExtValue(), function});
      }
  array->eraseFromParent();
  return entries;
}

void defineCaller(llvm::Module& module, std::string_view symbol, const std::vector<Entry>& entries) {
  if (entries.empty()) return;
  llvm::LLVMContext& context = module.getContext();
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
  auto* caller = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                        llvm::StringRef(symbol.data(), symbol.size()), module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", caller));
  for (const Entry& entry : entries) builder.CreateCall(type, entry.function);
  builder.CreateRetVoid();
}

}  // namespace

void lowerGlobalStructors(llvm::Module& module) {
  std::vector<Entry> constructors = takeEntries(module, "llvm.global_ctors");
  std::vector<Entry> destructors = takeEntries(module, "llvm.global_dtors");
  std::stable_sort(constructors.begin(), constructors.end(),
                   [](const Entry& a, const Entry& b) { return a.priority < b.priority; });
  std::stable_sort(destructors.begin(), destructors.end(),
                   [](const Entry& a, const Entry& b) { return a.priority > b.priority; });
  defineCaller(module, kGlobalConstructorsSymbol, constructors);
  defineCaller(module, kGlobalDestructorsSymbol, destructors);
}

}  // namespace memjit::jit::detail
