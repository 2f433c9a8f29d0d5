// The kernel builder: loops, branches, calls and return.
#include <algorithm>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "builder_checks.h"
#include "builder_util.h"
#include "descriptor_ops.h"
#include "loop_proofs.h"
#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "module_impl.h"
#include "mutants.h"

namespace memjit::codegen {

using detail::checkOperands;
using detail::describeOperands;
using detail::fail;

namespace {

bool isIndex(const Value& v) { return v.type() == Type(ElementType::Index); }

std::string typeList(const std::vector<Value>& vs) {
  std::string s = "(";
  for (std::size_t i = 0; i < vs.size(); ++i) {
    if (i) s += ", ";
    s += vs[i].valid() ? vs[i].typeName() : "<invalid>";
  }
  return s + ")";
}

// Loop-carried values and branch results may be vectors (the accumulators
// of a register-blocked kernel); call arguments and returns may not.
bool checkAll(FunctionBuilder& self, std::string_view op, const std::vector<Value>& vs, bool allowVectors = false) {
  for (const Value& v : vs)
    if (!checkOperands(self, op, {&v}, allowVectors)) return false;
  return true;
}

bool sameTypes(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!a[i].valid() || !b[i].valid() || !(a[i].type() == b[i].type()) || a[i].lanes() != b[i].lanes()) return false;
  return true;
}

// `!llvm.loop !{self, hints...}` for the loop's back edge, or null.
llvm::MDNode* loopHints(llvm::LLVMContext& ctx, const LoopOptions& options) {
  std::vector<llvm::Metadata*> parts{nullptr};  // the self reference, set below
  auto hint = [&](const char* name, llvm::Metadata* value = nullptr) {
    std::vector<llvm::Metadata*> operands{llvm::MDString::get(ctx, name)};
    if (value) operands.push_back(value);
    parts.push_back(llvm::MDNode::get(ctx, operands));
  };
  auto number = [&](unsigned v) {
    return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), v));
  };
  auto flag = [&](bool v) {
    return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt1Ty(ctx), v));
  };
  if (options.vectorWidth == 1) {
    hint("llvm.loop.vectorize.enable", flag(false));
  } else if (options.vectorWidth > 1) {
    hint("llvm.loop.vectorize.enable", flag(true));
    hint("llvm.loop.vectorize.width", number(options.vectorWidth));
  }
  if (options.interleave) hint("llvm.loop.interleave.count", number(options.interleave));
  if (options.unroll == 1) {
    hint("llvm.loop.unroll.disable");
  } else if (options.unroll > 1) {
    hint("llvm.loop.unroll.count", number(options.unroll));
  }
  if (parts.size() == 1) return nullptr;
  llvm::MDNode* node = llvm::MDNode::getDistinct(ctx, parts);
  node->replaceOperandWith(0, node);
  return node;
}

}  // namespace

void FunctionBuilder::forLoop(const Value& lb, const Value& ub, const Value& step,
                              const std::function<void(Value)>& body, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  forLoop(lb, ub, step, LoopOptions{}, [&](Value iv) {
    const detail::UserCode user(*this, at);
    body(iv);
  });
}

void FunctionBuilder::forLoop(const Value& lb, const Value& ub, const Value& step, const LoopOptions& options,
                              const std::function<void(Value)>& body, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  forLoop(lb, ub, step, {}, options, [&](Value iv, const std::vector<Value>&) {
    const detail::UserCode user(*this, at);
    body(iv);
    return std::vector<Value>{};
  });
}

std::vector<Value> FunctionBuilder::forLoop(
    const Value& lb, const Value& ub, const Value& step, std::vector<Value> init,
    const std::function<std::vector<Value>(Value, const std::vector<Value>&)>& body, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  return forLoop(lb, ub, step, std::move(init), LoopOptions{},
                 [&](Value iv, const std::vector<Value>& carried) {
                   const detail::UserCode user(*this, at);
                   return body(iv, carried);
                 });
}

namespace {

// Index bounds and step; loop-carried values that can cross iterations.
bool checkLoopOperands(FunctionBuilder& self, const Value& lb, const Value& ub, const Value& step,
                       const std::vector<Value>& init) {
  if (!checkOperands(self, "for", {&lb, &ub, &step}) || !checkAll(self, "for", init, true)) return false;
  if (!isIndex(lb) || !isIndex(ub) || !isIndex(step)) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation 'for': bounds and step must be index, got " +
                                                  describeOperands({&lb, &ub, &step})));
    return false;
  }
  for (const Value& v : init)
    if (isUnrankedMemRef(v.type())) {
      fail(self, Error(ErrorCode::Unsupported,
                       "operation 'for': cannot carry " + toString(v.type()) +
                           " across iterations (its descriptor lives in one iteration's stack scope)"));
      return false;
    }
  return true;
}

