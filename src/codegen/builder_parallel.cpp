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

#include "atomic_update.h"
#include "builder_checks.h"
#include "loop_proofs.h"
#include "builder_util.h"
#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "mutants.h"

namespace memjit::codegen {

using detail::checkOperands;
using detail::describeOperands;
using detail::fail;

namespace {

constexpr const char* kEntryPoint = "memjit_parallel_for";

bool isIndex(const Value& v) { return v.type() == Type(ElementType::Index); }

// `deterministic` fixes a scalar reduction's combine order; other loops have none to fix.
bool checkNotDeterministic(FunctionBuilder& self, const std::string& op, const std::string& what,
                           const ParallelOptions& o) {
  if (!o.deterministic) return true;
  fail(self, Error(ErrorCode::InvalidArgument, "operation '" + op + "': deterministic applies to scalar reductions, not "
                                                   "to " + what));
  return false;
}

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
  if (MEMJIT_MUTANT("parallel_trip_count_floor")) n = self.div(self.sub(ub, lb), step);
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

// Internal: builds, outlines and schedules one parallel region, in the steps
// the comment at the top of this file describes.
class ParallelLowering {
 public:
  using Impl = BuilderOps::Impl;

  // Builds `chunk(begin, end)` as an outlined region run over [0, n) by the
  // scheduler. Returns false (with the builder's error set) on failure.
  static bool emit(FunctionBuilder& self, const std::string& op, const Value& n, const ParallelOptions& o,
                   const std::function<void(Value, Value)>& chunk) {
    ParallelLowering lowering(self, op, n, o);
    return lowering.run(chunk);
  }

 private:
  ParallelLowering(FunctionBuilder& self, const std::string& op, const Value& n, const ParallelOptions& o)
      : self_(self), I_(BuilderOps::impl(self)), ir_(I_.ir), ctx_(ir_.getContext()), f_(I_.lowered.function),
        op_(op), n_(n), options_(o), indexTy_(n.llvm()->getType()),
        here_(ir_.getCurrentDebugLocation()) {}  // the parallel loop's line

  bool run(const std::function<void(Value, Value)>& chunk) {
    std::unordered_set<llvm::BasicBlock*> before;
    for (llvm::BasicBlock& bb : *f_) before.insert(&bb);
    if (!buildChunkInline(chunk)) return false;
    const std::vector<llvm::BasicBlock*> region = chunkRegion(before);
    readOuterDescriptorFieldsFromScalars(region);
    if (!outline(region)) return failInternal("cannot outline the loop body");
    keepPointerArgumentFacts();
    layOutContext();
    if (!buildWrapper()) return failInternal("cannot inline the outlined loop body");
    callScheduler();
    removeOutlinedCall();
    return true;
  }

  // The chunk between two placeholders standing for begin and end, from
  // `entry_` to `exit_`. False when the chunk failed (the builder is at `exit_`).
  bool buildChunkInline(const std::function<void(Value, Value)>& chunk) {
    begin_ = ir_.CreateFreeze(llvm::PoisonValue::get(indexTy_), "par.begin");
    end_ = ir_.CreateFreeze(llvm::PoisonValue::get(indexTy_), "par.end");
    entry_ = llvm::BasicBlock::Create(ctx_, "par.region", f_);
    ir_.CreateBr(entry_);
    ir_.SetInsertPoint(entry_);
    // Made now, as the place a failed check in the chunk leaves to; placed
    // after the chunk's blocks, where an unchecked loop has it too.
    exit_ = llvm::BasicBlock::Create(ctx_, "par.exit");
    ++I_.depth;
    {
      detail::ChunkFailTarget chunkEnd(self_, exit_);
      const detail::SuspendProofNest ownNests(self_);
      chunk(BuilderOps::make(self_, begin_, ElementType::Index), BuilderOps::make(self_, end_, ElementType::Index));
    }
    --I_.depth;
    exit_->insertInto(f_);
    ir_.CreateBr(exit_);
    if (!I_.error) return true;
    ir_.SetInsertPoint(exit_);
    return false;
  }

  // `entry_` and the blocks the chunk added, `exit_` excepted.
  std::vector<llvm::BasicBlock*> chunkRegion(const std::unordered_set<llvm::BasicBlock*>& before) const {
    std::vector<llvm::BasicBlock*> region{entry_};
    for (llvm::BasicBlock& bb : *f_)
      if (!before.count(&bb) && &bb != entry_ && &bb != exit_) region.push_back(&bb);
    return region;
  }

