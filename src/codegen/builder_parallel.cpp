// The kernel builder: parallel loops and reductions.
//
// A parallel loop's chunk body (a serial loop over iterations [begin, end))
// is first built inline, with the same builder as any loop, between two
// placeholders standing for begin and end. LLVM's CodeExtractor then moves
// those blocks into a function whose parameters are every value of the
// enclosing function the body uses; memjit wraps it in a private
// `void(ptr context, i64 begin, i64 end)` function that loads them from a
// context struct, inlines it there, and replaces the inline region by
// `memjit_parallel_for(wrapper, &context, 0, trip count, chunk, schedule,
// maxThreads)` (memjit::runtime), so JIT and AOT code call the scheduler alike.
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/CodeExtractor.h>

#include <optional>
#include <unordered_set>

#include "builder_checks.h"
#include "builder_util.h"
#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"

namespace memjit::codegen {

using detail::checkOperands;
using detail::describeOperands;
using detail::fail;

namespace {

constexpr const char* kEntryPoint = "memjit_parallel_for";

bool isIndex(const Value& v) { return v.type() == Type(ElementType::Index); }

bool checkOptions(FunctionBuilder& self, const std::string& op, const ParallelOptions& o) {
  if (o.chunk < 0) {
    fail(self, Error(ErrorCode::InvalidArgument, "operation '" + op + "': chunk must be positive (or 0 to let the "
                                                 "scheduler choose), got " + std::to_string(o.chunk)));
    return false;
  }
  if (o.maxThreads < 0) {
    fail(self, Error(ErrorCode::InvalidArgument, "operation '" + op + "': maxThreads must be positive (or 0 for "
                                                 "the process's thread count), got " + std::to_string(o.maxThreads)));
    return false;
  }
  return true;
}

// Checks index bounds and a positive step; returns the trip count
// (ub > lb ? ceil((ub - lb) / step) : 0) as an index value.
Value tripCount(FunctionBuilder& self, const std::string& op, const Value& lb, const Value& ub, const Value& step) {
  if (!checkOperands(self, op, {&lb, &ub, &step})) return {};
  if (!isIndex(lb) || !isIndex(ub) || !isIndex(step)) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + op + "': bounds and step must be index, got " +
                                                  describeOperands({&lb, &ub, &step})));
    return {};
  }
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(step.llvm()); c && c->getSExtValue() <= 0) {
    fail(self, Error(ErrorCode::InvalidArgument,
                     "operation '" + op + "': step must be positive, got " + std::to_string(c->getSExtValue())));
    return {};
  }
  Value one = self.index(1), zero = self.index(0);
  Value n = self.div(self.add(self.sub(ub, lb), self.sub(step, one)), step);
  return self.select(self.cmp(CmpPredicate::Gt, ub, lb), n, zero);
}

llvm::Type* reductionStorageType(llvm::LLVMContext& ctx, llvm::Type* t) {
  return llvm::IntegerType::get(ctx, static_cast<unsigned>(t->getPrimitiveSizeInBits()));
}

// The identity of a built-in combiner for values of type t.
Value identityOf(FunctionBuilder& self, Reduction::Kind kind, ElementType t) {
  auto& ir = self.ir();
  llvm::Type* lt = nullptr;
  if (isFloat(t)) {
    Value zero = self.constant(t, 0.0);
    if (!zero.valid()) return {};
    lt = zero.llvm()->getType();
    switch (kind) {
      case Reduction::Kind::Sum: return self.wrap(llvm::ConstantFP::getNegativeZero(lt), t);
      case Reduction::Kind::Product: return self.constant(t, 1.0);
      case Reduction::Kind::Min: return self.wrap(llvm::ConstantFP::getInfinity(lt, false), t);
      case Reduction::Kind::Max: return self.wrap(llvm::ConstantFP::getInfinity(lt, true), t);
      case Reduction::Kind::Custom: break;
    }
    return {};
  }
  Value zero = self.constant(t, 0.0);
  if (!zero.valid()) return {};
  lt = zero.llvm()->getType();
  const unsigned bits = lt->getIntegerBitWidth();
  const bool uns = isUnsignedInteger(t);
  switch (kind) {
    case Reduction::Kind::Sum: return zero;
    case Reduction::Kind::Product: return self.constant(t, 1.0);
    case Reduction::Kind::Min:
      return self.wrap(ir.getInt(uns ? llvm::APInt::getMaxValue(bits) : llvm::APInt::getSignedMaxValue(bits)), t);
    case Reduction::Kind::Max:
      return self.wrap(ir.getInt(uns ? llvm::APInt::getMinValue(bits) : llvm::APInt::getSignedMinValue(bits)), t);
    case Reduction::Kind::Custom: break;
  }
  return {};
}

