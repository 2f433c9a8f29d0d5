#include "generator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "float_formats.h"

namespace memjit::difftest {
namespace {

using ET = ElementType;
constexpr ET kScalarTypes[] = {ET::I1,  ET::I8,   ET::I16,  ET::I32,  ET::I64,  ET::SI8, ET::SI16, ET::SI32, ET::SI64,
                               ET::UI8, ET::UI16, ET::UI32, ET::UI64, ET::F16, ET::BF16, ET::F32, ET::F64,  ET::Index};


class Gen {
 public:
  Gen(std::uint64_t seed, const GeneratorOptions& o)
      : r_{seed},
        temps_{seed ^ 0x74656d706f726172ULL},
        gemv_{seed ^ 0x67656d766e657374ULL},
        chain_{seed ^ 0x68616c66636861ULL},
        o_(o) {
    p_.seed = seed;
  }

  Program run() {
    // Parallel loops cost the most to compile: a quarter of the programs have them.
    parallel_ = o_.parallel && r_.chance(25);
    setUpArguments();
    // Helper functions, which the main function calls (a third of the programs).
    if (o_.calls && r_.chance(33)) {
      const int n = 1 + static_cast<int>(r_.below(2));
      for (int i = 0; i < n; ++i) helper();
    }
    cur_ = &p_.body;
    scopes_.push_back({kFm, kIm, kH, kG, kC, kD});
    const int inputs = 3 + static_cast<int>(r_.below(6));
    for (int k = 0; k < inputs; ++k) makeInput(k);
    p_.inputs = inputs;
    // One program in seven has a GEMV-shaped nest (gemvNest) among its top-level statements: at O3 they cost
    // more to compile than the rest (a quarter of the programs with one cost 18% of the throughput).
    const int gemvAt = o_.memrefs && o_.controlFlow && gemv_.chance(15)
                           ? static_cast<int>(gemv_.below(static_cast<std::uint64_t>(std::max(o_.statements, 1))))
                           : -1;
    // And one in seven an exact chain over widened halves (halfChain), decided on a stream of its own too.
    const int chainAt = o_.memrefs && o_.controlFlow && chain_.chance(15)
                            ? static_cast<int>(chain_.below(static_cast<std::uint64_t>(std::max(o_.statements, 1))))
                            : -1;
    for (int i = 0; i < o_.statements; ++i) {
      if (i == gemvAt) gemvNest();
      if (i == chainAt) halfChain();
      statement(0);
    }
    if (o_.trap == "out of bounds") outOfBounds();
    if (o_.trap == "by zero" || o_.trap == "overflow") trappingDivision();
    // Some values at random, then every top-level value nothing reads: a
    // wrong value that no comparison sees is a bug the tester cannot find (the
    // mutation score, tests/difftest/mutants.py, missed a wrong -0 and a wrong
    // floordivsi that only such values carried).
    std::vector<int> observed;
    for (int k = 3 + static_cast<int>(r_.below(6)); k > 0; --k) observed.push_back(pickAny());
    for (int id : unreadValues())
      if (observed.size() < kMaxOutputs) observed.push_back(id);
    const int outputs = static_cast<int>(observed.size());
    for (int k = 0; k < outputs; ++k) {
      Stmt s;
      s.kind = StmtKind::Output;
      s.args = {observed[static_cast<std::size_t>(k)]};
      s.imm = static_cast<std::uint64_t>(k);
      cur_->stmts.push_back(std::move(s));
    }
    p_.outputs = outputs;
    Stmt ret;
    ret.kind = StmtKind::Return;
    ret.args = {pick(ET::I64)};
    cur_->stmts.push_back(std::move(ret));
    p_.io.resize(static_cast<std::size_t>(inputs + outputs), 0);
    p_.values[kIo].sizes = {inputs + outputs};
    p_.trap = o_.trap;
    return std::move(p_);
  }

 private:
  static constexpr std::size_t kMaxOutputs = 64;
  // The top-level scope's scalar values that no statement or yield reads.
  std::vector<int> unreadValues() const {
    std::vector<bool> read(p_.values.size());
    auto mark = [&](const Block& b, auto& self) -> void {
      for (const Stmt& s : b.stmts) {
        for (int a : s.args) read[static_cast<std::size_t>(a)] = true;
        for (const Block& inner : s.blocks) {
          self(inner, self);
          for (int y : inner.yields) read[static_cast<std::size_t>(y)] = true;
        }
      }
    };
    mark(p_.body, mark);
    std::vector<int> r;
    for (int id : scopes_.front())
      if (id >= kFixedValues && !isMemref(id) && !read[static_cast<std::size_t>(id)]) r.push_back(id);
    return r;
  }
  // A function of 1-4 scalars and one of the memref arguments' views, returning 1-3 scalars. Its body sees only
  // its parameters, and runs no parallel loop (its memref would be the only one, and invisible to the body).
  void helper() {
    Helper h;
    std::vector<std::vector<int>> savedScopes;
    std::swap(savedScopes, scopes_);
    scopes_.emplace_back();
    const int m = fresh(p_.values[r_.chance(50) ? kFm : kIm]);
    const int scalars = 1 + static_cast<int>(r_.below(4));
    for (int i = 0; i < scalars; ++i) h.params.push_back(fresh(scalarType(randomType())));
    h.params.insert(h.params.begin() + static_cast<std::ptrdiff_t>(r_.below(h.params.size() + 1)), m);
    scopes_.back() = h.params;
    cur_ = &h.body;
    inHelper_ = true;
    const int n = 2 + static_cast<int>(r_.below(6));
    for (int i = 0; i < n; ++i) statement(1);
    const int results = 1 + static_cast<int>(r_.below(3));
    for (int i = 0; i < results; ++i) h.body.yields.push_back(pick(randomType()));
    inHelper_ = false;
    cur_ = nullptr;
    std::swap(savedScopes, scopes_);
    p_.helpers.push_back(std::move(h));
  }
  // A call of a helper: its memref parameter gets the argument whose view it has.
  void call() {
    const std::size_t k = r_.below(p_.helpers.size());
    Stmt s;
    s.kind = StmtKind::Call;
    s.imm = k;
    for (int param : p_.helpers[k].params) {
      const ValueType& t = p_.values[static_cast<std::size_t>(param)];
      if (t.rank > 0) s.args.push_back(t.elem == ET::F32 ? kFm : kIm);
      else s.args.push_back(pick(t.elem));
    }
    for (int y : p_.helpers[k].body.yields) s.results.push_back(fresh(scalarType(typeOf(y))));
    for (int id : s.results) scopes_.back().push_back(id);
    cur_->stmts.push_back(std::move(s));
  }

  // --- values and statements ---
  int fresh(const ValueType& t) {
    p_.values.push_back(t);
    return static_cast<int>(p_.values.size()) - 1;
  }
  int assign(Op op, ET t, std::vector<int> args, std::uint64_t imm = 0) {
    Stmt s;
    s.op = op;
    s.type = t;
    s.imm = imm;
    s.args = std::move(args);
    const int id = fresh(scalarType(t));
    s.results = {id};
    cur_->stmts.push_back(std::move(s));
    scopes_.back().push_back(id);
    return id;
  }
  int constant(ET t, std::uint64_t bits) { return assign(Op::Const, t, {}, bits & maskOf(widthOf(t))); }
  ET typeOf(int id) const { return p_.values[static_cast<std::size_t>(id)].elem; }
  bool isMemref(int id) const { return p_.values[static_cast<std::size_t>(id)].rank > 0; }

  std::vector<int> visible(ET t) const {
    std::vector<int> r;
    for (const auto& scope : scopes_)
      for (int id : scope)
        if (!isMemref(id) && typeOf(id) == t) r.push_back(id);
    return r;
  }
  int pick(ET t) {
    auto ids = visible(t);
    if (ids.empty() || r_.chance(12)) {
      if (r_.chance(50) || depth_ > 3) return constant(t, interesting(t));
      ++depth_;
      const int v = produce(t);
      --depth_;
      return v;
    }
    // Prefer recent values: longer dependency chains.
    const std::size_t n = ids.size();
    return ids[r_.chance(60) ? n - 1 - r_.below(std::min<std::size_t>(n, 4)) : r_.below(n)];
  }
  int pickAny() {
    std::vector<int> all;
    for (const auto& scope : scopes_)
      for (int id : scope)
        if (!isMemref(id)) all.push_back(id);
    return all[r_.below(all.size())];
  }
  ET randomType() { return kScalarTypes[r_.below(std::size(kScalarTypes))]; }

  std::uint64_t interesting(ET t) {
    const unsigned w = widthOf(t);
    if (!isFloat(t)) {
      const std::uint64_t minv = 1ULL << (w - 1);
      switch (r_.below(10)) {
        case 0: return 0;
        case 1: return 1;
        case 2: return maskOf(w);  // -1
        case 3: return minv;
        case 4: return minv - 1;
        case 5: return minv + r_.below(3);
        case 6: return static_cast<std::uint64_t>(static_cast<std::int64_t>(r_.below(17)) - 8);
        case 7: return (1ULL << r_.below(w)) - r_.below(2);
        default: return r_.next();
      }
    }
    const FloatFormat f = formatOf(t);
    const int mantBits = f.precision - 1;
    const std::uint64_t expAll = maskOf(static_cast<unsigned>(f.exponentBits)) << mantBits;
    const std::uint64_t sign = r_.chance(40) ? signBit(t) : 0;
    const std::uint64_t quiet = 1ULL << (mantBits - 1);
    switch (r_.below(16)) {
      case 0: return sign;
      case 1: return sign | expAll;
      case 2: return sign | expAll | quiet | (r_.next() & (quiet - 1));
      case 3:
        if (o_.signallingNaN) return sign | expAll | (1 + (r_.next() & (quiet - 2)));
        return sign | expAll | quiet;
      case 4: return sign | 1;
      case 5: return sign | (quiet * 2 - 1);  // largest denormal
      case 6: return sign | (quiet * 2);      // smallest normal
      case 7: return sign | (expAll - 1);     // largest finite
      case 8: return roundToFloat(t, (sign ? -1.0 : 1.0) * std::ldexp(1.0, static_cast<int>(r_.below(66))));
      case 9: return roundToFloat(t, (sign ? -0.5 : 0.5) * static_cast<double>(r_.below(20)));
      case 10: return roundToFloat(t, (sign ? -1.0 : 1.0) * (std::ldexp(1.0, static_cast<int>(r_.below(64))) - 1));
      default: {
        std::uint64_t bits = r_.next() & maskOf(w);
        // Mostly moderate exponents: values that survive arithmetic.
        if (r_.chance(60)) {
          const std::uint64_t biasExp = maskOf(static_cast<unsigned>(f.exponentBits - 1));
          const std::uint64_t e = biasExp - 6 + r_.below(14);
          bits = (bits & ~(expAll | signBit(t))) | (e << mantBits) | sign;
        }
        return bits;
      }
    }
  }

