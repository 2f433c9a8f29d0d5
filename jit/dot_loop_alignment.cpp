// Aligned loads for a long u8 x s8 dot-product loop (dot_product.h). LLVM's vectoriser never peels for alignment,
// so a GEMV whose matrix rows start off a 64-byte boundary (std::vector's data does: 16 bytes past one) loads
// every 64 bytes of a row across two cache lines; streamed from memory, that made memjit's two-accumulator
// vpdpbusd loop 8-10% slower than with aligned rows (bench_dot's 4096x8192). Before vectorisation, the loop
// `acc += zext(a[i]) * sext(b[i])` gets
//   - a head: the bytes up to the streamed operand's next 64-byte boundary, in one masked vpdpbusd;
//   - a body of a multiple of 128 iterations (the vectorised loop's 64 lanes times its two accumulators), so the
//     vectoriser's scalar remainder never runs: with the width forced to 64 it has no vector epilogue, and a
//     remainder of up to 127 scalar iterations per row cost more than the aligned loads saved;
//   - a tail: the last 0-127 bytes, in two masked vpdpbusd.
// Shorter loops run an untouched copy of the original loop instead (the vectoriser's two-accumulator loop and
// scalar remainder): choosing head, body and tail at run time in one loop cost a 256-byte row about 56
// instructions instead of 38, and bench_dot's 64x256 GEMV fell from 1.2x to 0.9x of g++.
// Integer sums wrap, so the regrouped sum has the scalar loop's bits.
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <map>
#include <utility>
#include <vector>

#include "dot_product.h"
#include "llvm_compat.h"

namespace memjit::jit::detail {
namespace {

constexpr std::uint64_t kLine = 64;   // bytes per cache line, and per vpdpbusd on zmm registers
constexpr std::uint64_t kBlock = 128;  // bytes per trip of the vectorised loop (two accumulators)
// Shorter loops run the original loop's copy: head and tail (about 40 instructions) would cost more than the split
// loads save (bench_dot's 64x256: 256-byte rows from L1, 18 cycles a row).
constexpr std::uint64_t kMinBytes = 1024;

// The address recurrence of the byte load that `extended` (a zext or sext of it) reads in `loop`, when it steps
// one byte per iteration; null otherwise.
const llvm::SCEVAddRecExpr* unitStrideBytes(llvm::Value* extended, const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  auto* load = llvm::dyn_cast<llvm::LoadInst>(llvm::cast<llvm::Instruction>(extended)->getOperand(0));
  if (!load || !load->isSimple() || !loop.contains(load)) return nullptr;
  auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(se.getSCEV(load->getPointerOperand()));
  if (!rec || rec->getLoop() != &loop || !rec->isAffine()) return nullptr;
  auto* step = llvm::dyn_cast<llvm::SCEVConstant>(rec->getStepRecurrence(se));
  return step && step->getAPInt() == 1 ? rec : nullptr;
}

const llvm::SCEVAddRecExpr* affineInduction(llvm::Value* v, const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  if (!v->getType()->isIntegerTy()) return nullptr;
  auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(se.getSCEV(v));
  return rec && rec->getLoop() == &loop && rec->isAffine() ? rec : nullptr;
}

// The i64 lane mask of lanes [0, count), count in [0, 64].
llvm::Value* laneMask(llvm::IRBuilderBase& ir, llvm::Value* count) {
  llvm::Value* below = ir.CreateSub(ir.CreateShl(ir.getInt64(1), ir.CreateAnd(count, kLine - 1)), ir.getInt64(1));
  return ir.CreateSelect(ir.CreateICmpEQ(count, ir.getInt64(kLine)), ir.getInt64(~std::uint64_t{0}), below);
}

// The sum of u[i] * s[i] over lanes [0, count) (count in [0, 64]) of the 64 bytes at u and s, added to `acc`
// (<16 x i32>) by vpdpbusd. Masked-off lanes are neither read nor summed.
llvm::Value* maskedDot(llvm::IRBuilderBase& ir, llvm::Value* acc, llvm::Value* u, llvm::Value* s, llvm::Value* count) {
  auto* bytes = llvm::FixedVectorType::get(ir.getInt8Ty(), kLine);
  llvm::Value* mask = ir.CreateBitCast(laneMask(ir, count), llvm::FixedVectorType::get(ir.getInt1Ty(), kLine));
  const auto load = [&](llvm::Value* at) {
    return ir.CreateMaskedLoad(bytes, at, llvm::Align(1), mask, llvm::Constant::getNullValue(bytes));
  };
  return emitDotInstruction(ir, llvm::Intrinsic::x86_avx512_vpdpbusd_512, acc, load(u), load(s));
}

llvm::BasicBlock* newBlock(const char* name, llvm::BasicBlock* before) {
  return llvm::BasicBlock::Create(before->getContext(), name, before->getParent(), before);
}

}  // namespace

bool alignDotLoop(llvm::Loop& loop, llvm::PHINode& acc, llvm::Value* unsignedBytes, llvm::Value* signedBytes,
                  llvm::ScalarEvolution& se, llvm::DominatorTree& dominators, llvm::LoopInfo& loops) {
  llvm::BasicBlock* preheader = loop.getLoopPreheader();
  llvm::BasicBlock* latch = loop.getLoopLatch();
  llvm::BasicBlock* exit = loop.getUniqueExitBlock();
  if (!preheader || !latch || loop.getExitingBlock() != latch || !exit || exit->getSinglePredecessor() != latch)
    return false;
  auto* exitBranch = llvm::dyn_cast<llvm::BranchInst>(latch->getTerminator());
  if (!exitBranch || !exitBranch->isConditional()) return false;
  auto* update = llvm::cast<llvm::Instruction>(acc.user_back());
  // Head and tail replace iterations, so those may do nothing but load and compute.
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block)
      if (inst.mayHaveSideEffects()) return false;
  const llvm::SCEVAddRecExpr* u = unitStrideBytes(unsignedBytes, loop, se);
  const llvm::SCEVAddRecExpr* s = unitStrideBytes(signedBytes, loop, se);
  if (!u || !s) return false;
  // Every other header phi is an induction whose start the head advances.
  std::vector<std::pair<llvm::PHINode*, const llvm::SCEVAddRecExpr*>> inductions;
  for (llvm::PHINode& phi : loop.getHeader()->phis()) {
    if (&phi == &acc) continue;
    const llvm::SCEVAddRecExpr* rec = affineInduction(&phi, loop, se);
    if (!rec) return false;
    inductions.emplace_back(&phi, rec);
  }
  // Values used after the loop: the sum (plus the tail's), or inductions (their value in the last iteration).
  std::map<llvm::Instruction*, const llvm::SCEVAddRecExpr*> finals;
  for (llvm::BasicBlock* block : loop.blocks())
    for (llvm::Instruction& inst : *block)
      for (llvm::Use& use : inst.uses()) {
        if (loop.contains(llvm::cast<llvm::Instruction>(use.getUser()))) continue;
        if (&inst != update && !(finals[&inst] = affineInduction(&inst, loop, se))) return false;
      }
  const llvm::SCEV* backedges = se.getBackedgeTakenCount(&loop);
  if (llvm::isa<llvm::SCEVCouldNotCompute>(backedges)) return false;
  llvm::Instruction* decide = preheader->getTerminator();
  auto expander = llvm_compat::scevExpander(se, preheader->getModule()->getDataLayout(), "dot.align");
  std::vector<const llvm::SCEV*> needed = {u->getStart(), s->getStart(), backedges};
  for (auto [phi, rec] : inductions) needed.insert(needed.end(), {rec->getStart(), rec->getStepRecurrence(se)});
  for (auto [inst, rec] : finals) needed.insert(needed.end(), {rec->getStart(), rec->getStepRecurrence(se)});
  for (const llvm::SCEV* value : needed)
    if (!expander.isSafeToExpandAt(value, decide)) return false;