// combine(a, b) for reduction #i, checked to return a's type.
Value combineWith(FunctionBuilder& self, const detail::OpLocation& at, const std::string& op, std::size_t i,
                  const Reduction& r, const Value& a, const Value& b) {
  Value v;
  switch (r.kind) {
    case Reduction::Kind::Sum: v = self.add(a, b); break;
    case Reduction::Kind::Product: v = self.mul(a, b); break;
    case Reduction::Kind::Min: v = self.min(a, b); break;
    case Reduction::Kind::Max: v = self.max(a, b); break;
    case Reduction::Kind::Custom: {
      const detail::UserCode user(self, at);
      v = r.combine(a, b);
      break;
    }
  }
  if (self.error() || !checkOperands(self, op, {&v})) return {};
  if (!(v.type() == a.type())) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + op + "': the combiner of reduction #" +
                                                  std::to_string(i) + " returns " + toString(v.type()) +
                                                  " for operands of type " + toString(a.type())));
    return {};
  }
  return v;
}

}  // namespace

// Internal: builds, outlines and schedules one parallel region.
struct ParallelLowering {
  using Impl = BuilderOps::Impl;

  // Builds `chunk(begin, end)` as an outlined region run over [0, n) by the
  // scheduler. Returns false (with the builder's error set) on failure.
  static bool emit(FunctionBuilder& self, const std::string& op, const Value& n, const ParallelOptions& o,
                   const std::function<void(Value, Value)>& chunk) {
    Impl& I = BuilderOps::impl(self);
    auto& ir = I.ir;
    llvm::LLVMContext& ctx = ir.getContext();
    llvm::Function* f = I.lowered.function;
    llvm::Type* indexTy = n.llvm()->getType();
    const llvm::DebugLoc here = ir.getCurrentDebugLocation();  // the parallel loop's line
    std::unordered_set<llvm::BasicBlock*> before;
    for (llvm::BasicBlock& bb : *f) before.insert(&bb);

    llvm::Value* begin = ir.CreateFreeze(llvm::PoisonValue::get(indexTy), "par.begin");
    llvm::Value* end = ir.CreateFreeze(llvm::PoisonValue::get(indexTy), "par.end");
    auto* entry = llvm::BasicBlock::Create(ctx, "par.region", f);
    ir.CreateBr(entry);
    ir.SetInsertPoint(entry);
    // Made now, as the place a failed check in the chunk leaves to; placed
    // after the chunk's blocks, where an unchecked loop has it too.
    auto* exit = llvm::BasicBlock::Create(ctx, "par.exit");
    ++I.depth;
    {
      detail::ChunkFailTarget chunkEnd(self, exit);
      chunk(BuilderOps::make(self, begin, ElementType::Index), BuilderOps::make(self, end, ElementType::Index));
    }
    --I.depth;
    exit->insertInto(f);
    ir.CreateBr(exit);
    if (I.error) {
      ir.SetInsertPoint(exit);
      return false;
    }

    std::vector<llvm::BasicBlock*> region{entry};
    for (llvm::BasicBlock& bb : *f)
      if (!before.count(&bb) && &bb != entry && &bb != exit) region.push_back(&bb);
    // Fields of descriptors from outside (a memref argument's aligned pointer,
    // sizes, strides) are read from the scalar they were built from, so the
    // outlined body takes that scalar, not the whole descriptor; then the
    // facts on the function's arguments (noalias, align) can follow it.
    std::unordered_set<llvm::BasicBlock*> inRegion(region.begin(), region.end());
    for (llvm::BasicBlock* bb : region)
      for (llvm::Instruction& inst : llvm::make_early_inc_range(*bb)) {
        auto* ev = llvm::dyn_cast<llvm::ExtractValueInst>(&inst);
        if (!ev) continue;
        auto* agg = llvm::dyn_cast<llvm::Instruction>(ev->getAggregateOperand());
        if (agg && inRegion.count(agg->getParent())) continue;
        llvm::Value* field = llvm::FindInsertedValue(ev->getAggregateOperand(), ev->getIndices());
        if (field && field->getType() == ev->getType() && !llvm::isa<llvm::ExtractValueInst>(field)) {
          ev->replaceAllUsesWith(field);
          ev->eraseFromParent();
        }
      }
    llvm::CodeExtractorAnalysisCache cache(*f);
    llvm::CodeExtractor extractor(region, nullptr, false, nullptr, nullptr, nullptr, false, /*AllowAlloca=*/true,
                                  nullptr, "parallel");
    llvm::SetVector<llvm::Value*> inputs, outputs;
    llvm::Function* body = extractor.isEligible() ? extractor.extractCodeRegion(cache, inputs, outputs) : nullptr;
    if (body) I.helpers.emplace_back(body);
    if (!body || !outputs.empty() || !body->hasOneUse()) {
      fail(self, Error(ErrorCode::Internal, "operation '" + op + "': cannot outline the loop body"));
      ir.SetInsertPoint(exit);
      return false;
    }
    auto* site = llvm::cast<llvm::CallInst>(body->user_back());
    // Pointer arguments of the function keep their noalias and alignment in
    // the body (inlining turns noalias into scoped alias metadata), so its
    // loops vectorise without runtime alias checks where the parent's would.
    for (unsigned i = 0; i < site->arg_size(); ++i) {
      auto* a = llvm::dyn_cast<llvm::Argument>(site->getArgOperand(i));
      if (!a || a->getParent() != f || !a->getType()->isPointerTy()) continue;
      if (a->hasNoAliasAttr()) body->addParamAttr(i, llvm::Attribute::NoAlias);
      if (auto align = a->getParamAlign()) body->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx, *align));
    }

    // The context struct: every argument of the outlined body but begin and end.
    std::vector<llvm::Type*> fields;
    std::vector<unsigned> fieldOf(site->arg_size(), ~0u);
    for (unsigned i = 0; i < site->arg_size(); ++i) {
      llvm::Value* a = site->getArgOperand(i);
      if (a == begin || a == end) continue;
      fieldOf[i] = static_cast<unsigned>(fields.size());
      fields.push_back(a->getType());
    }
    auto* contextTy = llvm::StructType::get(ctx, fields);

    // The wrapper the scheduler calls per chunk.
    llvm::Module& m = *f->getParent();
    auto* i64 = ir.getInt64Ty();
    auto* ptr = ir.getPtrTy();
    auto* wrapperTy = llvm::FunctionType::get(ir.getVoidTy(), {ptr, i64, i64}, false);
    auto* wrapper = llvm::Function::Create(wrapperTy, llvm::GlobalValue::PrivateLinkage,
                                           f->getName() + ".parallel", m);
    I.helpers.emplace_back(wrapper);
    wrapper->setAttributes(llvm::AttributeList::get(ctx, llvm::AttributeList::FunctionIndex,
                                                    llvm::AttrBuilder(ctx, f->getAttributes().getFnAttrs())));
    wrapper->addFnAttr(llvm::Attribute::NoUnwind);
    wrapper->addParamAttr(0, llvm::Attribute::NoAlias);
    wrapper->addParamAttr(0, llvm::Attribute::ReadOnly);
    {
      llvm::IRBuilder<> w(llvm::BasicBlock::Create(ctx, "entry", wrapper));
      // The wrapper gets a subprogram and the call a location, so the inlined
      // body keeps its lines (as an inlined frame of the outlined function).
      if (I.debug) w.SetCurrentDebugLocation(I.debug->describeHelper(*wrapper, here));
      std::vector<llvm::Value*> args;
      for (unsigned i = 0; i < site->arg_size(); ++i) {
        llvm::Value* a = site->getArgOperand(i);
        if (a == begin || a == end) {
          llvm::Value* p = wrapper->getArg(a == begin ? 1 : 2);
          args.push_back(w.CreateSExtOrTrunc(p, indexTy));
        } else {
          llvm::Value* slot = w.CreateStructGEP(contextTy, wrapper->getArg(0), fieldOf[i]);
          args.push_back(w.CreateLoad(a->getType(), slot));
        }
      }
      llvm::CallInst* call = w.CreateCall(body, args);
      w.CreateRetVoid();
      llvm::InlineFunctionInfo info;
      if (!llvm::InlineFunction(*call, info).isSuccess()) {
        fail(self, Error(ErrorCode::Internal, "operation '" + op + "': cannot inline the outlined loop body"));
        ir.SetInsertPoint(exit);
        return false;
      }
    }

    // The call site: fill the context, call the scheduler.
    ir.SetInsertPoint(site);
    ir.SetCurrentDebugLocation(here);  // not the outlined call's
    llvm::AllocaInst* context = ir.CreateAlloca(contextTy, nullptr, "par.context");
    for (unsigned i = 0; i < site->arg_size(); ++i)
      if (fieldOf[i] != ~0u) ir.CreateStore(site->getArgOperand(i), ir.CreateStructGEP(contextTy, context, fieldOf[i]));
    auto* entryTy = llvm::FunctionType::get(ir.getVoidTy(), {ptr, ptr, i64, i64, i64, ir.getInt32Ty(), ir.getInt32Ty()},
                                            false);
    llvm::FunctionCallee scheduler = m.getOrInsertFunction(kEntryPoint, entryTy);
    ir.CreateCall(scheduler, {wrapper, context, ir.getInt64(0), ir.CreateSExtOrTrunc(n.llvm(), i64),
                              ir.getInt64(static_cast<std::uint64_t>(o.chunk)),
                              ir.getInt32(o.schedule == ParallelSchedule::Dynamic ? 1 : 0),
                              ir.getInt32(static_cast<std::uint32_t>(o.maxThreads))});
    // The extractor's branch next to the call has no location of its own.
    if (I.debug)
      for (llvm::Instruction& inst : *site->getParent())
        if (!inst.getDebugLoc()) inst.setDebugLoc(here);
    site->eraseFromParent();
    body->eraseFromParent();
    llvm::cast<llvm::Instruction>(begin)->eraseFromParent();
    llvm::cast<llvm::Instruction>(end)->eraseFromParent();
    // The context lives on the stack: inside a loop, scope it per iteration.
    if (!I.scopes.empty()) I.scopes.back().allocates = true;
    ir.SetInsertPoint(exit);
    // A chunk stopped at a failed check: leave here too.
    detail::emitPendingCheck(self);
    return true;
  }
};

