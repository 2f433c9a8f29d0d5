#include "first_tier_isel.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ValueHandle.h>
#include <llvm/Transforms/Utils/Local.h>

namespace memjit::jit::detail {
namespace {

// A mask `splat(first) + <0, 1, .., lanes-1> ult splat(bound)` in i64.
struct LaneMask {
  llvm::Value* first = nullptr;
  llvm::Value* bound = nullptr;
  unsigned lanes = 0;
};

bool isLaneSteps(llvm::Value* value, unsigned lanes) {
  auto* steps = llvm::dyn_cast<llvm::Constant>(value);
  if (!steps) return false;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    auto* step = llvm::dyn_cast_or_null<llvm::ConstantInt>(steps->getAggregateElement(lane));
    if (!step || step->getValue() != lane) return false;
  }
  return true;
}

std::optional<LaneMask> matchLaneMask(llvm::Value* mask) {
  auto* compare = llvm::dyn_cast<llvm::ICmpInst>(mask);
  if (!compare || compare->getPredicate() != llvm::ICmpInst::ICMP_ULT) return std::nullopt;
  auto* type = llvm::dyn_cast<llvm::FixedVectorType>(compare->getOperand(0)->getType());
  if (!type || !type->getElementType()->isIntegerTy(64)) return std::nullopt;
  llvm::Value* bound = llvm::getSplatValue(compare->getOperand(1));
  auto* sum = llvm::dyn_cast<llvm::BinaryOperator>(compare->getOperand(0));
  if (!bound || !sum || sum->getOpcode() != llvm::Instruction::Add) return std::nullopt;
  const unsigned lanes = type->getNumElements();
  for (unsigned order = 0; order < 2; ++order) {
    llvm::Value* first = llvm::getSplatValue(sum->getOperand(order));
    if (first && isLaneSteps(sum->getOperand(1 - order), lanes)) return LaneMask{first, bound, lanes};
  }
  return std::nullopt;
}

// `void copy_lanes(ptr dst, ptr src, i64 first, i64 bound, i64 lanes)`:
// for each lane, when `first + lane ult bound` (wrapping), copies the lane's
// `bytes` bytes as an integer, which keeps every bit (NaN payloads too).
llvm::Function* copyLanesHelper(llvm::Module& module, unsigned bytes) {
  const std::string name = "memjit.first_tier.copy_lanes." + std::to_string(bytes);
  if (llvm::Function* existing = module.getFunction(name)) return existing;
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr, ptr, i64, i64, i64}, false);
  auto* helper = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module);
  helper->addFnAttr(llvm::Attribute::NoInline);
  helper->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value *dst = helper->getArg(0), *src = helper->getArg(1), *first = helper->getArg(2),
              *bound = helper->getArg(3), *lanes = helper->getArg(4);
  auto* entry = llvm::BasicBlock::Create(context, "entry", helper);
  auto* header = llvm::BasicBlock::Create(context, "lane", helper);
  auto* test = llvm::BasicBlock::Create(context, "test", helper);
  auto* copy = llvm::BasicBlock::Create(context, "copy", helper);
  auto* next = llvm::BasicBlock::Create(context, "next", helper);
  auto* done = llvm::BasicBlock::Create(context, "done", helper);
  llvm::IRBuilder<> b(entry);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* lane = b.CreatePHI(i64, 2, "lane");
  lane->addIncoming(llvm::ConstantInt::get(i64, 0), entry);
  b.CreateCondBr(b.CreateICmpULT(lane, lanes), test, done);
  b.SetInsertPoint(test);
  b.CreateCondBr(b.CreateICmpULT(b.CreateAdd(first, lane), bound), copy, next);
  b.SetInsertPoint(copy);
  llvm::Type* element = llvm::Type::getIntNTy(context, bytes * 8);
  llvm::Value* from = b.CreateGEP(element, src, lane);
  llvm::Value* to = b.CreateGEP(element, dst, lane);
  b.CreateAlignedStore(b.CreateAlignedLoad(element, from, llvm::Align(1)), to, llvm::Align(1));
  b.CreateBr(next);
  b.SetInsertPoint(next);
  lane->addIncoming(b.CreateAdd(lane, llvm::ConstantInt::get(i64, 1)), next);
  b.CreateBr(header);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return helper;
}

