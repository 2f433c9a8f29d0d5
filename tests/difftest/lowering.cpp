#include "lowering.h"

#include <cmath>
#include <unordered_map>

#include "float_formats.h"
#include "memjit/type_syntax.h"

namespace memjit::difftest {
namespace {

using codegen::CmpPredicate;
using codegen::FunctionBuilder;
using codegen::Value;
using ET = ElementType;


class Lowering {
 public:
  /// `params`: the value ids of the function's arguments, in order.
  Lowering(FunctionBuilder& b, const Program& p, const std::string& name, const std::vector<int>& params)
      : b_(b), p_(p), name_(name), vals_(p.values.size()) {
    for (std::size_t i = 0; i < params.size(); ++i) vals_[static_cast<std::size_t>(params[i])] = b.arg(i);
  }
  void block(const Block& blk) {
    for (const Stmt& s : blk.stmts) stmt(s);
  }
  std::vector<Value> yields(const Block& blk) {
    std::vector<Value> r;
    for (int y : blk.yields) r.push_back(v(y));
    return r;
  }

 private:
  Value& v(int id) { return vals_[static_cast<std::size_t>(id)]; }
  ET typeOf(int id) const { return p_.values[static_cast<std::size_t>(id)].elem; }

  Value constant(const Stmt& s) {
    const ET t = s.type;
    const int id = s.results[0];
    if (isFloat(t)) {
      // NaNs (payload kept) and every other value now and then: integer bits, bitcast.
      if (isNaNBits(t, s.imm) || id % 3 == 0) return b_.bitcast(b_.constant(signlessOfWidth(bitWidth(t)), s.imm), t);
      return b_.constant(t, decodeFloat(t, s.imm));
    }
    // i1 is unsigned: its constants are 0 and 1 (true).
    if (isUnsignedInteger(t) || t == ET::I1) return b_.constant(t, s.imm);
    return b_.constant(t, signExtend(s.imm, widthOf(t)));
  }

  // `a op literal` through the C++ operators, when the right operand is a constant the operator can take.
  Value literal(const Stmt& s, const Value& a) {
    auto it = constants_.find(s.args[1]);
    if (it == constants_.end()) return {};
    const ET t = typeOf(s.args[1]);
    const std::uint64_t bits = it->second;
    auto apply = [&](auto lit) -> Value {
      switch (s.op) {
        case Op::Add: return a + lit;
        case Op::Sub: return a - lit;
        case Op::Mul: return a * lit;
        case Op::And: if constexpr (std::is_integral_v<decltype(lit)>) return a & lit; else return {};
        case Op::Or: if constexpr (std::is_integral_v<decltype(lit)>) return a | lit; else return {};
        case Op::Xor: if constexpr (std::is_integral_v<decltype(lit)>) return a ^ lit; else return {};
        default: return {};
      }
    };
    if (isFloat(t)) {
      const double d = decodeFloat(t, bits);
      if (!std::isfinite(d)) return {};
      return t == ET::F64 ? apply(d) : apply(static_cast<float>(d));
    }
    if (isUnsignedInteger(t) || t == ET::I1) return apply(static_cast<unsigned long long>(bits));
    return apply(static_cast<long long>(signExtend(bits, widthOf(t))));
  }