  // Fields of descriptors from outside (a memref argument's aligned pointer,
  // sizes, strides) are read from the scalar they were built from, so the
  // outlined body takes that scalar, not the whole descriptor; then the
  // facts on the function's arguments (noalias, align) can follow it.
  static void readOuterDescriptorFieldsFromScalars(const std::vector<llvm::BasicBlock*>& region) {
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
  }

  // Moves the region into `body_`, called once at `site_`.
  bool outline(const std::vector<llvm::BasicBlock*>& region) {
    llvm::CodeExtractorAnalysisCache cache(*f_);
    llvm::CodeExtractor extractor(region, nullptr, false, nullptr, nullptr, nullptr, false, /*AllowAlloca=*/true,
                                  nullptr, "parallel");
    llvm::SetVector<llvm::Value*> inputs, outputs;
    body_ = extractor.isEligible() ? extractor.extractCodeRegion(cache, inputs, outputs) : nullptr;
    if (body_) I_.helpers.emplace_back(body_);
    if (!body_ || !outputs.empty() || !body_->hasOneUse()) return false;
    site_ = llvm::cast<llvm::CallInst>(body_->user_back());
    return true;
  }

  // Pointer arguments of the function keep their noalias and alignment in
  // the body (inlining turns noalias into scoped alias metadata), so its
  // loops vectorise without runtime alias checks where the parent's would.
  void keepPointerArgumentFacts() {
    for (unsigned i = 0; i < site_->arg_size(); ++i) {
      auto* a = llvm::dyn_cast<llvm::Argument>(site_->getArgOperand(i));
      if (!a || a->getParent() != f_ || !a->getType()->isPointerTy()) continue;
      if (a->hasNoAliasAttr()) body_->addParamAttr(i, llvm::Attribute::NoAlias);
      if (auto align = a->getParamAlign()) body_->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, *align));
    }
  }

  bool isChunkBound(const llvm::Value* v) const { return v == begin_ || v == end_; }

  // The context struct: every argument of the outlined body but begin and end.
  void layOutContext() {
    std::vector<llvm::Type*> fields;
    fieldOf_.assign(site_->arg_size(), ~0u);
    for (unsigned i = 0; i < site_->arg_size(); ++i) {
      llvm::Value* a = site_->getArgOperand(i);
      if (isChunkBound(a)) continue;
      fieldOf_[i] = static_cast<unsigned>(fields.size());
      fields.push_back(a->getType());
    }
    contextTy_ = llvm::StructType::get(ctx_, fields);
  }

  // The wrapper the scheduler calls per chunk: `void(ptr context, i64 begin,
  // i64 end)` with the body inlined.
  bool buildWrapper() {
    auto* i64 = ir_.getInt64Ty();
    auto* ptr = ir_.getPtrTy();
    auto* wrapperTy = llvm::FunctionType::get(ir_.getVoidTy(), {ptr, i64, i64}, false);
    wrapper_ = llvm::Function::Create(wrapperTy, llvm::GlobalValue::PrivateLinkage, f_->getName() + ".parallel",
                                      *f_->getParent());
    I_.helpers.emplace_back(wrapper_);
    wrapper_->setAttributes(llvm::AttributeList::get(ctx_, llvm::AttributeList::FunctionIndex,
                                                     llvm::AttrBuilder(ctx_, f_->getAttributes().getFnAttrs())));
    wrapper_->addFnAttr(llvm::Attribute::NoUnwind);
    wrapper_->addParamAttr(0, llvm::Attribute::NoAlias);
    wrapper_->addParamAttr(0, llvm::Attribute::ReadOnly);
    llvm::IRBuilder<> w(llvm::BasicBlock::Create(ctx_, "entry", wrapper_));
    // The wrapper gets a subprogram and the call a location, so the inlined
    // body keeps its lines (as an inlined frame of the outlined function).
    if (I_.debug) w.SetCurrentDebugLocation(I_.debug->describeHelper(*wrapper_, here_));
    std::vector<llvm::Value*> args;
    for (unsigned i = 0; i < site_->arg_size(); ++i) {
      llvm::Value* a = site_->getArgOperand(i);
      if (isChunkBound(a)) {
        llvm::Value* p = wrapper_->getArg(a == begin_ ? 1 : 2);
        args.push_back(w.CreateSExtOrTrunc(p, indexTy_));
      } else {
        llvm::Value* slot = w.CreateStructGEP(contextTy_, wrapper_->getArg(0), fieldOf_[i]);
        args.push_back(w.CreateLoad(a->getType(), slot));
      }
    }
    llvm::CallInst* call = w.CreateCall(body_, args);
    w.CreateRetVoid();
    llvm::InlineFunctionInfo info;
    return llvm::InlineFunction(*call, info).isSuccess();
  }