  // --- arguments and inputs ---
  MemArg memArg(ET elem) {
    MemArg m;
    m.elem = elem;
    const std::int64_t rows = 1 + static_cast<std::int64_t>(r_.below(4)), cols = 1 + static_cast<std::int64_t>(r_.below(5));
    m.sizes = {rows, cols};
    const std::int64_t pad = static_cast<std::int64_t>(r_.below(3));
    switch (r_.below(7)) {
      case 0: m.strides = {cols, 1}; break;
      case 1: m.strides = {1, rows}; break;
      case 2: m.strides = {cols + pad, 1}; break;
      case 3: m.strides = {-(cols + pad), 1}; break;
      case 4: m.strides = {cols, -1}; break;
      case 5: m.strides = {-(cols * 2), -2}; break;
      default: m.strides = {2 * cols + pad, 2}; break;
    }
    std::int64_t lo = 0, hi = 0;
    for (int d = 0; d < 2; ++d) {
      const std::int64_t span = (m.sizes[static_cast<std::size_t>(d)] - 1) * m.strides[static_cast<std::size_t>(d)];
      (span < 0 ? lo : hi) += span;
    }
    m.offset = -lo + static_cast<std::int64_t>(r_.below(3));
    const std::int64_t length = m.offset + hi + 1 + static_cast<std::int64_t>(r_.below(3));
    for (std::int64_t i = 0; i < length; ++i) m.data.push_back(interesting(elem));
    return m;
  }
  void setUpArguments() {
    p_.fm = memArg(ET::F32);
    p_.im = memArg(ET::I32);
    p_.h = interesting(ET::F16);
    p_.g = interesting(ET::BF16);
    p_.c = interesting(ET::I8);
    p_.d = interesting(ET::F64);
    p_.values.resize(kFixedValues);
    p_.values[kIo] = {ET::I64, 1, {0}, {1}, 0};
    p_.values[kFm] = {ET::F32, 2, p_.fm.sizes, p_.fm.strides, p_.fm.offset};
    p_.values[kIm] = {ET::I32, 2, p_.im.sizes, p_.im.strides, p_.im.offset};
    p_.values[kH] = scalarType(ET::F16);
    p_.values[kG] = scalarType(ET::BF16);
    p_.values[kC] = scalarType(ET::I8);
    p_.values[kD] = scalarType(ET::F64);
  }
  void makeInput(int slot) {
    const ET t = randomType();
    const unsigned w = widthOf(t);
    std::uint64_t bits = interesting(t);
    if (w < 64) bits |= r_.next() << w;  // the truncating cast drops these
    p_.io.push_back(bits);
    const int at = constant(ET::Index, static_cast<std::uint64_t>(slot));
    int v = load(kIo, {at});
    if (t == ET::I64) return;
    if (t == ET::Index) {
      assign(Op::Cast, ET::Index, {v});
      return;
    }
    v = assign(Op::Cast, signlessOfWidth(w), {v});
    if (t != signlessOfWidth(w)) assign(Op::Bitcast, t, {v});
  }
  int load(int m, std::vector<int> indices) {
    indices.insert(indices.begin(), m);
    return assign(Op::Load, p_.values[static_cast<std::size_t>(m)].elem, std::move(indices));
  }

  // --- producing a value of a type ---
  int produce(ET t) {
    if (t == ET::I1 && r_.chance(50)) return compare();
    if (r_.chance(12)) return castTo(t);
    if (r_.chance(4)) {
      if (int v = bitcastTo(t); v >= 0) return v;
    }
    if (r_.chance(8)) {
      const int c = pick(ET::I1);
      const int a = pick(t), b = pick(t);
      return assign(Op::Select, t, {c, a, b});
    }
    const int v = isFloat(t) ? floatOp(t) : intOp(t);
    if (o_.vectors && r_.chance(15)) vectorise(v);
    return v;
  }
  // Ops defined for every operand (no guard needed in other lanes), lane by lane on vectors.
  static bool vectorisable(const Stmt& s, ET t) {
    if (s.kind != StmtKind::Assign || s.type != t) return false;
    switch (s.op) {
      case Op::Const: case Op::Load: case Op::Dim: case Op::Rank: case Op::Powi: case Op::Bitcast: case Op::Cast: return false;
      case Op::Div: case Op::Rem: case Op::DivSI: case Op::DivUI: case Op::RemSI: case Op::RemUI:
      case Op::CeilDivSI: case Op::CeilDivUI: case Op::FloorDivSI: return isFloat(t) && (s.op == Op::Div || s.op == Op::Rem);
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Neg: return t != ET::Index;
      default: return t != ET::I1;
    }
  }
  // The last statement, `v = op(...)`, becomes a vector of 2-8 lanes whose lane 0 is v.
  void vectorise(int v) {
    if (cur_->stmts.empty() || cur_->stmts.back().results != std::vector<int>{v}) return;
    Stmt s = cur_->stmts.back();
    if (!vectorisable(s, typeOf(v))) return;
    cur_->stmts.pop_back();
    // v is defined by the vector statement: the other lanes' operands must not use it.
    auto& scope = scopes_.back();
    scope.erase(std::remove(scope.begin(), scope.end(), v), scope.end());
    const std::size_t lanes = 2 + r_.below(7);
    std::vector<int> args;
    for (int a : s.args) {
      args.push_back(a);
      for (std::size_t k = 1; k < lanes; ++k) args.push_back(pick(typeOf(a)));
    }
    s.kind = StmtKind::Vector;
    s.literal = false;
    s.sizes = {static_cast<std::int64_t>(lanes)};
    s.args = std::move(args);
    scopes_.back().push_back(v);
    for (std::size_t k = 1; k < lanes; ++k) {
      s.results.push_back(fresh(scalarType(s.type)));
      scopes_.back().push_back(s.results.back());
    }
    cur_->stmts.push_back(std::move(s));
  }
  int compare() {
    const ET t = randomType();
    const int a = pick(t), b = pick(t);
    return assign(Op::Cmp, ET::I1, {a, b}, r_.below(6));
  }
  int castTo(ET to) {
    ET from = randomType();
    if (from == to) from = ET::I64;
    const int x = pick(from);
    // Half the float -> integer casts keep out-of-range values and NaN: README defines them (saturating).
    if (isFloat(from) && !isFloat(to) && r_.chance(50)) return assign(Op::Cast, to, {guardFloatToInt(x, from, to)});
    return assign(Op::Cast, to, {x});
  }
  int bitcastTo(ET to) {
    if (to == ET::Index || to == ET::I1) return -1;
    std::vector<ET> same;
    for (ET t : kScalarTypes)
      if (t != to && t != ET::Index && t != ET::I1 && widthOf(t) == widthOf(to)) same.push_back(t);
    if (same.empty()) return -1;
    return assign(Op::Bitcast, to, {pick(same[r_.below(same.size())])});
  }
  // x if trunc(x) fits `to`, else 0: in-range values, which a saturating cast must convert exactly.
  int guardFloatToInt(int x, ET from, ET to) {
    const unsigned w = widthOf(to);
    double lo, hi;
    bool loInclusive = true;
    if (isUnsignedInteger(to) || to == ET::I1) {  // i1 converts as unsigned (-1.0 is false)
      lo = -1, hi = std::ldexp(1.0, static_cast<int>(w));
      loInclusive = false;
    } else {
      lo = -std::ldexp(1.0, static_cast<int>(w) - 1), hi = std::ldexp(1.0, static_cast<int>(w) - 1);
    }
    const double maxFinite = decodeFloat(from, signBit(from) - 1 - (1ULL << (formatOf(from).precision - 1)));
    auto bound = [&](double v) { return std::fabs(v) <= maxFinite ? roundToFloat(from, v) : roundToFloat(from, v < 0 ? -INFINITY : INFINITY); };
    const int loC = constant(from, bound(lo)), hiC = constant(from, bound(hi));
    // A bound beyond the type's range became an infinity, which must stay outside.
    if (std::fabs(lo) > maxFinite) loInclusive = false;
    const int okLo = assign(Op::Cmp, ET::I1, {x, loC}, loInclusive ? 5 : 4);
    const int okHi = assign(Op::Cmp, ET::I1, {x, hiC}, 2);
    const int ok = assign(Op::And, ET::I1, {okLo, okHi});
    return assign(Op::Select, from, {ok, x, constant(from, 0)});
  }
  int mask16(int x) { return assign(Op::And, ET::Index, {x, constant(ET::Index, 0xffff)}); }
  // An index sum's or product's initial value or term, small enough not to overflow: the combiner is index
  // arithmetic, `nsw` (seed 3900000007460 summed five INT64_MINs onto INT64_MAX, which the optimiser may assume
  // does not happen). Sums of up to 73 16-bit terms; products of 0s and 1s onto a 16-bit start.
  int indexTerm(ET t, Stmt::Reduction r, int x, bool initial) {
    if (t != ET::Index || (r != Stmt::Sum && r != Stmt::Product)) return x;
    return r == Stmt::Sum || initial ? mask16(x) : assign(Op::And, ET::Index, {x, constant(ET::Index, 1)});
  }
  // The divisor with 0 (and -1 when the dividend is INT_MIN, for signed ops) replaced by 1.
  int guardDivisor(ET t, int a, int b, bool signedOp) {
    const unsigned w = widthOf(t);
    int bad = assign(Op::Cmp, ET::I1, {b, constant(t, 0)}, 0);
    if (signedOp) {
      const int isMin = assign(Op::Cmp, ET::I1, {a, constant(t, 1ULL << (w - 1))}, 0);
      const int isMinusOne = assign(Op::Cmp, ET::I1, {b, constant(t, maskOf(w))}, 0);
      bad = assign(Op::Or, ET::I1, {bad, assign(Op::And, ET::I1, {isMin, isMinusOne})});
    }
    return assign(Op::Select, t, {bad, constant(t, 1), b});
  }

