#include "dot_product.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/Dominators.h>
#include <llvm/CodeGen/TargetSubtargetInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include <set>
#include <vector>

#include "memjit/metadata_symbols.h"

namespace memjit::jit::detail {
namespace {

enum class Kind { U8S8, S16, BF16 };

bool has(const llvm::TargetMachine& machine, const llvm::Function& f, const char* features) {
  if (!machine.getTargetTriple().isX86()) return false;
  return machine.getSubtargetImpl(f)->checkFeatures(features);
}

// Whether `f`'s CPU computes vdpbf16ps as the builder defines the bf16 dot
// (FunctionBuilder::dot, docs/vectors.md): Intel's, checked bit for bit on
// Sapphire Rapids. AMD Zen 5's differs next to the smallest normal: it flushes
// a step whose exact result rounds, at full precision, to just below 2^-126
// (-2^-126 + 1.5 * 2^-151 gave +0 after the second step, where the definition
// keeps -2^-126; difftest seed 6400000000853), so AMD CPUs, and CPUs memjit
// cannot name, get the portable sequence.
bool vdpbf16psMatchesTheDefinition(const llvm::TargetMachine& machine, const llvm::Function& f) {
  const llvm::StringRef cpu = machine.getSubtargetImpl(f)->getCPU();
  for (const char* intel : {"cooperlake", "sapphirerapids", "emeraldrapids", "graniterapids", "diamondrapids"})
    if (cpu.starts_with(intel)) return true;
  return false;
}

// The instruction for `lanes` i32/f32 lanes of `kind` in `f`, or not_intrinsic.
llvm::Intrinsic::ID instruction(const llvm::TargetMachine& machine, const llvm::Function& f, Kind kind,
                                unsigned lanes) {
  using namespace llvm::Intrinsic;
  static constexpr ID table[3][3] = {
      {x86_avx512_vpdpbusd_128, x86_avx512_vpdpbusd_256, x86_avx512_vpdpbusd_512},
      {x86_avx512_vpdpwssd_128, x86_avx512_vpdpwssd_256, x86_avx512_vpdpwssd_512},
      {x86_avx512bf16_dpbf16ps_128, x86_avx512bf16_dpbf16ps_256, x86_avx512bf16_dpbf16ps_512}};
  const int width = lanes == 4 ? 0 : lanes == 8 ? 1 : lanes == 16 ? 2 : -1;
  if (width < 0) return not_intrinsic;
  bool available = false;
  if (kind == Kind::BF16)
    available = has(machine, f, width == 2 ? "+avx512bf16" : "+avx512bf16,+avx512vl") &&
                vdpbf16psMatchesTheDefinition(machine, f);
  else if (width == 2)
    available = has(machine, f, "+avx512vnni");
  else
    available = has(machine, f, "+avxvnni") || has(machine, f, "+avx512vnni,+avx512vl");
  return available ? table[static_cast<int>(kind)][width] : not_intrinsic;
}

std::optional<Kind> kindOfFallback(llvm::StringRef name) {
  if (!name.consume_front(metadata::kDotFallbackPrefix)) return std::nullopt;
  if (name.starts_with("u8s8.")) return Kind::U8S8;
  if (name.starts_with("s16.")) return Kind::S16;
  if (name.starts_with("bf16.")) return Kind::BF16;
  return std::nullopt;
}

unsigned lanesOf(llvm::Type* t) { return llvm::cast<llvm::FixedVectorType>(t)->getNumElements(); }

// --- the loop idiom ---

// True when every use of `v` only contributes to a lane sum after the loop: llvm.vector.reduce.add, or lane-wise
// adds and single-entry phis whose results are only summed. Then any vector with the same lane sum may replace it.
bool onlySummed(llvm::Value* v, std::set<llvm::Value*>& seen) {
  if (!seen.insert(v).second) return false;
  for (llvm::User* user : v->users()) {
    if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(user)) {
      if (call->getIntrinsicID() != llvm::Intrinsic::vector_reduce_add) return false;
    } else if (auto* add = llvm::dyn_cast<llvm::BinaryOperator>(user)) {
      if (add->getOpcode() != llvm::Instruction::Add || !onlySummed(add, seen)) return false;
    } else if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user)) {
      if (phi->getNumIncomingValues() != 1 || !onlySummed(phi, seen)) return false;
    } else {
      return false;
    }
  }
  return true;
}

