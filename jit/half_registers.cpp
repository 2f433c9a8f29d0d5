#include "half_registers.h"

#include <cstdint>
#include <utility>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

namespace memjit::jit::detail {
namespace {

bool isHalf(llvm::Type* t) { return t->getScalarType()->isHalfTy() || t->getScalarType()->isBFloatTy(); }

// A half, or an aggregate with one inside: a helper returning several results
// returns a struct, which a phi merges where checked mode's failure path
// joins the inlined helper's (a bf16 in `{i8, bfloat, i8}` came out flushed
// at O2 in checked mode, difftest seed 274490989181359).
bool holdsHalf(llvm::Type* t) {
  if (isHalf(t)) return true;
  if (auto* s = llvm::dyn_cast<llvm::StructType>(t)) return llvm::any_of(s->elements(), holdsHalf);
  if (auto* a = llvm::dyn_cast<llvm::ArrayType>(t)) return holdsHalf(a->getElementType());
  return false;
}

// A vector of more i1 lanes than an x86 mask register holds (64), which the
// optimiser makes of a bitcast load (`bitcast <2 x i64> to <128 x i1>` for
// the low bits of two adjacent i64s). LLVM 19's x86 back end aborts ("Cannot
// emit physreg copy instruction") when one crosses blocks (difftest seed
// 276513692043006, where a lane became a branch condition and a gather's
// mask); LLVM 22 does not. It crosses as its bits instead, like a half.
bool isWideMask(llvm::Type* t) {
  auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return v && v->getElementType()->isIntegerTy(1) && v->getNumElements() > 64;
}

bool crossesAsBits(llvm::Type* t) { return holdsHalf(t) || isWideMask(t); }

// The type carrying `t`'s bits: i16 for each half (lane), an integer for a
// wide mask, the rest as it is.
llvm::Type* bitsOf(llvm::Type* t) {
  if (isWideMask(t)) return llvm::IntegerType::get(t->getContext(), llvm::cast<llvm::FixedVectorType>(t)->getNumElements());
  llvm::Type* i16 = llvm::Type::getInt16Ty(t->getContext());
  if (auto* s = llvm::dyn_cast<llvm::StructType>(t)) {
    std::vector<llvm::Type*> fields;
    for (llvm::Type* e : s->elements()) fields.push_back(bitsOf(e));
    return llvm::StructType::get(t->getContext(), fields, s->isPacked());
  }
  if (auto* a = llvm::dyn_cast<llvm::ArrayType>(t)) return llvm::ArrayType::get(bitsOf(a->getElementType()), a->getNumElements());
  if (!isHalf(t)) return t;
  if (auto* v = llvm::dyn_cast<llvm::VectorType>(t)) return llvm::VectorType::get(i16, v->getElementCount());
  return i16;
}

// `v` as type `to` (its bits, or back): a bitcast for a half, field by field
// for an aggregate; `freeze` freezes each half's bits.
llvm::Value* convert(llvm::IRBuilder<>& ir, llvm::Value* v, llvm::Type* to, bool freeze = false) {
  llvm::Type* from = v->getType();
  if (from == to) return v;
  if (!from->isAggregateType()) {
    llvm::Value* cast = ir.CreateBitCast(v, to);
    return freeze && !llvm::isa<llvm::Constant>(cast) ? ir.CreateFreeze(cast) : cast;
  }
  const unsigned n = llvm::isa<llvm::StructType>(from) ? from->getStructNumElements() : from->getArrayNumElements();
  llvm::Value* r = llvm::PoisonValue::get(to);
  for (unsigned i = 0; i < n; ++i) {
    llvm::Type* field = llvm::isa<llvm::StructType>(to) ? to->getStructElementType(i) : to->getArrayElementType();
    r = ir.CreateInsertValue(r, convert(ir, ir.CreateExtractValue(v, i), field, freeze), i);
  }
  return r;
}

// Half phis become i16 phis, each incoming value converted at the end of its
// predecessor (where, if it comes from further away, the loop below passes
// it in turn).
void phisAsBits(llvm::Function& f) {
  std::vector<llvm::PHINode*> phis;
  for (llvm::BasicBlock& block : f)
    for (llvm::PHINode& phi : block.phis())
      if (crossesAsBits(phi.getType())) phis.push_back(&phi);
  for (llvm::PHINode* phi : phis) {
    llvm::IRBuilder<> ir(phi);
    llvm::PHINode* bits = ir.CreatePHI(bitsOf(phi->getType()), phi->getNumIncomingValues());
    for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
      llvm::IRBuilder<> end(phi->getIncomingBlock(k)->getTerminator());
      bits->addIncoming(convert(end, phi->getIncomingValue(k), bits->getType()), phi->getIncomingBlock(k));
    }
    ir.SetInsertPoint(phi->getParent(), phi->getParent()->getFirstInsertionPt());
    // Frozen: CodeGenPrepare's optimizePhiType makes an i16 phi of constants whose users bitcast it to a half
    // a half phi again, which the back end keeps in f32 (a checked helper returning the bf16 signalling NaN
    // 0x7f93 from a phi of it and its failure paths' zeros returned 0x7fd3 at O1-O3, difftest seed
    // 3800000014622). A freeze is not a bitcast.
    phi->replaceAllUsesWith(convert(ir, ir.CreateFreeze(bits), phi->getType()));
    phi->eraseFromParent();
  }
}

// Where code generation may split a block, after this rewrite: AtomicExpand
// turns an atomicrmw or cmpxchg into a loop of its own (at every level),
// ScalarizeMaskedMemIntrin a masked load, store, gather or scatter the target
// does not take whole into a block per lane, and CodeGenPrepare a select into
// a branch. A half made before one and used after it crosses blocks all the
// same: abs of a bf16 signalling NaN, computed before an atomic min and stored
// after it, came out quiet at O0 (difftest seed 1000356); a negated bf16
// signalling NaN stored after a two-lane gather, at O3 (seed 274490989180975).
// CodeGenPrepare also splits a block at a scalar integer division on CPUs
// tuned for it (bypassSlowDivision: a 64-bit division branches to a 32-bit one
// when both operands fit), which flushed a bf16 denormal phi stored after an
// i64 sdiv, ahead of time at O2 (seed 3200000001199), and at a count of
// leading or trailing zeros without lzcnt/bmi (despeculateCountZeros: a branch
// on zero); both are taken as splits whatever the target.
bool splitsBlock(const llvm::Instruction& inst) {
  if (llvm::isa<llvm::AtomicRMWInst, llvm::AtomicCmpXchgInst>(inst)) return true;
  if (auto* select = llvm::dyn_cast<llvm::SelectInst>(&inst)) return !select->getCondition()->getType()->isVectorTy();
  if (inst.isIntDivRem()) return !inst.getType()->isVectorTy();
  auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
  if (!call) return false;
  switch (call->getIntrinsicID()) {
    case llvm::Intrinsic::ctlz:
    case llvm::Intrinsic::cttz:
      return !call->getType()->isVectorTy();
    case llvm::Intrinsic::masked_load:
    case llvm::Intrinsic::masked_store:
    case llvm::Intrinsic::masked_gather:
    case llvm::Intrinsic::masked_scatter:
    case llvm::Intrinsic::masked_expandload:
    case llvm::Intrinsic::masked_compressstore:
      return true;
    default:
      return false;
  }
}

// Each instruction's piece of its block: 0 up to the block's first splitting
// instruction (see splitsBlock), which starts piece 1, and so on.
// Instructions not in the map are in piece 0.
llvm::DenseMap<const llvm::Instruction*, unsigned> piecesOfBlocks(llvm::Function& f) {
  llvm::DenseMap<const llvm::Instruction*, unsigned> piece;
  for (llvm::BasicBlock& block : f) {
    unsigned n = 0;
    for (llvm::Instruction& inst : block) {
      if (splitsBlock(inst)) ++n;
      if (n > 0) piece[&inst] = n;
    }
  }
  return piece;
}

// A half that another block uses (or its own block after a split, see
// splitsBlock): converted after its definition, and back before each use there.
void valuesAsBits(llvm::Function& f) {
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> defs;
  for (llvm::Argument& a : f.args())
    if (isHalf(a.getType())) defs.push_back({&a, &f.getEntryBlock()});
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block)
      if (crossesAsBits(inst.getType())) defs.push_back({&inst, &block});
  if (defs.empty()) return;
  const auto piece = piecesOfBlocks(f);
  auto pieceOf = [&](const llvm::Value* v) {
    auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
    auto it = inst ? piece.find(inst) : piece.end();
    return it == piece.end() ? 0u : it->second;
  };
  for (auto [def, block] : defs) {
    llvm::Value* bits = nullptr;
    for (llvm::Use& use : llvm::make_early_inc_range(def->uses())) {
      auto* user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
      if (!user || (user->getParent() == block && pieceOf(user) == pieceOf(def))) continue;
      if (!bits) {
        auto* inst = llvm::dyn_cast<llvm::Instruction>(def);
        llvm::IRBuilder<> after(block, inst && !llvm::isa<llvm::PHINode>(inst) ? std::next(inst->getIterator())
                                                                               : block->getFirstInsertionPt());
        if (inst) after.SetCurrentDebugLocation(inst->getDebugLoc());
        // Frozen: CodeGenPrepare folds a bitcast of a bitcast back to the
        // half, which would cross the block after all.
        bits = convert(after, def, bitsOf(def->getType()), /*freeze=*/true);
      }
      llvm::IRBuilder<> before(user);
      use.set(convert(before, bits, def->getType()));
    }
  }
}

