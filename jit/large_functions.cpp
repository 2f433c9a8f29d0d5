#include "large_functions.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/ADT/Any.h>
#include <llvm/Transforms/Utils/CodeExtractor.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

namespace memjit::jit::detail {
namespace {

bool isStaticAlloca(const llvm::Value* value) {
  const auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(value);
  return alloca && alloca->isStaticAlloca();
}

// Hands each region the outside values it uses through the stack: every such
// argument or instruction of the caller is stored once, right after it is
// defined, into a slot of its own, and each region loads it (volatile, so the
// optimiser cannot forward the store) just before the region starts. Two
// reasons:
// - CodeExtractor rewrites an input by walking all of that value's users, and
//   the function's arguments and descriptors are used in every loop: shared,
//   outlining N loops took O(N^2) (16 s for 3,333 loops).
// - Kept in registers, those values would live across every call to an
//   outlined loop, and the greedy register allocator splits such live ranges
//   around each call: 4.7 of llc's 11 s for 1,666 loops went to the caller.
//   Loaded where used, nothing lives across a call but the stack.
// A value defined inside another region (one loop's result used by a later
// loop) gets a `freeze` (the identity on any defined value) per region instead:
// a store after its definition would run on every iteration of that loop.
void giveRegionsTheirOwnInputs(llvm::Function& function, const std::vector<std::vector<llvm::BasicBlock*>>& regions,
                               const std::vector<llvm::BasicBlock*>& entries) {
  llvm::DenseMap<const llvm::BasicBlock*, std::size_t> regionOf;
  for (std::size_t r = 0; r < regions.size(); ++r)
    for (llvm::BasicBlock* block : regions[r]) regionOf[block] = r;
  llvm::BasicBlock& entry = function.getEntryBlock();
  llvm::BasicBlock::iterator afterAllocas = entry.getFirstInsertionPt();
  while (afterAllocas != entry.end() && isStaticAlloca(&*afterAllocas)) ++afterAllocas;
  llvm::DenseMap<llvm::Value*, llvm::AllocaInst*> slots;
  auto slotOf = [&](llvm::Value* value) {
    llvm::AllocaInst*& slot = slots[value];
    if (slot) return slot;
    slot = new llvm::AllocaInst(value->getType(), function.getParent()->getDataLayout().getAllocaAddrSpace(),
                                value->getName() + ".slot", entry.getFirstInsertionPt());
    llvm::BasicBlock::iterator at = afterAllocas;
    if (auto* def = llvm::dyn_cast<llvm::Instruction>(value))
      at = llvm::isa<llvm::PHINode>(def) ? def->getParent()->getFirstInsertionPt() : std::next(def->getIterator());
    new llvm::StoreInst(value, slot, at);
    return slot;
  };
  for (std::size_t r = 0; r < regions.size(); ++r) {
    if (!entries[r]) continue;
    llvm::DenseMap<llvm::Value*, llvm::Value*> copies;
    for (llvm::BasicBlock* block : regions[r])
      for (llvm::Instruction& inst : *block) {
        if (llvm::isa<llvm::PHINode>(inst)) continue;  // CodeExtractor splits the entry's phis itself
        for (llvm::Use& use : inst.operands()) {
          llvm::Value* value = use.get();
          auto* def = llvm::dyn_cast<llvm::Instruction>(value);
          if (!def && !llvm::isa<llvm::Argument>(value)) continue;
          if (isStaticAlloca(value)) continue;  // an address the code generator rematerialises
          if (!value->getType()->isFirstClassType() || value->getType()->isTokenTy()) continue;
          auto other = def ? regionOf.find(def->getParent()) : regionOf.end();
          if (other != regionOf.end() && other->second == r) continue;
          llvm::Value*& copy = copies[value];
          if (!copy) {
            const auto at = entries[r]->getTerminator()->getIterator();
            if (other != regionOf.end())
              copy = new llvm::FreezeInst(value, value->getName() + ".in", at);
            else
              copy = new llvm::LoadInst(value->getType(), slotOf(value), value->getName() + ".in",
                                        /*isVolatile=*/true, at);
          }
          use.set(copy);
        }
      }
  }
}

std::size_t instructionsIn(const llvm::Loop& loop) {
  std::size_t size = 0;
  for (const llvm::BasicBlock* block : loop.blocks()) size += block->size();
  return size;
}

// The blocks control passes through from `before`'s exits to `after`'s
// preheader (inclusive), found backwards from that preheader; nothing when
// they are not a plain stretch of straight or branching code dominated by
// `before`'s header (another loop, a path from elsewhere), so that the two
// loops and these blocks form a region with one entry.
std::optional<std::vector<llvm::BasicBlock*>> blocksBetween(const llvm::Loop& before, const llvm::Loop& after,
                                                            const llvm::DominatorTree& dominators,
                                                            const llvm::LoopInfo& loops) {
  llvm::BasicBlock* preheader = after.getLoopPreheader();
  if (!preheader || !dominators.dominates(before.getHeader(), after.getHeader())) return std::nullopt;
  std::vector<llvm::BasicBlock*> found = {preheader}, work = {preheader};
  llvm::SmallPtrSet<llvm::BasicBlock*, 8> seen = {preheader};
  while (!work.empty()) {
    llvm::BasicBlock* block = work.back();
    work.pop_back();
    if (loops.getLoopFor(block) || !dominators.dominates(before.getHeader(), block)) return std::nullopt;
    // A parallel loop's context, for one: CodeExtractor moves no alloca.
    for (const llvm::Instruction& inst : *block)
      if (llvm::isa<llvm::AllocaInst>(inst)) return std::nullopt;
    for (llvm::BasicBlock* pred : llvm::predecessors(block)) {
      if (before.contains(pred) || !seen.insert(pred).second) continue;
      found.push_back(pred);
      work.push_back(pred);
    }
  }
  return found;
}

std::size_t outlineLoops(llvm::Function& function, std::size_t groupUpTo) {
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  if (loops.getTopLevelLoops().size() < 2) return 0;
  // Top-level loops in the order control reaches them.
  std::vector<llvm::Loop*> topLevel(loops.getTopLevelLoops().begin(), loops.getTopLevelLoops().end());
  dominators.updateDFSNumbers();
  std::sort(topLevel.begin(), topLevel.end(), [&](const llvm::Loop* a, const llvm::Loop* b) {
    return dominators.getNode(a->getHeader())->getDFSNumIn() < dominators.getNode(b->getHeader())->getDFSNumIn();
  });
  // The blocks of each region, taken before any extraction changes the
  // function: consecutive loops (and the code between them) up to
  // `groupUpTo` instructions share one region, so one function.
  std::vector<std::vector<llvm::BasicBlock*>> regions;
  std::vector<llvm::BasicBlock*> preheaders;
  std::size_t regionSize = 0;
  for (std::size_t k = 0; k < topLevel.size(); ++k) {
    const llvm::Loop& loop = *topLevel[k];
    const std::size_t size = instructionsIn(loop);
    if (k > 0 && regionSize + size <= groupUpTo)
      if (auto between = blocksBetween(*topLevel[k - 1], loop, dominators, loops)) {
        std::size_t betweenSize = 0;
        for (const llvm::BasicBlock* block : *between) betweenSize += block->size();
        if (regionSize + betweenSize + size <= groupUpTo) {
          regions.back().insert(regions.back().end(), between->begin(), between->end());
          regions.back().insert(regions.back().end(), loop.block_begin(), loop.block_end());
          regionSize += betweenSize + size;
          continue;
        }
      }
    regions.emplace_back(loop.block_begin(), loop.block_end());  // the header first: the region's entry
    preheaders.push_back(loop.getLoopPreheader());
    regionSize = size;
  }
  // Then what costs is each loop's code: a 6-operation loop became a memory
  // check, a vector loop interleaved four times and a scalar remainder
  // unrolled eight times at run time (~120 instructions). These generated
  // loops get the vector loop alone (and the scalar one for the last few
  // iterations); the builder's LoopOptions, where given, win.
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!llvm::findStringMetadataForLoop(loop, "llvm.loop.unroll.count"))
      llvm::addStringMetadataToLoop(loop, "llvm.loop.unroll.runtime.disable");
    if (!llvm::findStringMetadataForLoop(loop, "llvm.loop.interleave.count"))
      llvm::addStringMetadataToLoop(loop, "llvm.loop.interleave.count", 1);
  }
  giveRegionsTheirOwnInputs(function, regions, preheaders);
  // One cache for every extraction from this function, as LLVM's hot/cold
  // splitting does: extractCodeRegion keeps it valid, and building it per
  // loop would make the splitting itself quadratic.
  llvm::CodeExtractorAnalysisCache cache(function);
  std::size_t outlined = 0;
  for (const auto& blocks : regions) {
    // No dominator tree to keep up to date: in a function of N loops in a row
    // it is a chain N loops deep, and updating it made each extraction O(N).
    llvm::CodeExtractor extractor(blocks, /*DT=*/nullptr, /*AggregateArgs=*/false, nullptr, nullptr, nullptr,
                                  /*AllowVarArgs=*/false, /*AllowAlloca=*/false, nullptr, "loop");
    if (!extractor.isEligible()) continue;
    if (llvm::Function* body = extractor.extractCodeRegion(cache)) {
      // Else the inliner puts small loops straight back.
      body->addFnAttr(llvm::Attribute::NoInline);
      body->addFnAttr(kOutlinedLoopsAttribute);
      ++outlined;
    }
  }
  return outlined;
}

}  // namespace

