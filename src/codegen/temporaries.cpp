// Where a kernel's allocs live. The escape rule, over the finished LLVM IR,
// following every value derived from an alloc's pointers (through descriptor
// insert/extract, GEPs, casts, pointer arithmetic, phis and selects):
//
//   escapes      returned; stored as a value (into any memory, the parallel
//                loops' captured context included); passed to a call that is
//                not known to keep nothing of it; used in any other way.
//   keeps none   loads and stores through it; comparisons; llvm intrinsics
//                whose operand is nocapture (memcpy, masked loads and stores,
//                gathers and scatters through it); calls of functions of the
//                same module whose body exists now and whose parameter does not
//                escape by this same rule (recursion included); `free` in the
//                allocating function (a dealloc).
//
// An alloc that does not escape is a temporary: its space is released when
// the function returns. Small static ones (kStackTemporaryLimit bytes each,
// kStackTemporaryBudget a function) that no phi or select mixes with another
// pointer become an alloca in the entry block, the same slot every loop
// iteration (a non-escaping block is dead before its alloc runs again); the
// others come from the thread's arena (memjit/runtime/arena.h), and such a
// function takes an arena mark at entry and releases it before every return,
// checked mode's early returns included. Their deallocs become
// memjit_arena_free (a stack block's: nothing).
#include "temporaries.h"

#include <map>
#include <set>
#include <utility>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

namespace memjit::codegen::detail {

namespace {

constexpr const char* kAllocMark = "memjit.alloc";

struct TemporaryAlloc {
  llvm::CallInst* malloc = nullptr;  // malloc(bytes + alignment - 1): the allocated pointer
  llvm::Value* aligned = nullptr;    // the aligned pointer (the malloc itself when alignment is 1)
  unsigned alignment = 1;
  std::optional<std::uint64_t> staticBytes;
};

// The marked mallocs of `f`, with their aligned pointers.
std::vector<TemporaryAlloc> allocsOf(llvm::Function& f) {
  std::vector<TemporaryAlloc> r;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& inst : bb) {
      llvm::MDNode* mark = inst.getMetadata(kAllocMark);
      auto* call = llvm::dyn_cast<llvm::CallInst>(&inst);
      if (!mark || !call) continue;
      TemporaryAlloc a;
      a.malloc = call;
      a.aligned = call;
      a.alignment = static_cast<unsigned>(
          llvm::mdconst::extract<llvm::ConstantInt>(mark->getOperand(0))->getZExtValue());
      const std::int64_t bytes = llvm::mdconst::extract<llvm::ConstantInt>(mark->getOperand(1))->getSExtValue();
      if (bytes >= 0) a.staticBytes = static_cast<std::uint64_t>(bytes);
      for (llvm::User* u : call->users())
        if (auto* bump = llvm::dyn_cast<llvm::GetElementPtrInst>(u); bump && bump->hasOneUse())
          if (auto* mask = llvm::dyn_cast<llvm::IntrinsicInst>(*bump->user_begin());
              mask && mask->getIntrinsicID() == llvm::Intrinsic::ptrmask)
            a.aligned = mask;
      if (a.alignment > 1 && a.aligned == call) continue;  // not the shape alloc made: leave it
      r.push_back(a);
    }
  return r;
}

struct Reach {
  bool escapes = false;
  bool mixed = false;  // through a phi or select
  std::set<llvm::CallInst*> frees;
};

bool isFree(const llvm::CallBase& call) {
  const llvm::Function* f = call.getCalledFunction();
  return f && f->getName() == "free" && f->isDeclaration();
}

bool carriesPointer(llvm::Type* t) { return !t->isIntegerTy() && !t->isFloatingPointTy(); }

class EscapeWalk {
 public:
  // Everything `root` (an alloc's pointer, or a parameter of a callee) reaches.
  void walk(llvm::Value* root, bool inCallee, Reach& r) {
    std::vector<llvm::Value*> work{root};
    std::set<llvm::Value*> seen{root};
    auto follow = [&](llvm::Value* v) {
      if (seen.insert(v).second) work.push_back(v);
    };
    while (!work.empty() && !r.escapes) {
      llvm::Value* v = work.back();
      work.pop_back();
      for (llvm::Use& use : v->uses()) {
        auto* user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
        if (!user || !keepsNone(*user, use, inCallee, r, follow)) {
          r.escapes = true;
          return;
        }
      }
    }
  }