// Selects and lane moves of halves become the same operations on i16. Within
// a block the x86 back end promotes them to f32 too when the value has an
// arithmetic use there (a compare, a conversion), and narrows the moved value
// back where its bits are needed (vcvtneps2bf16 again): a bf16 denormal chosen
// by a select came out as +-0 at O2 (found by the difftest).
void movesAsBits(llvm::Function& f) {
  std::vector<llvm::Instruction*> moves;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block)
      if (isHalf(inst.getType()) && (llvm::isa<llvm::SelectInst>(inst) || llvm::isa<llvm::InsertElementInst>(inst) ||
                                     llvm::isa<llvm::ExtractElementInst>(inst) || llvm::isa<llvm::ShuffleVectorInst>(inst)))
        moves.push_back(&inst);
  for (llvm::Instruction* inst : moves) {
    llvm::IRBuilder<> ir(inst);
    ir.SetCurrentDebugLocation(inst->getDebugLoc());
    auto bits = [&](llvm::Value* v) { return ir.CreateBitCast(v, bitsOf(v->getType())); };
    llvm::Value* r = nullptr;
    if (auto* select = llvm::dyn_cast<llvm::SelectInst>(inst))
      r = ir.CreateSelect(select->getCondition(), bits(select->getTrueValue()), bits(select->getFalseValue()));
    else if (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(inst))
      r = ir.CreateInsertElement(bits(insert->getOperand(0)), bits(insert->getOperand(1)), insert->getOperand(2));
    else if (auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(inst))
      r = ir.CreateExtractElement(bits(extract->getVectorOperand()), extract->getIndexOperand());
    else if (auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(inst))
      r = ir.CreateShuffleVector(bits(shuffle->getOperand(0)), bits(shuffle->getOperand(1)), shuffle->getShuffleMask());
    inst->replaceAllUsesWith(ir.CreateBitCast(r, inst->getType()));
    inst->eraseFromParent();
  }
}

