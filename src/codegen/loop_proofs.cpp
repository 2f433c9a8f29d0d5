// Checked mode's loop proofs: see loop_proofs.h.
//
// Soundness. A range [lo, hi] stands for the signed value an index-typed
// instruction has in every execution of the nest in which the guard holds.
// Ranges are i128 values computed in the guard block from values of before
// the nest, so no bound computation overflows: every bound fits the index
// type once the guard's conditions hold (each add, sub and mul adds the
// condition that its result range fits, which also says the index-typed
// operation did not wrap), and a product of two such is below 2^126.
// An induction variable lies in [lb, ub - 1] in the body: the header tests
// iv < ub, iv starts at lb and grows when step >= 0 (a condition), and
// ub - 1 + step fits (a condition: iv + step does not wrap). Its bounds are
// taken where the loop opened (its enclosing loops' ranges), and only inside
// it (an access that uses a closed loop's variable is not proven).
#include "loop_proofs.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_set>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "builder_checks.h"

namespace memjit::codegen::detail {

struct ProofNest {
  std::unordered_set<llvm::BasicBlock*> before;  // the function's blocks when the nest opened
  int baseDepth = 0;                              // Impl::depth outside the nest
  struct Loop {
    llvm::PHINode* iv;
    llvm::Value *lb, *ub, *step;
    std::vector<std::size_t> enclosing;  // loops open where it opened
  };
  struct Check {
    std::vector<llvm::Value*> indices, sizes, compares;
    std::vector<std::size_t> open;  // loops open at the access
    bool inBranch;                  // inside an ifElse/ifThen of the nest
  };
  std::vector<Loop> loops;
  std::vector<std::size_t> open;
  std::vector<Check> checks;
};

namespace {

using Impl = BuilderOps::Impl;

// smin/smax, folded when both are constants (so that static bounds leave no guard).
llvm::Value* minMax(llvm::IRBuilder<>& ir, llvm::Intrinsic::ID id, llvm::Value* a, llvm::Value* b) {
  auto *x = llvm::dyn_cast<llvm::ConstantInt>(a), *y = llvm::dyn_cast<llvm::ConstantInt>(b);
  if (a == b) return a;
  if (!x || !y) return ir.CreateBinaryIntrinsic(id, a, b);
  const bool firstIsLess = x->getValue().slt(y->getValue());
  return (id == llvm::Intrinsic::smin) == firstIsLess ? a : b;
}

struct Range {
  llvm::Value* lo = nullptr;  // null: unknown
  llvm::Value* hi = nullptr;
};

// Builds ranges and their conditions in the guard block.
class RangeBuilder {
 public:
  RangeBuilder(const ProofNest& nest, const std::unordered_set<llvm::BasicBlock*>& inNest, llvm::IRBuilder<>& ir)
      : nest_(nest), inNest_(inNest), ir_(ir), wide_(ir.getIntNTy(128)) {}