void FunctionBuilder::parallelFor(const Value& lb, const Value& ub, const Value& step, const ParallelOptions& options,
                                  const std::function<void(Value)>& body, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  parallelFor(std::vector<Value>{lb}, std::vector<Value>{ub}, std::vector<Value>{step}, options,
              [&](const std::vector<Value>& ivs) {
                const detail::UserCode user(*this, at);
                body(ivs[0]);
              });
}

void FunctionBuilder::parallelFor(const std::vector<Value>& lbs, const std::vector<Value>& ubs,
                                  const std::vector<Value>& steps, const ParallelOptions& options,
                                  const std::function<void(const std::vector<Value>&)>& body,
                                  std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const std::string op = "parallel_for";
  if (impl_->error) return;
  if (lbs.empty() || lbs.size() != ubs.size() || lbs.size() != steps.size()) {
    fail(*this, Error(ErrorCode::ArityMismatch, "operation '" + op + "': needs one lower bound, upper bound and "
                                                "step per dimension, got " + std::to_string(lbs.size()) + ", " +
                                                std::to_string(ubs.size()) + " and " + std::to_string(steps.size())));
    return;
  }
  if (!checkOptions(*this, op, options)) return;
  const std::size_t rank = lbs.size();
  std::vector<Value> trips;
  for (std::size_t d = 0; d < rank; ++d) {
    trips.push_back(tripCount(*this, op, lbs[d], ubs[d], steps[d]));
    if (!trips.back().valid()) return;
  }
  Value total = trips[0];
  for (std::size_t d = 1; d < rank; ++d) total = mul(total, trips[d]);
  auto ivOf = [&](std::size_t d, const Value& k) { return add(lbs[d], mul(k, steps[d])); };
  ParallelLowering::emit(*this, op, total, options, [&](Value begin, Value end) {
    if (rank == 1) {
      forLoop(begin, end, index(1), [&](Value k) {
        const std::vector<Value> ivs{ivOf(0, k)};
        const detail::UserCode user(*this, at);
        body(ivs);
      });
      return;
    }
    // Flat iterations [begin, end) touch rows begin/n .. (end-1)/n of the last
    // dim (extent n); each row runs a serial inner loop over its part.
    // The row split divides by trip counts that are positive whenever a
    // chunk runs: no checks there, only in the body.
    const Value& last = trips[rank - 1];
    std::optional<detail::Unchecked> unchecked(std::in_place, *this);
    Value rowBegin = div(begin, last);
    Value rowEnd = add(div(sub(end, index(1)), last), index(1));
    unchecked.reset();
    forLoop(rowBegin, rowEnd, index(1), [&](Value row) {
      unchecked.emplace(*this);
      Value base = mul(row, last);
      Value lo = max(sub(begin, base), index(0));
      Value hi = min(sub(end, base), last);
      std::vector<Value> outer(rank - 1);
      Value rest = row;
      for (std::size_t d = rank - 1; d-- > 0;) {
        outer[d] = d == 0 ? rest : rem(rest, trips[d]);
        if (d > 0) rest = div(rest, trips[d]);
      }
      std::vector<Value> ivs(rank);
      for (std::size_t d = 0; d + 1 < rank; ++d) ivs[d] = ivOf(d, outer[d]);
      unchecked.reset();
      forLoop(lo, hi, index(1), [&](Value j) {
        ivs[rank - 1] = ivOf(rank - 1, j);
        const detail::UserCode user(*this, at);
        body(ivs);
      });
    });
  });
}