  int intOp(ET t) {
    static constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem, Op::DivSI, Op::DivUI, Op::RemSI,
                                 Op::RemUI, Op::CeilDivSI, Op::CeilDivUI, Op::FloorDivSI, Op::MulHi, Op::Neg,
                                 Op::And, Op::Or, Op::Xor, Op::Not, Op::Shl, Op::Shr, Op::ShrSI, Op::ShrUI,
                                 Op::RotL, Op::RotR, Op::CtPop, Op::CtLz, Op::CtTz, Op::Min, Op::Max, Op::Abs};
    Op op = ops[r_.below(std::size(ops))];
    const bool namedSigned = op == Op::DivSI || op == Op::RemSI || op == Op::CeilDivSI || op == Op::FloorDivSI;
    // On i1 signed division is defined only for false / true (true is -1 and the minimum), which the guard
    // cannot arrange; unsigned division (i1's div and rem too) can.
    if (t == ET::I1 && namedSigned) op = Op::Xor;
    const bool division = op >= Op::Div && op <= Op::FloorDivSI;
    int a = pick(t);
    if (op == Op::Neg || op == Op::Not || op == Op::CtPop || op == Op::CtLz || op == Op::CtTz || op == Op::Abs) {
      if (t == ET::Index && op == Op::Neg) a = mask16(a);
      return assign(op, t, {a});
    }
    int b = (op >= Op::Shl && op <= Op::RotR && r_.chance(60))
                ? constant(t, r_.below(widthOf(t) + 3))
                : pick(t);
    if (t == ET::Index && (op == Op::Add || op == Op::Sub || op == Op::Mul)) a = mask16(a), b = mask16(b);
    if (division) {
      const bool signedOp = namedSigned || ((op == Op::Div || op == Op::Rem) && !isUnsignedInteger(t) && t != ET::I1);
      b = guardDivisor(t, a, b, signedOp);
    }
    const int v = assign(op, t, {a, b});
    // A literal right operand (`x + 1`) when it is a constant.
    if ((op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::And || op == Op::Or || op == Op::Xor) &&
        r_.chance(30))
      markLiteral(v);
    return v;
  }
  void markLiteral(int) {
    Stmt& s = cur_->stmts.back();
    const int rhs = s.args[1];
    for (const Stmt& prior : cur_->stmts)
      if (prior.kind == StmtKind::Assign && prior.op == Op::Const && !prior.results.empty() && prior.results[0] == rhs) {
        s.literal = true;
        return;
      }
  }

  int floatOp(ET t) {
    static constexpr Op exact[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem, Op::Neg, Op::Abs, Op::Min, Op::Max,
                                   Op::MinNumF, Op::MaxNumF, Op::MinimumF, Op::MaximumF, Op::Sqrt, Op::Rsqrt,
                                   Op::Floor, Op::Ceil, Op::Round, Op::RoundEven, Op::Trunc, Op::CopySign, Op::Fma};
    static constexpr Op transcendental[] = {Op::Cbrt, Op::Exp, Op::Exp2, Op::Expm1, Op::Log, Op::Log2, Op::Log10,
                                            Op::Log1p, Op::Pow, Op::Powi, Op::Sin, Op::Cos, Op::Tan, Op::Asin,
                                            Op::Acos, Op::Atan, Op::Atan2, Op::Sinh, Op::Cosh, Op::Tanh, Op::Erf, Op::Erfc};
    const Op op = (o_.transcendentals && r_.chance(15)) ? transcendental[r_.below(std::size(transcendental))]
                                                       : exact[r_.below(std::size(exact))];
    // Multiply-adds, what kernels are made of: what a contraction to fma would change.
    if (r_.chance(6)) return assign(Op::Add, t, {assign(Op::Mul, t, {pick(t), pick(t)}), pick(t)});
    const int a = pick(t);
    switch (op) {
      case Op::Fma: {
        // Sometimes the rounding error of a * b (fma(a, b, -(a * b)), as compensated sums compute it): any
        // rounding of the product in between makes it 0.
        if (r_.chance(25)) {
          const int b = pick(t);
          return assign(op, t, {a, b, assign(Op::Neg, t, {assign(Op::Mul, t, {a, b})})});
        }
        return assign(op, t, {a, pick(t), pick(t)});
      }
      case Op::Powi: return assign(op, t, {a, r_.chance(50) ? constant(ET::I32, r_.below(9) - 4) : pick(ET::I32)});
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::Min: case Op::Max:
      case Op::MinNumF: case Op::MaxNumF: case Op::MinimumF: case Op::MaximumF: case Op::CopySign: case Op::Pow:
      case Op::Atan2: {
        const int v = assign(op, t, {a, pick(t)});
        if ((op == Op::Add || op == Op::Sub || op == Op::Mul) && r_.chance(30)) markLiteral(v);
        return v;
      }
      default: return assign(op, t, {a});
    }
  }

  // --- statements ---
  // Inside a parallelFor, the buffer its iterations write is invisible: no iteration reads another's row.
  std::vector<int> visibleMemrefs() const {
    std::vector<int> r;
    for (const auto& scope : scopes_)
      for (int id : scope)
        if (isMemref(id) && bufferOf(id) != writtenInParallel_) r.push_back(id);
    return r;
  }
  int bufferOf(int m) const {
    auto it = viewOf_.find(m);
    return it == viewOf_.end() ? m : it->second;
  }
  std::vector<int> inBoundsIndices(int m) {
    std::vector<int> idx;
    for (std::int64_t size : p_.values[static_cast<std::size_t>(m)].sizes) {
      const int x = pick(ET::Index);
      idx.push_back(assign(Op::RemUI, ET::Index, {x, constant(ET::Index, static_cast<std::uint64_t>(size))}));
    }
    return idx;
  }
  // An unguarded division by 0, or INT_MIN / -1, that checked mode must stop at.
  void trappingDivision() {
    static constexpr ET types[] = {ET::I8, ET::I16, ET::I32, ET::I64, ET::SI32, ET::Index};
    static constexpr Op zeroOps[] = {Op::Div, Op::Rem, Op::DivSI, Op::DivUI, Op::RemSI, Op::RemUI,
                                     Op::CeilDivSI, Op::CeilDivUI, Op::FloorDivSI};
    static constexpr Op overflowOps[] = {Op::Div, Op::DivSI, Op::Rem, Op::RemSI};
    const ET t = types[r_.below(std::size(types))];
    const bool zero = o_.trap == "by zero";
    const Op op = zero ? zeroOps[r_.below(std::size(zeroOps))] : overflowOps[r_.below(std::size(overflowOps))];
    const int a = zero ? pick(t) : constant(t, 1ULL << (widthOf(t) - 1));
    const int b = constant(t, zero ? 0 : maskOf(widthOf(t)));
    assign(op, t, {a, b});
  }
  // A load, a store, or a vector access (masked, gather/scatter) with one index or lane out of bounds.
  void outOfBounds() {
    const int m = r_.chance(50) ? kFm : kIm;
    const ValueType vt = p_.values[static_cast<std::size_t>(m)];  // a copy: values grow below
    if (o_.controlFlow && r_.chance(40)) {
      overrunningLoop(m);
      return;
    }
    const std::uint64_t kind = o_.vectors ? r_.below(4) : r_.below(2);
    if (kind >= 2) {
      const bool masked = kind == 2 && vt.strides[1] == 1 && vt.strides[0] >= 0;  // reinterpret_cast: static strides >= 0
      const bool store = r_.chance(50);
      const LaneOp op = masked ? (store ? LaneOp::MaskedStore : LaneOp::MaskedLoad)
                               : (store ? LaneOp::Scatter : LaneOp::Gather);
      // Every lane set; lane k at col + k (masked, unguarded) or col + offset_k past the last dim.
      const std::uint64_t n = 2 + r_.below(7);
      const int row = inBoundsIndices(m)[0];
      const int col = constant(ET::Index, static_cast<std::uint64_t>(masked ? vt.sizes[1] - 1 : 0));
      Stmt s = laneStmt(op, vt.elem, n);
      s.unguarded = true;
      s.args = {m, row, col};
      if (!masked) {
        const std::uint64_t bad = r_.below(n);
        for (std::uint64_t k = 0; k < n; ++k)
          s.args.push_back(k == bad ? constant(ET::Index, static_cast<std::uint64_t>(vt.sizes[1])) : inBoundsLast(m));
      }
      const int on = constant(ET::I1, 1);
      for (std::uint64_t k = 0; k < n; ++k) s.args.push_back(on);
      for (std::uint64_t k = 0; k < n; ++k) s.args.push_back(pick(vt.elem));
      finishLanes(std::move(s), store ? 0 : n);
      return;
    }
    auto idx = inBoundsIndices(m);
    const std::size_t d = r_.below(idx.size());
    idx[d] = constant(ET::Index, static_cast<std::uint64_t>(r_.chance(50) ? vt.sizes[d] : -1));
    if (kind == 0) {
      load(m, idx);
      return;
    }
    Stmt s;
    s.kind = StmtKind::Store;
    s.args = {pick(vt.elem), m};
    s.args.insert(s.args.end(), idx.begin(), idx.end());
    cur_->stmts.push_back(std::move(s));
  }