// fabs, fneg and copysign of halves as integer operations on the sign bit.
// The builder emits them so, but InstCombine turns the masks back into
// llvm.fabs (and the like), which the x86 back end computes through f32:
// abs of a bf16 signalling NaN came out quiet at O3 (found by the difftest).
void signOpsAsBits(llvm::Function& f) {
  std::vector<llvm::Instruction*> ops;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block) {
      if (!isHalf(inst.getType())) continue;
      auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
      if (llvm::isa<llvm::UnaryOperator>(inst) && inst.getOpcode() == llvm::Instruction::FNeg)
        ops.push_back(&inst);
      else if (call && (call->getIntrinsicID() == llvm::Intrinsic::fabs ||
                        call->getIntrinsicID() == llvm::Intrinsic::copysign))
        ops.push_back(&inst);
    }
  for (llvm::Instruction* inst : ops) {
    llvm::IRBuilder<> ir(inst);
    ir.SetCurrentDebugLocation(inst->getDebugLoc());
    llvm::Type* type = bitsOf(inst->getType());
    auto k = [&](std::uint16_t m) { return llvm::ConstantInt::get(type, m); };
    llvm::Value* x = ir.CreateBitCast(inst->getOperand(0), type);
    llvm::Value* r;
    if (inst->getOpcode() == llvm::Instruction::FNeg) {
      r = ir.CreateXor(x, k(0x8000));
    } else if (llvm::cast<llvm::IntrinsicInst>(inst)->getIntrinsicID() == llvm::Intrinsic::fabs) {
      r = ir.CreateAnd(x, k(0x7fff));
    } else {  // a select, as the builder's copysign (the and/or form is folded wrongly by LLVM 19's x86 back end)
      llvm::Value* negative = ir.CreateICmpSLT(ir.CreateBitCast(inst->getOperand(1), type), k(0));
      r = ir.CreateSelect(negative, ir.CreateOr(x, k(0x8000)), ir.CreateAnd(x, k(0x7fff)));
    }
    inst->replaceAllUsesWith(ir.CreateBitCast(r, inst->getType()));
    inst->eraseFromParent();
  }
}