  /// The range of `v` at a point where loops `open` are open; the
  /// conditions it needs are appended to `conditions`.
  Range of(llvm::Value* v, const std::vector<std::size_t>& open, std::vector<llvm::Value*>& conditions,
           int depth = 0) {
    auto* type = llvm::dyn_cast<llvm::IntegerType>(v->getType());
    if (!type || type->getBitWidth() > 64 || depth > 24) return {};
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return exact(llvm::ConstantInt::get(wide_, c->getValue().sext(128)));
    auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
    if (!inst || !inNest_.count(inst->getParent())) return exact(ir_.CreateSExt(v, wide_));
    auto sub = [&](unsigned i) { return of(inst->getOperand(i), open, conditions, depth + 1); };
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(inst)) return inductionVariable(phi, open, conditions, depth);
    if (auto* ev = llvm::dyn_cast<llvm::ExtractValueInst>(inst)) {  // a descriptor's size, read in the nest
      auto* agg = llvm::dyn_cast<llvm::Instruction>(ev->getAggregateOperand());
      if (agg && inNest_.count(agg->getParent())) return {};
      return exact(ir_.CreateSExt(ir_.CreateExtractValue(ev->getAggregateOperand(), ev->getIndices()), wide_));
    }
    if (llvm::isa<llvm::SExtInst>(inst)) return sub(0);
    if (auto* mm = llvm::dyn_cast<llvm::MinMaxIntrinsic>(inst); mm && mm->isSigned()) {
      const Range a = sub(0), b = sub(1);
      const bool isMin = mm->getIntrinsicID() == llvm::Intrinsic::smin;
      // min(a, b) <= each operand; max(a, b) >= each.
      Range r;
      const llvm::Intrinsic::ID id = mm->getIntrinsicID();
      if (a.lo && b.lo) r.lo = minMax(ir_, id, a.lo, b.lo);
      if (a.hi && b.hi) r.hi = minMax(ir_, id, a.hi, b.hi);
      if (isMin && !r.hi) r.hi = a.hi ? a.hi : b.hi;
      if (!isMin && !r.lo) r.lo = a.lo ? a.lo : b.lo;
      return r;
    }
    const unsigned opcode = inst->getOpcode();
    if (opcode == llvm::Instruction::SDiv || opcode == llvm::Instruction::UDiv) return quotient(inst, open, conditions, depth);
    if (opcode == llvm::Instruction::Add) {
      if (Range r = roundedDown(inst, open, conditions, depth); r.lo) return r;
    }
    if (opcode != llvm::Instruction::Add && opcode != llvm::Instruction::Sub && opcode != llvm::Instruction::Mul &&
        opcode != llvm::Instruction::Shl)
      return {};
    Range a = sub(0), b;
    if (opcode == llvm::Instruction::Shl) {
      auto* k = llvm::dyn_cast<llvm::ConstantInt>(inst->getOperand(1));
      if (!k || k->getValue().uge(type->getBitWidth() - 1)) return {};
      b = exact(llvm::ConstantInt::get(wide_, llvm::APInt(128, 1) << k->getZExtValue()));
    } else {
      b = sub(1);
    }
    if (!a.lo || !a.hi || !b.lo || !b.hi) return {};
    Range r;
    if (opcode == llvm::Instruction::Add) {
      r = {ir_.CreateAdd(a.lo, b.lo), ir_.CreateAdd(a.hi, b.hi)};
    } else if (opcode == llvm::Instruction::Sub) {
      r = {ir_.CreateSub(a.lo, b.hi), ir_.CreateSub(a.hi, b.lo)};
    } else if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(b.lo); c && b.lo == b.hi) {
      llvm::Value *x = ir_.CreateMul(a.lo, c), *y = ir_.CreateMul(a.hi, c);
      r = c->isNegative() ? Range{y, x} : Range{x, y};
    } else {
      llvm::Value* p[] = {ir_.CreateMul(a.lo, b.lo), ir_.CreateMul(a.lo, b.hi), ir_.CreateMul(a.hi, b.lo),
                          ir_.CreateMul(a.hi, b.hi)};
      r = {smin(smin(p[0], p[1]), smin(p[2], p[3])), smax(smax(p[0], p[1]), smax(p[2], p[3]))};
    }
    fits(r, type->getBitWidth(), conditions);
    return r;
  }

  /// The range of `v` over the iterations that reach the access (loops
  /// `open`), correlated: `v` as an affine form in the induction variables,
  /// whose extremes are found by replacing the innermost variable by its
  /// bounds (affine forms in the outer ones) until none is left. Null bounds
  /// when `v` is not affine. Call after of(v, ...) returned a whole range:
  /// its conditions say that no operation of `v` wrapped.
  Range correlated(llvm::Value* v, const std::vector<std::size_t>& open, std::vector<llvm::Value*>& conditions) {
    std::optional<Affine> form = affine(v, open, 0);
    if (!form) return {};
    int lowBudget = 32, highBudget = 32;  // bound the candidates' product in deep nests
    return {extreme(*form, false, open, conditions, lowBudget), extreme(*form, true, open, conditions, highBudget)};
  }

 private:
  // sum of coefficient * induction variable (by loop) + rest (i128, before the nest).
  struct Affine {
    std::map<std::size_t, std::int64_t> terms;
    llvm::Value* rest;
  };
  static constexpr std::int64_t kMaxCoefficient = std::int64_t{1} << 20;  // products stay far inside i128

