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
  Lowering(FunctionBuilder& b, const Program& p) : b_(b), p_(p), vals_(p.values.size()) {
    for (int i = 0; i < kFixedValues; ++i) vals_[static_cast<std::size_t>(i)] = b.arg(static_cast<std::size_t>(i));
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
      case Op::Dim: return b_.dim(a(0), static_cast<std::size_t>(s.imm));
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
          switch (s.reductions[k]) {
            case Stmt::Sum: reductions.push_back(codegen::Reduction::sum(init)); break;
            case Stmt::Product: reductions.push_back(codegen::Reduction::product(init)); break;
            case Stmt::Min: reductions.push_back(codegen::Reduction::min(init)); break;
            case Stmt::Max: reductions.push_back(codegen::Reduction::max(init)); break;
          }
        }
        codegen::ParallelOptions po;
        po.chunk = static_cast<std::int64_t>(s.imm & 0xffffffff);
        po.schedule = (s.imm >> 32) ? codegen::ParallelSchedule::Dynamic : codegen::ParallelSchedule::Static;
        auto results = b_.parallelReduce(v(s.args[0]), v(s.args[1]), v(s.args[2]), po, reductions, [&](Value iv) {
          const Block& body = s.blocks[0];
          v(body.params[0]) = iv;
          block(body);
          return yields(body);
        });
        for (std::size_t i = 0; i < s.results.size() && i < results.size(); ++i) v(s.results[i]) = results[i];
        return;
      }
      case StmtKind::If: {
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

  FunctionBuilder& b_;
  const Program& p_;
  std::vector<Value> vals_;
  std::unordered_map<int, std::uint64_t> constants_;
};

}  // namespace

Error lowerProgram(codegen::Module& module, const std::string& name, const Program& p,
                   const codegen::FunctionOptions& options) {
  static const FunctionType type = *parseFunctionType(kSignature);
  FunctionBuilder b(module, name, type, options);
  Lowering(b, p).block(p.body);
  return b.finish();
}

}  // namespace memjit::difftest
