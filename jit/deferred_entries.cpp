#include "deferred_entries.h"

#include <algorithm>
#include <iterator>

#include <llvm/Analysis/InlineCost.h>
#include <llvm/Analysis/InstructionSimplify.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>

#include "large_functions.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/codegen/module.h"

namespace memjit::jit::detail {

namespace {

// The single call to `body` in `cInterface`, when that is the body's only use.
llvm::CallInst* onlyCallFromInterface(llvm::Function* body, llvm::Function* cInterface) {
  if (!body || body->isDeclaration() || !body->hasOneUse()) return nullptr;
  auto* call = llvm::dyn_cast<llvm::CallInst>(body->user_back());
  if (!call || call->getFunction() != cInterface || call->getCalledOperand() != body) return nullptr;
  return call;
}

// Codegen packs the parameters into descriptor structs and reads pointers
// back out with extractvalue. The inliner turns `noalias` parameters into
// alias scopes only for accesses it can trace to a parameter, and it does not
// look through insertvalue/extractvalue; without this fold the vectoriser
// would see aliasing buffers and add run-time checks.
void foldDescriptorReads(llvm::Function& function) {
  const llvm::SimplifyQuery query(function.getParent()->getDataLayout());
  llvm::SmallVector<llvm::Instruction*, 32> dead;
  for (llvm::BasicBlock& block : function)
    for (llvm::Instruction& inst : block)
      if (llvm::isa<llvm::ExtractValueInst>(inst))
        if (llvm::Value* value = llvm::simplifyInstruction(&inst, query)) {
          inst.replaceAllUsesWith(value);
          dead.push_back(&inst);
        }
  for (llvm::Instruction* inst : dead) llvm::RecursivelyDeleteTriviallyDeadInstructions(inst);
}

// The inliner drops parameter alignment (LLVM keeps it as an assumption only
// under -preserve-alignment-assumptions-during-inlining), and aligned vector
// and streaming stores depend on it; so it becomes an assumption here.
void keepParameterAlignment(llvm::Function& function) {
  const llvm::DataLayout& layout = function.getParent()->getDataLayout();
  llvm::IRBuilder<> builder(&*function.getEntryBlock().getFirstInsertionPt());
  for (llvm::Argument& argument : function.args())
    if (argument.getType()->isPointerTy())
      if (llvm::MaybeAlign align = argument.getParamAlign(); align && *align > 1)
        builder.CreateAlignmentAssumption(layout, &argument, align->value());
}

void spliceIntoInterface(llvm::Function& body, llvm::CallInst& call);

// Whether moving `body`'s blocks into the interface gives what inlining it
// would, for the price of no copy. Inlining copies the body (0.54 s of a
// 100K-operation kernel's 9 s compile, all on the adding thread); moving
// gives the same IR where the inliner adds nothing: no `noalias` parameter
// (which it turns into alias scopes) and no debug info (whose scopes it
// remaps). Small bodies are inlined as before (their compile is what
// FirstCall and Compile measure, and the copy costs them little).
bool moveRatherThanInline(const llvm::Function& body, const llvm::CallInst& call) {
  if (body.getInstructionCount() <= kOutlineLoopsAbove) return false;
  if (body.getSubprogram() || call.getFunction()->getSubprogram()) return false;
  for (const llvm::Argument& argument : body.args())
    if (argument.hasNoAliasAttr()) return false;
  return true;
}

// Inlines `body` at `call`, its only use, and erases it (or moves a large
// one there); false (nothing changed but the descriptor folds) when the
// inliner refuses.
bool inlineIntoInterface(llvm::Function& body, llvm::CallInst& call) {
  foldDescriptorReads(body);
  keepParameterAlignment(body);
  if (moveRatherThanInline(body, call)) {
    spliceIntoInterface(body, call);
    return true;
  }
  llvm::InlineFunctionInfo info;
  if (!llvm::InlineFunction(call, info).isSuccess()) return false;
  body.eraseFromParent();
  return true;
}

// Moves `body`'s blocks into the function that makes `call`, its only use,
// in place of the call: the block is split after the call, the body's
// arguments become the call's operands, its returns branches to the split
// (a phi collects a result), its static allocas move to the caller's entry
// block (where FastISel allocates them in the frame once).
void spliceIntoInterface(llvm::Function& body, llvm::CallInst& call) {
  // FastISel selects no insertvalue: a descriptor struct left packed would
  // send the rest of its block to SelectionDAG (inlining folds them as it copies).
  foldDescriptorReads(body);
  llvm::Function& caller = *call.getFunction();
  llvm::BasicBlock* callBlock = call.getParent();
  llvm::BasicBlock* after = callBlock->splitBasicBlock(std::next(call.getIterator()), "expanded.after");
  llvm::BasicBlock* entry = &body.getEntryBlock();
  llvm::BasicBlock& callerEntry = caller.getEntryBlock();
  for (llvm::Instruction& inst : llvm::make_early_inc_range(*entry))
    if (auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst); alloca && alloca->isStaticAlloca())
      alloca->moveBefore(callerEntry, callerEntry.getFirstInsertionPt());
  for (unsigned i = 0; i < call.arg_size(); ++i) body.getArg(i)->replaceAllUsesWith(call.getArgOperand(i));
  llvm::PHINode* result = nullptr;
  if (!call.getType()->isVoidTy()) {
    result = llvm::PHINode::Create(call.getType(), 1, "expanded.result");
    result->insertBefore(after->begin());
  }
  std::vector<llvm::ReturnInst*> returns;
  for (llvm::BasicBlock& block : body)
    if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) returns.push_back(ret);
  for (llvm::ReturnInst* ret : returns) {
    if (result) result->addIncoming(ret->getReturnValue(), ret->getParent());
    llvm::BranchInst::Create(after, ret->getParent());
    ret->eraseFromParent();
  }
  caller.splice(after->getIterator(), &body);
  if (result) call.replaceAllUsesWith(result);
  callBlock->getTerminator()->eraseFromParent();  // the split's branch to `after`
  call.eraseFromParent();
  llvm::BranchInst::Create(entry, callBlock);
  body.eraseFromParent();
}