  std::optional<Affine> affine(llvm::Value* v, const std::vector<std::size_t>& open, int depth) {
    auto* type = llvm::dyn_cast<llvm::IntegerType>(v->getType());
    if (!type || type->getBitWidth() > 64 || depth > 24) return std::nullopt;
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return Affine{{}, wide(c->getValue())};
    auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
    if (!inst || !inNest_.count(inst->getParent())) return Affine{{}, ir_.CreateSExt(v, wide_)};
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(inst)) {
      for (std::size_t i : open)
        if (nest_.loops[i].iv == phi) return Affine{{{i, 1}}, llvm::ConstantInt::get(wide_, 0)};
      return std::nullopt;
    }
    if (auto* ev = llvm::dyn_cast<llvm::ExtractValueInst>(inst)) {
      auto* agg = llvm::dyn_cast<llvm::Instruction>(ev->getAggregateOperand());
      if (agg && inNest_.count(agg->getParent())) return std::nullopt;
      return Affine{{}, ir_.CreateSExt(ir_.CreateExtractValue(ev->getAggregateOperand(), ev->getIndices()), wide_)};
    }
    if (llvm::isa<llvm::SExtInst>(inst)) return affine(inst->getOperand(0), open, depth + 1);
    const unsigned opcode = inst->getOpcode();
    if (opcode == llvm::Instruction::Shl) {
      auto* k = llvm::dyn_cast<llvm::ConstantInt>(inst->getOperand(1));
      if (!k || k->getValue().uge(20)) return std::nullopt;
      std::optional<Affine> a = affine(inst->getOperand(0), open, depth + 1);
      if (!a) return std::nullopt;
      return scaled(*a, std::int64_t{1} << k->getZExtValue());
    }
    if (opcode != llvm::Instruction::Add && opcode != llvm::Instruction::Sub && opcode != llvm::Instruction::Mul)
      return std::nullopt;
    std::optional<Affine> a = affine(inst->getOperand(0), open, depth + 1);
    if (!a) return std::nullopt;
    std::optional<Affine> b = affine(inst->getOperand(1), open, depth + 1);
    if (!b) return std::nullopt;
    if (opcode == llvm::Instruction::Mul) {
      if (a->terms.empty() && llvm::isa<llvm::ConstantInt>(a->rest)) std::swap(a, b);
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(b->rest);
      if (!b->terms.empty() || !c || !c->getValue().isSignedIntN(21)) {
        if (a->terms.empty() && b->terms.empty()) return Affine{{}, ir_.CreateMul(a->rest, b->rest)};
        return std::nullopt;
      }
      return scaled(*a, c->getSExtValue());
    }
    return sum(*a, *b, opcode == llvm::Instruction::Sub ? -1 : 1);
  }

  std::optional<Affine> scaled(const Affine& a, std::int64_t c) {
    Affine r{{}, ir_.CreateMul(a.rest, llvm::ConstantInt::get(wide_, c, true))};
    for (auto [loop, k] : a.terms) {
      if (k > kMaxCoefficient || k < -kMaxCoefficient || c > kMaxCoefficient || c < -kMaxCoefficient)
        return std::nullopt;
      if (k * c != 0) r.terms[loop] = k * c;
    }
    return r;
  }
  // a + sign * b
  std::optional<Affine> sum(const Affine& a, const Affine& b, std::int64_t sign) {
    Affine r = a;
    r.rest = sign > 0 ? ir_.CreateAdd(a.rest, b.rest) : ir_.CreateSub(a.rest, b.rest);
    for (auto [loop, k] : b.terms) {
      const std::int64_t total = r.terms[loop] + sign * k;
      if (total > kMaxCoefficient || total < -kMaxCoefficient) return std::nullopt;
      if (total == 0)
        r.terms.erase(loop);
      else
        r.terms[loop] = total;
    }
    return r;
  }
  // A bound of an induction variable's loop bound (lb, or ub - 1), affine in
  // the loops enclosing it; of() records that its operations do not wrap.
  std::optional<Affine> boundOf(llvm::Value* v, const ProofNest::Loop& loop, std::vector<llvm::Value*>& conditions) {
    const Range r = of(v, loop.enclosing, conditions);
    if (!r.lo || !r.hi) return std::nullopt;
    return affine(v, loop.enclosing, 0);
  }

  // The lowest (upper = false) or highest value of `f` at the access. The
  // innermost variable v with coefficient c is replaced by each bound that
  // holds wherever the access runs: its loop's lb or ub - 1, and what a
  // loop inside v's, open at the access, says by not being empty
  // (lb' <= ub' - 1: nussinov's j in [i + 1, n) keeps i <= n - 2); the
  // results' min (or max) bounds f.
  llvm::Value* extreme(const Affine& f, bool upper, const std::vector<std::size_t>& open,
                       std::vector<llvm::Value*>& conditions, int& budget) {
    if (--budget < 0) return nullptr;
    if (f.terms.empty()) return f.rest;
    const auto [v, c] = *f.terms.rbegin();
    const ProofNest::Loop& loop = nest_.loops[v];
    const Range ivRange = of(loop.iv, open, conditions);  // lb <= v <= ub - 1: needs its conditions
    if (!ivRange.lo || !ivRange.hi) return nullptr;
    const bool wantUpper = (c > 0) == upper;
    std::vector<Affine> candidates;
    if (std::optional<Affine> own = boundOf(wantUpper ? loop.ub : loop.lb, loop, conditions)) {
      if (wantUpper) own->rest = ir_.CreateSub(own->rest, llvm::ConstantInt::get(wide_, 1));
      candidates.push_back(*own);
    } else {
      candidates.push_back(Affine{{}, wantUpper ? ivRange.hi : ivRange.lo});
    }
    for (std::size_t m : open) {
      if (m <= v || !loopEncloses(v, m)) continue;
      const ProofNest::Loop& inner = nest_.loops[m];
      if (const Range r = of(inner.iv, open, conditions); !r.lo || !r.hi) continue;
      std::optional<Affine> ub = boundOf(inner.ub, inner, conditions), lb = boundOf(inner.lb, inner, conditions);
      if (!ub || !lb) continue;
      std::optional<Affine> slack = sum(*ub, *lb, -1);  // ub - lb - 1 >= 0
      if (!slack) continue;
      slack->rest = ir_.CreateSub(slack->rest, llvm::ConstantInt::get(wide_, 1));
      auto e = slack->terms.find(v);
      if (e == slack->terms.end() || (e->second != 1 && e->second != -1) || slack->terms.rbegin()->first != v) continue;
      const std::int64_t sign = e->second;
      slack->terms.erase(e);
      // sign * v + R >= 0: v <= R (sign -1), v >= -R (sign 1).
      if (sign < 0 && wantUpper) candidates.push_back(*slack);
      if (sign > 0 && !wantUpper)
        if (std::optional<Affine> negated = scaled(*slack, -1)) candidates.push_back(*negated);
    }
    llvm::Value* best = nullptr;
    for (const Affine& bound : candidates) {
      Affine rest = f;
      rest.terms.erase(v);
      std::optional<Affine> scaledBound = scaled(bound, c);
      if (!scaledBound) continue;
      std::optional<Affine> next = sum(rest, *scaledBound, 1);
      if (!next) continue;
      llvm::Value* r = extreme(*next, upper, open, conditions, budget);
      if (!r) continue;
      best = !best ? r : upper ? smin(best, r) : smax(best, r);
    }
    return best;
  }
  bool loopEncloses(std::size_t outer, std::size_t inner) const {
    const std::vector<std::size_t>& e = nest_.loops[inner].enclosing;
    return std::find(e.begin(), e.end(), outer) != e.end();
  }

  Range exact(llvm::Value* v) const { return {v, v}; }
  llvm::Value* smin(llvm::Value* a, llvm::Value* b) { return minMax(ir_, llvm::Intrinsic::smin, a, b); }
  llvm::Value* smax(llvm::Value* a, llvm::Value* b) { return minMax(ir_, llvm::Intrinsic::smax, a, b); }
  llvm::Value* wide(const llvm::APInt& v) const { return llvm::ConstantInt::get(wide_, v.sext(128)); }

  // The result of an index-typed operation equals its exact value (did not
  // wrap) when the exact range fits the type.
  void fits(const Range& r, unsigned bits, std::vector<llvm::Value*>& conditions) {
    conditions.push_back(ir_.CreateICmpSGE(r.lo, wide(llvm::APInt::getSignedMinValue(bits))));
    conditions.push_back(ir_.CreateICmpSLE(r.hi, wide(llvm::APInt::getSignedMaxValue(bits))));
  }

  // a / c for a constant c > 0: monotone in a. Bounds fit 64 bits under the
  // guard, so they are divided as i64 (an i128 division would need a
  // runtime library call).
  Range quotient(llvm::Instruction* inst, const std::vector<std::size_t>& open, std::vector<llvm::Value*>& conditions,
                 int depth) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(inst->getOperand(1));
    if (!c || c->isNegative() || c->isZero()) return {};
    const Range a = of(inst->getOperand(0), open, conditions, depth + 1);
    if (!a.lo || !a.hi) return {};
    if (inst->getOpcode() == llvm::Instruction::UDiv)  // as sdiv when the dividend is not negative
      conditions.push_back(ir_.CreateICmpSGE(a.lo, llvm::ConstantInt::get(wide_, 0)));
    return {divide(a.lo, c->getSExtValue(), conditions), divide(a.hi, c->getSExtValue(), conditions)};
  }
  llvm::Value* divide(llvm::Value* v, std::int64_t c, std::vector<llvm::Value*>& conditions) {
    fits({v, v}, 64, conditions);
    llvm::Type* i64 = ir_.getInt64Ty();
    return ir_.CreateSExt(ir_.CreateSDiv(ir_.CreateTrunc(v, i64), llvm::ConstantInt::get(i64, c)), wide_);
  }

  // x + (y - x) / c * c (c > 0), how a loop is split into whole blocks of c
  // and a remainder: between x and y, correlated as intervals cannot see.
  // When y < x it lies in (y - c, x]; taken as [x, y] when y >= x always.
  Range roundedDown(llvm::Instruction* add, const std::vector<std::size_t>& open,
                    std::vector<llvm::Value*>& conditions, int depth) {
    for (unsigned side = 0; side < 2; ++side) {
      llvm::Value* x = add->getOperand(side);
      auto* mul = llvm::dyn_cast<llvm::BinaryOperator>(add->getOperand(1 - side));
      if (!mul || mul->getOpcode() != llvm::Instruction::Mul) continue;
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(mul->getOperand(1));
      auto* div = llvm::dyn_cast<llvm::BinaryOperator>(mul->getOperand(0));
      if (!c || !div || div->getOpcode() != llvm::Instruction::SDiv || div->getOperand(1) != c || c->isNegative() ||
          c->isZero())
        continue;
      auto* diff = llvm::dyn_cast<llvm::BinaryOperator>(div->getOperand(0));
      if (!diff || diff->getOpcode() != llvm::Instruction::Sub || diff->getOperand(1) != x) continue;
      const Range d = of(diff, open, conditions, depth + 1);  // y - x did not wrap
      const Range rx = of(x, open, conditions, depth + 1), ry = of(diff->getOperand(0), open, conditions, depth + 1);
      if (!d.lo || !rx.lo || !rx.hi || !ry.lo || !ry.hi) return {};
      llvm::Value* ordered = ir_.CreateICmpSGE(ry.lo, rx.hi);
      llvm::Value* past = ir_.CreateSub(ry.lo, llvm::ConstantInt::get(wide_, c->getValue().sext(128) - 1));
      const Range r{ir_.CreateSelect(ordered, rx.lo, smin(rx.lo, past)), smax(rx.hi, ry.hi)};
      fits(r, add->getType()->getIntegerBitWidth(), conditions);
      return r;
    }
    return {};
  }

  Range inductionVariable(llvm::PHINode* phi, const std::vector<std::size_t>& open,
                          std::vector<llvm::Value*>& conditions, int depth) {
    for (std::size_t i : open) {
      const ProofNest::Loop& loop = nest_.loops[i];
      if (loop.iv != phi) continue;
      // Taken where the loop opens, the same for every access in it: made once.
      auto [cached, made] = ivRanges_.try_emplace(phi);
      if (made) cached->second.first = ivRange(loop, cached->second.second, depth);
      conditions.insert(conditions.end(), cached->second.second.begin(), cached->second.second.end());
      return cached->second.first;
    }
    return {};  // a loop-carried value, a branch's result, or a closed loop's variable
  }
  Range ivRange(const ProofNest::Loop& loop, std::vector<llvm::Value*>& conditions, int depth) {
    llvm::PHINode* phi = loop.iv;
    const Range lb = of(loop.lb, loop.enclosing, conditions, depth + 1);
    const Range ub = of(loop.ub, loop.enclosing, conditions, depth + 1);
    const Range step = of(loop.step, loop.enclosing, conditions, depth + 1);
    if (!step.lo || !step.hi || !ub.hi) return {};
    const unsigned bits = phi->getType()->getIntegerBitWidth();
    llvm::Value* one = llvm::ConstantInt::get(wide_, 1);
    llvm::Value* hi = ir_.CreateSub(ub.hi, one);
    // A constant step s > 1 stops short of ub: at ub - s when ub is lb plus
    // a multiple of s (a loop over whole blocks), else at the last lb + k s.
    auto* s = llvm::dyn_cast<llvm::ConstantInt>(loop.step);
    if (s && s->getSExtValue() > 1) {
      if (isBlocksOf(loop.ub, loop.lb, s))
        hi = ir_.CreateSub(ub.hi, llvm::ConstantInt::get(wide_, s->getValue().sext(128)));
      else if (lb.lo && lb.lo == lb.hi)
        hi = ir_.CreateAdd(lb.lo, ir_.CreateMul(divide(ir_.CreateSub(hi, lb.lo), s->getSExtValue(), conditions),
                                                llvm::ConstantInt::get(wide_, s->getValue().sext(128))));
    }
    conditions.push_back(ir_.CreateICmpSGE(step.lo, llvm::ConstantInt::get(wide_, 0)));
    conditions.push_back(ir_.CreateICmpSLE(ir_.CreateAdd(hi, step.hi), wide(llvm::APInt::getSignedMaxValue(bits))));
    return {lb.lo, hi};
  }

  // ub == lb + q * s (either order of the add).
  static bool isBlocksOf(llvm::Value* ub, llvm::Value* lb, llvm::ConstantInt* s) {
    auto* add = llvm::dyn_cast<llvm::BinaryOperator>(ub);
    if (!add || add->getOpcode() != llvm::Instruction::Add) return false;
    for (unsigned side = 0; side < 2; ++side) {
      auto* mul = llvm::dyn_cast<llvm::BinaryOperator>(add->getOperand(1 - side));
      if (add->getOperand(side) == lb && mul && mul->getOpcode() == llvm::Instruction::Mul && mul->getOperand(1) == s)
        return true;
    }
    return false;
  }

  const ProofNest& nest_;
  std::map<const llvm::PHINode*, std::pair<Range, std::vector<llvm::Value*>>> ivRanges_;
  const std::unordered_set<llvm::BasicBlock*>& inNest_;
  llvm::IRBuilder<>& ir_;
  llvm::IntegerType* wide_;
};