// A loop's blocks and phis: `header` tests iv < ub and enters `body` or
// leaves to `exit`; `carried` are the loop-carried values as the body sees them.
struct LoopBlocks {
  llvm::BasicBlock* header;
  llvm::BasicBlock* body;
  llvm::BasicBlock* exit;
  llvm::PHINode* iv;
  std::vector<llvm::PHINode*> phis;
  std::vector<Value> carried;
};

// Branches from here to the header of a new loop; the builder is left at its body.
LoopBlocks openLoop(FunctionBuilder& self, const Value& lb, const Value& ub, const std::vector<Value>& init) {
  auto& ir = BuilderOps::impl(self).ir;
  llvm::LLVMContext& ctx = ir.getContext();
  llvm::Function* f = BuilderOps::impl(self).lowered.function;
  llvm::BasicBlock* pre = ir.GetInsertBlock();
  LoopBlocks loop;
  loop.header = llvm::BasicBlock::Create(ctx, "for.header", f);
  loop.body = llvm::BasicBlock::Create(ctx, "for.body", f);
  loop.exit = llvm::BasicBlock::Create(ctx, "for.exit", f);
  ir.CreateBr(loop.header);
  ir.SetInsertPoint(loop.header);
  loop.iv = ir.CreatePHI(lb.llvm()->getType(), 2, "iv");
  loop.iv->addIncoming(lb.llvm(), pre);
  for (const Value& v : init) {
    llvm::PHINode* p = ir.CreatePHI(v.llvm()->getType(), 2);
    p->addIncoming(MEMJIT_MUTANT("loop_carried_init_zero") ? llvm::Constant::getNullValue(v.llvm()->getType()) : v.llvm(),
                   pre);
    loop.phis.push_back(p);
    loop.carried.push_back(BuilderOps::make(self, p, v.type()));
  }
  llvm::Value* more = MEMJIT_MUTANT("loop_upper_bound_inclusive") && !init.empty() ? ir.CreateICmpSLE(loop.iv, ub.llvm())
                                                                                 : ir.CreateICmpSLT(loop.iv, ub.llvm());
  ir.CreateCondBr(more, loop.body, loop.exit);
  ir.SetInsertPoint(loop.body);
  return loop;
}

// The back edge from the end of the body: iv += step, the yielded values
// into the phis, the iteration's stack scope and the loop's hints.
void closeLoop(FunctionBuilder& self, const LoopBlocks& loop, const Value& step, const std::vector<Value>& next,
               const BuilderOps::Impl::Scope& scope, const LoopOptions& options) {
  auto& ir = BuilderOps::impl(self).ir;
  llvm::BasicBlock* latch = ir.GetInsertBlock();
  // iv < ub held on entry to the body, so iv + step only wraps when ub is
  // within step of the index maximum, which no valid memref access reaches.
  llvm::Value* ivNext = ir.CreateAdd(loop.iv, step.llvm(), "iv.next", false, true);
  if (scope.allocates) {
    // Bound the stack: what one iteration allocas is released before the next.
    llvm::IRBuilder<> save(loop.body, loop.body->getFirstInsertionPt());
    save.SetCurrentDebugLocation(ir.getCurrentDebugLocation());
    llvm::Value* sp = save.CreateStackSave();
    ir.CreateStackRestore(sp);
  }
  llvm::BranchInst* backEdge = ir.CreateBr(loop.header);
  // A loop calling math functions vectorises to calls that clobber every
  // vector register: interleaved copies of the body would spill their
  // partial results around each call (softmax's exp loop: 16% slower than
  // not interleaving, as g++ does). The user's own hint wins.
  LoopOptions hints = options;
  if (scope.callsMath && hints.interleave == 0) hints.interleave = 1;
  // LLVM takes a width hint as permission to reorder float operations
  // (LoopVectorizeHints::allowReordering): on a loop carrying a float scalar
  // it would reassociate an exact sum. Without reassoc the width is dropped.
  const bool carriesFloat = std::any_of(loop.phis.begin(), loop.phis.end(),
                                        [](const llvm::PHINode* phi) { return phi->getType()->isFloatingPointTy(); });
  if (hints.vectorWidth > 1 && carriesFloat &&
      (BuilderOps::impl(self).fastMath & FastMath::Reassoc) == FastMath::None)
    hints.vectorWidth = 0;
  if (llvm::MDNode* node = loopHints(ir.getContext(), hints)) backEdge->setMetadata(llvm::LLVMContext::MD_loop, node);
  loop.iv->addIncoming(ivNext, latch);
  for (std::size_t i = 0; i < loop.phis.size(); ++i) loop.phis[i]->addIncoming(next[i].llvm(), latch);
  ir.SetInsertPoint(loop.exit);
}

}  // namespace

