#include "reduce.h"

#include <functional>
#include <map>
#include <set>

namespace memjit::difftest {
namespace {

bool storesLanes(const Stmt& s) {
  return s.kind == StmtKind::Lanes &&
         (s.lane == LaneOp::MaskedStore || s.lane == LaneOp::Scatter || s.lane == LaneOp::TransferWrite ||
          s.lane == LaneOp::VectorStore);
}

bool hasSideEffects(const Program& p, const Stmt& s) {
  const bool keepTraps = !p.trap.empty();
  if (s.kind == StmtKind::Call) {
    for (const Stmt& inner : p.helpers[static_cast<std::size_t>(s.imm)].body.stmts)
      if (hasSideEffects(p, inner)) return true;
  }
  if (s.kind == StmtKind::Store || s.kind == StmtKind::Output || s.kind == StmtKind::Return || storesLanes(s) ||
      s.kind == StmtKind::Atomic || s.kind == StmtKind::CompareExchange || s.kind == StmtKind::GenericAtomic ||
      s.kind == StmtKind::ArrayReduce || s.kind == StmtKind::Dealloc)
    return true;
  // A trapping program keeps its vector memory accesses too.
  if (keepTraps && s.kind == StmtKind::Lanes && accessesMemory(s.lane)) return true;
  // A trapping program keeps what may trap: loads and divisions.
  if (keepTraps && s.kind == StmtKind::Assign && (s.op == Op::Load || (s.op >= Op::Div && s.op <= Op::FloorDivSI)))
    return true;
  for (const Block& b : s.blocks)
    for (const Stmt& inner : b.stmts)
      if (hasSideEffects(p, inner)) return true;
  return false;
}

void collectUses(const Block& b, std::set<int>& used) {
  for (const Stmt& s : b.stmts) {
    used.insert(s.args.begin(), s.args.end());
    for (const Block& inner : s.blocks) collectUses(inner, used);
  }
  used.insert(b.yields.begin(), b.yields.end());
}

bool removeUnused(const Program& p, Block& b, const std::set<int>& used) {
  bool changed = false;
  for (std::size_t i = b.stmts.size(); i-- > 0;) {
    Stmt& s = b.stmts[i];
    for (Block& inner : s.blocks) changed |= removeUnused(p, inner, used);
    if (hasSideEffects(p, s)) continue;
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
  if (s.results.empty() || s.kind == StmtKind::Subview || s.kind == StmtKind::MemrefCast || s.kind == StmtKind::Alloc ||
      hasSideEffects(p, s))
    return false;
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
    if (s.kind == StmtKind::Store || s.kind == StmtKind::Output || s.kind == StmtKind::Dealloc || storesLanes(s)) {
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

// Every use of a value id in `b` (arguments and yields, recursively) renamed by `to`.
void renameUses(Block& b, const std::map<int, int>& to) {
  auto rename = [&](int& id) {
    // A chain (a loop's result is its yield, which is a carried parameter, which is its init) ends at a value
    // that is not renamed.
    for (auto it = to.find(id); it != to.end(); it = to.find(id)) id = it->second;
  };
  for (Stmt& s : b.stmts) {
    for (int& a : s.args) rename(a);
    for (Block& inner : s.blocks) renameUses(inner, to);
  }
  for (int& y : b.yields) rename(y);
}

// The structured statement `s` (For, If, ParallelReduce) as straight-line statements: its body run once
// (the induction variable at the lower bound, the carried values at their inits) or, for an If, the arm
// `arm`. Every value stays defined before its uses, and the generator's guards (divisors, indices modulo
// the dim) travel with the body, so the result is as free of undefined behaviour as the program was.
// Returns false when `s` has no such form.
bool flatten(Program& p, Block& parent, std::size_t i, int arm) {
  Stmt s = parent.stmts[i];
  std::map<int, int> to;
  std::vector<Stmt> replacement;
  const Block* body = nullptr;
  switch (s.kind) {
    case StmtKind::For:
      if (arm != 0) return false;
      body = &s.blocks[0];
      to[body->params[0]] = s.args[0];
      for (std::size_t k = 1; k < body->params.size(); ++k) to[body->params[k]] = s.args[2 + k];
      for (std::size_t k = 0; k < s.results.size(); ++k) to[s.results[k]] = body->yields[k];
      replacement = body->stmts;
      break;
    case StmtKind::ParallelFor:
      if (arm != 0) return false;
      body = &s.blocks[0];
      to[body->params[0]] = s.args[0];
      replacement = body->stmts;
      break;
    case StmtKind::If:
      body = &s.blocks[static_cast<std::size_t>(arm)];
      for (std::size_t k = 0; k < s.results.size(); ++k) to[s.results[k]] = body->yields[k];
      replacement = body->stmts;
      break;
    case StmtKind::ParallelReduce: {
      if (arm != 0) return false;
      body = &s.blocks[0];
      to[body->params[0]] = s.args[0];
      replacement = body->stmts;
      // One iteration: each result is its init combined with the contribution.
      static constexpr Op combiners[] = {Op::Add, Op::Mul, Op::Min, Op::Max, Op::And, Op::Or, Op::Xor};
      for (std::size_t k = 0; k < s.results.size(); ++k) {
        Stmt c;
        c.op = combiners[s.reductions[k]];
        c.type = p.values[static_cast<std::size_t>(s.results[k])].elem;
        c.args = {s.args[3 + k], body->yields[k]};
        c.results = {s.results[k]};
        replacement.push_back(std::move(c));
      }
      break;
    }
    default:
      return false;
  }
  parent.stmts.erase(parent.stmts.begin() + static_cast<std::ptrdiff_t>(i));
  parent.stmts.insert(parent.stmts.begin() + static_cast<std::ptrdiff_t>(i), replacement.begin(), replacement.end());
  renameUses(p.body, to);
  for (Helper& h : p.helpers) renameUses(h.body, to);
  return true;
}

// The calls of helper k in `b` (recursively).
int countCalls(const Block& b, std::uint64_t k) {
  int n = 0;
  for (const Stmt& s : b.stmts) {
    n += s.kind == StmtKind::Call && s.imm == k;
    for (const Block& inner : s.blocks) n += countCalls(inner, k);
  }
  return n;
}

// The only call of helper k replaced by the helper's body (parameters renamed to the arguments, results to the
// yields); the helper then has no call and is dropped. A helper called twice stays: its values would be defined twice.
bool inlineCall(Program& p, Block& b, std::uint64_t k) {
  for (std::size_t i = 0; i < b.stmts.size(); ++i) {
    Stmt& s = b.stmts[i];
    if (s.kind == StmtKind::Call && s.imm == k) {
      const Helper h = p.helpers[k];
      std::map<int, int> to;
      for (std::size_t j = 0; j < h.params.size(); ++j) to[h.params[j]] = s.args[j];
      for (std::size_t j = 0; j < s.results.size(); ++j) to[s.results[j]] = h.body.yields[j];
      b.stmts.erase(b.stmts.begin() + static_cast<std::ptrdiff_t>(i));
      b.stmts.insert(b.stmts.begin() + static_cast<std::ptrdiff_t>(i), h.body.stmts.begin(), h.body.stmts.end());
      renameUses(p.body, to);
      return true;
    }
    for (Block& inner : s.blocks)
      if (inlineCall(p, inner, k)) return true;
  }
  return false;
}

// Helpers nothing calls removed (the others renumbered).
void removeUncalledHelpers(Program& p) {
  for (std::size_t k = p.helpers.size(); k-- > 0;) {
    if (countCalls(p.body, k) > 0) continue;
    p.helpers.erase(p.helpers.begin() + static_cast<std::ptrdiff_t>(k));
    std::function<void(Block&)> renumber = [&](Block& b) {
      for (Stmt& s : b.stmts) {
        if (s.kind == StmtKind::Call && s.imm > k) --s.imm;
        for (Block& inner : s.blocks) renumber(inner);
      }
    };
    renumber(p.body);
  }
}

int countStructured(const Block& b) {
  int n = 0;
  for (const Stmt& s : b.stmts) {
    n += s.kind == StmtKind::For || s.kind == StmtKind::If || s.kind == StmtKind::ParallelReduce ||
         s.kind == StmtKind::ParallelFor;
    for (const Block& inner : s.blocks) n += countStructured(inner);
  }
  return n;
}

// The `nth` structured statement of `b` (depth first) flattened; `nth` counts down over the candidates.
bool flattenNth(Program& p, Block& b, int& nth, int arm) {
  for (std::size_t i = 0; i < b.stmts.size(); ++i) {
    Stmt& s = b.stmts[i];
    if (s.kind == StmtKind::For || s.kind == StmtKind::If || s.kind == StmtKind::ParallelReduce ||
        s.kind == StmtKind::ParallelFor) {
      if (nth-- == 0) return flatten(p, b, i, arm);
    }
    for (Block& inner : s.blocks)
      if (flattenNth(p, inner, nth, arm)) return true;
  }
  return false;
}

}  // namespace

void removeDeadCode(Program& p) {
  removeUncalledHelpers(p);
  for (bool changed = true; changed;) {
    std::set<int> used;
    collectUses(p.body, used);
    for (const Helper& h : p.helpers) collectUses(h.body, used);
    changed = removeUnused(p, p.body, used);
    for (Helper& h : p.helpers) changed |= removeUnused(p, h.body, used);
  }
}

Program reduce(Runner& runner, const Program& failing, const std::vector<Oracle>& allOracles) {
  // Only the oracles that fail: a cheaper test per step.
  std::vector<Oracle> oracles;
  std::string wanted;
  for (const Oracle& o : allOracles)
    if (fails(runner, failing, {o}, wanted, &wanted)) oracles.push_back(o);
  if (oracles.empty()) return failing;  // failed only in the company of its batch: print it whole
  return reduceWhile(failing, [&](const Program& p) { return fails(runner, p, oracles, wanted); });
}

Program reduceWhile(const Program& failing, const std::function<bool(const Program&)>& stillFails) {
  Program best = failing;
  auto attempt = [&](Program candidate) {
    removeDeadCode(candidate);
    if (countStatements(candidate) >= countStatements(best) && candidate.body.stmts.size() >= best.body.stmts.size())
      return false;
    if (!stillFails(candidate)) return false;
    best = std::move(candidate);
    return true;
  };
  for (bool progress = true; progress;) {
    progress = false;
    // Drop outputs and stores one at a time.
    for (int n = 0;; ++n) {
      Program c = best;
      int nth = n;
      bool found = removeNthEffect(c.body, nth);
      for (std::size_t k = 0; !found && k < c.helpers.size(); ++k) found = removeNthEffect(c.helpers[k].body, nth);
      if (!found) break;
      if (attempt(std::move(c))) progress = true, --n;
    }
    // Loops, parallel reductions and branches (at any depth) replaced by their bodies run once or one arm:
    // what was nested comes to the top level, where the next step turns it into constants.
    // Helpers called once inlined.
    for (std::size_t k = 0; k < best.helpers.size(); ++k) {
      Program c = best;
      if (countCalls(c.body, k) == 1 && inlineCall(c, c.body, k) && attempt(std::move(c))) progress = true, --k;
    }
    auto structured = [](const Program& p) {
      int n = countStructured(p.body);
      for (const Helper& h : p.helpers) n += countStructured(h.body);
      return n;
    };
    for (int n = 0; n < structured(best); ++n) {
      for (int arm = 0; arm < 2; ++arm) {
        Program c = best;
        int nth = n;
        bool found = flattenNth(c, c.body, nth, arm);
        for (std::size_t k = 0; !found && nth >= 0 && k < c.helpers.size(); ++k)
          found = flattenNth(c, c.helpers[k].body, nth, arm);
        if (found && attempt(std::move(c))) {
          progress = true, --n;
          break;
        }
      }
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