std::size_t outlineLoopsOfLargeFunctions(llvm::Module& module, std::size_t threshold, std::size_t groupUpTo) {
  std::vector<llvm::Function*> large;
  for (llvm::Function& function : module)
    if (!function.isDeclaration() && function.getInstructionCount() > threshold) large.push_back(&function);
  std::size_t outlined = 0;
  for (llvm::Function* function : large) outlined += outlineLoops(*function, groupUpTo);
  return outlined;
}

// Optional passes of the O2 pipeline that the outlined loops (generated
// loops of a few loads, arithmetic and a store) do not need for their code:
// the loop vectoriser, and what prepares it (InstCombine, SimplifyCFG,
// EarlyCSE, LoopRotate, LICM, IndVarSimplify, LoopSimplify/LCSSA) still run.
// Skipping these in a function of 400 loops changed 16,048 optimised
// instructions into 16,424 (about one more per loop) with the same 400 vector
// loops, for 12% less CPU in the whole compile.
constexpr const char* kSkippedInOutlinedLoops[] = {
    "AggressiveInstCombinePass",  "ConstraintEliminationPass", "CorrelatedValuePropagationPass",
    "DSEPass",                    "Float2IntPass",             "GVNPass",
    "JumpThreadingPass",          "LibCallsShrinkWrapPass",    "LoopDeletionPass",
    "LoopDistributePass",         "LoopFullUnrollPass",        "LoopIdiomRecognizePass",
    "LoopInstSimplifyPass",       "LoopLoadEliminationPass",   "LoopSimplifyCFGPass",
    "LoopSinkPass",               "LoopUnrollPass",            "MemCpyOptPass",
    "MergedLoadStoreMotionPass",  "ReassociatePass",           "SimpleLoopUnswitchPass",
    "SLPVectorizerPass",          "SpeculativeExecutionPass",  "TailCallElimPass",
    "VectorCombinePass",
};