  // At the outlined call: fill the context, call the scheduler.
  void callScheduler() {
    ir_.SetInsertPoint(site_);
    ir_.SetCurrentDebugLocation(here_);  // not the outlined call's
    llvm::AllocaInst* context = ir_.CreateAlloca(contextTy_, nullptr, "par.context");
    for (unsigned i = 0; i < site_->arg_size(); ++i)
      if (fieldOf_[i] != ~0u)
        ir_.CreateStore(site_->getArgOperand(i), ir_.CreateStructGEP(contextTy_, context, fieldOf_[i]));
    auto* i64 = ir_.getInt64Ty();
    auto* ptr = ir_.getPtrTy();
    auto* entryTy = llvm::FunctionType::get(ir_.getVoidTy(),
                                            {ptr, ptr, i64, i64, i64, ir_.getInt32Ty(), ir_.getInt32Ty()}, false);
    llvm::FunctionCallee scheduler = f_->getParent()->getOrInsertFunction(kEntryPoint, entryTy);
    ir_.CreateCall(scheduler, {wrapper_, context, ir_.getInt64(0), ir_.CreateSExtOrTrunc(n_.llvm(), i64),
                               ir_.getInt64(static_cast<std::uint64_t>(options_.chunk)),
                               ir_.getInt32(options_.schedule == ParallelSchedule::Dynamic ? 1 : 0),
                               ir_.getInt32(static_cast<std::uint32_t>(options_.maxThreads))});
  }

  // Erases the outlined call, its function and the placeholders; continues
  // at `exit_`.
  void removeOutlinedCall() {
    // The extractor's branch next to the call has no location of its own.
    if (I_.debug)
      for (llvm::Instruction& inst : *site_->getParent())
        if (!inst.getDebugLoc()) inst.setDebugLoc(here_);
    site_->eraseFromParent();
    body_->eraseFromParent();
    llvm::cast<llvm::Instruction>(begin_)->eraseFromParent();
    llvm::cast<llvm::Instruction>(end_)->eraseFromParent();
    // The context lives on the stack: inside a loop, scope it per iteration.
    if (!I_.scopes.empty()) I_.scopes.back().allocates = true;
    ir_.SetInsertPoint(exit_);
    // A chunk stopped at a failed check: leave here too.
    detail::emitPendingCheck(self_);
  }

  bool failInternal(const std::string& what) {
    fail(self_, Error(ErrorCode::Internal, "operation '" + op_ + "': " + what));
    ir_.SetInsertPoint(exit_);
    return false;
  }

  FunctionBuilder& self_;
  Impl& I_;
  llvm::IRBuilder<>& ir_;
  llvm::LLVMContext& ctx_;
  llvm::Function* f_;
  const std::string& op_;
  const Value& n_;
  const ParallelOptions& options_;
  llvm::Type* indexTy_;
  const llvm::DebugLoc here_;
  llvm::Value* begin_ = nullptr;
  llvm::Value* end_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::BasicBlock* exit_ = nullptr;
  llvm::Function* body_ = nullptr;
  llvm::CallInst* site_ = nullptr;
  std::vector<unsigned> fieldOf_;  // per argument of the body: its context field, ~0u for begin and end
  llvm::StructType* contextTy_ = nullptr;
  llvm::Function* wrapper_ = nullptr;
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
  if (!checkOptions(*this, op, options) ||
      !checkNotDeterministic(*this, op, "parallelFor (it has no reduction to order)", options))
    return;
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

namespace {

// Checks reduction #i (its init's type, a custom one's combiner and
// identity); returns its identity, nothing (the builder's error set) when
// the reduction is malformed.
std::optional<Value> checkedIdentity(FunctionBuilder& self, const std::string& op, std::size_t i,
                                     const Reduction& r) {
  const std::string which = "reduction #" + std::to_string(i);
  if (!checkOperands(self, op, {&r.init})) return std::nullopt;
  const Type& t = r.init.type();
  const bool ok = isScalar(t) && (isFloat(std::get<ElementType>(t)) || std::get<ElementType>(t) == ElementType::Index ||
                                  (isInteger(std::get<ElementType>(t)) && bitWidth(std::get<ElementType>(t)) >= 8));
  if (!ok) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + op + "': " + which + " has type " + toString(t) +
                                                  "; reductions take integers of 8 bits or more, index or floats"));
    return std::nullopt;
  }
  if (r.kind != Reduction::Kind::Custom) return identityOf(self, r.kind, std::get<ElementType>(t));
  if (!r.combine) {
    fail(self, Error(ErrorCode::InvalidArgument, "operation '" + op + "': " + which + " is custom but has no combiner"));
    return std::nullopt;
  }
  if (!checkOperands(self, op, {&r.identity})) return std::nullopt;
  if (!(r.identity.type() == t)) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + op + "': " + which + " starts from " + toString(t) +
                                                  " but its identity is " + toString(r.identity.type())));
    return std::nullopt;
  }
  return r.identity;
}