 private:
  template <class Follow>
  bool keepsNone(llvm::Instruction& user, llvm::Use& use, bool inCallee, Reach& r, Follow& follow) {
    const unsigned operand = use.getOperandNo();
    if (llvm::isa<llvm::LoadInst>(user) || llvm::isa<llvm::ICmpInst>(user)) return true;
    if (llvm::isa<llvm::StoreInst>(user)) return operand == llvm::StoreInst::getPointerOperandIndex();
    if (auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&user)) return operand == rmw->getPointerOperandIndex();
    if (auto* cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&user)) return operand == cx->getPointerOperandIndex();
    if (llvm::isa<llvm::PHINode>(user) || (llvm::isa<llvm::SelectInst>(user) && operand != 0)) {
      r.mixed = true;
      follow(&user);
      return true;
    }
    if (llvm::isa<llvm::ExtractValueInst>(user)) {
      if (carriesPointer(user.getType())) follow(&user);
      return true;
    }
    if (llvm::isa<llvm::GetElementPtrInst>(user) || llvm::isa<llvm::CastInst>(user) ||
        llvm::isa<llvm::InsertValueInst>(user) || llvm::isa<llvm::FreezeInst>(user) ||
        llvm::isa<llvm::BinaryOperator>(user) || llvm::isa<llvm::InsertElementInst>(user) ||
        llvm::isa<llvm::ExtractElementInst>(user) || llvm::isa<llvm::ShuffleVectorInst>(user)) {
      follow(&user);
      return true;
    }
    auto* call = llvm::dyn_cast<llvm::CallBase>(&user);
    if (!call || !call->isArgOperand(&use)) return false;
    const unsigned arg = call->getArgOperandNo(&use);
    if (auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(call)) {
      if (intrinsic->getIntrinsicID() == llvm::Intrinsic::ptrmask) {
        follow(call);
        return true;
      }
      if (intrinsic->getIntrinsicID() == llvm::Intrinsic::masked_gather) return arg == 0;
      if (intrinsic->getIntrinsicID() == llvm::Intrinsic::masked_scatter) return arg == 1;
      return call->doesNotCapture(arg);
    }
    if (isFree(*call)) {
      if (inCallee) return false;  // the callee would free the caller's temporary
      r.frees.insert(llvm::cast<llvm::CallInst>(call));
      return true;
    }
    llvm::Function* callee = call->getCalledFunction();
    if (callee && !callee->isDeclaration() && !callee->isVarArg() && arg < callee->arg_size() &&
        callee->getFunctionType() == call->getFunctionType())
      return !parameterEscapes(callee->getArg(arg));
    return call->doesNotCapture(arg);
  }

  bool parameterEscapes(llvm::Argument* p) {
    auto [it, fresh] = parameters_.try_emplace(p, false);
    if (!fresh) return it->second;  // known, or being walked (a recursive call adds no escape of its own)
    Reach r;
    walk(p, true, r);
    parameters_[p] = r.escapes;
    return r.escapes;
  }

  std::map<llvm::Argument*, bool> parameters_;
};

llvm::Value* sizeArgument(llvm::IRBuilder<>& ir, llvm::Value* bytes) {
  return ir.CreateZExtOrTrunc(bytes, ir.getInt64Ty());
}

// malloc's operand less the alignment padding.
llvm::Value* requestedBytes(llvm::IRBuilder<>& ir, const TemporaryAlloc& a) {
  llvm::Value* padded = sizeArgument(ir, a.malloc->getArgOperand(0));
  return a.alignment > 1 ? ir.CreateSub(padded, ir.getInt64(a.alignment - 1)) : padded;
}

// Replaces the alloc's malloc and aligned pointer by `block` and erases what only computed them.
void replaceAlloc(TemporaryAlloc& a, llvm::Value* block) {
  llvm::CallInst* malloc = a.malloc;
  llvm::Value* aligned = a.aligned;
  if (aligned != malloc) {
    aligned->replaceAllUsesWith(block);
    // ptrmask(gep(malloc, alignment - 1))
    auto* mask = llvm::cast<llvm::Instruction>(aligned);
    auto* bump = llvm::dyn_cast<llvm::Instruction>(mask->getOperand(0));
    mask->eraseFromParent();
    if (bump && bump->use_empty()) bump->eraseFromParent();
  }
  malloc->replaceAllUsesWith(block);
  malloc->eraseFromParent();
}

struct FunctionPlan {
  std::vector<std::pair<TemporaryAlloc*, Reach>> stack, arena;
  std::uint64_t stackBytes = 0;
};

