#include "splat_bitcasts.h"

#include <cstdint>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

namespace memjit::jit::detail {
namespace {

// The scalar every lane of `v` holds, or null: a splat shuffle (what
// getSplatValue sees), or an insertelement chain that writes every lane with
// the same value (fromElements({x, x, ...}); SelectionDAG sees a splat there too).
llvm::Value* splatScalar(llvm::Value* v) {
  if (llvm::Value* s = llvm::getSplatValue(v)) return s;
  auto* type = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!type) return nullptr;
  std::vector<bool> written(type->getNumElements(), false);
  llvm::Value* scalar = nullptr;
  unsigned count = 0;
  while (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
    auto* lane = llvm::dyn_cast<llvm::ConstantInt>(insert->getOperand(2));
    if (!lane || lane->getZExtValue() >= written.size()) return nullptr;
    if (scalar && insert->getOperand(1) != scalar) return nullptr;
    scalar = insert->getOperand(1);
    if (!written[lane->getZExtValue()]) written[lane->getZExtValue()] = true, ++count;
    v = insert->getOperand(0);
  }
  return count == written.size() ? scalar : nullptr;
}

// The one address every lane of a gather's pointer vector holds, built before
// `at`, or null: a splat, or a vector GEP of a scalar base with splat indices
// (`getelementptr float, ptr %p, <2 x i64> zeroinitializer`, as the builder
// writes a gather whose indices are all equal constants).
llvm::Value* splatPointer(llvm::Value* v, llvm::Instruction* at) {
  if (llvm::Value* s = splatScalar(v)) return s;
  auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(v);
  if (!gep) return nullptr;
  llvm::Value* base = gep->getPointerOperand();
  if (base->getType()->isVectorTy() && !(base = splatScalar(base))) return nullptr;
  std::vector<llvm::Value*> indices;
  for (llvm::Value* index : gep->indices()) {
    if (index->getType()->isVectorTy() && !(index = splatScalar(index))) return nullptr;
    indices.push_back(index);
  }
  llvm::IRBuilder<> ir(at);
  return ir.CreateGEP(gep->getSourceElementType(), base, indices, "", gep->isInBounds());
}

bool allTrue(llvm::Value* mask) {
  auto* c = llvm::dyn_cast<llvm::Constant>(mask);
  return c && c->isAllOnesValue();
}

// Whether `v` is built by insertelements and shuffles with a non-constant
// scalar in some lane: the shape whose bitcast SelectionDAG may turn into a
// broadcast load. Looks `depth` levels down.
bool hasScalarLane(llvm::Value* v, int depth = 8) {
  if (depth == 0) return false;
  if (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(v))
    return !llvm::isa<llvm::Constant>(insert->getOperand(1)) || hasScalarLane(insert->getOperand(0), depth - 1);
  if (auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(v))
    return hasScalarLane(shuffle->getOperand(0), depth - 1) || hasScalarLane(shuffle->getOperand(1), depth - 1);
  return false;
}

// `v` bitcast lane by lane to `element` lanes, with the bitcast moved onto the
// scalars and vectors the insertelements and shuffles start from (`done`
// keeps a shared operand from being rebuilt once per use).
llvm::Value* bitcastLanes(llvm::Value* v, llvm::Type* element, llvm::IRBuilder<>& ir,
                          llvm::DenseMap<llvm::Value*, llvm::Value*>& done) {
  if (llvm::Value* d = done.lookup(v)) return d;
  const unsigned lanes = llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements();
  llvm::Value* r;
  if (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(v); insert && hasScalarLane(insert))
    r = ir.CreateInsertElement(bitcastLanes(insert->getOperand(0), element, ir, done),
                               ir.CreateBitCast(insert->getOperand(1), element), insert->getOperand(2));
  else if (auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(v); shuffle && hasScalarLane(shuffle))
    r = ir.CreateShuffleVector(bitcastLanes(shuffle->getOperand(0), element, ir, done),
                               bitcastLanes(shuffle->getOperand(1), element, ir, done), shuffle->getShuffleMask());
  else
    r = ir.CreateBitCast(v, llvm::FixedVectorType::get(element, lanes));
  done[v] = r;
  return r;
}

}  // namespace

int splatBitcastsOfScalars(llvm::Module& module) {
  int changed = 0;
  for (llvm::Function& f : module) {
    // Gathers first, so that a bitcast of their result sees the splat they become.
    std::vector<llvm::IntrinsicInst*> gathers;
    std::vector<llvm::BitCastInst*> bitcasts;
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block) {
        if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
            call && call->getIntrinsicID() == llvm::Intrinsic::masked_gather)
          gathers.push_back(call);
        if (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(&inst); cast && cast->getType()->isVectorTy())
          bitcasts.push_back(cast);
      }
    for (llvm::IntrinsicInst* gather : gathers) {
      // (pointers, [alignment,] mask, passthrough): LLVM 21 moved the alignment into an attribute.
      const unsigned n = gather->arg_size();
      if (!allTrue(gather->getArgOperand(n - 2))) continue;
      llvm::Value* pointer = splatPointer(gather->getArgOperand(0), gather);
      if (!pointer) continue;
      auto* type = llvm::cast<llvm::FixedVectorType>(gather->getType());
      std::uint64_t align = 0;
      if (n == 4) align = llvm::cast<llvm::ConstantInt>(gather->getArgOperand(1))->getZExtValue();
      else if (llvm::MaybeAlign a = gather->getParamAlign(0)) align = a->value();
      llvm::IRBuilder<> ir(gather);
      llvm::LoadInst* load = ir.CreateLoad(type->getElementType(), pointer);
      if (align) load->setAlignment(llvm::Align(align));
      llvm::Value* splat = ir.CreateVectorSplat(type->getNumElements(), load);
      gather->replaceAllUsesWith(splat);
      gather->eraseFromParent();
      ++changed;
    }
    for (llvm::BitCastInst* cast : bitcasts) {
      auto* from = llvm::dyn_cast<llvm::FixedVectorType>(cast->getSrcTy());
      auto* to = llvm::dyn_cast<llvm::FixedVectorType>(cast->getDestTy());
      if (!from || !to || from->getNumElements() != to->getNumElements() || !hasScalarLane(cast->getOperand(0)))
        continue;
      llvm::IRBuilder<> ir(cast);
      llvm::DenseMap<llvm::Value*, llvm::Value*> done;
      cast->replaceAllUsesWith(bitcastLanes(cast->getOperand(0), to->getElementType(), ir, done));
      cast->eraseFromParent();
      ++changed;
    }
  }
  return changed;
}

}  // namespace memjit::jit::detail