// The exact f32 value of a half (scalar or vector). A bf16 is widened from its
// bits by a shift, so that no bf16 value is left for the back end to hold in
// an f32 register and narrow again through vcvtneps2bf16, which flushes
// denormals: at O1 a bf16 argument divided inside a loop was widened, narrowed
// (0x807f flushed to -0) and widened again before the loop, and 0x807f /
// 0x807f gave a NaN (difftest seed 3300000001358). An f16 is extended:
// vcvtph2ps is exact.
llvm::Value* widenToF32(llvm::IRBuilder<>& ir, llvm::Value* half) {
  llvm::Type* type = half->getType();
  llvm::Type *f32 = ir.getFloatTy(), *i32 = ir.getInt32Ty();
  if (auto* v = llvm::dyn_cast<llvm::VectorType>(type)) {
    f32 = llvm::VectorType::get(f32, v->getElementCount());
    i32 = llvm::VectorType::get(i32, v->getElementCount());
  }
  if (!type->getScalarType()->isBFloatTy()) return ir.CreateFPExt(half, f32);
  llvm::Value* bits = ir.CreateZExt(ir.CreateBitCast(half, bitsOf(type)), i32);
  return ir.CreateBitCast(ir.CreateShl(bits, llvm::ConstantInt::get(i32, 16)), f32);
}

// Compares of halves compare their exact f32 values. CodeGenPrepare
// sinks a compare into the blocks of its users, past a block split the loop
// above did not see (an atomic's cmpxchg loop), and the half operands went
// with it: held across the split in an f32 register and narrowed again, a
// bf16 denormal argument compared equal to 0 at O1-O3 (difftest seed
// 276512670607037); an f16 bitcast of a bf16 argument made the x86 back end
// abort ("Do not know how to soft promote this operator's result!", seed
// 276512670612451). The widenings stay where the compare was, and the f32
// values they make cross blocks unchanged.
void comparesInF32(llvm::Function& f) {
  std::vector<llvm::FCmpInst*> compares;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block)
      if (auto* cmp = llvm::dyn_cast<llvm::FCmpInst>(&inst); cmp && isHalf(cmp->getOperand(0)->getType()))
        compares.push_back(cmp);
  for (llvm::FCmpInst* cmp : compares) {
    llvm::IRBuilder<> ir(cmp);
    ir.SetCurrentDebugLocation(cmp->getDebugLoc());
    for (unsigned k = 0; k < 2; ++k) cmp->setOperand(k, widenToF32(ir, cmp->getOperand(k)));
  }
}