struct Idiom {
  llvm::PHINode* phi;
  llvm::BinaryOperator* update;     // phi + products
  llvm::Value* unsignedBytes;       // <4N x i8>
  llvm::Value* signedBytes;         // <4N x i8>
};

bool extendedBytes(llvm::Value* v, bool zero, llvm::Value*& bytes) {
  using namespace llvm::PatternMatch;
  const bool matched = zero ? match(v, m_ZExt(m_Value(bytes))) : match(v, m_SExt(m_Value(bytes)));
  return matched && bytes->getType()->getScalarType()->isIntegerTy(8);
}

std::optional<Idiom> matchIdiom(llvm::PHINode& phi, const llvm::Loop& loop) {
  using namespace llvm::PatternMatch;
  auto* type = llvm::dyn_cast<llvm::FixedVectorType>(phi.getType());
  if (!type || !type->getElementType()->isIntegerTy(32) || type->getNumElements() % 16 != 0) return std::nullopt;
  if (phi.getNumIncomingValues() != 2 || !phi.hasOneUse()) return std::nullopt;
  auto* update = llvm::dyn_cast<llvm::BinaryOperator>(phi.user_back());
  if (!update || update->getOpcode() != llvm::Instruction::Add || !loop.contains(update)) return std::nullopt;
  llvm::Value* products = update->getOperand(0) == &phi ? update->getOperand(1) : update->getOperand(0);
  llvm::Value *x = nullptr, *y = nullptr;
  if (!products->hasOneUse() || !match(products, m_Mul(m_Value(x), m_Value(y)))) return std::nullopt;
  Idiom idiom{&phi, update, nullptr, nullptr};
  if (!(extendedBytes(x, true, idiom.unsignedBytes) && extendedBytes(y, false, idiom.signedBytes)) &&
      !(extendedBytes(y, true, idiom.unsignedBytes) && extendedBytes(x, false, idiom.signedBytes)))
    return std::nullopt;
  // Inside the loop the update feeds only the phi; outside it is only summed.
  std::set<llvm::Value*> seen{update};
  for (llvm::User* user : update->users()) {
    if (user == &phi) continue;
    auto* inst = llvm::cast<llvm::Instruction>(user);
    if (loop.contains(inst)) return std::nullopt;
    if (auto* lcssa = llvm::dyn_cast<llvm::PHINode>(inst)) {
      if (lcssa->getNumIncomingValues() != 1 || !onlySummed(lcssa, seen)) return std::nullopt;
    } else if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(inst)) {
      if (call->getIntrinsicID() != llvm::Intrinsic::vector_reduce_add) return std::nullopt;
    } else if (auto* add = llvm::dyn_cast<llvm::BinaryOperator>(inst);
               !add || add->getOpcode() != llvm::Instruction::Add || !onlySummed(add, seen)) {
      return std::nullopt;
    }
  }
  return idiom;
}

// `narrow` (<N x i32>) as <4N x i32> with zeros in the other lanes: the same lane sum.
llvm::Value* widen(llvm::IRBuilderBase& ir, llvm::Value* narrow, unsigned wideLanes) {
  const unsigned lanes = lanesOf(narrow->getType());
  llvm::SmallVector<int, 256> mask;
  for (unsigned j = 0; j < wideLanes; ++j) mask.push_back(j < lanes ? static_cast<int>(j) : static_cast<int>(lanes));
  return ir.CreateShuffleVector(narrow, llvm::Constant::getNullValue(narrow->getType()), mask);
}