std::vector<Value> FunctionBuilder::parallelReduce(const Value& lb, const Value& ub, const Value& step,
                                                   const ParallelOptions& options,
                                                   const std::vector<Reduction>& reductions,
                                                   const std::function<std::vector<Value>(Value)>& body,
                                                   std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const std::string op = "parallel_reduce";
  Impl& I = *impl_;
  const std::vector<Value> invalid(reductions.size());
  if (I.error || !checkOptions(*this, op, options)) return invalid;
  auto& ir = I.ir;
  llvm::LLVMContext& ctx = ir.getContext();
  std::vector<Value> identities;
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    const Reduction& r = reductions[i];
    const std::string which = "reduction #" + std::to_string(i);
    if (!checkOperands(*this, op, {&r.init})) return invalid;
    const Type& t = r.init.type();
    const bool ok = isScalar(t) && (isFloat(std::get<ElementType>(t)) || std::get<ElementType>(t) == ElementType::Index ||
                                    (isInteger(std::get<ElementType>(t)) && bitWidth(std::get<ElementType>(t)) >= 8));
    if (!ok) {
      fail(*this, Error(ErrorCode::TypeMismatch, "operation '" + op + "': " + which + " has type " + toString(t) +
                                                     "; reductions take integers of 8 bits or more, index or floats"));
      return invalid;
    }
    if (r.kind == Reduction::Kind::Custom) {
      if (!r.combine) {
        fail(*this, Error(ErrorCode::InvalidArgument, "operation '" + op + "': " + which + " is custom but has no combiner"));
        return invalid;
      }
      if (!checkOperands(*this, op, {&r.identity})) return invalid;
      if (!(r.identity.type() == t)) {
        fail(*this, Error(ErrorCode::TypeMismatch, "operation '" + op + "': " + which + " starts from " +
                                                       toString(t) + " but its identity is " +
                                                       toString(r.identity.type())));
        return invalid;
      }
      identities.push_back(r.identity);
    } else {
      identities.push_back(identityOf(*this, r.kind, std::get<ElementType>(t)));
    }
  }
  Value n = tripCount(*this, op, lb, ub, step);
  if (!n.valid()) return invalid;

  // One accumulator per reduction, holding init; each chunk folds its partial in.
  std::vector<llvm::AllocaInst*> slots;
  for (const Reduction& r : reductions) {
    llvm::Type* st = reductionStorageType(ctx, r.init.llvm()->getType());
    llvm::AllocaInst* slot = ir.CreateAlloca(st, nullptr, "par.acc");
    ir.CreateStore(ir.CreateBitCast(r.init.llvm(), st), slot);
    slots.push_back(slot);
  }
  if (!I.scopes.empty() && !slots.empty()) I.scopes.back().allocates = true;

  const bool ok = ParallelLowering::emit(*this, op, n, options, [&](Value begin, Value end) {
    std::vector<Value> partial =
        forLoop(begin, end, index(1), identities, [&](Value k, const std::vector<Value>& acc) {
          const Value iv = add(lb, mul(k, step));
          std::vector<Value> contribution;
          {
            const detail::UserCode user(*this, at);
            contribution = body(iv);
          }
          if (I.error) return std::vector<Value>(acc.size());
          if (contribution.size() != acc.size()) {
            fail(*this, Error(ErrorCode::ArityMismatch, "operation '" + op + "': the body yields " +
                                                            std::to_string(contribution.size()) +
                                                            " values for " + std::to_string(acc.size()) +
                                                            " reductions"));
            return std::vector<Value>(acc.size());
          }
          std::vector<Value> next;
          for (std::size_t i = 0; i < acc.size(); ++i) {
            if (!checkOperands(*this, op, {&contribution[i]})) return std::vector<Value>(acc.size());
            if (!(contribution[i].type() == acc[i].type())) {
              fail(*this, Error(ErrorCode::TypeMismatch, "operation '" + op + "': the body yields " +
                                                             toString(contribution[i].type()) + " for reduction #" +
                                                             std::to_string(i) + " of type " +
                                                             toString(acc[i].type())));
              return std::vector<Value>(acc.size());
            }
            next.push_back(combineWith(*this, at, op, i, reductions[i], acc[i], contribution[i]));
            if (I.error) return std::vector<Value>(acc.size());
          }
          return next;
        });
    if (I.error) return;
    // Fold each partial into its accumulator with a compare-and-swap loop,
    // which serves every combiner (including a user's) on every scalar type.
    llvm::Function* f = I.lowered.function;
    for (std::size_t i = 0; i < reductions.size(); ++i) {
      llvm::Type* vt = partial[i].llvm()->getType();
      llvm::Type* st = slots[i]->getAllocatedType();
      const llvm::Align align(st->getPrimitiveSizeInBits() / 8);
      llvm::LoadInst* first = ir.CreateAlignedLoad(st, slots[i], align);
      first->setAtomic(llvm::AtomicOrdering::Monotonic);
      llvm::BasicBlock* pre = ir.GetInsertBlock();
      auto* loop = llvm::BasicBlock::Create(ctx, "par.combine", f);
      auto* done = llvm::BasicBlock::Create(ctx, "par.combined", f);
      ir.CreateBr(loop);
      ir.SetInsertPoint(loop);
      llvm::PHINode* old = ir.CreatePHI(st, 2);
      old->addIncoming(first, pre);
      Value combined = combineWith(*this, at, op, i, reductions[i],
                                   BuilderOps::make(*this, ir.CreateBitCast(old, vt), partial[i].type()), partial[i]);
      if (I.error) return;
      llvm::Value* pair = ir.CreateAtomicCmpXchg(slots[i], old, ir.CreateBitCast(combined.llvm(), st), align,
                                                 llvm::AtomicOrdering::AcquireRelease,
                                                 llvm::AtomicOrdering::Monotonic);
      old->addIncoming(ir.CreateExtractValue(pair, {0}), ir.GetInsertBlock());
      ir.CreateCondBr(ir.CreateExtractValue(pair, {1}), done, loop);
      ir.SetInsertPoint(done);
    }
  });
  if (!ok) return invalid;
  std::vector<Value> out;
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    llvm::Value* v = ir.CreateLoad(slots[i]->getAllocatedType(), slots[i]);
    out.push_back(BuilderOps::make(*this, ir.CreateBitCast(v, reductions[i].init.llvm()->getType()),
                                   reductions[i].init.type()));
  }
  return out;
}

}  // namespace memjit::codegen