// bf16 arithmetic (fadd, fsub, fmul, fdiv, frem) is done in f32 as the back
// end promotes it, on operands widened from their bits (widenToF32). The
// result is rounded to bf16 once, as before: f32 carries more than twice
// bf16's precision, so the f32 operation rounded to bf16 is the correctly
// rounded bf16 result.
void bf16ArithmeticInF32(llvm::Function& f) {
  std::vector<llvm::BinaryOperator*> operations;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block)
      if (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(&inst); op && op->getType()->getScalarType()->isBFloatTy())
        operations.push_back(op);
  for (llvm::BinaryOperator* op : operations) {
    llvm::IRBuilder<> ir(op);
    ir.SetCurrentDebugLocation(op->getDebugLoc());
    llvm::Value* wide =
        ir.CreateBinOp(op->getOpcode(), widenToF32(ir, op->getOperand(0)), widenToF32(ir, op->getOperand(1)));
    if (auto* i = llvm::dyn_cast<llvm::Instruction>(wide)) i->copyFastMathFlags(op);
    llvm::Value* result = ir.CreateFPTrunc(wide, op->getType());
    op->replaceAllUsesWith(result);
    result->takeName(op);
    op->eraseFromParent();
  }
}

// Every other widening of a bf16 (a cast, the builder's math on halves, done
// in f32 or f64) is done from the bits too, for the reason widenToF32 gives;
// to f64 through the exact f32.
void bf16ExtensionsFromBits(llvm::Function& f) {
  std::vector<llvm::FPExtInst*> extensions;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block)
      if (auto* ext = llvm::dyn_cast<llvm::FPExtInst>(&inst); ext && ext->getSrcTy()->getScalarType()->isBFloatTy())
        extensions.push_back(ext);
  for (llvm::FPExtInst* ext : extensions) {
    llvm::IRBuilder<> ir(ext);
    ir.SetCurrentDebugLocation(ext->getDebugLoc());
    llvm::Value* wide = widenToF32(ir, ext->getOperand(0));
    if (wide->getType() != ext->getType()) wide = ir.CreateFPExt(wide, ext->getType());
    ext->replaceAllUsesWith(wide);
    wide->takeName(ext);
    ext->eraseFromParent();
  }
}

// Loads and stores of halves move i16. SelectionDAG at O0 (which modules with
// halves take, see code_emitter.cpp) loads a half as an extension to f32 and
// narrows it back for a store or a bitcast, flushing bf16 denormals.
void memoryAsBits(llvm::Function& f) {
  std::vector<llvm::LoadInst*> loads;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block) {
      if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst); store && isHalf(store->getValueOperand()->getType())) {
        llvm::IRBuilder<> ir(store);
        store->setOperand(0, ir.CreateBitCast(store->getValueOperand(), bitsOf(store->getValueOperand()->getType())));
      } else if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst); load && isHalf(load->getType())) {
        loads.push_back(load);
      }
    }
  for (llvm::LoadInst* load : loads) {
    llvm::IRBuilder<> ir(load);
    llvm::LoadInst* bits = ir.CreateAlignedLoad(bitsOf(load->getType()), load->getPointerOperand(), load->getAlign(),
                                                load->isVolatile());
    bits->setAtomic(load->getOrdering(), load->getSyncScopeID());
    bits->copyMetadata(*load);
    load->replaceAllUsesWith(ir.CreateBitCast(bits, load->getType()));
    load->eraseFromParent();
  }
}

// The bits of a computed bf16 scalar pass through an empty inline asm before
// anything but a store sees them. LLVM 19 and 22's x86 back end takes the
// sign bit of a bf16 narrowed from f32 (fptrunc, or bf16 arithmetic, which it
// does in f32) to be known zero, so `bitcast(fptrunc(x)) & 0x8000` folds to 0:
// copysign(-inf, bitcast(bf16 rem)) gave +inf at O3 (found by the tests once
// O3 stopped using FastISel). The wrong known bits also flow through the i16
// selects, phis and block-crossing bits that the other rewrites here make
// (copysign(-inf, minimumf(x, -inf)) gave +inf at O1-O3 through an i16 select
// of a NaN constant and the narrowed minimum, difftest seed 5000000008719), so
// this runs last and covers every use. The asm hides the bits from that
// analysis and costs nothing.
void opaqueComputedBits(llvm::Function& f) {
  std::vector<llvm::BitCastInst*> casts;
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block) {
      auto* cast = llvm::dyn_cast<llvm::BitCastInst>(&inst);
      if (!cast || !cast->getSrcTy()->isBFloatTy() || !cast->getDestTy()->isIntegerTy()) continue;
      const llvm::Value* source = cast->getOperand(0);
      const bool computed = llvm::isa<llvm::Instruction>(source) &&
                            !llvm::isa<llvm::BitCastInst, llvm::LoadInst, llvm::PHINode, llvm::SelectInst,
                                       llvm::FreezeInst, llvm::ExtractElementInst>(source);
      const bool bitsUsed = llvm::any_of(cast->users(), [](const llvm::User* u) { return !llvm::isa<llvm::StoreInst>(u); });
      if (computed && bitsUsed) casts.push_back(cast);
    }
  for (llvm::BitCastInst* cast : casts) {
    llvm::IRBuilder<> ir(cast->getNextNode());
    auto* type = llvm::FunctionType::get(cast->getType(), {cast->getType()}, false);
    llvm::Value* opaque = ir.CreateCall(llvm::InlineAsm::get(type, "", "=r,0", false), {cast});
    cast->replaceUsesWithIf(opaque, [&](llvm::Use& u) { return u.getUser() != opaque; });
  }
}