llvm::Value* slice(llvm::IRBuilderBase& ir, llvm::Value* v, unsigned from, unsigned count) {
  llvm::SmallVector<int, 64> mask;
  for (unsigned j = 0; j < count; ++j) mask.push_back(static_cast<int>(from + j));
  return ir.CreateShuffleVector(v, mask);
}

llvm::Value* concat(llvm::IRBuilderBase& ir, llvm::ArrayRef<llvm::Value*> parts) {
  std::vector<llvm::Value*> level(parts.begin(), parts.end());
  while (level.size() > 1) {  // pairs of equal width (the part count is a power of two)
    std::vector<llvm::Value*> next;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
      llvm::SmallVector<int, 64> mask;
      for (unsigned j = 0; j < 2 * lanesOf(level[i]->getType()); ++j) mask.push_back(static_cast<int>(j));
      next.push_back(ir.CreateShuffleVector(level[i], level[i + 1], mask));
    }
    level = std::move(next);
  }
  return level[0];
}

bool rewrite(const Idiom& idiom, const llvm::Loop& loop, llvm::Intrinsic::ID id, unsigned chunk,
             std::vector<llvm::Value*>& widened) {
  llvm::PHINode* phi = idiom.phi;
  const unsigned wide = lanesOf(phi->getType()), lanes = wide / 4;
  if ((lanes / chunk) & (lanes / chunk - 1)) return false;  // concat pairs parts up
  // The block entering the loop (the vectoriser's runtime checks may leave it without a dedicated preheader).
  llvm::BasicBlock* preheader = loop.getLoopPredecessor();
  llvm::BasicBlock* latch = loop.getLoopLatch();
  if (!preheader || !latch || phi->getBasicBlockIndex(preheader) < 0 || phi->getBasicBlockIndex(latch) < 0)
    return false;
  auto* narrowType = llvm::FixedVectorType::get(llvm::Type::getInt32Ty(phi->getContext()), lanes);
  // The start value's lane sum in lane 0.
  llvm::IRBuilder<> ir(preheader->getTerminator());
  llvm::Value* start = phi->getIncomingValueForBlock(preheader);
  llvm::Value* narrowStart = llvm::Constant::getNullValue(narrowType);
  if (!llvm::isa<llvm::Constant>(start) || !llvm::cast<llvm::Constant>(start)->isNullValue())
    narrowStart = ir.CreateInsertElement(narrowStart, ir.CreateAddReduce(start), std::uint64_t{0});
  ir.SetInsertPoint(phi);
  llvm::PHINode* narrow = ir.CreatePHI(narrowType, 2, phi->getName() + ".dot");
  ir.SetInsertPoint(idiom.update);
  std::vector<llvm::Value*> parts;
  for (unsigned c = 0; c < lanes / chunk; ++c)
    parts.push_back(emitDotInstruction(ir, id, slice(ir, narrow, c * chunk, chunk), slice(ir, idiom.unsignedBytes, 4 * c * chunk, 4 * chunk),
                         slice(ir, idiom.signedBytes, 4 * c * chunk, 4 * chunk)));
  llvm::Value* next = concat(ir, parts);
  narrow->addIncoming(narrowStart, preheader);
  narrow->addIncoming(next, latch);
  // Outside the loop: a vector with the same lane sum.
  std::vector<llvm::Instruction*> users;
  for (llvm::User* u : idiom.update->users())
    if (u != phi) users.push_back(llvm::cast<llvm::Instruction>(u));
  for (llvm::Instruction* user : users) {
    if (auto* lcssa = llvm::dyn_cast<llvm::PHINode>(user)) {
      ir.SetInsertPoint(lcssa);
      llvm::PHINode* narrowExit = ir.CreatePHI(narrowType, 1, lcssa->getName() + ".dot");
      narrowExit->addIncoming(next, lcssa->getIncomingBlock(0));
      ir.SetInsertPoint(lcssa->getParent(), lcssa->getParent()->getFirstInsertionPt());
      widened.push_back(widen(ir, narrowExit, wide));
      lcssa->replaceAllUsesWith(widened.back());
      lcssa->eraseFromParent();
    } else {
      ir.SetInsertPoint(user);
      widened.push_back(widen(ir, next, wide));
      user->replaceUsesOfWith(idiom.update, widened.back());
    }
  }
  phi->replaceAllUsesWith(llvm::PoisonValue::get(phi->getType()));
  llvm::Instruction* products = llvm::cast<llvm::Instruction>(
      idiom.update->getOperand(0) == phi ? idiom.update->getOperand(1) : idiom.update->getOperand(0));
  idiom.update->eraseFromParent();
  phi->eraseFromParent();
  // The products and extensions, now unused (an extension may have other users).
  llvm::Value* operands[] = {products->getOperand(0), products->getOperand(1)};
  products->eraseFromParent();
  for (llvm::Value* v : operands)
    if (auto* ext = llvm::dyn_cast<llvm::Instruction>(v); ext && ext->use_empty()) ext->eraseFromParent();
  return true;
}