  // --- vector operations beyond lane by lane (program.h, LaneOp) ---
  Stmt laneStmt(LaneOp op, ET t, std::uint64_t lanes) {
    Stmt s;
    s.kind = StmtKind::Lanes;
    s.lane = op;
    s.type = t;
    s.sizes = {static_cast<std::int64_t>(lanes)};
    return s;
  }
  void finishLanes(Stmt s, std::uint64_t results) {
    for (std::uint64_t k = 0; k < results; ++k) s.results.push_back(fresh(scalarType(s.type)));
    for (int id : s.results) scopes_.back().push_back(id);
    cur_->stmts.push_back(std::move(s));
  }
  std::vector<int> picks(ET t, std::uint64_t n) {
    std::vector<int> r;
    for (std::uint64_t k = 0; k < n; ++k) r.push_back(pick(t));
    return r;
  }
  int inBoundsLast(int m) {
    const auto size = p_.values[static_cast<std::size_t>(m)].sizes[1];
    return assign(Op::RemUI, ET::Index, {pick(ET::Index), constant(ET::Index, static_cast<std::uint64_t>(size))});
  }
  // FunctionBuilder::dot: mostly 4, 8 or 16 accumulator lanes (the instructions' widths), else 2 to 8.
  void dotStatement() {
    const std::uint64_t n = r_.chance(60) ? 4ULL << r_.below(3) : 2 + r_.below(7);
    const auto kind = static_cast<DotKind>(r_.below(kDotKinds));
    const ET acc = kind == kDotBF16 ? ET::F32 : ET::I32;
    const ET a = kind == kDotU8S8 ? ET::UI8 : kind == kDotS16 ? ET::I16 : ET::BF16;
    const ET b = kind == kDotU8S8 ? (r_.chance(50) ? ET::SI8 : ET::I8) : a;
    const std::uint64_t group = kind == kDotU8S8 ? 4 : 2;
    Stmt s = laneStmt(LaneOp::Dot, acc, n);
    s.imm = kind;
    s.args = picks(acc, n);
    for (ET t : {a, b}) {
      const auto lanes = picks(t, group * n);
      s.args.insert(s.args.end(), lanes.begin(), lanes.end());
    }
    finishLanes(std::move(s), n);
  }
  // Lanes moved, not computed: shuffle with a random mask (repeats, one operand only, any length up to 2n + 2),
  // interleave, deinterleave; every type, half types and i1 too.
  void permuteStatement() {
    const ET t = randomType();
    const std::uint64_t kind = r_.below(3);
    std::uint64_t n = 1 + r_.below(8);
    if (kind == 2 && n % 2) ++n;
    Stmt s = laneStmt(kind == 0 ? LaneOp::Shuffle : kind == 1 ? LaneOp::Interleave : LaneOp::Deinterleave, t, n);
    s.args = picks(t, n);
    if (kind != 2) {
      const auto b = picks(t, n);
      s.args.insert(s.args.end(), b.begin(), b.end());
    }
    std::uint64_t results = kind == 1 ? 2 * n : n;
    if (kind == 0) {
      results = 1 + r_.below(2 * n + 2);
      const std::uint64_t from = r_.chance(25) ? n : 2 * n;  // sometimes only a's lanes
      for (std::uint64_t k = 0; k < results; ++k) s.offsets.push_back(static_cast<std::int64_t>(r_.below(from)));
    }
    finishLanes(std::move(s), results);
  }
  void laneStatement() {
    if (r_.chance(15)) {
      dotStatement();
      return;
    }
    if (r_.chance(15)) {
      permuteStatement();
      return;
    }
    const std::uint64_t n = 2 + r_.below(7);
    const std::uint64_t kind = o_.memrefs ? r_.below(7) : r_.below(4);
    if (kind <= 3) {
      ET t = randomType();
      Stmt s;
      switch (kind) {
        case 0:
          if (r_.chance(20)) {  // vector.step: every integer type but i1, and index; n <= 8 fits each
            static constexpr ET types[] = {ET::I8, ET::I16, ET::I32, ET::I64, ET::SI8, ET::SI16, ET::SI32, ET::SI64,
                                           ET::UI8, ET::UI16, ET::UI32, ET::UI64, ET::Index};
            finishLanes(laneStmt(LaneOp::Step, types[r_.below(std::size(types))], n), n);
            return;
          }
          s = laneStmt(LaneOp::Splat, t, n);
          s.args = {pick(t)};
          finishLanes(std::move(s), n);
          return;
        case 1:
        case 2: {
          s = laneStmt(kind == 1 ? LaneOp::Insert : LaneOp::Extract, t, n);
          s.args = picks(t, n);
          if (kind == 1) s.args.push_back(pick(t));
          s.args.push_back(assign(Op::RemUI, ET::Index, {pick(ET::Index), constant(ET::Index, n)}));
          finishLanes(std::move(s), kind == 1 ? n : 1);
          return;
        }
        default: {
          // Integers exactly; f32/f64 (add and mul in lane order). Half types and i1 are left out.
          static constexpr ET types[] = {ET::I8, ET::I16, ET::I32, ET::I64, ET::SI16, ET::UI8, ET::UI32, ET::UI64,
                                         ET::Index, ET::F32, ET::F64};
          t = types[r_.below(std::size(types))];
          s = laneStmt(LaneOp::Reduce, t, n);
          static constexpr LaneReduction intKinds[] = {LaneReduction::Add, LaneReduction::Mul, LaneReduction::Min,
                                                       LaneReduction::Max, LaneReduction::And, LaneReduction::Or,
                                                       LaneReduction::Xor};
          s.laneReduction = isFloat(t) ? static_cast<LaneReduction>(r_.below(6)) : intKinds[r_.below(std::size(intKinds))];
          s.args = picks(t, n);
          finishLanes(std::move(s), 1);
          return;
        }
      }
    }
    // A parallel body's lane loads, like its scalar ones, skip the i32 memrefs other chunks update meanwhile
    // (atomics, an array reduction's merges): reading them races (seeds 2600000001270, 2600000003924).
    auto ms = inParallel_ ? readableMemrefs() : visibleMemrefs();
    if (ms.empty()) {
      produce(randomType());
      return;
    }
    const int m = ms[r_.below(ms.size())];
    const ValueType vt = p_.values[static_cast<std::size_t>(m)];  // a copy: values grow below
    const ET t = vt.elem;
    const bool store = !inParallel_ && r_.chance(50);
    const int row = inBoundsIndices(m)[0];
    const bool unitStride = vt.strides[1] == 1 && vt.strides[0] >= 0;
    if ((kind == 4 || kind == 5) && unitStride && vt.sizes[1] >= static_cast<std::int64_t>(n) && r_.chance(40)) {
      // vector.load/store: every lane inside the dim.
      Stmt s = laneStmt(store ? LaneOp::VectorStore : LaneOp::VectorLoad, t, n);
      const auto room = static_cast<std::uint64_t>(vt.sizes[1]) - n + 1;
      s.args = {m, row, assign(Op::RemUI, ET::Index, {pick(ET::Index), constant(ET::Index, room)})};
      if (store) {
        const auto lanes = picks(t, n);
        s.args.insert(s.args.end(), lanes.begin(), lanes.end());
      }
      finishLanes(std::move(s), store ? 0 : n);
      return;
    }
    LaneOp op;
    if (kind == 4 && unitStride) op = store ? LaneOp::MaskedStore : LaneOp::MaskedLoad;
    else if (kind == 6) op = store ? LaneOp::TransferWrite : LaneOp::TransferRead;
    else op = store ? LaneOp::Scatter : LaneOp::Gather;
    Stmt s = laneStmt(op, t, n);
    if (op == LaneOp::Gather || op == LaneOp::Scatter) {
      s.args = {m, row, constant(ET::Index, 0)};
      for (std::uint64_t k = 0; k < n; ++k) s.args.push_back(inBoundsLast(m));
    } else {
      // Transfers may start at the end of the dim (every lane padded or not written).
      const std::uint64_t room = static_cast<std::uint64_t>(vt.sizes[1]) + (kind == 6 ? 1 : 0);
      s.args = {m, row, assign(Op::RemUI, ET::Index, {pick(ET::Index), constant(ET::Index, room)})};
    }
    if (op != LaneOp::TransferRead && op != LaneOp::TransferWrite) {
      const auto mask = picks(ET::I1, n);
      s.args.insert(s.args.end(), mask.begin(), mask.end());
    }
    if (op == LaneOp::TransferRead) s.args.push_back(pick(t));
    else {
      const auto lanes = picks(t, n);  // pass-through or stored values
      s.args.insert(s.args.end(), lanes.begin(), lanes.end());
    }
    const bool loads = op == LaneOp::MaskedLoad || op == LaneOp::Gather || op == LaneOp::TransferRead;
    finishLanes(std::move(s), loads ? n : 0);
  }