// A half argument becomes its frozen i16 bits on entry, made back into a half
// before each use. The x86 back end keeps a half argument that stays live in
// an f32 register, so one used after a call in its block (an AOT module's
// raw function around memjit_parallel_for) was spilled as f32 and narrowed
// for its bits, quieting a signalling NaN (found by the difftest).
void argumentsAsBits(llvm::Function& f) {
  for (llvm::Argument& a : f.args()) {
    if (!isHalf(a.getType()) || a.use_empty()) continue;
    llvm::IRBuilder<> entry(&f.getEntryBlock(), f.getEntryBlock().getFirstInsertionPt());
    llvm::Value* cast = entry.CreateBitCast(&a, bitsOf(a.getType()));
    llvm::Value* bits = entry.CreateFreeze(cast);
    for (llvm::Use& use : llvm::make_early_inc_range(a.uses())) {
      auto* user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
      if (!user || user == cast) continue;
      auto* phi = llvm::dyn_cast<llvm::PHINode>(user);
      llvm::IRBuilder<> before(phi ? phi->getIncomingBlock(use)->getTerminator() : user);
      use.set(before.CreateBitCast(bits, a.getType()));
    }
  }
}

// The bits of a half enter a phi frozen. CodeGenPrepare's optimizePhiType
// turns an integer phi whose incoming values are bitcasts from one float type
// (and whose users bitcast it back) into a phi of that type, which the back
// end keeps in an f32 register: a bf16 argument carried round a loop came out
// flushed at O1 (difftest seed 265479607567263). A freeze is not a bitcast.
void freezeHalfBitsEnteringPhis(llvm::Function& f) {
  for (llvm::BasicBlock& block : f)
    for (llvm::PHINode& phi : block.phis())
      for (unsigned k = 0; k < phi.getNumIncomingValues(); ++k) {
        auto* cast = llvm::dyn_cast<llvm::BitCastInst>(phi.getIncomingValue(k));
        if (!cast || !isHalf(cast->getSrcTy())) continue;
        llvm::IRBuilder<> end(phi.getIncomingBlock(k)->getTerminator());
        phi.setIncomingValue(k, end.CreateFreeze(cast));
      }
}

// A bitcast between bf16 and f16 (or vectors of them): the fence that
// fenceHalfBitcasts puts after it.
bool isHalfBitcast(const llvm::Value* v) {
  auto* cast = llvm::dyn_cast<llvm::BitCastInst>(v);
  return cast && isHalf(cast->getSrcTy()) && isHalf(cast->getDestTy());
}

bool isHalfBitcastFence(const llvm::Instruction& inst) {
  auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
  return call && call->getIntrinsicID() == llvm::Intrinsic::arithmetic_fence && isHalfBitcast(call->getArgOperand(0));
}