  // `s.op` on `operands` (scalars, or vectors for a Vector statement).
  Value op(const Stmt& s, const std::vector<Value>& operands) {
    auto a = [&](std::size_t i) -> const Value& { return operands[i]; };
    switch (s.op) {
      case Op::Const: return constant(s);
      case Op::Add: case Op::Sub: case Op::Mul: case Op::And: case Op::Or: case Op::Xor:
        if (s.literal && s.kind == StmtKind::Assign) {
          if (Value r = literal(s, a(0)); r.valid()) return r;
        }
        break;
      default: break;
    }
    switch (s.op) {
      case Op::Add: return b_.add(a(0), a(1));
      case Op::Sub: return b_.sub(a(0), a(1));
      case Op::Mul: return b_.mul(a(0), a(1));
      case Op::Div: return b_.div(a(0), a(1));
      case Op::Rem: return b_.rem(a(0), a(1));
      case Op::DivSI: return b_.divsi(a(0), a(1));
      case Op::DivUI: return b_.divui(a(0), a(1));
      case Op::RemSI: return b_.remsi(a(0), a(1));
      case Op::RemUI: return b_.remui(a(0), a(1));
      case Op::CeilDivSI: return b_.ceildivsi(a(0), a(1));
      case Op::CeilDivUI: return b_.ceildivui(a(0), a(1));
      case Op::FloorDivSI: return b_.floordivsi(a(0), a(1));
      case Op::MulHi: return b_.mulhi(a(0), a(1));
      case Op::Neg: return b_.neg(a(0));
      case Op::And: return b_.andi(a(0), a(1));
      case Op::Or: return b_.ori(a(0), a(1));
      case Op::Xor: return b_.xori(a(0), a(1));
      case Op::Not: return b_.noti(a(0));
      case Op::Shl: return b_.shl(a(0), a(1));
      case Op::Shr: return b_.shr(a(0), a(1));
      case Op::ShrSI: return b_.shrsi(a(0), a(1));
      case Op::ShrUI: return b_.shrui(a(0), a(1));
      case Op::RotL: return b_.rotl(a(0), a(1));
      case Op::RotR: return b_.rotr(a(0), a(1));
      case Op::CtPop: return b_.ctpop(a(0));
      case Op::CtLz: return b_.ctlz(a(0));
      case Op::CtTz: return b_.cttz(a(0));
      case Op::Min: return b_.min(a(0), a(1));
      case Op::Max: return b_.max(a(0), a(1));
      case Op::MinNumF: return b_.minnumf(a(0), a(1));
      case Op::MaxNumF: return b_.maxnumf(a(0), a(1));
      case Op::MinimumF: return b_.minimumf(a(0), a(1));
      case Op::MaximumF: return b_.maximumf(a(0), a(1));
      case Op::Abs: return b_.abs(a(0));
      case Op::Cmp: return b_.cmp(static_cast<CmpPredicate>(s.imm), a(0), a(1));
      case Op::Select: return b_.select(a(0), a(1), a(2));
      case Op::Cast: return b_.cast(a(0), s.type);
      case Op::Bitcast: return b_.bitcast(a(0), s.type);
      case Op::Sqrt: return b_.sqrt(a(0));
      case Op::Rsqrt: return b_.rsqrt(a(0));
      case Op::Cbrt: return b_.cbrt(a(0));
      case Op::Exp: return b_.exp(a(0));
      case Op::Exp2: return b_.exp2(a(0));
      case Op::Expm1: return b_.expm1(a(0));
      case Op::Log: return b_.log(a(0));
      case Op::Log2: return b_.log2(a(0));
      case Op::Log10: return b_.log10(a(0));
      case Op::Log1p: return b_.log1p(a(0));
      case Op::Pow: return b_.pow(a(0), a(1));
      case Op::Powi: return b_.powi(a(0), a(1));
      case Op::Sin: return b_.sin(a(0));
      case Op::Cos: return b_.cos(a(0));
      case Op::Tan: return b_.tan(a(0));
      case Op::Asin: return b_.asin(a(0));
      case Op::Acos: return b_.acos(a(0));
      case Op::Atan: return b_.atan(a(0));
      case Op::Atan2: return b_.atan2(a(0), a(1));
      case Op::Sinh: return b_.sinh(a(0));
      case Op::Cosh: return b_.cosh(a(0));
      case Op::Tanh: return b_.tanh(a(0));
      case Op::Erf: return b_.erf(a(0));
      case Op::Erfc: return b_.erfc(a(0));
      case Op::Floor: return b_.floor(a(0));
      case Op::Ceil: return b_.ceil(a(0));
      case Op::Round: return b_.round(a(0));
      case Op::RoundEven: return b_.roundeven(a(0));
      case Op::Trunc: return b_.trunc(a(0));
      case Op::CopySign: return b_.copysign(a(0), a(1));
      case Op::Fma: return b_.fma(a(0), a(1), a(2));
      // Every third through the memref's unranked form (dim reads its rank-generic descriptor).
      case Op::Dim:
        return b_.dim(s.results[0] % 3 == 0 ? b_.castToUnranked(a(0)) : a(0), static_cast<std::size_t>(s.imm));
      // Every other one through the unranked form (rank reads its descriptor; a ranked one is a constant).
      case Op::Rank: return b_.rank(s.results[0] % 2 == 0 ? b_.castToUnranked(a(0)) : a(0));
      case Op::Load: {
        std::vector<Value> idx;
        for (std::size_t i = 1; i < s.args.size(); ++i) idx.push_back(a(i));
        return b_.load(a(0), idx);
      }
      case Op::Const: case Op::Count: break;
    }
    return {};
  }