  void statement(int depth) {
    // Temporaries, in loop and branch bodies (a loop's iterations each alloc their own); not in helpers (whose
    // memrefs are their parameters) nor parallel bodies (whose stores go to one row of one buffer). Decided on a
    // stream of their own, so a program without them is the one this seed made before they existed.
    if (o_.memrefs && depth > 0 && !inHelper_ && !inParallel_ && temps_.chance(4)) {
      temporary();
      return;
    }
    const std::uint64_t k = r_.below(100);
    if (o_.memrefs && k < 10) {
      // A parallelFor's body sees neither the buffer it writes nor, with atomics, the i32 ones: maybe nothing.
      auto ms = readableMemrefs();
      if (ms.empty()) {
        produce(randomType());
        return;
      }
      const int m = ms[r_.below(ms.size())];
      load(m, inBoundsIndices(m));
    } else if (o_.memrefs && k < 17 && !inParallel_) {
      auto ms = visibleMemrefs();
      const int m = ms[r_.below(ms.size())];
      const int v = pick(p_.values[static_cast<std::size_t>(m)].elem);
      Stmt s;
      s.kind = StmtKind::Store;
      auto idx = inBoundsIndices(m);
      s.args = {v, m};
      s.args.insert(s.args.end(), idx.begin(), idx.end());
      cur_->stmts.push_back(std::move(s));
    } else if (o_.memrefs && k < 20) {
      if (r_.chance(30)) memrefCast();
      else subview();
    } else if (o_.controlFlow && o_.memrefs && k < 23 && depth < 2 && !inParallel_) {
      if (r_.chance(50)) affineNest();
      else vectorisableLoop();
    } else if (o_.controlFlow && k < 26 && depth < 2) {
      forLoop(depth);
    } else if (o_.controlFlow && k < 32 && depth < 2) {
      ifElse(depth);
    } else if (parallel_ && k < 36 && depth < 2 && !inParallel_ && !inHelper_) {
      if (o_.memrefs && r_.chance(50)) parallelFor(depth);
      else parallelReduce(depth);
    } else if (o_.memrefs && k < 34) {
      auto ms = visibleMemrefs();
      const int m = ms[r_.below(ms.size())];
      if (r_.chance(15)) assign(Op::Rank, ET::Index, {m});
      else assign(Op::Dim, ET::Index, {m}, r_.below(2));
    } else if (o_.atomics && o_.memrefs && k >= 96) {
      // Not in helpers, whose one memref may hold floats and which run no parallel loop.
      if (parallel_ && !inParallel_ && !inHelper_ && depth < 2 && r_.chance(40)) arrayReduce(depth);
      else if (!inParallel_ && r_.chance(25)) compareExchange();
      else if (!inParallel_ && r_.chance(20)) genericAtomic();
      else atomic();
    } else if (o_.vectors && k < 44) {
      laneStatement();
    } else if (!p_.helpers.empty() && !inHelper_ && !inParallel_ && k < 50) {
      // Not in parallel loops: a helper may store anywhere in its memref.
      call();
    } else {
      produce(randomType());
    }
  }
  // What a parallel body may load: not the i32 memrefs its atomics (or the array reduction's merges) update.
  std::vector<int> readableMemrefs() const {
    std::vector<int> r;
    for (int m : visibleMemrefs())
      if (!(o_.atomics && inParallel_ && p_.values[static_cast<std::size_t>(m)].elem == ET::I32)) r.push_back(m);
    return r;
  }
  // An atomic update of an element: any kind in serial code, the parallel loop's one commutative integer kind in
  // parallel bodies (none in an array reduction's, whose accumulator other chunks merge into meanwhile).
  void atomic() {
    if (inParallel_ && parallelAtomic_ == Stmt::AtomicKinds) {
      produce(randomType());
      return;
    }
    std::vector<int> ms;
    for (int m : visibleMemrefs())
      if (!inParallel_ || p_.values[static_cast<std::size_t>(m)].elem == ET::I32) ms.push_back(m);
    if (ms.empty()) {  // a parallelFor writing the i32 buffer's rows: no atomic there
      produce(randomType());
      return;
    }
    const int m = ms[r_.below(ms.size())];
    const ET elem = p_.values[static_cast<std::size_t>(m)].elem;
    Stmt s;
    s.kind = StmtKind::Atomic;
    if (inParallel_) s.imm = parallelAtomic_;
    else if (elem == ET::I32) s.imm = r_.below(Stmt::kIntegerAtomics);
    else if (r_.chance(20)) s.imm = Stmt::AtomicAssign;
    else s.imm = Stmt::AtomicAddF + r_.below(Stmt::AtomicKinds - Stmt::AtomicAddF);
    const int v = pick(elem);
    auto idx = inBoundsIndices(m);
    s.args = {v, m};
    s.args.insert(s.args.end(), idx.begin(), idx.end());
    if (!inParallel_) {
      s.results = {fresh(scalarType(elem))};
      scopes_.back().push_back(s.results[0]);
    }
    cur_->stmts.push_back(std::move(s));
  }
  // atomicCompareExchange on an element of an f32 or i32 memref, expecting half the time the value just loaded
  // from it (so that some exchanges happen: a NaN expected from the NaN stored there, -0 against +0 sometimes).
  // A visible memref, its element type and in-bounds indices of one of its elements.
  struct Element {
    int m;
    ET elem;
    std::vector<int> idx;
  };
  Element anElement() {
    const auto ms = visibleMemrefs();
    const int m = ms[r_.below(ms.size())];
    return {m, p_.values[static_cast<std::size_t>(m)].elem, inBoundsIndices(m)};
  }
  void compareExchange() {
    const auto [m, elem, idx] = anElement();
    Stmt s;
    s.kind = StmtKind::CompareExchange;
    s.args = {r_.chance(50) ? load(m, idx) : pick(elem), pick(elem), m};
    s.args.insert(s.args.end(), idx.begin(), idx.end());
    s.results = {fresh(scalarType(elem)), fresh(scalarType(ET::I1))};
    for (int id : s.results) scopes_.back().push_back(id);
    cur_->stmts.push_back(std::move(s));
  }
  // genericAtomicRMW on an element of an f32 or i32 memref: a body of one to four pure operations on the current
  // value and whatever else is in scope (no statement with an effect: the body may run more than once).
  void genericAtomic() {
    const auto [m, elem, idx] = anElement();
    Stmt s;
    s.kind = StmtKind::GenericAtomic;
    s.args = {m};
    s.args.insert(s.args.end(), idx.begin(), idx.end());
    s.blocks.resize(1);
    Block* saved = cur_;
    cur_ = &s.blocks[0];
    scopes_.emplace_back();
    const int current = fresh(scalarType(elem));
    cur_->params.push_back(current);
    scopes_.back().push_back(current);
    int last = current;
    for (std::uint64_t k = 0, n = 1 + r_.below(4); k < n; ++k) last = produce(elem);
    cur_->yields.push_back(r_.chance(70) ? last : pick(elem));
    scopes_.pop_back();
    cur_ = saved;
    s.results = {fresh(scalarType(elem))};
    scopes_.back().push_back(s.results[0]);
    cur_->stmts.push_back(std::move(s));
  }
  // OpenMP's reduction(op: m[...]) over an i32 memref: the body yields a contribution and where it goes.
  void arrayReduce(int depth) {
    std::vector<int> ms;
    for (int m : visibleMemrefs())
      if (p_.values[static_cast<std::size_t>(m)].elem == ET::I32) ms.push_back(m);
    const int m = ms[r_.below(ms.size())];
    const std::uint64_t lb = r_.below(3);
    Stmt s;
    s.kind = StmtKind::ArrayReduce;
    s.args = {constant(ET::Index, lb), constant(ET::Index, lb + r_.below(24)), constant(ET::Index, 1 + r_.below(3)), m};
    s.imm = chunkAndSchedule();
    s.reductions = {static_cast<Stmt::Reduction>(r_.below(4))};
    parallelBody(s, Stmt::AtomicKinds, [&](int iv) {
      assign(Op::Cast, ET::I32, {iv});  // iv as data
      body(depth);
      cur_->yields.push_back(pick(ET::I32));
      for (int i : inBoundsIndices(m)) cur_->yields.push_back(i);
    });
    cur_->stmts.push_back(std::move(s));
  }
  void subview() {
    auto ms = visibleMemrefs();
    const int m = ms[r_.below(ms.size())];
    const ValueType src = p_.values[static_cast<std::size_t>(m)];
    Stmt s;
    s.kind = StmtKind::Subview;
    s.args = {m};
    ValueType vt{src.elem, src.rank, {}, {}, src.offset};
    for (std::size_t d = 0; d < src.sizes.size(); ++d) {
      const std::int64_t o = static_cast<std::int64_t>(r_.below(static_cast<std::uint64_t>(src.sizes[d])));
      const std::int64_t st = 1 + static_cast<std::int64_t>(r_.below(2));
      const std::int64_t room = (src.sizes[d] - 1 - o) / st + 1;
      const std::int64_t n = 1 + static_cast<std::int64_t>(r_.below(static_cast<std::uint64_t>(room)));
      s.offsets.push_back(o), s.sizes.push_back(n), s.strides.push_back(st);
      vt.sizes.push_back(n);
      vt.strides.push_back(src.strides[d] * st);
      vt.offset += o * src.strides[d];
    }
    const int id = fresh(vt);
    viewOf_[id] = bufferOf(m);
    s.results = {id};
    cur_->stmts.push_back(std::move(s));
    scopes_.back().push_back(id);
  }
  // A fresh rows x cols buffer filled with one value: static sizes (a stack slot) or dynamic ones (the arena).
  void temporary() {
    const ET elem = temps_.chance(50) ? ET::F32 : ET::I32;
    Stmt s;
    s.kind = StmtKind::Alloc;
    s.sizes = {1 + static_cast<std::int64_t>(temps_.below(6)), 1 + static_cast<std::int64_t>(temps_.below(6))};
    s.imm = temps_.chance(50) ? 1 : 0;
    s.args = {pick(elem)};
    const int id = fresh(ValueType{elem, 2, s.sizes, {s.sizes[1], 1}, 0});
    s.results = {id};
    cur_->stmts.push_back(std::move(s));
    scopes_.back().push_back(id);
    // Half of them released by dealloc at the end of their body (the rest when the function returns).
    if (!releases_.empty() && releases_.back().first == cur_ && temps_.chance(50)) releases_.back().second.push_back(id);
    // Used at once, so the value read depends on the buffer: a store somewhere, then a load somewhere.
    Stmt store;
    store.kind = StmtKind::Store;
    store.args = {pick(elem), id};
    for (int i : inBoundsIndices(id)) store.args.push_back(i);
    cur_->stmts.push_back(std::move(store));
    load(id, inBoundsIndices(id));
  }
  // The same view under a type that makes some of what the generator knows static: sizes, strides, the offset,
  // or the identity layout when the view is exactly row-major from offset 0 (static strides must match).
  void memrefCast() {
    auto ms = visibleMemrefs();
    const int m = ms[r_.below(ms.size())];
    const ValueType src = p_.values[static_cast<std::size_t>(m)];
    Stmt s;
    s.kind = StmtKind::MemrefCast;
    s.args = {m};
    bool rowMajor = src.offset == 0;
    std::int64_t expect = 1;
    for (std::size_t d = src.sizes.size(); d-- > 0;) {
      rowMajor = rowMajor && src.strides[d] == expect;
      expect *= src.sizes[d];
    }
    if (rowMajor && r_.chance(50)) {
      s.imm = 1;
      s.sizes = src.sizes;  // the identity layout's static strides follow from static sizes
    } else {
      for (std::size_t d = 0; d < src.sizes.size(); ++d) {
        s.sizes.push_back(r_.chance(50) ? src.sizes[d] : -1);
        s.strides.push_back(r_.chance(50) ? src.strides[d] : kAnyStride);
      }
      s.offsets.push_back(r_.chance(50) ? src.offset : kAnyStride);
    }
    // A quarter through the unranked form and back, decided on a side stream (programs stay as they were).
    if (SplitMix{r_.state ^ 0x756e72616e6b6564ULL}.chance(25)) s.imm |= 2;
    const int id = fresh(src);
    viewOf_[id] = bufferOf(m);
    s.results = {id};
    cur_->stmts.push_back(std::move(s));
    scopes_.back().push_back(id);
  }
  // Each iteration writes its own row of one memref: disjoint stores, as parallelFor requires.
  void parallelFor(int depth) {
    auto ms = visibleMemrefs();
    const int m = ms[r_.below(ms.size())];
    const ValueType vt = p_.values[static_cast<std::size_t>(m)];
    Stmt s;
    s.kind = StmtKind::ParallelFor;
    const int ub = r_.chance(50) ? assign(Op::Dim, ET::Index, {m}, 0)
                                 : constant(ET::Index, static_cast<std::uint64_t>(vt.sizes[0]));
    s.args = {constant(ET::Index, r_.below(2)), ub, constant(ET::Index, 1 + r_.below(2))};
    s.imm = chunkAndSchedule();
    writtenInParallel_ = bufferOf(m);
    // Its iterations store to their own rows; no atomics beside.
    parallelBody(s, Stmt::AtomicKinds, [&](int iv) {
      body(depth);
      Stmt store;
      store.kind = StmtKind::Store;
      store.args = {pick(vt.elem), m, iv, inBoundsLast(m)};
      cur_->stmts.push_back(std::move(store));
    });
    writtenInParallel_ = -1;
    cur_->stmts.push_back(std::move(s));
  }
  // What LLVM's loop vectoriser transforms: dst[row, j] = op(src[row, j], constant) for j over the common
  // last dim, unguarded indices (j < ub <= both sizes), and an integer sum carried along. src and dst may be the
  // same buffer (the vectoriser's runtime alias checks). The interpreter sees an ordinary loop.
  // A loop `for iv in [lb, ub) step` whose body `body(iv)` builds (no carried values).
  void simpleLoop(int lb, int ub, int step, const std::function<void(int)>& body) {
    Stmt s;
    s.kind = StmtKind::For;
    s.args = {lb, ub, step};
    s.blocks.resize(1);
    Block* saved = cur_;
    cur_ = &s.blocks[0];
    scopes_.emplace_back();
    const int iv = fresh(scalarType(ET::Index));
    cur_->params = {iv};
    scopes_.back() = {iv};
    body(iv);
    scopes_.pop_back();
    cur_ = saved;
    cur_->stmts.push_back(std::move(s));
  }
  // A nest whose accesses are affine in its induction variables, as checked mode proves them
  // (docs/checked-mode.md, "Proven accesses"): dst[i][j] = src[i + di][j + dj] over a rectangle,
  // the triangle j >= i, or j > i, with steps, bounds from constants or sizes. For j > i the rows may
  // reach the last of src's, where i + di is past it: in bounds only because that row's j loop
  // is empty (cols <= src rows + 1 - di), as only correlated bounds prove (PolyBench's nussinov).
  void affineNest() {
    auto ms = visibleMemrefs();
    const int src = ms[r_.below(ms.size())], dst = ms[r_.below(ms.size())];
    const ValueType sv = p_.values[static_cast<std::size_t>(src)], dv = p_.values[static_cast<std::size_t>(dst)];
    const auto di = static_cast<std::int64_t>(r_.below(2)), dj = static_cast<std::int64_t>(r_.below(2));
    const bool triangle = r_.chance(50), strict = triangle && r_.chance(50);
    const std::int64_t rows = std::max<std::int64_t>(0, std::min(sv.sizes[0] - (strict ? 0 : di), dv.sizes[0]));
    std::int64_t cols = std::max<std::int64_t>(0, std::min(sv.sizes[1] - dj, dv.sizes[1]));
    if (strict) cols = std::max<std::int64_t>(0, std::min(cols, sv.sizes[0] + 1 - di));
    auto bound = [&](std::int64_t n, unsigned d) {
      return n == dv.sizes[d] && r_.chance(50) ? assign(Op::Dim, ET::Index, {dst}, d)
                                               : constant(ET::Index, static_cast<std::uint64_t>(n));
    };
    simpleLoop(constant(ET::Index, 0), bound(rows, 0), constant(ET::Index, 1 + r_.below(2)), [&](int i) {
      const int lb = strict     ? assign(Op::Add, ET::Index, {i, constant(ET::Index, 1)})
                     : triangle ? i
                                : constant(ET::Index, 0);
      simpleLoop(lb, bound(cols, 1), constant(ET::Index, 1 + r_.below(2)), [&](int j) {
        auto shifted = [&](int iv, std::int64_t by) {
          return by ? assign(Op::Add, ET::Index, {iv, constant(ET::Index, static_cast<std::uint64_t>(by))}) : iv;
        };
        const int x = load(src, {shifted(i, di), shifted(j, dj)});
        Stmt store;
        store.kind = StmtKind::Store;
        store.args = {sv.elem == dv.elem ? x : assign(Op::Bitcast, dv.elem, {x}), dst, i, j};
        cur_->stmts.push_back(std::move(store));
      });
    });
  }
  // A loop over a row of `m` one element too far: its stores (or loads) run in bounds until the last
  // iteration, which checked mode must stop at, after the same stores.
  // The nest jit/accumulator_jam.cpp jams, y[c] = y[c] + widen(A[r][c]) * x[r] (rows outer, columns inner):
  // A a fresh 8-12 row buffer of bf16, f16, i8 or i16 (a stack slot, so it aliases nothing; static rows, at
  // least the pass's 2 x 4) filled from a memref of the wide type, y a row of a visible f32 or i32 view
  // (strided, offset, negative strides). x[r] is a value from outside the nest, or (a third of the time) a load
  // of a memref that may be y's buffer, which the jam must then refuse. Float sums stay in row order under the
  // jam, so the interpreter's plain loop is the oracle bit for bit.
  void gemvNest() {
    static constexpr ET kNarrow[] = {ET::BF16, ET::F16, ET::I8, ET::I16};
    const ET narrow = kNarrow[r_.below(std::size(kNarrow))];
    const ET wide = isFloat(narrow) ? ET::F32 : ET::I32;
    std::vector<int> ys;
    for (int m : visibleMemrefs())
      if (p_.values[static_cast<std::size_t>(m)].elem == wide && p_.values[static_cast<std::size_t>(m)].rank == 2)
        ys.push_back(m);
    if (ys.empty()) return;
    int y = ys[r_.below(ys.size())];
    const int src = ys[r_.below(ys.size())];
    const ValueType yv = p_.values[static_cast<std::size_t>(y)], sv = p_.values[static_cast<std::size_t>(src)];
    // A row with unit stride in its type, as in a kernel's memref<?xf32>: with a stride known only at run time,
    // LLVM's dependence analysis cannot prove the jam legal (and refuses it).
    if (yv.strides[1] == 1 && r_.chance(75)) {
      Stmt cast;
      cast.kind = StmtKind::MemrefCast;
      cast.args = {y};
      cast.sizes = {-1, -1};
      cast.strides = {kAnyStride, 1};
      cast.offsets = {kAnyStride};
      const int unit = fresh(yv);
      viewOf_[unit] = bufferOf(y);
      cast.results = {unit};
      cur_->stmts.push_back(std::move(cast));
      scopes_.back().push_back(unit);
      y = unit;
    }
    const std::int64_t rows = 8 + static_cast<std::int64_t>(r_.below(5));
    const std::int64_t cols = yv.sizes[1] + static_cast<std::int64_t>(r_.below(3));
    Stmt alloc;
    alloc.kind = StmtKind::Alloc;
    alloc.sizes = {rows, cols};
    alloc.args = {constant(narrow, interesting(narrow))};
    const int a = fresh(ValueType{narrow, 2, alloc.sizes, {cols, 1}, 0});
    alloc.results = {a};
    cur_->stmts.push_back(std::move(alloc));  // not in scope: the rest of the generator knows f32 and i32 memrefs
    auto wrapped = [&](int iv, std::int64_t n) {
      return assign(Op::RemUI, ET::Index, {iv, constant(ET::Index, static_cast<std::uint64_t>(n))});
    };
    simpleLoop(constant(ET::Index, 0), constant(ET::Index, static_cast<std::uint64_t>(rows)), constant(ET::Index, 1),
               [&](int r) {
                 simpleLoop(constant(ET::Index, 0), constant(ET::Index, static_cast<std::uint64_t>(cols)),
                            constant(ET::Index, 1), [&](int c) {
                              const int x = load(src, {wrapped(r, sv.sizes[0]), wrapped(c, sv.sizes[1])});
                              Stmt store;
                              store.kind = StmtKind::Store;
                              store.args = {assign(Op::Cast, narrow, {x}), a, r, c};
                              cur_->stmts.push_back(std::move(store));
                            });
               });
    const int yRow = constant(ET::Index, r_.below(static_cast<std::uint64_t>(yv.sizes[0])));
    const int xOutside = r_.chance(67) ? pick(wide) : -1;
    // The row count as LLVM cannot know it (an argument's dim plus the rest): with a constant 8-12 it unrolls
    // the row loop away before the jam could apply.
    const int arg = r_.chance(50) ? kFm : kIm;
    const std::int64_t argRows = p_.values[static_cast<std::size_t>(arg)].sizes[0];
    const int rowsBound = assign(Op::Add, ET::Index, {assign(Op::Dim, ET::Index, {arg}, 0),
                                                      constant(ET::Index, static_cast<std::uint64_t>(rows - argRows))});
    simpleLoop(constant(ET::Index, 0), rowsBound, constant(ET::Index, 1), [&](int r) {
      const int xr = xOutside >= 0 ? xOutside : load(src, {wrapped(r, sv.sizes[0]), constant(ET::Index, 0)});
      // A row's length from y's descriptor: with a constant (1-5 here) LLVM unrolls the inner loop away.
      const int colsBound = assign(Op::Dim, ET::Index, {y}, 1);
      simpleLoop(constant(ET::Index, 0), colsBound, constant(ET::Index, 1), [&](int c) {
        const int w = assign(Op::Cast, wide, {load(a, {r, c})});
        const int product = r_.chance(50) ? assign(Op::Mul, wide, {w, xr}) : assign(Op::Mul, wide, {xr, w});
        Stmt store;
        store.kind = StmtKind::Store;
        store.args = {assign(Op::Add, wide, {load(y, {yRow, c}), product}), y, yRow, c};
        cur_->stmts.push_back(std::move(store));
      });
    });
  }
  // An exact chain over widened halves, an f16 (or bf16) dot product: acc = acc + wide(a[0][c]) * wide(a[1][c]),
  // in order, over a 2 x n narrow array filled from the f32 argument (or with one special value per row). n is
  // 9-48 and the trip count an argument's dim plus the rest, which LLVM cannot know: the loop is then unrolled 8
  // times and its conversions SLP-vectorised (jit/serial_recurrences.h), remainder loop included.
  void halfChain() {
    const ET narrow = chain_.chance(75) ? ET::F16 : ET::BF16;
    const ET wide = chain_.chance(75) ? ET::F32 : ET::F64;
    const bool product = chain_.chance(75), accFirst = chain_.chance(50);
    const ValueType fm = p_.values[kFm];
    const std::int64_t n = fm.sizes[0] + 9 + static_cast<std::int64_t>(chain_.below(32));
    Stmt alloc;
    alloc.kind = StmtKind::Alloc;
    alloc.sizes = {2, n};
    alloc.args = {constant(narrow, interesting(narrow))};
    const int a = fresh(ValueType{narrow, 2, alloc.sizes, {n, 1}, 0});
    alloc.results = {a};
    cur_->stmts.push_back(std::move(alloc));  // not in scope, as gemvNest's
    const int special = chain_.below(4) == 0 ? static_cast<int>(chain_.below(2)) : -1;  // a row left special
    auto wrapped = [&](int iv, std::int64_t size) {
      return assign(Op::RemUI, ET::Index, {iv, constant(ET::Index, static_cast<std::uint64_t>(size))});
    };
    simpleLoop(constant(ET::Index, 0), constant(ET::Index, 2), constant(ET::Index, 1), [&](int r) {
      simpleLoop(constant(ET::Index, 0), constant(ET::Index, static_cast<std::uint64_t>(n)), constant(ET::Index, 1),
                 [&](int c) {
                   const int shifted = assign(Op::Add, ET::Index, {c, r});
                   const int x = load(kFm, {wrapped(shifted, fm.sizes[0]), wrapped(c, fm.sizes[1])});
                   Stmt store;
                   store.kind = StmtKind::Store;
                   store.args = {assign(Op::Cast, narrow, {x}), a, r, c};
                   cur_->stmts.push_back(std::move(store));
                 });
    });
    if (special >= 0) {  // one element of a row: an infinity, a NaN, a denormal or -0 among the chain's terms
      Stmt store;
      store.kind = StmtKind::Store;
      store.args = {constant(narrow, interesting(narrow)), a, constant(ET::Index, static_cast<std::uint64_t>(special)),
                    constant(ET::Index, chain_.below(static_cast<std::uint64_t>(n)))};
      cur_->stmts.push_back(std::move(store));
    }
    const int bound = assign(Op::Add, ET::Index, {assign(Op::Dim, ET::Index, {kFm}, 0),
                                                  constant(ET::Index, static_cast<std::uint64_t>(n - fm.sizes[0]))});
    Stmt s;
    s.kind = StmtKind::For;
    s.args = {constant(ET::Index, 0), bound, constant(ET::Index, 1), pick(wide)};
    s.blocks.resize(1);
    Block* saved = cur_;
    cur_ = &s.blocks[0];
    scopes_.emplace_back();
    const int c = fresh(scalarType(ET::Index)), acc = fresh(scalarType(wide));
    cur_->params = {c, acc};
    scopes_.back() = {c, acc};
    const int x = assign(Op::Cast, wide, {load(a, {constant(ET::Index, 0), c})});
    const int term = product ? assign(Op::Mul, wide, {x, assign(Op::Cast, wide, {load(a, {constant(ET::Index, 1), c})})}) : x;
    cur_->yields = {assign(Op::Add, wide, accFirst ? std::vector<int>{acc, term} : std::vector<int>{term, acc})};
    scopes_.pop_back();
    cur_ = saved;
    s.results = {fresh(scalarType(wide))};
    scopes_.back().push_back(s.results[0]);
    cur_->stmts.push_back(std::move(s));
  }
  void overrunningLoop(int m) {
    const ValueType vt = p_.values[static_cast<std::size_t>(m)];
    const int row = inBoundsIndices(m)[0];
    const int dim = assign(Op::Dim, ET::Index, {m}, 1);
    const int ub = assign(Op::Add, ET::Index, {dim, constant(ET::Index, 1)});
    const bool store = r_.chance(50);
    simpleLoop(constant(ET::Index, 0), ub, constant(ET::Index, 1), [&](int j) {
      if (!store) {
        load(m, {row, j});
        return;
      }
      Stmt s;
      s.kind = StmtKind::Store;
      s.args = {pick(vt.elem), m, row, j};
      cur_->stmts.push_back(std::move(s));
    });
  }
  void vectorisableLoop() {
    auto ms = visibleMemrefs();
    const int src = ms[r_.below(ms.size())], dst = ms[r_.below(ms.size())];
    const ValueType sv = p_.values[static_cast<std::size_t>(src)], dv = p_.values[static_cast<std::size_t>(dst)];
    const std::int64_t n = std::min(sv.sizes[1], dv.sizes[1]);
    const int srcRow = constant(ET::Index, r_.below(static_cast<std::uint64_t>(sv.sizes[0])));
    const int dstRow = constant(ET::Index, r_.below(static_cast<std::uint64_t>(dv.sizes[0])));
    const int ub = n == dv.sizes[1] && r_.chance(50) ? assign(Op::Dim, ET::Index, {dst}, 1)
                                                    : constant(ET::Index, static_cast<std::uint64_t>(n));
    Stmt s;
    s.kind = StmtKind::For;
    s.args = {constant(ET::Index, 0), ub, constant(ET::Index, 1), constant(ET::I64, interesting(ET::I64))};
    s.blocks.resize(1);
    Block* saved = cur_;
    cur_ = &s.blocks[0];
    scopes_.emplace_back();
    const int j = fresh(scalarType(ET::Index)), acc = fresh(scalarType(ET::I64));
    cur_->params = {j, acc};
    scopes_.back() = {j, acc};
    const int x = load(src, {srcRow, j});
    const ET et = sv.elem;
    int y;
    if (isFloat(et)) {
      static constexpr Op ops[] = {Op::Add, Op::Mul, Op::Sub, Op::MaxNumF, Op::MinNumF, Op::Abs, Op::Neg};
      const Op op = ops[r_.below(std::size(ops))];
      y = (op == Op::Abs || op == Op::Neg) ? assign(op, et, {x}) : assign(op, et, {x, constant(et, interesting(et))});
    } else {
      static constexpr Op ops[] = {Op::Add, Op::Mul, Op::Xor, Op::And, Op::Max, Op::Min, Op::Shl, Op::ShrUI};
      const Op op = ops[r_.below(std::size(ops))];
      const bool shift = op == Op::Shl || op == Op::ShrUI;
      y = assign(op, et, {x, constant(et, shift ? r_.below(32) : interesting(et))});
      if (!shift && r_.chance(50)) markLiteral(y);
    }
    const int yd = et == dv.elem ? y : assign(Op::Bitcast, dv.elem, {y});
    Stmt store;
    store.kind = StmtKind::Store;
    store.args = {yd, dst, dstRow, j};
    cur_->stmts.push_back(std::move(store));
    const int wide = assign(Op::Cast, ET::I64, {et == ET::I32 ? x : assign(Op::Bitcast, ET::I32, {x})});
    cur_->yields = {assign(Op::Add, ET::I64, {acc, wide})};
    scopes_.pop_back();
    cur_ = saved;
    s.results = {fresh(scalarType(ET::I64))};
    scopes_.back().push_back(s.results[0]);
    cur_->stmts.push_back(std::move(s));
  }
  void forLoop(int depth) {
    const std::uint64_t lb = r_.below(3);
    const int lbV = constant(ET::Index, lb);
    int ubV;
    if (o_.memrefs && r_.chance(25)) {
      auto ms = visibleMemrefs();
      ubV = assign(Op::Dim, ET::Index, {ms[r_.below(ms.size())]}, r_.below(2));
    } else {
      ubV = constant(ET::Index, lb + r_.below(6));
    }
    const int stepV = constant(ET::Index, 1 + r_.below(2));
    Stmt s;
    s.kind = StmtKind::For;
    s.args = {lbV, ubV, stepV};
    std::vector<ET> types;
    const int carried = static_cast<int>(r_.below(4));
    for (int i = 0; i < carried; ++i) {
      types.push_back(randomType());
      s.args.push_back(pick(types.back()));
    }
    loopBody(s, types, types, depth);
  }
  // Builds `s`'s body: parameters the induction variable and `params`, yields of `yields`' types; then
  // appends `s` with results of those types.
  void loopBody(Stmt& s, const std::vector<ET>& params, const std::vector<ET>& yields, int depth) {
    s.blocks.resize(1);
    Block* saved = cur_;
    cur_ = &s.blocks[0];
    scopes_.emplace_back();
    cur_->params.push_back(fresh(scalarType(ET::Index)));
    scopes_.back().push_back(cur_->params.back());
    for (ET t : params) {
      cur_->params.push_back(fresh(scalarType(t)));
      scopes_.back().push_back(cur_->params.back());
    }
    body(depth);
    for (ET t : yields) cur_->yields.push_back(pick(t));
    scopes_.pop_back();
    cur_ = saved;
    for (ET t : yields) s.results.push_back(fresh(scalarType(t)));
    for (int id : s.results) scopes_.back().push_back(id);
    cur_->stmts.push_back(std::move(s));
  }
  // Exact integer reductions over independent iterations (the body stores nothing); deterministic ones also
  // reduce f32/f64, whose bits their documented block and tree order fixes.
  void parallelReduce(int depth) {
    // Drawn from a side stream, so programs without them stay the programs they were; their loops are longer
    // (up to 72 iterations, so up to 72 blocks and a tree of 7 levels).
    SplitMix side{r_.state ^ 0xd5e7e3a1f0c2b9d4ULL};
    const bool deterministic = side.chance(60);
    const std::uint64_t lb = r_.below(3);
    const int lbV = constant(ET::Index, lb);
    const int ubV = constant(ET::Index, lb + r_.below(24) * (deterministic ? 3 : 1));
    const int stepV = constant(ET::Index, 1 + r_.below(3));
    Stmt s;
    s.kind = StmtKind::ParallelReduce;
    s.args = {lbV, ubV, stepV};
    s.imm = chunkAndSchedule();
    // Mostly blocks of 1-3 iterations, so the tree has levels; sometimes the default (one block here).
    if (deterministic) s.imm = (1ULL << 33) | (s.imm & (1ULL << 32)) | (side.chance(80) ? 1 + side.below(3) : 0);
    // Every integer type of 8+ bits and index (docs/parallel-loops.md), built-in and custom combiners.
    static constexpr ET types[] = {ET::I8,  ET::I16, ET::I32,  ET::I64,  ET::SI8,  ET::SI16, ET::SI32,
                                   ET::SI64, ET::UI8, ET::UI16, ET::UI32, ET::UI64, ET::Index};
    std::vector<ET> ts;
    const int n = 1 + static_cast<int>(r_.below(3));
    for (int i = 0; i < n; ++i) {
      if (deterministic && side.chance(70)) {
        ts.push_back(side.chance(50) ? ET::F32 : ET::F64);
        s.reductions.push_back(static_cast<Stmt::Reduction>(side.below(Stmt::Max + 1)));  // no bitwise custom ones
      } else {
        ts.push_back(types[r_.below(std::size(types))]);
        s.reductions.push_back(static_cast<Stmt::Reduction>(r_.below(7)));
      }
      s.args.push_back(indexTerm(ts.back(), s.reductions.back(), pick(ts.back()), true));
    }
    const std::uint8_t atomic =
        o_.atomics ? static_cast<std::uint8_t>(r_.below(Stmt::AtomicMul + 1)) : std::uint8_t{Stmt::AtomicKinds};
    // A deterministic float reduction adds iv * 0.1 (inexact) to each contribution: terms that differ and round
    // make the result depend on the documented order.
    parallelBody(s, atomic, [&](int iv) {
      const int ivData = assign(Op::Cast, ET::I64, {iv});  // iv as data
      body(depth);
      for (std::size_t i = 0; i < ts.size(); ++i) {
        const ET t = ts[i];
        const int y = indexTerm(t, s.reductions[i], pick(t), false);
        if (!deterministic || !isFloat(t)) {
          cur_->yields.push_back(y);
          continue;
        }
        const int tenth = constant(t, t == ET::F64 ? 0x3fb999999999999aULL : 0x3dcccccdULL);
        const int term = assign(Op::Mul, t, {assign(Op::Cast, t, {ivData}), tenth});
        cur_->yields.push_back(assign(Op::Add, t, {y, term}));
      }
    });
    for (ET t : ts) s.results.push_back(fresh(scalarType(t)));
    for (int id : s.results) scopes_.back().push_back(id);
    cur_->stmts.push_back(std::move(s));
  }
  // parallelFor's and parallelReduce's chunk (0..3) and schedule (static or dynamic).
  std::uint64_t chunkAndSchedule() { return r_.below(4) | (r_.below(2) << 32); }
  // What every parallel loop's body shares: a block whose one parameter is the induction variable, generated
  // by `fill(iv)` in a scope of its own with inParallel_ set and `atomic` the atomics it may do (see atomic()).
  template <typename Fill>
  void parallelBody(Stmt& s, std::uint8_t atomic, Fill&& fill) {
    s.blocks.resize(1);
    Block* saved = cur_;
    cur_ = &s.blocks[0];
    scopes_.emplace_back();
    const int iv = fresh(scalarType(ET::Index));
    cur_->params.push_back(iv);
    scopes_.back().push_back(iv);
    inParallel_ = true;
    parallelAtomic_ = atomic;
    fill(iv);
    inParallel_ = false;
    scopes_.pop_back();
    cur_ = saved;
  }
  void ifElse(int depth) {
    Stmt s;
    s.kind = StmtKind::If;
    s.args = {pick(ET::I1)};
    std::vector<ET> types;
    const int n = static_cast<int>(r_.below(4));
    for (int i = 0; i < n; ++i) types.push_back(r_.chance(30) ? ET::BF16 : randomType());
    s.blocks.resize(2);
    // Without results, sometimes no else: the lowering builds that with ifThen.
    const bool thenOnly = types.empty() && r_.chance(40);
    Block* saved = cur_;
    for (auto& block : s.blocks) {
      cur_ = &block;
      scopes_.emplace_back();
      if (!thenOnly || &block == &s.blocks[0]) body(depth);
      for (ET t : types) cur_->yields.push_back(pick(t));
      scopes_.pop_back();
    }
    cur_ = saved;
    for (ET t : types) s.results.push_back(fresh(scalarType(t)));
    for (int id : s.results) scopes_.back().push_back(id);
    cur_->stmts.push_back(std::move(s));
  }
  void body(int depth) {
    releases_.push_back({cur_, {}});
    const int n = 1 + static_cast<int>(r_.below(6));
    for (int i = 0; i < n; ++i) statement(depth + 1);
    // The temporaries this body chose to release, at its end: nothing after it sees them.
    for (int m : releases_.back().second) {
      Stmt s;
      s.kind = StmtKind::Dealloc;
      s.args = {m};
      cur_->stmts.push_back(std::move(s));
    }
    releases_.pop_back();
  }

  SplitMix r_;
  SplitMix temps_;  // the temporaries' choices
  SplitMix gemv_;   // whether and where a GEMV nest goes (a stream of its own: other programs stay as they were)
  SplitMix chain_;  // whether, where and what kind of half chain goes (the same)
  GeneratorOptions o_;
  Program p_;
  Block* cur_ = nullptr;
  std::vector<std::vector<int>> scopes_;
  // Per body being generated: its block and the temporaries made in it that it deallocs at its end.
  std::vector<std::pair<Block*, std::vector<int>>> releases_;
  int depth_ = 0;
  bool inParallel_ = false;
  std::uint8_t parallelAtomic_ = Stmt::AtomicKinds;  // the parallel loop's atomic kind (AtomicKinds: none)
  bool inHelper_ = false;
  int writtenInParallel_ = -1;     // the buffer (kFm, kIm) a parallelFor's iterations write
  std::map<int, int> viewOf_;      // subview -> the argument whose buffer it views
  bool parallel_ = false;
};

}  // namespace

Program generate(std::uint64_t seed, const GeneratorOptions& options) { return Gen(seed, options).run(); }

}  // namespace memjit::difftest