// The conjunction of `conditions`; null when all are constant true, false
// (the constant) when one is constant false.
llvm::Value* conjunction(llvm::IRBuilder<>& ir, const std::vector<llvm::Value*>& conditions) {
  llvm::Value* all = nullptr;
  for (llvm::Value* c : conditions) {
    if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(c)) {
      if (k->isZero()) return k;
      continue;
    }
    all = all ? ir.CreateAnd(all, c) : c;
  }
  return all;
}

void dropBlock(llvm::BasicBlock* bb) {
  bb->dropAllReferences();
  bb->eraseFromParent();
}

// Replaces a proven compare by true and folds what that decides: the
// conjunction of a check's dims, and a check left with nothing to test
// (its branch, and its report when nothing else reaches it), so that even
// unoptimised code has no trace of it.
void setTrue(llvm::Value* compare) {
  auto* inst = llvm::cast<llvm::Instruction>(compare);
  std::vector<llvm::Instruction*> work{inst};
  while (!work.empty()) {
    llvm::Instruction* known = work.back();  // an instruction that is true
    work.pop_back();
    for (llvm::User* user : llvm::make_early_inc_range(known->users())) {
      auto* u = llvm::cast<llvm::Instruction>(user);
      if (u->getOpcode() == llvm::Instruction::And) {
        llvm::Value* other = u->getOperand(0) == known ? u->getOperand(1) : u->getOperand(0);
        if (other == known) {
          work.push_back(u);
          continue;
        }
        u->replaceAllUsesWith(other);
        u->eraseFromParent();
      } else if (auto* br = llvm::dyn_cast<llvm::BranchInst>(u); br && br->isConditional() && br->getCondition() == known) {
        llvm::BasicBlock* failed = br->getSuccessor(1);
        llvm::BranchInst::Create(br->getSuccessor(0), br->getIterator());
        failed->removePredecessor(br->getParent());
        br->eraseFromParent();
        if (llvm::pred_empty(failed)) llvm::DeleteDeadBlock(failed);
      }
    }
  }
  inst->replaceAllUsesWith(llvm::ConstantInt::getTrue(inst->getContext()));
  inst->eraseFromParent();
}