std::vector<Value> FunctionBuilder::forLoop(
    const Value& lb, const Value& ub, const Value& step, std::vector<Value> init, const LoopOptions& options,
    const std::function<std::vector<Value>(Value, const std::vector<Value>&)>& body, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  Impl& I = *impl_;
  const std::vector<Value> invalid(init.size());
  if (!checkLoopOperands(*this, lb, ub, step, init)) return invalid;
  const bool outermost = detail::beginProofLoop(*this);
  const LoopBlocks loop = openLoop(*this, lb, ub, init);
  detail::addProofLoop(*this, loop.iv, lb.llvm(), ub.llvm(), step.llvm());
  std::vector<Value> carried = loop.carried;
  I.scopes.push_back({});
  ++I.depth;
  std::vector<Value> next;
  {
    const detail::UserCode user(*this, at);
    next = body(Value(this, loop.iv, ElementType::Index), loop.carried);
  }
  --I.depth;
  const Impl::Scope scope = I.scopes.back();
  I.scopes.pop_back();
  if (I.error || !checkAll(*this, "for", next, true) || !sameTypes(next, init)) {
    if (!I.error)
      fail(*this, Error(ErrorCode::TypeMismatch, "operation 'for': the body yields " + typeList(next) +
                                                     " but the loop carries " + typeList(init)));
    detail::endProofLoop(*this, outermost, nullptr, loop.exit, carried);
    I.ir.SetInsertPoint(loop.exit);
    return invalid;
  }
  closeLoop(*this, loop, step, next, scope, options);
  detail::endProofLoop(*this, outermost, loop.header, loop.exit, carried);
  return carried;
}

void FunctionBuilder::ifThen(const Value& cond, const std::function<void()>& then, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  ifElse(
      cond,
      [&] {
        const detail::UserCode user(*this, at);
        then();
        return std::vector<Value>{};
      },
      [] { return std::vector<Value>{}; });
}

std::vector<Value> FunctionBuilder::ifElse(const Value& cond, const std::function<std::vector<Value>()>& then,
                                           const std::function<std::vector<Value>()>& otherwise,
                                           std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  Impl& I = *impl_;
  if (!checkOperands(*this, "if", {&cond})) return {};
  if (!(cond.type() == Type(ElementType::I1))) {
    fail(*this, Error(ErrorCode::TypeMismatch,
                      "operation 'if': the condition must be i1, got " + toString(cond.type())));
    return {};
  }
  auto& ir = I.ir;
  llvm::LLVMContext& ctx = ir.getContext();
  llvm::Function* f = I.lowered.function;
  auto* thenBB = llvm::BasicBlock::Create(ctx, "if.then", f);
  auto* elseBB = llvm::BasicBlock::Create(ctx, "if.else", f);
  auto* merge = llvm::BasicBlock::Create(ctx, "if.end", f);
  ir.CreateCondBr(cond.llvm(), thenBB, elseBB);
  ++I.depth;
  ir.SetInsertPoint(thenBB);
  std::vector<Value> tv;
  {
    const detail::UserCode user(*this, at);
    tv = then();
  }
  llvm::BasicBlock* thenEnd = ir.GetInsertBlock();
  ir.CreateBr(merge);
  ir.SetInsertPoint(elseBB);
  std::vector<Value> ev;
  if (!I.error) {
    const detail::UserCode user(*this, at);
    ev = otherwise();
  }
  llvm::BasicBlock* elseEnd = ir.GetInsertBlock();
  ir.CreateBr(merge);
  --I.depth;
  ir.SetInsertPoint(merge);
  if (I.error) return std::vector<Value>(tv.size());
  if (!checkAll(*this, "if", tv, true) || !checkAll(*this, "if", ev, true)) return std::vector<Value>(tv.size());
  if (!sameTypes(tv, ev)) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation 'if': the then branch yields " + typeList(tv) +
                                                   " but the else branch " + typeList(ev)));
    return std::vector<Value>(tv.size());
  }
  std::vector<Value> out;
  for (std::size_t i = 0; i < tv.size(); ++i) {
    llvm::PHINode* p = ir.CreatePHI(tv[i].llvm()->getType(), 2);
    p->addIncoming(tv[i].llvm(), thenEnd);
    p->addIncoming(ev[i].llvm(), elseEnd);
    out.push_back(Value(this, p, tv[i].type()));
  }
  return out;
}