// The narrow vector `v` widens (see widen), or null.
llvm::Value* narrowSource(llvm::Value* v, const std::set<llvm::Value*>& widens) {
  return widens.count(v) ? llvm::cast<llvm::ShuffleVectorInst>(v)->getOperand(0) : nullptr;
}

// The sums after the loop in the narrow type: add(widen(x), widen(y)) is widen(x + y) and reduce.add(widen(x))
// is reduce.add(x), so the interleaved accumulators are combined without widening each.
void sumNarrow(std::vector<llvm::Value*> work) {
  std::set<llvm::Value*> widens(work.begin(), work.end());
  while (!work.empty()) {
    llvm::Value* w = work.back();
    work.pop_back();
    for (llvm::User* user : llvm::SmallVector<llvm::User*, 4>(w->users())) {
      auto* inst = llvm::cast<llvm::Instruction>(user);
      llvm::IRBuilder<> ir(inst);
      if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(inst);
          call && call->getIntrinsicID() == llvm::Intrinsic::vector_reduce_add) {
        call->replaceAllUsesWith(ir.CreateAddReduce(narrowSource(w, widens)));
        call->eraseFromParent();
      } else if (inst->getOpcode() == llvm::Instruction::Add) {
        llvm::Value* x = narrowSource(inst->getOperand(0), widens);
        llvm::Value* y = narrowSource(inst->getOperand(1), widens);
        if (!x || !y || x->getType() != y->getType()) continue;
        llvm::Value* sum = widen(ir, ir.CreateAdd(x, y), lanesOf(inst->getType()));
        widens.insert(sum);
        work.push_back(sum);
        inst->replaceAllUsesWith(sum);
        inst->eraseFromParent();
      }
    }
  }
  for (llvm::Value* w : widens)
    if (w->use_empty()) llvm::cast<llvm::Instruction>(w)->eraseFromParent();
}

}  // namespace

llvm::Value* emitDotInstruction(llvm::IRBuilderBase& ir, unsigned id, llvm::Value* acc, llvm::Value* a,
                                llvm::Value* b) {
  llvm::FunctionType* type = llvm::Intrinsic::getType(ir.getContext(), id);
  llvm::Value* args[] = {ir.CreateBitCast(acc, type->getParamType(0)), ir.CreateBitCast(a, type->getParamType(1)),
                         ir.CreateBitCast(b, type->getParamType(2))};
  return ir.CreateBitCast(ir.CreateIntrinsic(id, {}, args), acc->getType());
}