// One accumulator per reduction, holding init; each chunk folds its partial in.
std::vector<llvm::AllocaInst*> makeAccumulators(BuilderOps::Impl& I, const std::vector<Reduction>& reductions) {
  auto& ir = I.ir;
  std::vector<llvm::AllocaInst*> slots;
  for (const Reduction& r : reductions) {
    llvm::Type* st = reductionStorageType(ir.getContext(), r.init.llvm()->getType());
    llvm::AllocaInst* slot = ir.CreateAlloca(st, nullptr, "par.acc");
    ir.CreateStore(ir.CreateBitCast(r.init.llvm(), st), slot);
    slots.push_back(slot);
  }
  if (!I.scopes.empty() && !slots.empty()) I.scopes.back().allocates = true;
  return slots;
}

// What a chunk of a parallel reduction does: a serial loop folding the
// body's contributions into partials, then each partial into its accumulator.
class ReductionChunk {
 public:
  ReductionChunk(FunctionBuilder& self, const detail::OpLocation& at, const std::string& op,
                 const std::vector<Reduction>& reductions, const std::vector<Value>& identities,
                 const std::vector<llvm::AllocaInst*>& slots, const Value& lb, const Value& step,
                 const std::function<std::vector<Value>(Value)>& body)
      : self_(self), I_(BuilderOps::impl(self)), at_(at), op_(op), reductions_(reductions),
        identities_(identities), slots_(slots), lb_(lb), step_(step), body_(body) {}

  // Blocks [begin, end) of `block` iterations each (the last one up to n):
  // each folds its iterations from the identity and stores its partials.
  void buildBlocks(const Value& begin, const Value& end, const Value& block, const Value& n,
                   const std::vector<Value>& partials) {
    self_.forLoop(begin, end, self_.index(1), [&](Value k) {
      std::optional<detail::Unchecked> unchecked(std::in_place, self_);
      const Value first = self_.mul(k, block);
      const Value last = self_.min(self_.add(first, block), n);
      unchecked.reset();
      std::vector<Value> partial = self_.forLoop(first, last, self_.index(1), identities_,
                                                 [&](Value j, const std::vector<Value>& acc) { return iteration(j, acc); });
      if (I_.error) return;
      unchecked.emplace(self_);
      for (std::size_t i = 0; i < partial.size(); ++i) self_.store(partial[i], partials[i], {k});
    });
  }

  void build(const Value& begin, const Value& end) {
    const Value last = MEMJIT_MUTANT("parallel_chunk_end_short") ? self_.sub(end, self_.index(1)) : end;
    std::vector<Value> partial = self_.forLoop(begin, last, self_.index(1), identities_,
                                               [&](Value k, const std::vector<Value>& acc) { return iteration(k, acc); });
    if (I_.error) return;
    for (std::size_t i = 0; i < reductions_.size(); ++i)
      if (!foldIntoAccumulator(i, partial[i])) return;
  }