std::vector<Value> FunctionBuilder::call(std::string_view name, const std::vector<Value>& args,
                                         std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  Impl& I = *impl_;
  std::string op = "call @" + std::string(name);
  if (I.error || !checkAll(*this, op, args)) return {};
  auto callee = lookupFunction(*I.module, name);
  if (!callee) {
    fail(*this, callee.error().withContext("operation '" + op + "'"));
    return {};
  }
  const FunctionType& t = callee->type;
  if (args.size() != t.inputs.size()) {
    fail(*this, Error(ErrorCode::ArityMismatch, "operation '" + op + "': " + std::to_string(args.size()) +
                                                    " arguments given to a function of type " + toString(t)));
    return std::vector<Value>(t.results.size());
  }
  std::vector<llvm::Value*> raw;
  for (std::size_t i = 0; i < args.size(); ++i) {
    Value arg = args[i];
    // A memref of a compatible layout is cast as memref.cast would (checked
    // where the callee's type promises more), so that library kernels taking
    // strided memrefs accept identity ones and the reverse.
    if (!(arg.type() == t.inputs[i]) && isRankedMemRef(arg.type()) && isRankedMemRef(t.inputs[i]) &&
        detail::memrefCastMismatch(std::get<MemRefType>(arg.type()), std::get<MemRefType>(t.inputs[i])).empty()) {
      arg = memrefCast(arg, std::get<MemRefType>(t.inputs[i]), loc);
      if (I.error) return std::vector<Value>(t.results.size());
    }
    if (!(arg.type() == t.inputs[i])) {
      fail(*this, Error(ErrorCode::TypeMismatch, "operation '" + op + "': argument #" + std::to_string(i) +
                                                     " is " + toString(args[i].type()) + ", the callee takes " +
                                                     toString(t.inputs[i])));
      return std::vector<Value>(t.results.size());
    }
    raw.push_back(arg.llvm());
  }
  if (callee->options.lowering.indexBitwidth != I.opts().indexBitwidth) {
    fail(*this, Error(ErrorCode::Unsupported, "operation '" + op + "': the callee uses a different index bitwidth"));
    return std::vector<Value>(t.results.size());
  }
  auto results = emitCall(*I.module, I.ir, *callee, raw);
  if (!results) {
    fail(*this, results.error().withContext("operation '" + op + "'"));
    return std::vector<Value>(t.results.size());
  }
  // A checked callee that failed returned zeros: leave before using them.
  detail::emitPendingCheck(*this);
  std::vector<Value> out;
  for (std::size_t i = 0; i < results->size(); ++i) {
    if (isUnrankedMemRef(t.results[i]) && !I.scopes.empty()) I.scopes.back().allocates = true;
    out.push_back(Value(this, (*results)[i], t.results[i]));
  }
  return out;
}