// InstCombine and SimplifyCFG run eight and seven times in a function's O2
// pipeline. An outlined function gets each once before the loop vectoriser
// (the first: it canonicalises the builder's code for the loop passes) and
// once after it (cleaning up the vector code). The other runs cost 9% of
// these loops' compile (loops:1000 under callgrind: 1,322 -> 1,205 M
// instructions) and changed nothing that reaches the object: without them
// 166 loops leave 2.5% more IR instructions and 12% more blocks (empty
// forwarding blocks, which code generation folds), and the same object, byte
// for byte.
bool runsOnceBeforeAndOnceAfterTheVectorizer(llvm::StringRef pass) {
  return pass == "InstCombinePass" || pass == "SimplifyCFGPass";
}

void trimPipelineForOutlinedLoops(llvm::PassInstrumentationCallbacks& callbacks) {
  // Per outlined function: whether the vectoriser has been reached, and how
  // many times each pass above has been asked for before and after it.
  struct Progress {
    bool vectorizerReached = false;
    llvm::StringMap<unsigned> runsBefore, runsAfter;
  };
  auto progress = std::make_shared<llvm::DenseMap<const llvm::Function*, Progress>>();
  callbacks.registerShouldRunOptionalPassCallback([progress](llvm::StringRef pass, llvm::Any ir) {
    const llvm::Function* function = nullptr;
    if (const auto* const* f = llvm::any_cast<const llvm::Function*>(&ir))
      function = *f;
    else if (const auto* const* loop = llvm::any_cast<const llvm::Loop*>(&ir))
      function = (*loop)->getHeader()->getParent();
    if (!function || !function->hasFnAttribute(kOutlinedLoopsAttribute)) return true;
    Progress& seen = (*progress)[function];
    if (pass == "LoopVectorizePass") seen.vectorizerReached = true;
    if (runsOnceBeforeAndOnceAfterTheVectorizer(pass))
      return (seen.vectorizerReached ? seen.runsAfter : seen.runsBefore)[pass]++ == 0;
    return std::find(std::begin(kSkippedInOutlinedLoops), std::end(kSkippedInOutlinedLoops), pass) ==
           std::end(kSkippedInOutlinedLoops);
  });
}