// The fast copy of `blocks` (entered at the copy of `header` from `guard`);
// values of the nest used after it are merged at `exit`, `carried` too.
void cloneNest(Impl& I, const std::vector<llvm::BasicBlock*>& blocks, const std::unordered_set<llvm::BasicBlock*>& inNest,
               llvm::BasicBlock* header, llvm::BasicBlock* exit, llvm::BasicBlock* guard,
               llvm::Value* proven, const std::vector<llvm::Value*>& compares, std::vector<Value>& carried) {
  llvm::Function* f = I.lowered.function;
  llvm::LLVMContext& ctx = f->getContext();
  llvm::ValueToValueMapTy map;
  std::vector<llvm::BasicBlock*> clones;
  for (llvm::BasicBlock* bb : blocks) {
    llvm::BasicBlock* c = llvm::CloneBasicBlock(bb, map, ".fast", f);
    map[bb] = c;
    clones.push_back(c);
  }
  llvm::remapInstructionsInBlocks(clones, map);
  auto mapped = [&](llvm::Value* v) -> llvm::Value* {
    auto it = map.find(v);
    return it == map.end() ? v : static_cast<llvm::Value*>(it->second);
  };
  auto* fastHeader = llvm::cast<llvm::BasicBlock>(mapped(header));
  llvm::IRBuilder<> g(guard);
  g.SetCurrentDebugLocation(guard->empty() ? llvm::DebugLoc() : guard->back().getDebugLoc());
  g.CreateCondBr(proven, fastHeader, header, llvm::MDBuilder(ctx).createLikelyBranchWeights());
  // Each copied loop gets its own loop metadata (the same hints).
  for (llvm::BasicBlock* c : clones)
    if (llvm::MDNode* md = c->getTerminator()->getMetadata(llvm::LLVMContext::MD_loop)) {
      llvm::SmallVector<llvm::Metadata*, 4> ops{nullptr};
      for (unsigned i = 1; i < md->getNumOperands(); ++i) ops.push_back(md->getOperand(i));
      llvm::MDNode* copy = llvm::MDNode::getDistinct(ctx, ops);
      copy->replaceOperandWith(0, copy);
      c->getTerminator()->setMetadata(llvm::LLVMContext::MD_loop, copy);
    }
  // Edges leaving the nest (to a check's return, a parallel chunk's end) from the copy too.
  for (llvm::BasicBlock* bb : blocks) {
    std::unordered_set<llvm::BasicBlock*> seen;
    for (llvm::BasicBlock* succ : llvm::successors(bb)) {
      if (inNest.count(succ) || !seen.insert(succ).second || succ == exit) continue;
      for (llvm::PHINode& phi : succ->phis()) {
        const unsigned n = phi.getNumIncomingValues();
        for (unsigned i = 0; i < n; ++i)
          if (phi.getIncomingBlock(i) == bb) phi.addIncoming(mapped(phi.getIncomingValue(i)), llvm::cast<llvm::BasicBlock>(map[bb]));
      }
    }
  }
  // The header's values reach past the loop (the carried values): merged at the exit.
  std::unordered_set<llvm::BasicBlock*> inCopy(clones.begin(), clones.end());
  llvm::IRBuilder<> e(exit, exit->begin());
  for (llvm::Instruction& inst : *header) {
    bool outside = std::any_of(carried.begin(), carried.end(), [&](const Value& v) { return v.llvm() == &inst; });
    for (llvm::Use& use : inst.uses()) {
      auto* user = llvm::cast<llvm::Instruction>(use.getUser());
      llvm::BasicBlock* at = user->getParent();
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user)) at = phi->getIncomingBlock(use);
      outside = outside || (!inNest.count(at) && !inCopy.count(at));
    }
    if (!outside) continue;
    llvm::PHINode* merged = e.CreatePHI(inst.getType(), 2, inst.getName() + ".merged");
    merged->addIncoming(&inst, header);
    merged->addIncoming(mapped(&inst), fastHeader);
    for (llvm::Use& use : llvm::make_early_inc_range(inst.uses())) {
      auto* user = llvm::cast<llvm::Instruction>(use.getUser());
      llvm::BasicBlock* at = user->getParent();
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user)) at = phi->getIncomingBlock(use);
      if (user != merged && !inNest.count(at) && !inCopy.count(at)) use.set(merged);
    }
    for (Value& v : carried)
      if (v.llvm() == &inst) v = BuilderOps::make(*v.builder(), merged, v.type());
  }
  for (llvm::Value* c : compares) setTrue(mapped(c));
}