// Any fence on a half value, when code generation comes: a fence is the
// identity, and the back end widens a bf16 one to f32 and narrows it back
// (vcvtneps2bf16, which flushes a denormal). The optimiser leaves
// fenceHalfBitcasts' fences in place but may fold what they fence: a bitcast
// chain i16 -> f16 -> bf16 beneath one became i16 -> bf16, no longer a bitcast
// between halves, and the fence reached code generation (the f16 denormal
// 0x0001 read as bf16 came out 0 at O1-O3, difftest seed 3600000000128).
bool isHalfFence(const llvm::Instruction& inst) {
  auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
  return call && call->getIntrinsicID() == llvm::Intrinsic::arithmetic_fence && isHalf(call->getType());
}

// The fences of fenceHalfBitcasts (and any other fence on a half, see
// isHalfFence) have done their work once the optimiser has run; the back end
// would widen a bf16 one to f32 and narrow it back. A
// bitcast of a fence becomes one bitcast from the fenced value's source: the
// optimiser would have folded the chain without the fence, and LLVM 19's
// SelectionDAG drops the sign bit of bf16 -> f16 -> i16 (the f16
// copysign(-inf, bitcast<f16>(bf16 rem)) test gave +inf at O1-O3).
void dropHalfBitcastFences(llvm::Function& f) {
  std::vector<llvm::IntrinsicInst*> fences;  // first: the loop below erases the instructions after them
  for (llvm::BasicBlock& block : f)
    for (llvm::Instruction& inst : block)
      if (isHalfFence(inst)) fences.push_back(llvm::cast<llvm::IntrinsicInst>(&inst));
  for (llvm::IntrinsicInst* fence : fences) {
    llvm::Value* fenced = fence->getArgOperand(0);
    // An earlier fence's folding may have replaced this fence's bitcast.
    if (auto* halfCast = llvm::dyn_cast<llvm::BitCastInst>(fenced)) {
      llvm::Value* source = halfCast->getOperand(0);
      for (llvm::User* user : llvm::make_early_inc_range(fence->users()))
        if (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(user)) {
          llvm::Value* direct = source;
          if (source->getType() != cast->getDestTy()) direct = llvm::IRBuilder<>(cast).CreateBitCast(source, cast->getDestTy());
          cast->replaceAllUsesWith(direct);
          cast->eraseFromParent();
        }
    }
    fence->replaceAllUsesWith(fenced);
    fence->eraseFromParent();
    if (auto* dead = llvm::dyn_cast<llvm::BitCastInst>(fenced); dead && dead->use_empty()) dead->eraseFromParent();
  }
}

}  // namespace

void passHalvesAsBits(llvm::Module& module) {
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    dropHalfBitcastFences(f);
    signOpsAsBits(f);
    movesAsBits(f);
    comparesInF32(f);
    bf16ArithmeticInF32(f);
    bf16ExtensionsFromBits(f);
    memoryAsBits(f);
    argumentsAsBits(f);
    phisAsBits(f);
    valuesAsBits(f);
    freezeHalfBitsEnteringPhis(f);
    opaqueComputedBits(f);
  }
}

void fenceHalfBitcasts(llvm::Module& module) {
  std::vector<llvm::Instruction*> casts;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block)
        if (isHalfBitcast(&inst)) casts.push_back(&inst);
  for (llvm::Instruction* cast : casts) {
    if (llvm::all_of(cast->users(), [](const llvm::User* u) {
          auto* i = llvm::dyn_cast<llvm::Instruction>(u);
          return i && isHalfBitcastFence(*i);
        }))
      continue;
    llvm::IRBuilder<> ir(cast->getNextNode());
    ir.SetCurrentDebugLocation(cast->getDebugLoc());
    llvm::Value* fence = ir.CreateIntrinsic(llvm::Intrinsic::arithmetic_fence, {cast->getType()}, {cast});
    cast->replaceUsesWithIf(fence, [&](llvm::Use& u) { return u.getUser() != fence; });
  }
}

bool hasHalfValues(const llvm::Module& module) {
  for (const llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    for (const llvm::Argument& a : f.args())
      if (isHalf(a.getType())) return true;
    for (const llvm::BasicBlock& block : f)
      for (const llvm::Instruction& inst : block) {
        if (isHalf(inst.getType())) return true;
        for (const llvm::Value* operand : inst.operand_values())
          if (isHalf(operand->getType())) return true;
      }
  }
  return false;
}

}  // namespace memjit::jit::detail
