#include "large_functions.h"

#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/CodeExtractor.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

namespace memjit::jit::detail {
namespace {

// Gives each region its own copy (a `freeze`, the identity on any defined
// value, placed before the region) of every outside value it uses.
// CodeExtractor rewrites an input by walking all of that value's users, and
// the function's arguments and descriptors are used in every loop: without
// the copies, outlining N loops took O(N^2) (16 s for 3,333 loops).
void giveRegionsTheirOwnInputs(const std::vector<std::vector<llvm::BasicBlock*>>& regions,
                               const std::vector<llvm::BasicBlock*>& entries) {
  llvm::DenseMap<const llvm::BasicBlock*, std::size_t> regionOf;
  for (std::size_t r = 0; r < regions.size(); ++r)
    for (llvm::BasicBlock* block : regions[r]) regionOf[block] = r;
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
          if (def) {
            auto it = regionOf.find(def->getParent());
            if (it != regionOf.end() && it->second == r) continue;
          }
          if (!value->getType()->isFirstClassType() || value->getType()->isTokenTy()) continue;
          llvm::Value*& copy = copies[value];
          if (!copy)
            copy = new llvm::FreezeInst(value, value->getName() + ".in", entries[r]->getTerminator()->getIterator());
          use.set(copy);
        }
      }
  }
}

std::size_t outlineLoops(llvm::Function& function) {
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  if (loops.getTopLevelLoops().size() < 2) return 0;
  // The blocks of each loop, taken before any extraction changes the function.
  std::vector<std::vector<llvm::BasicBlock*>> regions;
  std::vector<llvm::BasicBlock*> preheaders;
  for (llvm::Loop* loop : loops.getTopLevelLoops()) {
    regions.emplace_back(loop->getBlocks().begin(), loop->getBlocks().end());
    preheaders.push_back(loop->getLoopPreheader());
  }
  giveRegionsTheirOwnInputs(regions, preheaders);
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
      ++outlined;
    }
  }
  return outlined;
}

}  // namespace

std::size_t outlineLoopsOfLargeFunctions(llvm::Module& module, std::size_t threshold) {
  std::vector<llvm::Function*> large;
  for (llvm::Function& function : module)
    if (!function.isDeclaration() && function.getInstructionCount() > threshold) large.push_back(&function);
  std::size_t outlined = 0;
  for (llvm::Function* function : large) outlined += outlineLoops(*function);
  return outlined;
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

}  // namespace memjit::jit::detail