// The nest's blocks: those made since it opened, but its exit and the
// function's shared return blocks.
std::vector<llvm::BasicBlock*> nestBlocks(Impl& I, const ProofNest& nest, llvm::BasicBlock* exit,
                                          const llvm::BasicBlock* guard) {
  std::vector<llvm::BasicBlock*> blocks;
  for (llvm::BasicBlock& bb : *I.lowered.function) {
    if (nest.before.count(&bb) || &bb == exit || &bb == guard || &bb == I.earlyReturn ||
        std::find(I.failTargets.begin(), I.failTargets.end(), &bb) != I.failTargets.end())
      continue;
    blocks.push_back(&bb);
  }
  return blocks;
}

// A check inside a branch of the nest may be in bounds only because of the
// branch (`if (i > 0) a[i - 1]`): its proof must not send the whole nest to
// the checked copy when it fails. Its compare becomes `proven || compare`,
// with `proven` computed before the nest: the same check when the proof
// fails, none (after LLVM unswitches on the invariant) when it holds.
void proveWhereProven(llvm::Value* compare, llvm::Value* proven) {
  auto* inst = llvm::cast<llvm::Instruction>(compare);
  llvm::IRBuilder<> ir(inst->getParent(), std::next(inst->getIterator()));
  llvm::Value* either = ir.CreateOr(proven, inst, inst->getName() + ".proven");
  inst->replaceUsesWithIf(either, [&](llvm::Use& use) { return use.getUser() != either; });
}

