#include "reduce.h"

#include <functional>
#include <set>

namespace memjit::difftest {
namespace {

bool hasSideEffects(const Stmt& s, bool keepTraps) {
  if (s.kind == StmtKind::Store || s.kind == StmtKind::Output || s.kind == StmtKind::Return) return true;
  // A trapping program keeps what may trap: loads and divisions.
  if (keepTraps && s.kind == StmtKind::Assign && (s.op == Op::Load || (s.op >= Op::Div && s.op <= Op::FloorDivSI)))
    return true;
  for (const Block& b : s.blocks)
    for (const Stmt& inner : b.stmts)
      if (hasSideEffects(inner, keepTraps)) return true;
  return false;
}

void collectUses(const Block& b, std::set<int>& used) {
  for (const Stmt& s : b.stmts) {
    used.insert(s.args.begin(), s.args.end());
    for (const Block& inner : s.blocks) collectUses(inner, used);
  }
  used.insert(b.yields.begin(), b.yields.end());
}

bool removeUnused(Block& b, const std::set<int>& used, bool keepTraps) {
  bool changed = false;
  for (std::size_t i = b.stmts.size(); i-- > 0;) {
    Stmt& s = b.stmts[i];
    for (Block& inner : s.blocks) changed |= removeUnused(inner, used, keepTraps);
    if (hasSideEffects(s, keepTraps)) continue;
    bool anyUsed = false;
    for (int r : s.results) anyUsed |= used.count(r) > 0;
    if (!anyUsed) {
      b.stmts.erase(b.stmts.begin() + static_cast<std::ptrdiff_t>(i));
      changed = true;
    }
  }
  return changed;
}

// What identifies a failure across reduction steps: where, and what was expected ("output 3: expected 0x8001 (bf16)").
std::string signature(const std::string& what) { return what.substr(0, what.find(", got")); }

// Whether `p` still fails as `wanted` does (any failure when `wanted` is empty): a
// reduction must not wander off to another bug, as a smaller program often shows one.
bool fails(Runner& runner, const Program& p, const std::vector<Oracle>& oracles,
           const std::string& wanted, std::string* first = nullptr) {
  std::vector<Mismatch> mismatches;
  BatchStats stats;
  runner.run({p}, oracles, mismatches, stats);
  for (const Mismatch& m : mismatches)
    if (wanted.empty() || signature(m.what) == wanted) {
      if (first) *first = signature(m.what);
      return true;
    }
  return false;
}

/// The top-level statement `i` replaced by constants of the values it produced.
bool toConstants(Program& p, std::size_t i, const Outcome& values) {
  Stmt& s = p.body.stmts[i];
  if (s.kind == StmtKind::Assign && s.op == Op::Const) return false;
  if (s.results.empty() || s.kind == StmtKind::Subview || hasSideEffects(s, !p.trap.empty())) return false;
  std::vector<Stmt> constants;
  for (int r : s.results) {
    const Val& v = values.values[static_cast<std::size_t>(r)];
    if (v.flags != kExact) return false;
    Stmt c;
    c.op = Op::Const;
    c.type = p.values[static_cast<std::size_t>(r)].elem;
    c.imm = v.bits;
    c.results = {r};
    constants.push_back(std::move(c));
  }
  p.body.stmts.erase(p.body.stmts.begin() + static_cast<std::ptrdiff_t>(i));
  p.body.stmts.insert(p.body.stmts.begin() + static_cast<std::ptrdiff_t>(i), constants.begin(), constants.end());
  return true;
}

// Every removable side-effecting statement (stores, outputs), depth first; `nth` picks one.
bool removeNthEffect(Block& b, int& nth) {
  for (std::size_t i = 0; i < b.stmts.size(); ++i) {
    Stmt& s = b.stmts[i];
    if (s.kind == StmtKind::Store || s.kind == StmtKind::Output) {
      if (nth-- == 0) {
        b.stmts.erase(b.stmts.begin() + static_cast<std::ptrdiff_t>(i));
        return true;
      }
    }
    for (Block& inner : s.blocks)
      if (removeNthEffect(inner, nth)) return true;
  }
  return false;
}

}  // namespace

void removeDeadCode(Program& p) {
  for (bool changed = true; changed;) {
    std::set<int> used;
    collectUses(p.body, used);
    changed = removeUnused(p.body, used, !p.trap.empty());
  }
}

Program reduce(Runner& runner, const Program& failing, const std::vector<Oracle>& allOracles) {
  // Only the oracles that fail: a cheaper test per step.
  std::vector<Oracle> oracles;
  std::string wanted;
  for (const Oracle& o : allOracles)
    if (fails(runner, failing, {o}, wanted, &wanted)) oracles.push_back(o);
  if (oracles.empty()) return failing;  // failed only in the company of its batch: print it whole
  Program best = failing;
  auto attempt = [&](Program candidate) {
    removeDeadCode(candidate);
    if (countStatements(candidate.body) >= countStatements(best.body) && candidate.body.stmts.size() >= best.body.stmts.size())
      return false;
    if (!fails(runner, candidate, oracles, wanted)) return false;
    best = std::move(candidate);
    return true;
  };
  for (bool progress = true; progress;) {
    progress = false;
    // Drop outputs and stores one at a time.
    for (int n = 0;; ++n) {
      Program c = best;
      int nth = n;
      if (!removeNthEffect(c.body, nth)) break;
      if (attempt(std::move(c))) progress = true, --n;
    }
    // Replace top-level statements (loops and branches whole) by the constants they computed, last first.
    const Outcome values = interpret(best);
    for (std::size_t i = best.body.stmts.size(); i-- > 0;) {
      Program c = best;
      if (i >= c.body.stmts.size() || !toConstants(c, i, values)) continue;
      if (attempt(std::move(c))) progress = true;
    }
  }
  return best;
}

}  // namespace memjit::difftest