  // The i64 an output slot holds: the value's bits, sign- or zero-extended as `cast` does.
  Value asI64(int id) {
    const ET t = typeOf(id);
    Value x = v(id);
    if (isFloat(t)) x = b_.bitcast(x, signlessOfWidth(bitWidth(t)));
    else if (t == ET::SI64 || t == ET::UI64) return b_.bitcast(x, ET::I64);
    return t == ET::I64 ? x : b_.cast(x, ET::I64);
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Assign: {
        if (s.op == Op::Const) constants_[s.results[0]] = s.imm;
        std::vector<Value> operands;
        for (int id : s.args) operands.push_back(v(id));
        v(s.results[0]) = op(s, operands);
        return;
      }
      case StmtKind::Vector: {
        const auto lanes = static_cast<std::size_t>(s.sizes[0]);
        std::vector<Value> operands;
        for (std::size_t j = 0; j < s.args.size() / lanes; ++j) {
          std::vector<Value> scalars;
          for (std::size_t k = 0; k < lanes; ++k) scalars.push_back(v(s.args[j * lanes + k]));
          operands.push_back(b_.fromElements(scalars));
        }
        const Value r = op(s, operands);
        for (std::size_t k = 0; k < lanes; ++k) v(s.results[k]) = b_.extract(r, static_cast<std::uint32_t>(k));
        return;
      }
      case StmtKind::Lanes:
        lanes(s);
        return;
      case StmtKind::Call: {
        std::vector<Value> args;
        for (int id : s.args) args.push_back(v(id));
        auto results = b_.call(helperName(name_, s.imm), args);
        for (std::size_t i = 0; i < s.results.size() && i < results.size(); ++i) v(s.results[i]) = results[i];
        return;
      }
      case StmtKind::For: {
        std::vector<Value> inits;
        for (std::size_t i = 3; i < s.args.size(); ++i) inits.push_back(v(s.args[i]));
        auto results = b_.forLoop(v(s.args[0]), v(s.args[1]), v(s.args[2]), inits,
                                  [&](Value iv, const std::vector<Value>& carried) {
                                    const Block& body = s.blocks[0];
                                    v(body.params[0]) = iv;
                                    for (std::size_t i = 0; i < carried.size(); ++i) v(body.params[i + 1]) = carried[i];
                                    block(body);
                                    return yields(body);
                                  });
        for (std::size_t i = 0; i < s.results.size() && i < results.size(); ++i) v(s.results[i]) = results[i];
        return;
      }
      case StmtKind::ParallelReduce: {
        std::vector<codegen::Reduction> reductions;
        for (std::size_t k = 0; k < s.reductions.size(); ++k) {
          const Value& init = v(s.args[3 + k]);
          const ET t = typeOf(s.args[3 + k]);
          // All ones: -1, or the unsigned maximum for ui types (which take no negative literal).
          auto ones = [&] {
            return isUnsignedInteger(t) ? b_.constant(t, maskOf(widthOf(t))) : b_.constant(t, -1);
          };
          switch (s.reductions[k]) {
            case Stmt::Sum: reductions.push_back(codegen::Reduction::sum(init)); break;
            case Stmt::Product: reductions.push_back(codegen::Reduction::product(init)); break;
            case Stmt::Min: reductions.push_back(codegen::Reduction::min(init)); break;
            case Stmt::Max: reductions.push_back(codegen::Reduction::max(init)); break;
            case Stmt::CustomAnd:
              reductions.push_back(codegen::Reduction::custom(init, ones(),
                                                              [&](Value a, Value c) { return b_.andi(a, c); }));
              break;
            case Stmt::CustomOr:
              reductions.push_back(codegen::Reduction::custom(init, b_.constant(t, 0),
                                                              [&](Value a, Value c) { return b_.ori(a, c); }));
              break;
            case Stmt::CustomXor:
              reductions.push_back(codegen::Reduction::custom(init, b_.constant(t, 0),
                                                              [&](Value a, Value c) { return b_.xori(a, c); }));
              break;
          }
        }
        const codegen::ParallelOptions po = parallelOptions(s);
        auto results = b_.parallelReduce(v(s.args[0]), v(s.args[1]), v(s.args[2]), po, reductions, [&](Value iv) {
          const Block& body = s.blocks[0];
          v(body.params[0]) = iv;
          block(body);
          return yields(body);
        });
        for (std::size_t i = 0; i < s.results.size() && i < results.size(); ++i) v(s.results[i]) = results[i];
        return;
      }
      case StmtKind::ParallelFor: {
        const codegen::ParallelOptions po = parallelOptions(s);
        b_.parallelFor(v(s.args[0]), v(s.args[1]), v(s.args[2]), po, [&](Value iv) {
          v(s.blocks[0].params[0]) = iv;
          block(s.blocks[0]);
        });
        return;
      }
      case StmtKind::If: {
        if (s.results.empty() && s.blocks[1].stmts.empty()) {
          b_.ifThen(v(s.args[0]), [&] { block(s.blocks[0]); });
          return;
        }
        auto results = b_.ifElse(
            v(s.args[0]), [&] { block(s.blocks[0]); return yields(s.blocks[0]); },
            [&] { block(s.blocks[1]); return yields(s.blocks[1]); });
        for (std::size_t i = 0; i < s.results.size() && i < results.size(); ++i) v(s.results[i]) = results[i];
        return;
      }
      case StmtKind::Store: {
        std::vector<Value> idx;
        for (std::size_t i = 2; i < s.args.size(); ++i) idx.push_back(v(s.args[i]));
        b_.store(v(s.args[0]), v(s.args[1]), idx);
        return;
      }
      case StmtKind::Atomic: {
        static constexpr codegen::AtomicKind kinds[] = {
            codegen::AtomicKind::Addi, codegen::AtomicKind::Andi,     codegen::AtomicKind::Ori,
            codegen::AtomicKind::Xori, codegen::AtomicKind::Maxs,     codegen::AtomicKind::Mins,
            codegen::AtomicKind::Maxu, codegen::AtomicKind::Minu,     codegen::AtomicKind::Muli,
            codegen::AtomicKind::Assign, codegen::AtomicKind::Addf,   codegen::AtomicKind::Maximumf,
            codegen::AtomicKind::Minimumf, codegen::AtomicKind::Maxnumf, codegen::AtomicKind::Minnumf};
        std::vector<Value> idx;
        for (std::size_t i = 2; i < s.args.size(); ++i) idx.push_back(v(s.args[i]));
        Value old = b_.atomicRMW(kinds[s.imm], v(s.args[0]), v(s.args[1]), idx);
        if (!s.results.empty()) v(s.results[0]) = old;
        return;
      }
      case StmtKind::CompareExchange: {
        std::vector<Value> idx;
        for (std::size_t i = 3; i < s.args.size(); ++i) idx.push_back(v(s.args[i]));
        auto [old, stored] = b_.atomicCompareExchange(v(s.args[2]), idx, v(s.args[0]), v(s.args[1]));
        v(s.results[0]) = old;
        v(s.results[1]) = stored;
        return;
      }
      case StmtKind::GenericAtomic: {
        std::vector<Value> idx;
        for (std::size_t i = 1; i < s.args.size(); ++i) idx.push_back(v(s.args[i]));
        v(s.results[0]) = b_.genericAtomicRMW(v(s.args[0]), idx, [&](Value current) {
          const Block& body = s.blocks[0];
          v(body.params[0]) = current;
          block(body);
          return v(body.yields[0]);
        });
        return;
      }
      case StmtKind::ArrayReduce: {
        static constexpr codegen::Reduction::Kind kinds[] = {codegen::Reduction::Kind::Sum,
                                                             codegen::Reduction::Kind::Product,
                                                             codegen::Reduction::Kind::Min, codegen::Reduction::Kind::Max};
        codegen::ParallelOptions po;
        po.chunk = static_cast<std::int64_t>(s.imm & 0xffffffff);
        po.schedule = (s.imm >> 32) ? codegen::ParallelSchedule::Dynamic : codegen::ParallelSchedule::Static;
        b_.parallelReduce(v(s.args[0]), v(s.args[1]), v(s.args[2]), po, {{kinds[s.reductions[0]], v(s.args[3])}},
                          [&](Value iv, const std::vector<Value>& own) {
                            const Block& body = s.blocks[0];
                            v(body.params[0]) = iv;
                            block(body);
                            const std::vector<Value> y = yields(body);
                            const std::vector<Value> idx(y.begin() + 1, y.end());
                            const Value old = b_.load(own[0], idx);
                            Value next;
                            switch (s.reductions[0]) {
                              case Stmt::Sum: next = b_.add(old, y[0]); break;
                              case Stmt::Product: next = b_.mul(old, y[0]); break;
                              case Stmt::Min: next = b_.min(old, y[0]); break;
                              case Stmt::Max: next = b_.max(old, y[0]); break;
                              case Stmt::CustomAnd:  // array reductions take the first four kinds only
                              case Stmt::CustomOr:
                              case Stmt::CustomXor: break;
                            }
                            b_.store(next, own[0], idx);
                          });
        return;
      }
      case StmtKind::Alloc: {
        const std::int64_t rows = s.sizes[0], cols = s.sizes[1];
        const ET elem = typeOf(s.args[0]);
        Value m = s.imm == 1 ? b_.alloc(MemRefType(elem, {kDynamic, kDynamic}), {b_.index(rows), b_.index(cols)})
                             : b_.alloc(MemRefType(elem, {rows, cols}));
        Value fill = v(s.args[0]);
        b_.forLoop(b_.index(0), b_.index(rows), b_.index(1), [&](Value i) {
          b_.forLoop(b_.index(0), b_.index(cols), b_.index(1), [&](Value j) { b_.store(fill, m, {i, j}); });
        });
        v(s.results[0]) = m;
        return;
      }
      case StmtKind::MemrefCast: {
        const MemRefType type = castType(s, p_.values[static_cast<std::size_t>(s.args[0])].elem);
        v(s.results[0]) = (s.imm & 2) ? b_.castToRanked(b_.castToUnranked(v(s.args[0])), type)
                                      : b_.memrefCast(v(s.args[0]), type);
        return;
      }
      case StmtKind::Dealloc:
        b_.dealloc(v(s.args[0]));
        return;
      case StmtKind::Subview: {
        std::vector<codegen::IndexOperand> o, n, st;
        for (std::size_t d = 0; d < s.offsets.size(); ++d)
          o.emplace_back(s.offsets[d]), n.emplace_back(s.sizes[d]), st.emplace_back(s.strides[d]);
        v(s.results[0]) = b_.subview(v(s.args[0]), o, n, st);
        return;
      }
      case StmtKind::Output:
        b_.store(asI64(s.args[0]), v(kIo), {b_.index(p_.inputs + static_cast<std::int64_t>(s.imm))});
        return;
      case StmtKind::Return:
        b_.ret({v(s.args[0])});
        return;
    }
  }