void versionNest(Impl& I, const ProofNest& nest, llvm::BasicBlock* header, llvm::BasicBlock* exit,
                 std::vector<Value>& carried) {
  if (nest.checks.empty()) return;
  llvm::Function* f = I.lowered.function;
  const std::vector<llvm::BasicBlock*> before = nestBlocks(I, nest, exit, nullptr);
  const std::unordered_set<llvm::BasicBlock*> inNest(before.begin(), before.end());
  llvm::BasicBlock* pre = nest.loops.front().iv->getIncomingBlock(0);
  auto* guard = llvm::BasicBlock::Create(f->getContext(), "proof.guard", f, header);
  llvm::IRBuilder<> g(guard);
  g.SetCurrentDebugLocation(pre->getTerminator()->getDebugLoc());
  RangeBuilder ranges(nest, inNest, g);
  std::vector<llvm::Value*> compares, all, always;  // proven when the guard holds; its conditions; proven when built
  std::vector<std::pair<llvm::Value*, llvm::Value*>> inBranches;  // a branch's compare, its proof
  for (const ProofNest::Check& check : nest.checks)
    for (std::size_t d = 0; d < check.compares.size(); ++d) {
      if (!check.compares[d]) continue;
      std::vector<llvm::Value*> conditions;
      Range index = ranges.of(check.indices[d], check.open, conditions);
      const Range size = ranges.of(check.sizes[d], check.open, conditions);
      if (!index.lo || !index.hi || !size.lo) continue;
      // Intervals and the correlated bounds both hold: their intersection does.
      const Range c = ranges.correlated(check.indices[d], check.open, conditions);
      if (c.lo) index.lo = minMax(g, llvm::Intrinsic::smax, index.lo, c.lo);
      if (c.hi) index.hi = minMax(g, llvm::Intrinsic::smin, index.hi, c.hi);
      conditions.push_back(g.CreateICmpSGE(index.lo, llvm::ConstantInt::get(index.lo->getType(), 0)));
      conditions.push_back(g.CreateICmpSLT(index.hi, size.lo));
      llvm::Value* ok = conjunction(g, conditions);
      if (auto* k = llvm::dyn_cast_or_null<llvm::ConstantInt>(ok); k && k->isZero()) continue;  // fails: stays checked
      if (!ok) {
        always.push_back(check.compares[d]);
      } else if (check.inBranch) {
        inBranches.emplace_back(check.compares[d], ok);
      } else {
        compares.push_back(check.compares[d]);
        all.push_back(ok);
      }
    }
  // What holds in every execution goes from the nest itself, so that both copies are without it.
  for (llvm::Value* c : always) setTrue(c);
  for (auto [compare, proven] : inBranches) proveWhereProven(compare, proven);
  if (compares.empty() && inBranches.empty()) {
    dropBlock(guard);  // all proven while building, or nothing: no copy
    return;
  }
  header->replacePhiUsesWith(pre, guard);
  pre->getTerminator()->replaceSuccessorWith(header, guard);
  if (compares.empty()) {  // only branches' proofs: one copy, the guard computes them
    g.CreateBr(header);
    return;
  }
  const std::vector<llvm::BasicBlock*> blocks = nestBlocks(I, nest, exit, guard);  // without the checks setTrue dropped
  cloneNest(I, blocks, std::unordered_set<llvm::BasicBlock*>(blocks.begin(), blocks.end()), header, exit, guard,
            conjunction(g, all), compares, carried);
}

}  // namespace