std::size_t keepHugeLoopsScalar(llvm::Module& module, std::size_t threshold) {
  std::size_t marked = 0;
  for (llvm::Function& function : module) {
    if (function.isDeclaration() || function.getInstructionCount() <= threshold) continue;
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
      if (!loop->isInnermost()) continue;
      std::size_t size = 0;
      for (const llvm::BasicBlock* block : loop->blocks()) size += block->size();
      if (size <= threshold) continue;
      llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.enable", 0);
      ++marked;
    }
  }
  return marked;
}

std::size_t boundSchedulingRegions(llvm::Module& module, std::size_t limit) {
  llvm::LLVMContext& context = module.getContext();
  llvm::FunctionType* type = llvm::FunctionType::get(
      llvm::Type::getVoidTy(context), {llvm::Type::getInt64Ty(context), llvm::Type::getInt32Ty(context)},
      /*isVarArg=*/true);
  llvm::FunctionCallee stackmap;
  std::size_t inserted = 0;
  for (llvm::Function& function : module) {
    if (function.isDeclaration() || function.getInstructionCount() <= limit) continue;
    for (llvm::BasicBlock& block : function) {
      if (block.size() <= limit) continue;
      std::vector<llvm::Instruction*> points;
      std::size_t count = 0;
      for (llvm::Instruction& inst : block)
        if (++count % limit == 0 && !inst.isTerminator() && !llvm::isa<llvm::PHINode>(inst) &&
            !inst.isEHPad())
          points.push_back(&inst);
      if (points.empty()) continue;
      if (!stackmap) stackmap = module.getOrInsertFunction("llvm.experimental.stackmap", type);
      llvm::Type* i64 = llvm::Type::getInt64Ty(context);
      llvm::Type* i32 = llvm::Type::getInt32Ty(context);
      for (llvm::Instruction* point : points) {
        // No shadow bytes: the stackmap emits no code, only an entry in .llvm_stackmaps.
        llvm::CallInst::Create(stackmap, {llvm::ConstantInt::get(i64, 0), llvm::ConstantInt::get(i32, 0)}, "",
                               point->getIterator());
        ++inserted;
      }
    }
  }
  return inserted;
}

}  // namespace memjit::jit::detail