  // A MemrefCast's result type.
  static MemRefType castType(const Stmt& s, ElementType elem) {
    std::vector<std::int64_t> shape;
    for (std::int64_t n : s.sizes) shape.push_back(n < 0 ? kDynamic : n);
    if (s.imm & 1) return MemRefType(elem, shape);
    StridedLayout layout{s.offsets[0] == kAnyStride ? kDynamic : s.offsets[0], {}};
    for (std::int64_t st : s.strides) layout.strides.push_back(st == kAnyStride ? kDynamic : st);
    return MemRefType(elem, shape, layout);
  }

  // imm: chunk | schedule << 32 | deterministic << 33.
  static codegen::ParallelOptions parallelOptions(const Stmt& s) {
    codegen::ParallelOptions po;
    po.chunk = static_cast<std::int64_t>(s.imm & 0xffffffff);
    po.schedule = (s.imm >> 32) & 1 ? codegen::ParallelSchedule::Dynamic : codegen::ParallelSchedule::Static;
    po.deterministic = (s.imm >> 33) & 1;
    return po;
  }

  void lanes(const Stmt& s) {
    const auto n = static_cast<std::uint32_t>(s.sizes[0]);
    auto vec = [&](std::size_t first) {
      std::vector<Value> scalars;
      for (std::size_t k = 0; k < n; ++k) scalars.push_back(v(s.args[first + k]));
      return b_.fromElements(scalars);
    };
    auto extractAll = [&](const Value& r) {
      for (std::uint32_t k = 0; k < n; ++k) v(s.results[k]) = b_.extract(r, k);
    };
    // Results [first, first + count) are lanes 0.. of r.
    auto extractFrom = [&](const Value& r, std::size_t first, std::size_t count) {
      for (std::size_t k = 0; k < count; ++k) v(s.results[first + k]) = b_.extract(r, static_cast<std::uint32_t>(k));
    };
    switch (s.lane) {
      case LaneOp::Splat: extractAll(b_.splat(v(s.args[0]), n)); return;
      case LaneOp::Step: extractAll(b_.laneIndices(s.type, n)); return;
      case LaneOp::Insert: extractAll(b_.insert(vec(0), v(s.args[n]), v(s.args[n + 1]))); return;
      case LaneOp::Extract: v(s.results[0]) = b_.extract(vec(0), v(s.args[n])); return;
      case LaneOp::Reduce:
        v(s.results[0]) = b_.reduce(static_cast<FunctionBuilder::VectorReduction>(s.laneReduction), vec(0));
        return;
      case LaneOp::Shuffle: {
        const std::vector<std::int32_t> mask(s.offsets.begin(), s.offsets.end());
        extractFrom(b_.shuffle(vec(0), vec(n), mask), 0, mask.size());
        return;
      }
      case LaneOp::Interleave: extractFrom(b_.interleave(vec(0), vec(n)), 0, 2 * n); return;
      case LaneOp::Deinterleave: {
        auto [even, odd] = b_.deinterleave(vec(0));
        extractFrom(even, 0, n / 2);
        extractFrom(odd, n / 2, n / 2);
        return;
      }
      case LaneOp::Dot: {
        const std::size_t g = s.imm == kDotU8S8 ? 4 : 2;
        auto lanesFrom = [&](std::size_t first, std::size_t count) {
          std::vector<Value> scalars;
          for (std::size_t k = 0; k < count; ++k) scalars.push_back(v(s.args[first + k]));
          return b_.fromElements(scalars);
        };
        extractAll(b_.dot(vec(0), lanesFrom(n, g * n), lanesFrom(n + g * n, g * n)));
        return;
      }
      default: break;
    }
    Value m = v(s.args[0]);
    const std::vector<Value> at{v(s.args[1]), v(s.args[2])};
    auto guardedMask = [&](std::size_t first) {
      Value mask = vec(first);
      if (s.unguarded) return mask;
      return b_.andi(mask, b_.createMask(n, b_.sub(b_.dim(m, 1), at[1])));
    };
    // maskedload/store want the last stride 1 in the type: the generator vouches for it, the cast states it.
    auto unitStride = [&] {
      const ValueType& vt = p_.values[static_cast<std::size_t>(s.args[0])];
      const MemRefType type(vt.elem, {kDynamic, kDynamic}, StridedLayout{.offset = kDynamic, .strides = {kDynamic, 1}});
      return b_.reinterpretCast(m, type, vt.offset, {vt.sizes[0], vt.sizes[1]},
                                {vt.strides[0], vt.strides[1]});
    };
    switch (s.lane) {
      case LaneOp::MaskedLoad: extractAll(b_.maskedLoad(unitStride(), at, guardedMask(3), vec(3 + n))); return;
      case LaneOp::MaskedStore: b_.maskedStore(vec(3 + n), unitStride(), at, guardedMask(3)); return;
      case LaneOp::Gather: extractAll(b_.gather(m, at, vec(3), vec(3 + n), vec(3 + 2 * n))); return;
      case LaneOp::Scatter: b_.scatter(vec(3 + 2 * n), m, at, vec(3), vec(3 + n)); return;
      case LaneOp::TransferRead: extractAll(b_.transferRead(m, at, n, v(s.args[3]))); return;
      case LaneOp::TransferWrite: b_.transferWrite(vec(3), m, at); return;
      case LaneOp::VectorLoad: extractAll(b_.vectorLoad(unitStride(), at, n)); return;
      case LaneOp::VectorStore: b_.vectorStore(vec(3), unitStride(), at); return;
      default: return;
    }
  }

  FunctionBuilder& b_;
  const Program& p_;
  std::string name_;
  std::vector<Value> vals_;
  std::unordered_map<int, std::uint64_t> constants_;
};

}  // namespace

std::string helperName(const std::string& function, std::uint64_t k) { return function + "_h" + std::to_string(k); }

Error lowerProgram(codegen::Module& module, const std::string& name, const Program& p,
                   const codegen::FunctionOptions& options) {
  for (std::size_t k = 0; k < p.helpers.size(); ++k) {
    const Helper& h = p.helpers[k];
    FunctionBuilder b(module, helperName(name, k), *parseFunctionType(helperSignature(p, h)), options);
    Lowering lowering(b, p, name, h.params);
    lowering.block(h.body);
    b.ret(lowering.yields(h.body));
    if (Error e = b.finish()) return e;
  }
  static const FunctionType type = *parseFunctionType(kSignature);
  FunctionBuilder b(module, name, type, options);
  Lowering(b, p, name, {kIo, kFm, kIm, kH, kG, kC, kD}).block(p.body);
  return b.finish();
}

}  // namespace memjit::difftest