void bracketWithArenaMark(llvm::Function& f) {
  llvm::Module& m = *f.getParent();
  llvm::LLVMContext& ctx = m.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(ctx, 0);
  llvm::FunctionCallee markFn = m.getOrInsertFunction("memjit_arena_mark", ptr);
  llvm::FunctionCallee releaseFn = m.getOrInsertFunction("memjit_arena_release", llvm::Type::getVoidTy(ctx), ptr);
  llvm::BasicBlock& entry = f.getEntryBlock();
  llvm::IRBuilder<> ir(&entry, entry.getFirstInsertionPt());
  ir.SetCurrentDebugLocation(entry.getFirstInsertionPt()->getDebugLoc());
  llvm::Value* mark = ir.CreateCall(markFn, {}, "arena.mark");
  for (llvm::BasicBlock& bb : f)
    if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(bb.getTerminator())) {
      ir.SetInsertPoint(ret);
      ir.CreateCall(releaseFn, {mark});
    }
}

llvm::FunctionCallee arenaAllocFunction(llvm::Module& m) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IntegerType* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::FunctionCallee f = m.getOrInsertFunction("memjit_arena_alloc", llvm::PointerType::get(ctx, 0), i64, i64);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    // As malloc's: a fresh block no other pointer reaches, so the optimiser keeps its loops' accesses apart.
    fn->addRetAttr(llvm::Attribute::NoAlias);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
  }
  return f;
}

}  // namespace

void markAlloc(llvm::CallInst* malloc, unsigned alignment, std::optional<std::uint64_t> staticBytes) {
  llvm::LLVMContext& ctx = malloc->getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  const std::int64_t bytes =
      staticBytes && *staticBytes <= static_cast<std::uint64_t>(INT64_MAX) ? static_cast<std::int64_t>(*staticBytes) : -1;
  malloc->setMetadata(kAllocMark, llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i64, alignment)),
                                                          llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i64, bytes, true))}));
}

void placeTemporaries(const std::vector<llvm::Function*>& functions) {
  std::vector<TemporaryAlloc> allocs;
  for (llvm::Function* f : functions)
    for (TemporaryAlloc& a : allocsOf(*f)) allocs.push_back(a);
  EscapeWalk walk;
  std::map<llvm::Function*, FunctionPlan> plans;
  std::map<llvm::CallInst*, int> freeReaches;  // how many allocs reach each free
  std::vector<std::pair<TemporaryAlloc*, Reach>> kept;
  for (TemporaryAlloc& a : allocs) {
    Reach r;
    walk.walk(a.malloc, false, r);
    if (r.escapes) {
      a.malloc->setMetadata(kAllocMark, nullptr);  // malloc it stays
      continue;
    }
    for (llvm::CallInst* f : r.frees) ++freeReaches[f];
    kept.emplace_back(&a, std::move(r));
  }
  for (auto& [a, r] : kept) {
    llvm::Function* f = a->malloc->getFunction();
    FunctionPlan& plan = plans[f];
    bool stack = a->staticBytes && *a->staticBytes <= kStackTemporaryLimit && !r.mixed &&
                 plan.stackBytes + *a->staticBytes <= kStackTemporaryBudget;
    for (llvm::CallInst* free : r.frees) stack = stack && freeReaches[free] == 1;
    if (stack) plan.stackBytes += *a->staticBytes;
    (stack ? plan.stack : plan.arena).emplace_back(a, std::move(r));
  }
  std::set<llvm::CallInst*> redirected;
  for (auto& [f, plan] : plans) {
    llvm::Module& m = *f->getParent();
    for (auto& [a, r] : plan.stack) {
      llvm::BasicBlock& entry = f->getEntryBlock();
      llvm::IRBuilder<> ir(&entry, entry.begin());
      llvm::AllocaInst* slot = ir.CreateAlloca(ir.getInt8Ty(), ir.getInt64(*a->staticBytes), "temporary");
      slot->setAlignment(llvm::Align(a->alignment));
      replaceAlloc(*a, slot);
      for (llvm::CallInst* free : r.frees) free->eraseFromParent();
    }
    if (plan.arena.empty()) continue;
    llvm::FunctionCallee alloc = arenaAllocFunction(m);
    llvm::FunctionCallee arenaFree =
        m.getOrInsertFunction("memjit_arena_free", llvm::Type::getVoidTy(m.getContext()), llvm::PointerType::get(m.getContext(), 0));
    for (auto& [a, r] : plan.arena) {
      llvm::IRBuilder<> ir(a->malloc);
      llvm::Value* block = ir.CreateCall(alloc, {requestedBytes(ir, *a), ir.getInt64(a->alignment)}, "temporary");
      replaceAlloc(*a, block);
      // memjit_arena_free passes a pointer the arena did not hand out to free(), so a free some other
      // pointer reaches too stays right.
      for (llvm::CallInst* free : r.frees)
        if (redirected.insert(free).second) free->setCalledFunction(arenaFree);
    }
    bracketWithArenaMark(*f);
  }
}

}  // namespace memjit::codegen::detail
