#include "half_loads.h"

#include <vector>

#include <llvm/CodeGen/TargetSubtargetInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Target/TargetMachine.h>

namespace memjit::jit::detail {
namespace {

// Farther than this from its widening, a load is left alone: the check for
// writes between them stays linear in the block.
constexpr int kMaxDistance = 64;

// The simple i16 load whose bits `v` is, through bitcasts between i16, half
// and bfloat, each (and the load) used only on the way to `v`; or null.
llvm::LoadInst* loadedBits(llvm::Value* v) {
  while (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(v)) {
    if (!cast->hasOneUse()) return nullptr;
    v = cast->getOperand(0);
  }
  auto* load = llvm::dyn_cast<llvm::LoadInst>(v);
  if (!load || !load->isSimple() || !load->getType()->isIntegerTy(16) || !load->hasOneUse()) return nullptr;
  return load;
}

// Whether `load` is in `widening`'s block, shortly before it, with no write
// between them.
bool loadedJustBefore(const llvm::LoadInst* load, const llvm::Instruction* widening) {
  if (load->getParent() != widening->getParent()) return false;
  int distance = 0;
  for (const llvm::Instruction* i = load->getNextNode(); i && i != widening; i = i->getNextNode())
    if (++distance > kMaxDistance || i->mayWriteToMemory()) return false;
  return true;
}

struct Widening {
  llvm::Instruction* at;       // the fpext (f16) or the bitcast to float (bf16)
  llvm::Instruction* replaced;  // its operand's chain, from here down to the load, goes
  llvm::LoadInst* load;
  bool bf16;
};

// `fpext half X`, X the bits of a load (f16).
bool matchF16(llvm::Instruction& inst, Widening& w) {
  auto* ext = llvm::dyn_cast<llvm::FPExtInst>(&inst);
  if (!ext || !ext->getSrcTy()->isHalfTy() || !ext->getOperand(0)->hasOneUse()) return false;
  auto* operand = llvm::dyn_cast<llvm::Instruction>(ext->getOperand(0));
  llvm::LoadInst* load = operand ? loadedBits(operand) : nullptr;
  if (!load || !loadedJustBefore(load, ext)) return false;
  w = {ext, operand, load, false};
  return true;
}

// `bitcast (shl (zext i16 X to i32), 16) to float`, X the bits of a load:
// widenToF32's bf16 widening (half_registers.cpp).
bool matchBf16(llvm::Instruction& inst, Widening& w) {
  using namespace llvm::PatternMatch;
  auto* cast = llvm::dyn_cast<llvm::BitCastInst>(&inst);
  if (!cast || !cast->getType()->isFloatTy()) return false;
  llvm::Value *shifted = cast->getOperand(0), *bits = nullptr;
  if (!shifted->hasOneUse() || !match(shifted, m_Shl(m_OneUse(m_ZExt(m_Value(bits))), m_SpecificInt(16))) ||
      !bits->getType()->isIntegerTy(16) || !bits->hasOneUse())
    return false;
  llvm::LoadInst* load = loadedBits(bits);
  if (!load || !loadedJustBefore(load, cast)) return false;
  w = {cast, llvm::cast<llvm::Instruction>(shifted), load, true};
  return true;
}

// Erases `inst` and, below it, each operand instruction left without uses
// (the bitcasts, zext and shift of a replaced widening; never the load).
void eraseChain(llvm::Instruction* inst, const llvm::LoadInst* load) {
  while (inst && inst != load && inst->use_empty()) {
    auto* operand = llvm::dyn_cast<llvm::Instruction>(inst->getOperand(0));
    inst->eraseFromParent();
    inst = operand;
  }
}

bool hasFeatures(const llvm::TargetMachine& machine, const llvm::Function& f, const char* features) {
  return machine.getSubtargetImpl(f)->checkFeatures(features);
}

}  // namespace

int widenHalfLoadsInVectorRegisters(llvm::Module& module, const llvm::TargetMachine& machine) {
  if (machine.getTargetTriple().getArch() != llvm::Triple::x86_64) return 0;
  int rewritten = 0;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    // Asked apart: checkFeatures("+f16c,-avx512fp16") also demands that the
    // features AVX512-FP16 implies (AVX512-BW, ...) be off.
    const bool f16 = hasFeatures(machine, f, "+f16c") && !hasFeatures(machine, f, "+avx512fp16");
    std::vector<Widening> found;
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& inst : block)
        if (Widening w; (f16 && matchF16(inst, w)) || matchBf16(inst, w)) found.push_back(w);
    for (const Widening& w : found) {
      llvm::IRBuilder<> ir(w.at);
      ir.SetCurrentDebugLocation(w.at->getDebugLoc());
      llvm::Type* i16x8 = llvm::FixedVectorType::get(ir.getInt16Ty(), 8);
      llvm::Value* lanes =
          ir.CreateInsertElement(llvm::Constant::getNullValue(i16x8), w.load, ir.getInt64(w.bf16 ? 1 : 0));
      if (w.bf16) {
        // The high half of float lane 0, its low half zero: the widened bf16.
        llvm::Value* floats = ir.CreateBitCast(lanes, llvm::FixedVectorType::get(ir.getFloatTy(), 4));
        llvm::Value* wide = ir.CreateExtractElement(floats, ir.getInt64(0));
        wide->takeName(w.at);
        w.at->replaceAllUsesWith(wide);
        w.at->eraseFromParent();
      } else {
        llvm::Value* halves = ir.CreateBitCast(lanes, llvm::FixedVectorType::get(ir.getHalfTy(), 8));
        w.at->setOperand(0, ir.CreateExtractElement(halves, ir.getInt64(0)));
      }
      eraseChain(w.replaced, w.load);
      ++rewritten;
    }
  }
  return rewritten;
}

}  // namespace memjit::jit::detail