llvm::PreservedAnalyses DotInstructionsPass::run(llvm::Module& module, llvm::ModuleAnalysisManager&) {
  bool changed = false;
  for (llvm::Function& fallback : module) {
    const auto kind = kindOfFallback(fallback.getName());
    if (!kind) continue;
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* user : fallback.users())
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(user); call && call->getCalledFunction() == &fallback)
        calls.push_back(call);
    for (llvm::CallInst* call : calls) {
      const llvm::Intrinsic::ID id =
          instruction(*machine, *call->getFunction(), *kind, lanesOf(call->getType()));
      if (id == llvm::Intrinsic::not_intrinsic) continue;
      llvm::IRBuilder<> ir(call);
      call->replaceAllUsesWith(emitDotInstruction(ir, id, call->getArgOperand(0), call->getArgOperand(1), call->getArgOperand(2)));
      call->eraseFromParent();
      changed = true;
    }
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

llvm::PreservedAnalyses DotLoopWidthPass::run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  using namespace llvm::PatternMatch;
  if (function.isDeclaration() || !has(*machine, function, "+avx512vnni")) return llvm::PreservedAnalyses::all();
  struct Sum {
    llvm::Loop* loop;
    llvm::PHINode* acc;
    llvm::Value *unsignedBytes, *signedBytes;
  };
  std::vector<Sum> sums;
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || llvm::findStringMetadataForLoop(loop, "llvm.loop.vectorize.width") ||
        llvm::hasDisableAllTransformsHint(loop))
      continue;
    for (llvm::PHINode& phi : loop->getHeader()->phis()) {
      if (!phi.getType()->isIntegerTy(32) || !phi.hasOneUse()) continue;
      llvm::Value *x = nullptr, *y = nullptr;
      const auto bytes = [](llvm::Value* v, bool zero) {
        llvm::Value* from = nullptr;
        return (zero ? match(v, m_ZExt(m_Value(from))) : match(v, m_SExt(m_Value(from)))) && from->getType()->isIntegerTy(8);
      };
      if (!match(phi.user_back(), m_c_Add(m_Specific(&phi), m_OneUse(m_Mul(m_Value(x), m_Value(y))))) ||
          !((bytes(x, true) && bytes(y, false)) || (bytes(y, true) && bytes(x, false))))
        continue;
      llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.width", 64);
      sums.push_back(bytes(x, true) ? Sum{loop, &phi, x, y} : Sum{loop, &phi, y, x});
      break;
    }
  }
  // The masked byte loads of head and tail need AVX512-BW (else the backend splits them into 64 scalar loads).
  bool changed = false;
  if (!sums.empty() && has(*machine, function, "+avx512bw")) {
    auto& se = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
    auto& dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(function);
    auto& assumptions = analyses.getResult<llvm::AssumptionAnalysis>(function);
    for (const Sum& sum : sums) {
      // A preheader and a dedicated exit (the vectoriser would make them next anyway).
      changed |= llvm::simplifyLoop(sum.loop, &dominators, &loops, &se, &assumptions, nullptr, false);
      changed |= alignDotLoop(*sum.loop, *sum.acc, sum.unsignedBytes, sum.signedBytes, se, dominators, loops);
    }
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();  // else only loop metadata changed
}

llvm::PreservedAnalyses DotLoopIdiomPass::run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses) {
  if (!machine->getTargetTriple().isX86() || function.isDeclaration()) return llvm::PreservedAnalyses::all();
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  bool changed = false;
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost()) continue;
    std::vector<Idiom> found;
    std::vector<llvm::Value*> widened;
    for (llvm::PHINode& phi : loop->getHeader()->phis())
      if (auto idiom = matchIdiom(phi, *loop)) found.push_back(*idiom);
    for (const Idiom& idiom : found) {
      const unsigned lanes = lanesOf(idiom.phi->getType()) / 4;
      // The widest instruction the target has whose lanes divide the accumulator's.
      for (unsigned chunk : {16u, 8u, 4u}) {
        if (lanes % chunk != 0) continue;
        const llvm::Intrinsic::ID id = instruction(*machine, function, Kind::U8S8, chunk);
        if (id == llvm::Intrinsic::not_intrinsic) continue;
        changed |= rewrite(idiom, *loop, id, chunk, widened);
        break;
      }
    }
    sumNarrow(std::move(widened));
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

}  // namespace memjit::jit::detail