bool beginProofLoop(FunctionBuilder& self) {
  Impl& I = BuilderOps::impl(self);
  if (!checking(self) || I.proofNest) return false;
  I.proofNest = std::make_shared<ProofNest>();
  for (llvm::BasicBlock& bb : *I.lowered.function) I.proofNest->before.insert(&bb);
  I.proofNest->baseDepth = I.depth;
  return true;
}

void addProofLoop(FunctionBuilder& self, llvm::PHINode* iv, llvm::Value* lb, llvm::Value* ub, llvm::Value* step) {
  Impl& I = BuilderOps::impl(self);
  if (!I.proofNest) return;
  ProofNest& n = *I.proofNest;
  n.loops.push_back({iv, lb, ub, step, n.open});
  n.open.push_back(n.loops.size() - 1);
}

void endProofLoop(FunctionBuilder& self, bool outermost, llvm::BasicBlock* header, llvm::BasicBlock* exit,
                  std::vector<Value>& carried) {
  Impl& I = BuilderOps::impl(self);
  if (!I.proofNest) return;
  if (!outermost) {
    if (!I.proofNest->open.empty()) I.proofNest->open.pop_back();
    return;
  }
  const std::shared_ptr<ProofNest> nest = std::move(I.proofNest);
  I.proofNest.reset();
  if (header && !I.error) versionNest(I, *nest, header, exit, carried);
}

void recordIndexCheck(FunctionBuilder& self, const std::vector<llvm::Value*>& indices,
                      const std::vector<llvm::Value*>& sizes, const std::vector<llvm::Value*>& compares) {
  Impl& I = BuilderOps::impl(self);
  if (!I.proofNest) return;
  ProofNest& n = *I.proofNest;
  n.checks.push_back({indices, sizes, compares, n.open, I.depth - n.baseDepth != static_cast<int>(n.open.size())});
}

SuspendProofNest::SuspendProofNest(FunctionBuilder& self) noexcept
    : impl_(BuilderOps::impl(self)), saved_(std::move(impl_.proofNest)) {
  impl_.proofNest.reset();
}
SuspendProofNest::~SuspendProofNest() { impl_.proofNest = std::move(saved_); }

}  // namespace memjit::codegen::detail
