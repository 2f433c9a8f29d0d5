#include "function_removal.h"

#include <algorithm>
#include <set>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "module_impl.h"

namespace memjit::codegen::detail {

namespace {

// Every global `root` mentions: operands of its instructions (or its
// initializer), looking through constant expressions and aggregates.
void collectReferences(llvm::GlobalValue& root, llvm::SmallPtrSetImpl<llvm::GlobalValue*>& out) {
  llvm::SmallPtrSet<const llvm::Constant*, 16> seen;
  std::vector<const llvm::Value*> pending;
  if (auto* f = llvm::dyn_cast<llvm::Function>(&root)) {
    for (const llvm::BasicBlock& block : *f)
      for (const llvm::Instruction& inst : block)
        for (const llvm::Value* operand : inst.operands()) pending.push_back(operand);
  } else if (auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(&root); gv && gv->hasInitializer()) {
    pending.push_back(gv->getInitializer());
  }
  while (!pending.empty()) {
    const llvm::Value* v = pending.back();
    pending.pop_back();
    if (auto* global = llvm::dyn_cast<llvm::GlobalValue>(v)) {
      out.insert(const_cast<llvm::GlobalValue*>(global));
    } else if (auto* c = llvm::dyn_cast<llvm::Constant>(v); c && seen.insert(c).second) {
      for (const llvm::Value* operand : c->operands()) pending.push_back(operand);
    }
  }
}

// Names of the functions (or "a global initializer") still using `g`.
void collectUsers(const llvm::GlobalValue& g, std::set<std::string>& out) {
  for (const llvm::User* user : g.users()) {
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(user))
      out.insert(inst->getFunction()->getName().str());
    else
      out.insert("a global initializer");
  }
}

}  // namespace

std::vector<std::string> removeFunction(Module& module, std::string_view name,
                                        const std::vector<llvm::Function*>& helpers) {
  auto& impl = ModuleAccess::impl(module);
  auto entry = impl.functions.find(name);
  if (entry == impl.functions.end()) return {};
  const LoweredFunction lowered = entry->second;
  impl.functions.erase(entry);

  std::vector<llvm::Function*> roots;
  for (llvm::Function* f : {lowered.function, lowered.cInterface})
    if (f) roots.push_back(f);
  for (llvm::Function* f : helpers)
    if (f && f->getParent() == &*impl.module) roots.push_back(f);

  // Whatever the function alone brought in is known only before its body goes.
  llvm::SmallPtrSet<llvm::GlobalValue*, 16> referenced;
  for (llvm::Function* f : roots) collectReferences(*f, referenced);
  for (llvm::Function* f : roots) {
    // A block the failure left without a terminator keeps its last debug
    // records aside, in the context, by the block's address: deleting the
    // block leaves them there (leaked, naming the removed compile unit) for
    // the next block allocated at that address to inherit.
    for (llvm::BasicBlock& block : *f) block.deleteTrailingDbgRecords();
    f->deleteBody();
  }

  // What other functions still call stays, as a declaration.
  std::set<std::string> callers;
  for (llvm::Function* f : roots) {
    f->removeDeadConstantUsers();
    if (f->use_empty()) {
      referenced.erase(f);
      f->eraseFromParent();
    } else {
      collectUsers(*f, callers);
    }
  }

  // Then the private helpers and declarations nothing else uses any more,
  // until no removal frees another one. Symbols the module's registry names
  // (external functions declared on purpose, other functions' interfaces)
  // stay even when unused.
  auto registered = [&](const llvm::GlobalValue* g) {
    for (const auto& [other, function] : impl.functions)
      if (function.function == g || function.cInterface == g) return true;
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (llvm::GlobalValue* g : std::vector<llvm::GlobalValue*>(referenced.begin(), referenced.end())) {
      g->removeDeadConstantUsers();
      if (!g->use_empty() || registered(g) || !(g->isDeclaration() || g->hasLocalLinkage())) continue;
      referenced.erase(g);
      llvm::SmallPtrSet<llvm::GlobalValue*, 16> next;
      collectReferences(*g, next);
      next.erase(g);
      referenced.insert(next.begin(), next.end());
      g->eraseFromParent();
      changed = true;
    }
  }

  removeFunctionMetadata(module, name);
  return {callers.begin(), callers.end()};
}

}  // namespace memjit::codegen::detail