 private:
  // acc combined with the body's contributions at iteration k.
  std::vector<Value> iteration(const Value& k, const std::vector<Value>& acc) {
    const Value iv = self_.add(lb_, self_.mul(k, step_));
    std::vector<Value> contribution;
    {
      const detail::UserCode user(self_, at_);
      contribution = body_(iv);
    }
    if (I_.error) return std::vector<Value>(acc.size());
    if (contribution.size() != acc.size()) {
      fail(self_, Error(ErrorCode::ArityMismatch, "operation '" + op_ + "': the body yields " +
                                                      std::to_string(contribution.size()) + " values for " +
                                                      std::to_string(acc.size()) + " reductions"));
      return std::vector<Value>(acc.size());
    }
    std::vector<Value> next;
    for (std::size_t i = 0; i < acc.size(); ++i) {
      if (!checkOperands(self_, op_, {&contribution[i]})) return std::vector<Value>(acc.size());
      if (!(contribution[i].type() == acc[i].type())) {
        fail(self_, Error(ErrorCode::TypeMismatch, "operation '" + op_ + "': the body yields " +
                                                       toString(contribution[i].type()) + " for reduction #" +
                                                       std::to_string(i) + " of type " + toString(acc[i].type())));
        return std::vector<Value>(acc.size());
      }
      next.push_back(combineWith(self_, at_, op_, i, reductions_[i], acc[i], contribution[i]));
      if (I_.error) return std::vector<Value>(acc.size());
    }
    return next;
  }

  // Folds a partial into its accumulator with a compare-and-swap loop, which
  // serves every combiner (including a user's) on every scalar type.
  bool foldIntoAccumulator(std::size_t i, const Value& partial) {
    detail::atomicUpdate(self_, slots_[i], std::get<ElementType>(partial.type()), AtomicOrdering::AcqRel,
                         [&](const Value& old) { return combineWith(self_, at_, op_, i, reductions_[i], old, partial); });
    return !I_.error;
  }

  FunctionBuilder& self_;
  BuilderOps::Impl& I_;
  const detail::OpLocation& at_;
  const std::string& op_;
  const std::vector<Reduction>& reductions_;
  const std::vector<Value>& identities_;
  const std::vector<llvm::AllocaInst*>& slots_;
  const Value& lb_;
  const Value& step_;
  const std::function<std::vector<Value>(Value)>& body_;
};

// ParallelOptions::deterministic: the scheduler runs blocks, not
// iterations, each block's partials go to the block's own slot, and the
// slots are combined in a fixed tree, whatever thread ran which block.
constexpr std::int64_t kMinDeterministicBlock = 1024;
constexpr std::int64_t kMaxDeterministicBlocks = 1024;