  // The streamed operand is the one whose address moves with the enclosing loop (a GEMV's matrix row; its
  // vector is read again from cache for every row); in a loop nest of one, the unsigned one.
  const llvm::Loop* outer = loop.getParentLoop();
  const bool streamSigned =
      outer && se.isLoopInvariant(u->getStart(), outer) && !se.isLoopInvariant(s->getStart(), outer);

  // preheader (decides) -> plan (long loops) -> [head] -> join (the loop's new preheader) -> loop (the body)
  //   -> tail check -> [tail] -> tail join -> exit
  //                   -> (short loops) the copy's preheader -> the copy -> exit
  // Values used after the loop become phis in its exit (LCSSA), which take the copy's values too.
  llvm::formLCSSA(loop, dominators, &loops, &se);
  llvm::BasicBlock* join = llvm::SplitBlock(preheader, decide, &dominators, &loops);
  llvm::ValueToValueMapTy copied;
  llvm::SmallVector<llvm::BasicBlock*, 8> copyBlocks;
  llvm::Loop* copy =
      llvm::cloneLoopWithPreheader(join, preheader, &loop, copied, ".short", &loops, &dominators, copyBlocks);
  llvm::remapInstructionsInBlocks(copyBlocks, copied);
  const auto copyOf = [&](llvm::Value* value) {
    auto found = copied.find(value);
    return found == copied.end() ? value : static_cast<llvm::Value*>(found->second);
  };
  auto* copyLatch = llvm::cast<llvm::BasicBlock>(copyOf(latch));
  for (llvm::PHINode& phi : exit->phis()) phi.addIncoming(copyOf(phi.getIncomingValueForBlock(latch)), copyLatch);
  // (Collected after addIncoming, which may move a phi's operands.)
  std::vector<llvm::Use*> outside;
  for (llvm::PHINode& phi : exit->phis())
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(phi.getIncomingValueForBlock(latch)); inst && loop.contains(inst))
      outside.push_back(&phi.getOperandUse(static_cast<unsigned>(phi.getBasicBlockIndex(latch))));
  decide = preheader->getTerminator();
  llvm::IRBuilder<> ir(decide);
  llvm::Type* i64 = ir.getInt64Ty();
  const auto expand = [&](const llvm::SCEV* value, llvm::Type* type) {
    return expander.expandCodeFor(value, type, decide);
  };
  llvm::Value* uStart = expand(u->getStart(), u->getStart()->getType());
  llvm::Value* sStart = expand(s->getStart(), s->getStart()->getType());
  llvm::Value* last = ir.CreateZExtOrTrunc(expand(backedges, backedges->getType()), i64);
  ir.SetInsertPoint(decide);
  llvm::Value* trips = ir.CreateAdd(last, ir.getInt64(1));
  llvm::BasicBlock* plan = newBlock("dot.plan", join);
  llvm::BasicBlock* head = newBlock("dot.head", join);
  ir.CreateCondBr(ir.CreateICmpUGE(trips, ir.getInt64(kMinBytes)), plan, llvm::cast<llvm::BasicBlock>(copyOf(join)));
  decide->eraseFromParent();
  // Bytes to the next line boundary (< 64 <= trips - 1: the body keeps 128 iterations at least).
  ir.SetInsertPoint(plan);
  llvm::Value* offset = ir.CreateAnd(ir.CreatePtrToInt(streamSigned ? sStart : uStart, i64), kLine - 1);
  llvm::Value* headCount = ir.CreateAnd(ir.CreateSub(ir.getInt64(kLine), offset), kLine - 1, "dot.head.count");
  llvm::Value* bodyCount = ir.CreateAnd(ir.CreateSub(trips, headCount), ~(kBlock - 1), "dot.body.count");
  llvm::Value* tailStart = ir.CreateAdd(headCount, bodyCount, "dot.tail.start");
  llvm::Value* tailCount = ir.CreateSub(trips, tailStart, "dot.tail.count");
  ir.CreateCondBr(ir.CreateICmpNE(headCount, ir.getInt64(0)), head, join);

  // The loop's partial sums change; a no-wrap flag on its add would no longer hold.
  update->dropPoisonGeneratingFlags();
  // The head.
  ir.SetInsertPoint(llvm::BranchInst::Create(join, head));
  auto* lanes = llvm::FixedVectorType::get(ir.getInt32Ty(), kLine / 4);
  llvm::Value* zero = llvm::Constant::getNullValue(lanes);
  std::vector<std::pair<llvm::PHINode*, llvm::Value*>> advanced;
  advanced.emplace_back(&acc, ir.CreateAdd(acc.getIncomingValueForBlock(join),
                                           ir.CreateAddReduce(maskedDot(ir, zero, uStart, sStart, headCount))));
  // start + step * head, built here rather than by SCEV (which would reason about the new values).
  for (auto [phi, rec] : inductions) {
    llvm::Type* type = rec->getType();
    llvm::Value* start = expander.expandCodeFor(rec->getStart(), type, head->getTerminator());
    llvm::Value* step = expander.expandCodeFor(rec->getStepRecurrence(se), type, head->getTerminator());
    ir.SetInsertPoint(head->getTerminator());
    advanced.emplace_back(phi, ir.CreateAdd(start, ir.CreateMul(step, ir.CreateZExtOrTrunc(headCount, type))));
  }
  ir.SetInsertPoint(join, join->begin());
  for (auto [phi, value] : advanced) {
    llvm::Value* unchanged = phi->getIncomingValueForBlock(join);
    llvm::PHINode* merged = ir.CreatePHI(phi->getType(), 2, phi->getName() + ".start");
    merged->addIncoming(unchanged, plan);
    merged->addIncoming(value, head);
    phi->setIncomingValue(phi->getBasicBlockIndex(join), merged);
  }

  // The body: a counter of its own ends the loop after bodyCount iterations.
  ir.SetInsertPoint(loop.getHeader(), loop.getHeader()->begin());
  llvm::PHINode* counter = ir.CreatePHI(i64, 2, "dot.body.iv");
  ir.SetInsertPoint(exitBranch);
  llvm::Value* nextCount = ir.CreateAdd(counter, ir.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  counter->addIncoming(ir.getInt64(0), join);
  counter->addIncoming(nextCount, latch);
  llvm::Value* done = ir.CreateICmpEQ(nextCount, bodyCount);
  exitBranch->setCondition(exitBranch->getSuccessor(0) == exit ? done : ir.CreateNot(done));

  // The tail, between the latch and the exit.
  llvm::BasicBlock* tailCheck = newBlock("dot.tail.check", exit);
  llvm::BasicBlock* tail = newBlock("dot.tail", exit);
  llvm::BasicBlock* tailJoin = newBlock("dot.tail.join", exit);
  exitBranch->replaceSuccessorWith(exit, tailCheck);
  ir.SetInsertPoint(tailCheck);
  ir.CreateCondBr(ir.CreateICmpNE(tailCount, ir.getInt64(0)), tail, tailJoin);
  ir.SetInsertPoint(tail);
  llvm::Value* firstPart = ir.CreateBinaryIntrinsic(llvm::Intrinsic::umin, tailCount, ir.getInt64(kLine));
  llvm::Value* uTail = ir.CreateGEP(ir.getInt8Ty(), uStart, tailStart);
  llvm::Value* sTail = ir.CreateGEP(ir.getInt8Ty(), sStart, tailStart);
  llvm::Value* products = maskedDot(ir, zero, uTail, sTail, firstPart);
  products = maskedDot(ir, products, ir.CreateConstGEP1_64(ir.getInt8Ty(), uTail, kLine),
                       ir.CreateConstGEP1_64(ir.getInt8Ty(), sTail, kLine), ir.CreateSub(tailCount, firstPart));
  llvm::Value* withTail = ir.CreateAdd(update, ir.CreateAddReduce(products));
  ir.CreateBr(tailJoin);
  ir.SetInsertPoint(tailJoin);
  llvm::PHINode* sum = ir.CreatePHI(update->getType(), 2, "dot.sum");
  sum->addIncoming(update, tailCheck);
  sum->addIncoming(withTail, tail);
  ir.CreateBr(exit);
  for (llvm::PHINode& phi : exit->phis()) phi.replaceIncomingBlockWith(latch, tailJoin);
  // After the loop: the sum with the tail's, and each induction's value in the last of all iterations.
  std::map<llvm::Instruction*, llvm::Value*> lastValues;
  ir.SetInsertPoint(tailJoin->getTerminator());
  for (auto [inst, rec] : finals) {
    if (!rec) continue;
    llvm::Type* type = rec->getType();
    llvm::Value* start = expander.expandCodeFor(rec->getStart(), type, tailJoin->getTerminator());
    llvm::Value* step = expander.expandCodeFor(rec->getStepRecurrence(se), type, tailJoin->getTerminator());
    ir.SetInsertPoint(tailJoin->getTerminator());
    lastValues[inst] = ir.CreateAdd(start, ir.CreateMul(step, ir.CreateZExtOrTrunc(last, type)));
  }
  for (llvm::Use* use : outside) {
    auto* inst = llvm::cast<llvm::Instruction>(use->get());
    use->set(inst == update ? static_cast<llvm::Value*>(sum) : lastValues.at(inst));
  }

  if (llvm::Loop* parent = loop.getParentLoop())
    for (llvm::BasicBlock* block : {plan, head, tailCheck, tail, tailJoin}) parent->addBasicBlockToLoop(block, loops);
  dominators.addNewBlock(plan, preheader);
  dominators.addNewBlock(head, plan);
  dominators.changeImmediateDominator(join, plan);
  dominators.addNewBlock(tailCheck, latch);
  dominators.addNewBlock(tail, tailCheck);
  dominators.addNewBlock(tailJoin, tailCheck);
  dominators.changeImmediateDominator(exit, preheader);
  // Two accumulators, as the vectoriser chooses for the loop unchanged (bodyCount is a multiple of 128 for it);
  // with the new trip count it would choose one inside a loop nest, and lose the latency hiding in L1.
  llvm::addStringMetadataToLoop(&loop, "llvm.loop.interleave.count", kBlock / kLine);
  // The copy likewise, and not unrolled: its vector loop runs at most 7 times, so the unroller would flatten it
  // (it unrolls loops of up to 8 trips whole) and DotLoopIdiomPass, which finds the vpdpbusd sum in a loop, would
  // leave the widened products as they are. The copy's loop ID is the original's until it gets one of its own.
  llvm::addStringMetadataToLoop(copy, "llvm.loop.interleave.count", kBlock / kLine);
  llvm::addStringMetadataToLoop(copy, "llvm.loop.unroll.disable", 1);
  // The exit's phis now merge two paths; a later sum in this function may start from one of them.
  se.forgetLoop(&loop);
  if (llvm::Loop* parent = loop.getParentLoop()) se.forgetLoop(parent);
  for (llvm::PHINode& phi : exit->phis()) se.forgetValue(&phi);
  return true;
}

}  // namespace memjit::jit::detail