Value FunctionBuilder::callC(std::string_view name, std::optional<ElementType> result,
                             const std::vector<Value>& args, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  Impl& I = *impl_;
  std::string op = "call_c @" + std::string(name);
  if (I.error || !checkAll(*this, op, args)) return {};
  if (!isValidSymbolName(name)) {
    fail(*this, Error(ErrorCode::InvalidArgument, "operation '" + op + "': not a valid C symbol name"));
    return {};
  }
  if (ModuleAccess::impl(*I.module).functions.count(name)) {
    fail(*this, Error(ErrorCode::InvalidArgument,
                      "operation '" + op + "': '" + std::string(name) + "' is a memjit function; use call()"));
    return {};
  }
  llvm::LLVMContext& ctx = I.ir.getContext();
  std::vector<llvm::Type*> params;
  std::vector<llvm::Value*> raw;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!isScalar(args[i].type())) {
      fail(*this, Error(ErrorCode::TypeMismatch, "operation '" + op + "': argument #" + std::to_string(i) +
                                                     " is " + toString(args[i].type()) +
                                                     "; C functions take scalars (pass a memref's pointer as !llvm.ptr)"));
      return {};
    }
    params.push_back(args[i].llvm()->getType());
    raw.push_back(args[i].llvm());
  }
  llvm::Type* rt = result ? lowerElementType(ctx, *result, I.opts()) : llvm::Type::getVoidTy(ctx);
  auto* ft = llvm::FunctionType::get(rt, params, false);
  llvm::Module& m = *I.lowered.function->getParent();
  if (llvm::Function* existing = m.getFunction(name); existing && existing->getFunctionType() != ft) {
    fail(*this, Error(ErrorCode::TypeMismatch,
                      "operation '" + op + "': '" + std::string(name) + "' is already declared with another type"));
    return {};
  }
  llvm::FunctionCallee callee = m.getOrInsertFunction(name, ft);
  llvm::CallInst* c = I.ir.CreateCall(callee, raw);
  // C's bool, char and short arguments arrive extended to 32 bits: x86-64 clang's callees read the whole
  // register (`signext`/`zeroext` on their side), so without the extension here a char whose register held 0x1ff
  // arrived as 511 at O2. Extending is harmless where the callee extends (gcc, AArch64). Signless i8/i16 are C's
  // signed types (as the AOT headers declare them), i1 is bool. Results get no attribute: a C callee need not
  // extend its result (neither gcc nor clang does on x86-64), so LLVM extends it here.
  auto* declared = llvm::cast<llvm::Function>(callee.getCallee());
  for (std::size_t i = 0; i < args.size(); ++i) {
    llvm::Type* type = raw[i]->getType();
    if (!type->isIntegerTy() || type->getIntegerBitWidth() >= 32) continue;
    const ElementType t = std::get<ElementType>(args[i].type());
    const auto extension = t == ElementType::I1 || isUnsignedInteger(t) ? llvm::Attribute::ZExt : llvm::Attribute::SExt;
    declared->addParamAttr(static_cast<unsigned>(i), extension);
    c->addParamAttr(static_cast<unsigned>(i), extension);
  }
  if (!result) return {};
  return Value(this, c, *result);
}

void FunctionBuilder::ret(const std::vector<Value>& values, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  Impl& I = *impl_;
  if (I.error || !checkAll(*this, "ret", values)) return;
  if (I.depth > 0) {
    fail(*this, Error(ErrorCode::Unsupported,
                      "operation 'ret': only at the function's top level, not inside a loop or branch "
                      "(carry the value out and return it after)"));
    return;
  }
  const FunctionType& t = I.lowered.type;
  std::vector<Value> want;
  bool ok = values.size() == t.results.size();
  for (std::size_t i = 0; ok && i < values.size(); ++i) ok = values[i].type() == t.results[i];
  if (!ok) {
    std::string results = "(";
    for (std::size_t i = 0; i < t.results.size(); ++i) results += (i ? ", " : "") + toString(t.results[i]);
    fail(*this, Error(values.size() == t.results.size() ? ErrorCode::TypeMismatch : ErrorCode::ArityMismatch,
                      "operation 'ret': returns " + typeList(values) + " from a function with results " +
                          results + ")"));
    return;
  }
  auto& ir = I.ir;
  std::vector<llvm::Value*> parts;
  for (std::size_t i = 0; i < values.size(); ++i) {
    llvm::Value* v = values[i].llvm();
    if (isUnrankedMemRef(t.results[i]))
      v = detail::copyUnrankedToHeap(ir, v, I.opts());
    else if (isRankedMemRef(t.results[i]) && I.opts().barePtr)
      v = ir.CreateExtractValue(v, {0});
    parts.push_back(v);
  }
  llvm::Type* rt = I.lowered.function->getReturnType();
  if (parts.empty()) {
    ir.CreateRetVoid();
  } else if (parts.size() == 1) {
    ir.CreateRet(parts[0]);
  } else {
    llvm::Value* s = llvm::UndefValue::get(rt);
    for (unsigned i = 0; i < parts.size(); ++i) s = ir.CreateInsertValue(s, parts[i], {i});
    ir.CreateRet(s);
  }
  I.returned = true;
}

}  // namespace memjit::codegen