std::vector<Value> deterministicReduce(FunctionBuilder& self, const detail::OpLocation& at, const std::string& op,
                                       const Value& n, const ParallelOptions& options,
                                       const std::vector<Reduction>& reductions, const std::vector<Value>& identities,
                                       const Value& lb, const Value& step,
                                       const std::function<std::vector<Value>(Value)>& body) {
  BuilderOps::Impl& I = BuilderOps::impl(self);
  const std::vector<Value> invalid(reductions.size());
  const Value zero = self.index(0), one = self.index(1);
  // memjit's own arithmetic and slot accesses are valid by construction: no
  // checks there, only in the body and in custom combiners.
  std::optional<detail::Unchecked> unchecked(std::in_place, self);
  const Value block = options.chunk > 0 ? self.index(options.chunk)
                                        : self.max(self.index(kMinDeterministicBlock),
                                                   self.ceildivsi(n, self.index(kMaxDeterministicBlocks)));
  const Value blocks = self.ceildivsi(n, block);
  std::vector<Value> slots;
  for (const Reduction& r : reductions)
    slots.push_back(self.alloc(MemRefType(std::get<ElementType>(r.init.type()), {kDynamic}), {blocks}));
  unchecked.reset();
  if (I.error) return invalid;
  ParallelOptions scheduled = options;
  scheduled.chunk = 0;  // blocks are the unit; the scheduler deals them
  scheduled.deterministic = false;
  const std::vector<llvm::AllocaInst*> noAccumulators;
  ReductionChunk chunk(self, at, op, reductions, identities, noAccumulators, lb, step, body);
  if (!ParallelLowering::emit(self, op, blocks, scheduled,
                              [&](Value begin, Value end) { chunk.buildBlocks(begin, end, block, n, slots); }))
    return invalid;
  // The tree: at level l (stride s = 2^l, levels while s < blocks), slot i (a
  // multiple of 2s) becomes combine(slot i, slot i + s); slot 0 ends with all.
  unchecked.emplace(self);
  const Value below = self.cast(self.sub(blocks, one), ElementType::I64);
  const Value levels = self.select(self.cmp(CmpPredicate::Gt, blocks, one),
                                   self.sub(self.index(64), self.cast(self.ctlz(below), ElementType::Index)), zero);
  unchecked.reset();
  self.forLoop(zero, levels, one, {one}, [&](Value, const std::vector<Value>& carried) {
    const Value stride = carried[0];
    std::optional<detail::Unchecked> own(std::in_place, self);
    const Value twice = self.add(stride, stride);
    const Value end = self.sub(blocks, stride);
    own.reset();
    self.forLoop(zero, end, twice, [&](Value i) {
      for (std::size_t r = 0; r < reductions.size() && !I.error; ++r) {
        own.emplace(self);
        const Value a = self.load(slots[r], {i}), b = self.load(slots[r], {self.add(i, stride)});
        own.reset();
        const Value v = combineWith(self, at, op, r, reductions[r], a, b);
        if (I.error) return;
        own.emplace(self);
        self.store(v, slots[r], {i});
        own.reset();
      }
    });
    return std::vector<Value>{twice};
  });
  if (I.error) return invalid;
  // init combined with the tree's result; init alone for an empty loop.
  std::vector<Value> inits;
  for (const Reduction& r : reductions) inits.push_back(r.init);
  std::vector<Value> out = self.ifElse(
      self.cmp(CmpPredicate::Gt, blocks, zero),
      [&] {
        std::vector<Value> combined;
        for (std::size_t r = 0; r < reductions.size() && !I.error; ++r) {
          std::optional<detail::Unchecked> own(std::in_place, self);
          const Value all = self.load(slots[r], {zero});
          own.reset();
          combined.push_back(combineWith(self, at, op, r, reductions[r], reductions[r].init, all));
        }
        if (I.error) return inits;
        return combined;
      },
      [&] { return inits; });
  if (I.error) return invalid;
  unchecked.emplace(self);
  for (const Value& slot : slots) self.dealloc(slot);
  return out;
}

}  // namespace

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
  std::vector<Value> identities;
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    std::optional<Value> identity = checkedIdentity(*this, op, i, reductions[i]);
    if (!identity) return invalid;
    identities.push_back(*identity);
  }
  Value n = tripCount(*this, op, lb, ub, step);
  if (!n.valid()) return invalid;
  if (options.deterministic) return deterministicReduce(*this, at, op, n, options, reductions, identities, lb, step, body);
  const std::vector<llvm::AllocaInst*> slots = makeAccumulators(I, reductions);
  ReductionChunk chunk(*this, at, op, reductions, identities, slots, lb, step, body);
  if (!ParallelLowering::emit(*this, op, n, options, [&](Value begin, Value end) { chunk.build(begin, end); }))
    return invalid;
  std::vector<Value> out;
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    llvm::Value* v = I.ir.CreateLoad(slots[i]->getAllocatedType(), slots[i]);
    out.push_back(BuilderOps::make(*this, I.ir.CreateBitCast(v, reductions[i].init.llvm()->getType()),
                                   reductions[i].init.type()));
  }
  return out;
}

namespace {

// The element types a private copy can be merged atomically: those of scalar
// reductions. Returns the accumulator's type, null with the error set.
const MemRefType* checkedArray(FunctionBuilder& self, const std::string& op, std::size_t i, const ArrayReduction& r) {
  const std::string which = "array reduction #" + std::to_string(i);
  if (!checkOperands(self, op, {&r.accumulator})) return nullptr;
  if (!isRankedMemRef(r.accumulator.type())) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + op + "': " + which + " needs a ranked memref, got " +
                                                  r.accumulator.typeName()));
    return nullptr;
  }
  const auto& t = std::get<MemRefType>(r.accumulator.type());
  const ElementType e = t.element();
  if (!(isFloat(e) || e == ElementType::Index || (isInteger(e) && bitWidth(e) >= 8))) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + op + "': " + which + " has elements of type " +
                                                  toString(Type(e)) + " (" + toString(r.accumulator.type()) +
                                                  "); reductions take integers of 8 bits or more, index or floats"));
    return nullptr;
  }
  if (r.kind == Reduction::Kind::Custom) {
    fail(self, Error(ErrorCode::InvalidArgument, "operation '" + op + "': " + which +
                                                     " is custom; array reductions take sum, product, min or max"));
    return nullptr;
  }
  return &t;
}