struct Entry {
  std::string name;
  FunctionType type;
  codegen::FunctionOptions options;
};

Entry entryOf(const std::string& name, const codegen::LoweredFunction& lowered) {
  codegen::FunctionOptions options = lowered.options;
  options.signature.reset();
  return {name, lowered.type, std::move(options)};
}

DeferredEntries withStubs(const std::string& moduleName, std::vector<Entry> entries) {
  DeferredEntries out;
  for (const Entry& entry : entries) out.names.push_back(entry.name);
  if (entries.empty()) return out;
  out.buildStubs = [moduleName, entries = std::move(entries)]() -> Expected<DeferredEntries::Stubs> {
    codegen::Module stubs(moduleName + ".expanded_entries");
    for (const Entry& entry : entries) {
      MEMJIT_ASSIGN_OR_RETURN(auto stub, codegen::declareExternalFunction(stubs, entry.name, entry.type, entry.options));
      stub.function->setLinkage(llvm::GlobalValue::ExternalLinkage);
    }
    MEMJIT_TRY(stubs.verify());
    return std::move(stubs).release();
  };
  return out;
}

// The call of `lowered` in its C interface when that is its only use, or
// null. Whether the body can be inlined there is asked by whoever inlines it:
// the walk over sgemm's 15K instructions was a tenth of its first tier's add.
llvm::CallInst* deferrableCall(const codegen::LoweredFunction& lowered) {
  if (lowered.external || !lowered.cInterface) return nullptr;
  return onlyCallFromInterface(lowered.function, lowered.cInterface);
}

bool inlinable(llvm::Function& body) { return llvm::isInlineViable(body).isSuccess(); }

}  // namespace

std::optional<DeferredEntries> deferredEntriesOfObject(codegen::Module& module,
                                                       const std::vector<std::string>& objectDefines) {
  std::vector<Entry> entries;
  for (const signature::FunctionSignature& sig : module.signatures()) {
    auto lowered = codegen::lookupFunction(module, sig.name);
    if (!lowered || !deferrableCall(*lowered)) continue;
    // A local function is absent from the object whether or not it was inlined.
    if (lowered->function->hasLocalLinkage()) return std::nullopt;
    // Defined: inlining it failed when the object was compiled, so it stayed.
    if (std::binary_search(objectDefines.begin(), objectDefines.end(), sig.name)) continue;
    entries.push_back(entryOf(sig.name, *lowered));
  }
  return withStubs(module.name(), std::move(entries));
}

Expected<DeferredEntries> deferExpandedEntries(codegen::Module& module) {
  std::vector<Entry> entries;
  for (const signature::FunctionSignature& sig : module.signatures()) {
    auto lowered = codegen::lookupFunction(module, sig.name);
    if (!lowered) continue;
    llvm::CallInst* call = deferrableCall(*lowered);
    if (!call || !inlinable(*lowered->function)) continue;
    Entry entry = entryOf(sig.name, *lowered);
    if (!inlineIntoInterface(*lowered->function, *call)) continue;  // the call stays: still correct
    // The body now lives in the interface; the expanded name becomes a stub.
    entries.push_back(std::move(entry));
  }
  return withStubs(module.name(), std::move(entries));
}

Expected<DeferredEntries> deferExpandedEntriesToTierUp(codegen::Module& module, std::vector<LaterInlining>& later) {
  std::vector<Entry> entries;
  for (const signature::FunctionSignature& sig : module.signatures()) {
    auto lowered = codegen::lookupFunction(module, sig.name);
    if (!lowered || !deferrableCall(*lowered)) continue;
    entries.push_back(entryOf(sig.name, *lowered));
    later.push_back({sig.name, lowered->cInterface->getName().str()});
    lowered->function->setLinkage(llvm::GlobalValue::InternalLinkage);
    lowered->function->setVisibility(llvm::GlobalValue::DefaultVisibility);
  }
  return withStubs(module.name(), std::move(entries));
}

void spliceDeferredEntries(llvm::Module& module, const std::vector<LaterInlining>& entries) {
  for (const LaterInlining& entry : entries) {
    llvm::Function* body = module.getFunction(entry.expanded);
    llvm::CallInst* call = onlyCallFromInterface(body, module.getFunction(entry.cInterface));
    if (!call || !inlinable(*body)) continue;
    if (body->getSubprogram() || call->getFunction()->getSubprogram()) {
      llvm::InlineFunctionInfo info;
      if (llvm::InlineFunction(*call, info).isSuccess()) body->eraseFromParent();
      continue;
    }
    spliceIntoInterface(*body, *call);
  }
}

void inlineDeferredEntries(llvm::Module& module, const std::vector<LaterInlining>& later) {
  for (const LaterInlining& entry : later) {
    llvm::Function* body = module.getFunction(entry.expanded);
    llvm::CallInst* call = onlyCallFromInterface(body, module.getFunction(entry.cInterface));
    if (call && inlinable(*body)) (void)inlineIntoInterface(*body, *call);
  }
}

}  // namespace memjit::jit::detail