class Rewriter {
 public:
  explicit Rewriter(llvm::Function& function) : function_(function), module_(*function.getParent()) {}

  bool run() {
    // Weak handles: deleting a rewritten access's dead mask may delete a call listed here.
    std::vector<llvm::WeakVH> calls;
    for (llvm::BasicBlock& block : function_)
      for (llvm::Instruction& inst : block)
        if (llvm::isa<llvm::IntrinsicInst>(&inst)) calls.emplace_back(&inst);
    bool changed = false;
    for (llvm::WeakVH& handle : calls)
      if (auto* call = llvm::dyn_cast_or_null<llvm::IntrinsicInst>(handle)) changed |= rewrite(*call);
    std::vector<llvm::LoadInst*> aggregates;
    for (llvm::BasicBlock& block : function_)
      for (llvm::Instruction& inst : block)
        if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst); load && load->getType()->isAggregateType())
          aggregates.push_back(load);
    for (llvm::LoadInst* load : aggregates) changed |= splitAggregateLoad(*load);
    return changed;
  }

 private:
  // A load of a whole descriptor struct whose fields are only extracted (every
  // C interface starts so) becomes one load per extracted field, in the same
  // place: FastISel selects no aggregate load, and the C interface's entry
  // block went to SelectionDAG whole (a third of a small kernel's first tier).
  bool splitAggregateLoad(llvm::LoadInst& load) {
    if (!load.isSimple() || load.getPointerAddressSpace() != 0 || load.use_empty()) return false;
    std::vector<llvm::ExtractValueInst*> fields;
    for (llvm::User* user : load.users()) {
      auto* field = llvm::dyn_cast<llvm::ExtractValueInst>(user);
      if (!field || field->getType()->isAggregateType()) return false;
      fields.push_back(field);
    }
    const llvm::DataLayout& layout = module_.getDataLayout();
    llvm::Type* aggregate = load.getType();
    llvm::IRBuilder<> b(&load);
    for (llvm::ExtractValueInst* field : fields) {
      std::vector<llvm::Value*> path{b.getInt32(0)};
      for (unsigned index : field->indices()) path.push_back(b.getInt32(index));
      const auto offset = static_cast<std::uint64_t>(layout.getIndexedOffsetInType(aggregate, path));
      llvm::Value* address = b.CreateInBoundsGEP(aggregate, load.getPointerOperand(), path);
      field->replaceAllUsesWith(
          b.CreateAlignedLoad(field->getType(), address, llvm::commonAlignment(load.getAlign(), offset)));
      field->eraseFromParent();
    }
    load.eraseFromParent();
    return true;
  }

  bool rewrite(llvm::IntrinsicInst& call) {
    switch (call.getIntrinsicID()) {
      case llvm::Intrinsic::prefetch: call.eraseFromParent(); return true;
      case llvm::Intrinsic::smin: return minMax(call, llvm::ICmpInst::ICMP_SLT);
      case llvm::Intrinsic::smax: return minMax(call, llvm::ICmpInst::ICMP_SGT);
      case llvm::Intrinsic::umin: return minMax(call, llvm::ICmpInst::ICMP_ULT);
      case llvm::Intrinsic::umax: return minMax(call, llvm::ICmpInst::ICMP_UGT);
      case llvm::Intrinsic::masked_load: return maskedAccess(call, /*isStore=*/false);
      case llvm::Intrinsic::masked_store: return maskedAccess(call, /*isStore=*/true);
      case llvm::Intrinsic::maxnum: return floatMinMax(call, llvm::FCmpInst::FCMP_OGT);
      case llvm::Intrinsic::minnum: return floatMinMax(call, llvm::FCmpInst::FCMP_OLT);
      case llvm::Intrinsic::exp: return callFunction(call, "expf", "exp");
      case llvm::Intrinsic::exp2: return callFunction(call, "exp2f", "exp2");
      case llvm::Intrinsic::log: return callFunction(call, "logf", "log");
      case llvm::Intrinsic::log2: return callFunction(call, "log2f", "log2");
      case llvm::Intrinsic::log10: return callFunction(call, "log10f", "log10");
      case llvm::Intrinsic::sin: return callFunction(call, "sinf", "sin");
      case llvm::Intrinsic::cos: return callFunction(call, "cosf", "cos");
      case llvm::Intrinsic::pow: return callFunction(call, "powf", "pow");
      // Correctly rounded either way: the C library's fma gives the bits x86's
      // vfmadd does (and is what SelectionDAG calls on a host without FMA).
      // conv3x3's nine were the last SelectionDAGs of its first tier, whose
      // code the cold caches after a tier-up make dear (docs/benchmarks.md).
      case llvm::Intrinsic::fma: return callFunction(call, "fmaf", "fma");
      default: return false;
    }
  }

  // Scalar maxnum(a, b) as x86's SelectionDAG lowers it at O0: maxss(b, a)
  // (b when b > a, else a: a on a NaN b and on two zeros), and b when a is a
  // NaN. minnum the same with <. The sign of a zero from either is left open
  // (kernel-language.md), and x86 orders the operands differently when one is
  // a constant; every other bit is the SelectionDAG's.
  static bool floatMinMax(llvm::IntrinsicInst& call, llvm::FCmpInst::Predicate predicate) {
    llvm::Type* type = call.getType();
    if (!type->isFloatTy() && !type->isDoubleTy()) return false;
    llvm::IRBuilder<> b(&call);
    llvm::Value *x = call.getArgOperand(0), *y = call.getArgOperand(1);
    llvm::Value* chosen = b.CreateSelect(b.CreateFCmp(predicate, y, x), y, x);
    call.replaceAllUsesWith(b.CreateSelect(b.CreateFCmpUNO(x, x), y, chosen));
    call.eraseFromParent();
    return true;
  }

  // A scalar f32/f64 intrinsic as a call of the C library function
  // (`float32`/`float64`) the SelectionDAG calls for it at O0, so the same
  // bits: FastISel selects a call, and gave each such intrinsic a
  // SelectionDAG of its own.
  bool callFunction(llvm::IntrinsicInst& call, const char* float32, const char* float64) {
    llvm::Type* type = call.getType();
    if (!type->isFloatTy() && !type->isDoubleTy()) return false;
    for (const llvm::Use& argument : call.args())
      if (argument->getType() != type) return false;
    std::vector<llvm::Type*> parameters(call.arg_size(), type);
    llvm::FunctionCallee callee = module_.getOrInsertFunction(type->isFloatTy() ? float32 : float64,
                                                              llvm::FunctionType::get(type, parameters, false));
    auto* function = llvm::dyn_cast<llvm::Function>(callee.getCallee());
    // A name the module defines or uses otherwise: left to the SelectionDAG.
    if (!function || !function->isDeclaration() || function->getFunctionType() != callee.getFunctionType())
      return false;
    function->setDoesNotThrow();
    llvm::IRBuilder<> b(&call);
    llvm::CallInst* replacement = b.CreateCall(callee, std::vector<llvm::Value*>(call.arg_begin(), call.arg_end()));
    replacement->setDoesNotThrow();
    call.replaceAllUsesWith(replacement);
    call.eraseFromParent();
    return true;
  }

  static bool minMax(llvm::IntrinsicInst& call, llvm::ICmpInst::Predicate predicate) {
    if (!call.getType()->isIntegerTy()) return false;
    llvm::IRBuilder<> b(&call);
    llvm::Value *x = call.getArgOperand(0), *y = call.getArgOperand(1);
    call.replaceAllUsesWith(b.CreateSelect(b.CreateICmp(predicate, x, y), x, y));
    call.eraseFromParent();
    return true;
  }

  // llvm.masked.load(ptr, [align,] mask, passthru) / llvm.masked.store(value, ptr, [align,] mask): LLVM 21
  // moved the alignment into an attribute, so the mask and passthrough are counted from the end.
  bool maskedAccess(llvm::IntrinsicInst& call, bool isStore) {
    const unsigned args = call.arg_size();
    llvm::Value* pointer = call.getArgOperand(isStore ? 1 : 0);
    llvm::Value* mask = call.getArgOperand(isStore ? args - 1 : args - 2);
    auto* type = llvm::dyn_cast<llvm::FixedVectorType>(isStore ? call.getArgOperand(0)->getType() : call.getType());
    if (!type) return false;  // scalable
    const llvm::DataLayout& layout = module_.getDataLayout();
    const std::uint64_t bits = layout.getTypeSizeInBits(type->getElementType()).getFixedValue();
    const std::optional<LaneMask> lanes = matchLaneMask(mask);
    if (!lanes || bits % 8 != 0 || bits > 64 || pointer->getType()->getPointerAddressSpace() != 0 || layout.getAllocaAddrSpace() != 0 ||
        layout.getTypeAllocSize(type).getFixedValue() != bits / 8 * type->getNumElements())
      return false;
    llvm::Value* slot = slotFor(type);
    llvm::IRBuilder<> b(&call);
    llvm::Type* i64 = b.getInt64Ty();
    llvm::Function* helper = copyLanesHelper(module_, static_cast<unsigned>(bits / 8));
    llvm::Value* count = llvm::ConstantInt::get(i64, lanes->lanes);
    if (isStore) {
      fill(b, slot, call.getArgOperand(0));
      b.CreateCall(helper, {pointer, slot, lanes->first, lanes->bound, count});
    } else {
      fill(b, slot, call.getArgOperand(args - 1));
      b.CreateCall(helper, {slot, pointer, lanes->first, lanes->bound, count});
      call.replaceAllUsesWith(b.CreateLoad(type, slot));
    }
    call.eraseFromParent();
    llvm::RecursivelyDeleteTriviallyDeadInstructions(mask);
    return true;
  }

  // FastISel cannot materialise a zero vector; a memset it calls.
  void fill(llvm::IRBuilder<>& b, llvm::Value* slot, llvm::Value* value) {
    auto* constant = llvm::dyn_cast<llvm::Constant>(value);
    if (!constant || !constant->isNullValue()) {
      b.CreateStore(value, slot);
      return;
    }
    const llvm::TypeSize size = module_.getDataLayout().getTypeStoreSize(value->getType());
    b.CreateMemSet(slot, b.getInt8(0), size.getFixedValue(), llvm::MaybeAlign());
  }

  // One stack slot per vector type: each rewritten access stores, copies and
  // (for a load) reloads it before the next one starts.
  llvm::Value* slotFor(llvm::Type* type) {
    auto [it, inserted] = slots_.try_emplace(type, nullptr);
    if (inserted) {
      llvm::IRBuilder<> b(&*function_.getEntryBlock().getFirstInsertionPt());
      it->second = b.CreateAlloca(type, module_.getDataLayout().getAllocaAddrSpace(), nullptr, "first_tier.lanes");
    }
    return it->second;
  }

  llvm::Function& function_;
  llvm::Module& module_;
  std::map<llvm::Type*, llvm::Value*> slots_;
};

}  // namespace

bool makeSelectableByFastISel(llvm::Module& module) {
  std::vector<llvm::Function*> functions;
  for (llvm::Function& function : module)
    if (!function.isDeclaration()) functions.push_back(&function);
  bool changed = false;
  for (llvm::Function* function : functions) changed |= Rewriter(*function).run();
  return changed;
}

}  // namespace memjit::jit::detail