// The atomic update that folds a private element into the accumulator.
AtomicKind mergeKind(Reduction::Kind k, ElementType e) {
  const bool fl = isFloat(e), uns = isUnsignedInteger(e);
  switch (k) {
    case Reduction::Kind::Product: return fl ? AtomicKind::Mulf : AtomicKind::Muli;
    case Reduction::Kind::Min: return fl ? AtomicKind::Minnumf : uns ? AtomicKind::Minu : AtomicKind::Mins;
    case Reduction::Kind::Max: return fl ? AtomicKind::Maxnumf : uns ? AtomicKind::Maxu : AtomicKind::Maxs;
    default: return fl ? AtomicKind::Addf : AtomicKind::Addi;
  }
}

// fn(indices) for every element of ranked memref m, row-major.
void forEachElement(FunctionBuilder& self, const Value& m, std::size_t rank, std::vector<Value>& at,
                    const std::function<void(const std::vector<Value>&)>& fn) {
  if (at.size() == rank) {
    fn(at);
    return;
  }
  self.forLoop(self.index(0), self.dim(m, at.size()), self.index(1), [&](Value i) {
    at.push_back(i);
    forEachElement(self, m, rank, at, fn);
    at.pop_back();
  });
}

}  // namespace

void FunctionBuilder::parallelReduce(const Value& lb, const Value& ub, const Value& step,
                                     const ParallelOptions& options, const std::vector<ArrayReduction>& arrays,
                                     const std::function<void(Value, const std::vector<Value>&)>& body,
                                     std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const std::string op = "parallel_reduce";
  Impl& I = *impl_;
  if (I.error || !checkOptions(*this, op, options) ||
      !checkNotDeterministic(*this, op, "array reductions (their elements merge atomically)", options))
    return;
  std::vector<const MemRefType*> types;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    types.push_back(checkedArray(*this, op, i, arrays[i]));
    if (!types.back()) return;
  }
  Value n = tripCount(*this, op, lb, ub, step);
  if (!n.valid()) return;
  ParallelLowering::emit(*this, op, n, options, [&](Value begin, Value end) {
    // The chunk's private copies, from the identity (memjit's own code: no
    // checks but alloc's size check, indices are in bounds by construction).
    std::vector<Value> privates;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
      const MemRefType& t = *types[i];
      std::vector<Value> dynamicSizes;
      for (std::size_t d = 0; d < t.rank(); ++d)
        if (t.isDynamicDim(d)) dynamicSizes.push_back(dim(arrays[i].accumulator, d));
      privates.push_back(alloc(MemRefType(t.element(), t.shape()), dynamicSizes));
      const detail::Unchecked unchecked(*this);
      const Value identity = identityOf(*this, arrays[i].kind, t.element());
      std::vector<Value> idx;
      forEachElement(*this, privates[i], t.rank(), idx,
                     [&](const std::vector<Value>& e) { store(identity, privates[i], e); });
    }
    if (I.error) return;
    // A failed check in the body skips the merge but frees the copies.
    auto* cleanup = llvm::BasicBlock::Create(I.ir.getContext(), "par.free");
    {
      const detail::ChunkFailTarget freeFirst(*this, cleanup);
      forLoop(begin, end, index(1), [&](Value k) {
        const Value iv = add(lb, mul(k, step));
        const detail::UserCode user(*this, at);
        body(iv, privates);
      });
    }
    {
      const detail::Unchecked unchecked(*this);
      for (std::size_t i = 0; i < arrays.size(); ++i) {
        const AtomicKind kind = mergeKind(arrays[i].kind, types[i]->element());
        std::vector<Value> idx;
        forEachElement(*this, privates[i], types[i]->rank(), idx, [&](const std::vector<Value>& e) {
          // The loop's end orders these before anything after it: relaxed suffices.
          atomicRMW(kind, load(privates[i], e), arrays[i].accumulator, e, AtomicOrdering::Relaxed);
        });
      }
    }
    cleanup->insertInto(I.lowered.function);
    I.ir.CreateBr(cleanup);
    I.ir.SetInsertPoint(cleanup);
    for (const Value& p : privates) dealloc(p);
  });
}

}  // namespace memjit::codegen
