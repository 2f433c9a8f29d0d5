#include "first_tier_bodies.h"

#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "memjit/metadata_symbols.h"

namespace memjit::jit::detail {
namespace {

// Erases the local functions and variables `erasable` accepts that nothing
// uses, until none is left (a body going may leave another unused).
template <typename Erasable>
void eraseUnused(llvm::Module& module, const Erasable& erasable) {
  for (bool erased = true; erased;) {
    std::vector<llvm::GlobalValue*> unused;
    for (llvm::Function& f : module)
      if ((f.hasLocalLinkage() || f.isDeclaration()) && f.use_empty() && erasable(f)) unused.push_back(&f);
    for (llvm::GlobalVariable& v : module.globals())
      if (v.hasLocalLinkage() && v.use_empty() && erasable(v)) unused.push_back(&v);
    for (llvm::GlobalValue* v : unused) v->eraseFromParent();
    erased = !unused.empty();
  }
}

// A first-tier body, or what only one uses: a constant named after it, a
// runtime function of the first tier (memjit_first_tier_*).
bool ofFirstTierBody(const llvm::GlobalValue& v) {
  return v.getName().contains(metadata::kFirstTierBodySuffix) || v.getName().starts_with("memjit_first_tier_");
}

// The internal function of f's type that f names as its first-tier body, or null.
llvm::Function* firstTierBodyOf(const llvm::Function& f) {
  if (!f.hasFnAttribute(metadata::kFirstTierBodyAttribute)) return nullptr;
  llvm::Function* body =
      f.getParent()->getFunction(f.getFnAttribute(metadata::kFirstTierBodyAttribute).getValueAsString());
  if (!body || body == &f || body->isDeclaration() || !body->hasLocalLinkage() ||
      body->getFunctionType() != f.getFunctionType())
    return nullptr;
  return body;
}

bool namesFirstTierBody(const llvm::GlobalValue* v) {
  const auto* f = llvm::dyn_cast<llvm::Function>(v);
  return f && firstTierBodyOf(*f);
}

}  // namespace

bool hasFirstTierBodies(const llvm::Module& module) {
  for (const llvm::Function& f : module)
    if (namesFirstTierBody(&f)) return true;
  return false;
}

std::unique_ptr<llvm::Module> cloneForFirstTier(const llvm::Module& module) {
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> copy =
      llvm::CloneModule(module, map, [](const llvm::GlobalValue* v) { return !namesFirstTierBody(v); });
  // CloneModule declares what it leaves out as external.
  for (const llvm::Function& f : module)
    if (namesFirstTierBody(&f)) {
      auto* declared = llvm::cast<llvm::Function>(map[&f]);
      declared->setLinkage(f.getLinkage());
      declared->setVisibility(f.getVisibility());
      declared->setDSOLocal(f.isDSOLocal());
    }
  return copy;
}

bool useFirstTierBodies(llvm::Module& module) {
  bool replaced = false;
  for (llvm::Function& f : module) {
    // Declared too where cloneForFirstTier left the body out.
    llvm::Function* body = firstTierBodyOf(f);
    f.removeFnAttr(metadata::kFirstTierBodyAttribute);
    if (!body) continue;
    // deleteBody would make the function a declaration of external linkage.
    f.dropAllReferences();
    while (!f.empty()) f.begin()->eraseFromParent();
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(f.getContext(), "entry", &f));
    std::vector<llvm::Value*> args;
    for (llvm::Argument& arg : f.args()) args.push_back(&arg);
    llvm::CallInst* call = b.CreateCall(body, args);
    if (f.getReturnType()->isVoidTy())
      b.CreateRetVoid();
    else
      b.CreateRet(call);
    replaced = true;
  }
  // What only the replaced bodies called (the blocked kernel's helpers).
  if (replaced) eraseUnused(module, [](const llvm::GlobalValue&) { return true; });
  return replaced;
}

void dropFirstTierBodies(llvm::Module& module) {
  bool named = false;
  for (llvm::Function& f : module)
    if (f.hasFnAttribute(metadata::kFirstTierBodyAttribute)) {
      f.removeFnAttr(metadata::kFirstTierBodyAttribute);
      named = true;
    }
  if (named) eraseUnused(module, ofFirstTierBody);
}

}  // namespace memjit::jit::detail
