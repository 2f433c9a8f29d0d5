// toBuilderSnippet: a Program as a gtest of FunctionBuilder calls.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "float_formats.h"
#include "interpreter.h"
#include "reduce.h"

namespace memjit::difftest {
namespace {

const char* enumName(ElementType t) {
  switch (t) {
    case ElementType::I1: return "I1";
    case ElementType::I8: return "I8";
    case ElementType::I16: return "I16";
    case ElementType::I32: return "I32";
    case ElementType::I64: return "I64";
    case ElementType::SI8: return "SI8";
    case ElementType::SI16: return "SI16";
    case ElementType::SI32: return "SI32";
    case ElementType::SI64: return "SI64";
    case ElementType::UI8: return "UI8";
    case ElementType::UI16: return "UI16";
    case ElementType::UI32: return "UI32";
    case ElementType::UI64: return "UI64";
    case ElementType::F16: return "F16";
    case ElementType::BF16: return "BF16";
    case ElementType::F32: return "F32";
    case ElementType::F64: return "F64";
    case ElementType::Index: return "Index";
    default: return "I64";
  }
}

std::string et(ElementType t) { return std::string("ElementType::") + enumName(t); }
std::string hexU(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64 "ULL", v);
  return b;
}
std::string signedLiteral(std::int64_t v) {
  if (v == INT64_MIN) return "INT64_MIN";
  return std::to_string(v) + "LL";
}
std::string floatLiteral(double d, bool asFloat) {
  if (std::isinf(d)) return d < 0 ? "-INFINITY" : "INFINITY";
  char b[64];
  std::snprintf(b, sizeof b, "%a", d);
  return std::string(b) + (asFloat ? "f" : "");
}
std::string intLiteral(ElementType t, std::uint64_t bits) {
  return isUnsignedInteger(t) || t == ElementType::I1 ? hexU(bits) : signedLiteral(signExtend(bits, widthOf(t)));
}
const char* signlessName(unsigned w) {
  return w == 8 ? "ElementType::I8" : w == 16 ? "ElementType::I16" : w == 32 ? "ElementType::I32" : "ElementType::I64";
}

class Printer {
 public:
  explicit Printer(const Program& p) : p_(p) {}
  std::string run() {
    block(p_.body, 4);
    return out_.str();
  }
  // Helper k's definition, in a module `module` (the body of the snippet's `helpers` lambda).
  std::string helper(std::size_t k) {
    const Helper& h = p_.helpers[k];
    line(4, "{");
    line(6, "FunctionBuilder b(module, \"h" + std::to_string(k) + "\", *memjit::parseFunctionType(\"" +
                helperSignature(p_, h) + "\"), options);");
    for (std::size_t i = 0; i < h.params.size(); ++i)
      line(6, "Value " + v(h.params[i]) + " = b.arg(" + std::to_string(i) + ");");
    block(h.body, 6);
    line(6, "b.ret(" + list(h.body.yields) + ");");
    line(6, "if (memjit::Error e = b.finish()) return e;");
    line(4, "}");
    std::string r = out_.str();
    out_.str("");
    return r;
  }

 private:
  std::string v(int id) const {
    static const char* const args[] = {"io", "fm", "im", "h", "g", "c", "d"};
    return id < kFixedValues ? args[id] : "v" + std::to_string(id);
  }
  ElementType typeOf(int id) const { return p_.values[static_cast<std::size_t>(id)].elem; }
  void line(int indent, const std::string& s) { out_ << std::string(static_cast<std::size_t>(indent), ' ') << s << "\n"; }
  std::string list(const std::vector<int>& ids, std::size_t from = 0) const {
    std::string s = "{";
    for (std::size_t i = from; i < ids.size(); ++i) s += (i > from ? ", " : "") + v(ids[i]);
    return s + "}";
  }
  std::string constant(const Stmt& s) const {
    if (isFloat(s.type)) {
      if (isNaNBits(s.type, s.imm))
        return "b.bitcast(b.constant(" + std::string(signlessName(bitWidth(s.type))) + ", " + hexU(s.imm) + "), " +
               et(s.type) + ")";
      return "b.constant(" + et(s.type) + ", " + floatLiteral(decodeFloat(s.type, s.imm), false) + ")";
    }
    return "b.constant(" + et(s.type) + ", " + intLiteral(s.type, s.imm) + ")";
  }
  std::string expr(const Stmt& s) {
    std::vector<std::string> names;
    for (int id : s.args) names.push_back(v(id));
    return expr(s, names);
  }
  std::string expr(const Stmt& s, const std::vector<std::string>& names) {
    if (s.op == Op::Const) return constant(s);
    auto a = [&](std::size_t i) { return names[i]; };
    if (s.literal && s.kind == StmtKind::Assign && constants_.count(s.args[1])) {
      const ElementType t = typeOf(s.args[1]);
      const std::uint64_t bits = constants_[s.args[1]];
      const char* sym = s.op == Op::Add ? "+" : s.op == Op::Sub ? "-" : s.op == Op::Mul ? "*" : s.op == Op::And ? "&" : s.op == Op::Or ? "|" : "^";
      if (!isFloat(t)) return a(0) + " " + sym + " " + intLiteral(t, bits);
      const double d = decodeFloat(t, bits);
      if (std::isfinite(d)) return a(0) + " " + sym + " " + floatLiteral(d, t != ElementType::F64);
    }
    switch (s.op) {
      case Op::Cmp: {
        static const char* const preds[] = {"Eq", "Ne", "Lt", "Le", "Gt", "Ge"};
        return "b.cmp(CmpPredicate::" + std::string(preds[s.imm]) + ", " + a(0) + ", " + a(1) + ")";
      }
      case Op::Cast: return "b.cast(" + a(0) + ", " + et(s.type) + ")";
      case Op::Bitcast: return "b.bitcast(" + a(0) + ", " + et(s.type) + ")";
      case Op::Dim:  // as the lowering does it: every third through the unranked form
        return "b.dim(" + (s.results[0] % 3 == 0 ? "b.castToUnranked(" + a(0) + ")" : a(0)) + ", " + std::to_string(s.imm) + ")";
      case Op::Rank:  // as the lowering does it: every other one through the unranked form
        return "b.rank(" + (s.results[0] % 2 == 0 ? "b.castToUnranked(" + a(0) + ")" : a(0)) + ")";
      case Op::Load: {
        std::vector<int> idx(s.args.begin() + 1, s.args.end());
        return "b.load(" + a(0) + ", " + list(idx) + ")";
      }
      default: {
        std::string call = std::string("b.") + opName(s.op) + "(";
        for (std::size_t i = 0; i < names.size(); ++i) call += (i ? ", " : "") + a(i);
        return call + ")";
      }
    }
  }
  std::string asI64(int id) const {
    const ElementType t = typeOf(id);
    if (isFloat(t)) return "b.cast(b.bitcast(" + v(id) + ", " + signlessName(bitWidth(t)) + "), ElementType::I64)";
    if (t == ElementType::SI64 || t == ElementType::UI64) return "b.bitcast(" + v(id) + ", ElementType::I64)";
    if (t == ElementType::I64) return v(id);
    return "b.cast(" + v(id) + ", ElementType::I64)";
  }
  void block(const Block& blk, int indent) {
    for (const Stmt& s : blk.stmts) stmt(s, indent);
  }
  void results(const Stmt& s, int indent, const std::string& name) {
    for (std::size_t i = 0; i < s.results.size(); ++i)
      line(indent, "Value " + v(s.results[i]) + " = " + name + "[" + std::to_string(i) + "];");
  }
  void stmt(const Stmt& s, int indent) {
    switch (s.kind) {
      case StmtKind::Assign:
        if (s.op == Op::Const) constants_[s.results[0]] = s.imm;
        line(indent, "Value " + v(s.results[0]) + " = " + expr(s) + ";");
        return;
      case StmtKind::For: {
        const std::string r = "r" + std::to_string(s.results.empty() ? nextTemp_++ : s.results[0]);
        const Block& body = s.blocks[0];
        line(indent, "auto " + r + " = b.forLoop(" + v(s.args[0]) + ", " + v(s.args[1]) + ", " + v(s.args[2]) + ", " +
                         list(s.args, 3) + ", [&](Value " + v(body.params[0]) + ", const std::vector<Value>& carried) {");
        for (std::size_t i = 1; i < body.params.size(); ++i)
          line(indent + 2, "Value " + v(body.params[i]) + " = carried[" + std::to_string(i - 1) + "];");
        block(body, indent + 2);
        line(indent + 2, "return std::vector<Value>" + list(body.yields) + ";");
        line(indent, "});");
        results(s, indent, r);
        return;
      }
      case StmtKind::ParallelReduce: {
        const std::string r = "r" + std::to_string(s.results.empty() ? nextTemp_++ : s.results[0]);
        static const char* const kinds[] = {"sum", "product", "min", "max"};
        static const char* const custom[] = {"andi", "ori", "xori"};
        std::string reductions = "{";
        for (std::size_t k = 0; k < s.reductions.size(); ++k) {
          const std::string init = v(s.args[3 + k]);
          if (s.reductions[k] <= Stmt::Max) {
            reductions += std::string(k ? ", " : "") + "Reduction::" + kinds[s.reductions[k]] + "(" + init + ")";
            continue;
          }
          const int c = s.reductions[k] - Stmt::CustomAnd;
          const ElementType t = typeOf(s.args[3 + k]);
          reductions += std::string(k ? ", " : "") + "Reduction::custom(" + init + ", b.constant(" + et(t) + ", " +
                        (c == 0 ? intLiteral(t, maskOf(widthOf(t))) : "0") +
                        "), [&](Value x, Value y) { return b." + custom[c] + "(x, y); })";
        }
        reductions += "}";
        const Block& body = s.blocks[0];
        line(indent, "auto " + r + " = b.parallelReduce(" + v(s.args[0]) + ", " + v(s.args[1]) + ", " + v(s.args[2]) +
                         ", " + parallelOptions(s) + ", " + reductions + ", [&](Value " + v(body.params[0]) + ") {");
        block(body, indent + 2);
        line(indent + 2, "return std::vector<Value>" + list(body.yields) + ";");
        line(indent, "});");
        results(s, indent, r);
        return;
      }
      case StmtKind::ParallelFor: {
        const Block& body = s.blocks[0];
        line(indent, "b.parallelFor(" + v(s.args[0]) + ", " + v(s.args[1]) + ", " + v(s.args[2]) +
                         ", " + parallelOptions(s) + ", [&](Value " +
                         v(body.params[0]) + ") {");
        block(body, indent + 2);
        line(indent, "});");
        return;
      }
      case StmtKind::If: {
        if (s.results.empty() && s.blocks[1].stmts.empty()) {  // as the lowering does it
          line(indent, "b.ifThen(" + v(s.args[0]) + ", [&] {");
          block(s.blocks[0], indent + 2);
          line(indent, "});");
          return;
        }
        const std::string r = "r" + std::to_string(s.results.empty() ? nextTemp_++ : s.results[0]);
        line(indent, "auto " + r + " = b.ifElse(" + v(s.args[0]) + ", [&] {");
        block(s.blocks[0], indent + 2);
        line(indent + 2, "return std::vector<Value>" + list(s.blocks[0].yields) + ";");
        line(indent, "}, [&] {");
        block(s.blocks[1], indent + 2);
        line(indent + 2, "return std::vector<Value>" + list(s.blocks[1].yields) + ";");
        line(indent, "});");
        results(s, indent, r);
        return;
      }
      case StmtKind::Vector: {
        const auto lanes = static_cast<std::size_t>(s.sizes[0]);
        const std::string r = "x" + std::to_string(s.results[0]);
        std::vector<std::string> names;
        for (std::size_t j = 0; j < s.args.size() / lanes; ++j) {
          std::vector<int> scalars;
          for (std::size_t k = 0; k < lanes; ++k) scalars.push_back(s.args[j * lanes + k]);
          names.push_back(r + "_" + std::to_string(j));
          line(indent, "Value " + names.back() + " = b.fromElements(" + list(scalars) + ");");
        }
        line(indent, "Value " + r + " = " + expr(s, names) + ";");
        for (std::size_t k = 0; k < lanes; ++k)
          line(indent, "Value " + v(s.results[k]) + " = b.extract(" + r + ", " + std::to_string(k) + ");");
        return;
      }
      case StmtKind::Atomic: {
        static const char* const kinds[] = {"Addi", "Andi",  "Ori",   "Xori",     "Maxs",     "Mins",    "Maxu",   "Minu",
                                            "Muli", "Assign", "Addf", "Maximumf", "Minimumf", "Maxnumf", "Minnumf"};
        const std::string call = "b.atomicRMW(AtomicKind::" + std::string(kinds[s.imm]) + ", " + v(s.args[0]) + ", " +
                                 v(s.args[1]) + ", " + list(s.args, 2) + ");";
        line(indent, s.results.empty() ? call : "Value " + v(s.results[0]) + " = " + call);
        return;
      }
      case StmtKind::CompareExchange: {
        const std::string pair = "x" + std::to_string(nextTemp_++);
        line(indent, "auto " + pair + " = b.atomicCompareExchange(" + v(s.args[2]) + ", " + list(s.args, 3) + ", " +
                         v(s.args[0]) + ", " + v(s.args[1]) + ");");
        line(indent, "Value " + v(s.results[0]) + " = " + pair + ".first, " + v(s.results[1]) + " = " + pair + ".second;");
        return;
      }
      case StmtKind::GenericAtomic: {
        const Block& body = s.blocks[0];
        line(indent, "Value " + v(s.results[0]) + " = b.genericAtomicRMW(" + v(s.args[0]) + ", " + list(s.args, 1) +
                         ", [&](Value " + v(body.params[0]) + ") {");
        block(body, indent + 2);
        line(indent + 2, "return " + v(body.yields[0]) + ";");
        line(indent, "});");
        return;
      }
      case StmtKind::ArrayReduce: {
        static const char* const kinds[] = {"sum", "product", "min", "max"};
        static const char* const combine[] = {"b.add", "b.mul", "b.min", "b.max"};
        const Block& body = s.blocks[0];
        line(indent, "b.parallelReduce(" + v(s.args[0]) + ", " + v(s.args[1]) + ", " + v(s.args[2]) +
                         ", ParallelOptions{.chunk = " + std::to_string(s.imm & 0xffffffff) +
                         ", .schedule = ParallelSchedule::" + ((s.imm >> 32) ? "Dynamic" : "Static") +
                         "}, {ArrayReduction::" + kinds[s.reductions[0]] + "(" + v(s.args[3]) + ")}, [&](Value " +
                         v(body.params[0]) + ", const std::vector<Value>& own) {");
        block(body, indent + 2);
        const std::string idx = list(body.yields, 1);
        line(indent + 2, "b.store(" + std::string(combine[s.reductions[0]]) + "(b.load(own[0], " + idx + "), " +
                             v(body.yields[0]) + "), own[0], " + idx + ");");
        line(indent, "});");
        return;
      }
      case StmtKind::Lanes:
        lanes(s, indent);
        return;
      case StmtKind::Call: {
        const std::string r = "r" + std::to_string(s.results.empty() ? nextTemp_++ : s.results[0]);
        line(indent, "auto " + r + " = b.call(\"h" + std::to_string(s.imm) + "\", " + list(s.args) + ");");
        results(s, indent, r);
        return;
      }
      case StmtKind::Store:
        line(indent, "b.store(" + v(s.args[0]) + ", " + v(s.args[1]) + ", " + list(s.args, 2) + ");");
        return;
      case StmtKind::Alloc: {
        const std::string rows = std::to_string(s.sizes[0]), cols = std::to_string(s.sizes[1]);
        const std::string type = "memjit::MemRefType(" + et(typeOf(s.args[0])) + ", " +
                                 (s.imm == 1 ? "{memjit::kDynamic, memjit::kDynamic}), {b.index(" + rows + "), b.index(" + cols + ")}"
                                             : "{" + rows + ", " + cols + "})");
        line(indent, "Value " + v(s.results[0]) + " = b.alloc(" + type + ");");
        line(indent, "b.forLoop(b.index(0), b.index(" + rows + "), b.index(1), [&](Value i) {");
        line(indent + 2, "b.forLoop(b.index(0), b.index(" + cols + "), b.index(1), [&](Value j) { b.store(" + v(s.args[0]) +
                             ", " + v(s.results[0]) + ", {i, j}); });");
        line(indent, "});");
        return;
      }
      case StmtKind::MemrefCast: {
        auto dims = [](const std::vector<std::int64_t>& xs, std::int64_t dynamic) {
          std::string r = "{";
          for (std::size_t i = 0; i < xs.size(); ++i)
            r += (i ? ", " : "") + (xs[i] == dynamic ? std::string("memjit::kDynamic") : std::to_string(xs[i]));
          return r + "}";
        };
        std::string type =
            "memjit::MemRefType(" + et(p_.values[static_cast<std::size_t>(s.args[0])].elem) + ", " + dims(s.sizes, -1);
        if (!(s.imm & 1)) {
          const std::string offset = dims(s.offsets, kAnyStride);
          type += ", memjit::StridedLayout{" + offset.substr(1, offset.size() - 2) + ", " + dims(s.strides, kAnyStride) + "}";
        }
        type += ")";
        if (s.imm & 2)
          line(indent, "Value " + v(s.results[0]) + " = b.castToRanked(b.castToUnranked(" + v(s.args[0]) + "), " + type + ");");
        else
          line(indent, "Value " + v(s.results[0]) + " = b.memrefCast(" + v(s.args[0]) + ", " + type + ");");
        return;
      }
      case StmtKind::Dealloc:
        line(indent, "b.dealloc(" + v(s.args[0]) + ");");
        return;
      case StmtKind::Subview: {
        auto ints = [](const std::vector<std::int64_t>& xs) {
          std::string r = "{";
          for (std::size_t i = 0; i < xs.size(); ++i) r += (i ? ", " : "") + std::to_string(xs[i]);
          return r + "}";
        };
        line(indent, "Value " + v(s.results[0]) + " = b.subview(" + v(s.args[0]) + ", " + ints(s.offsets) + ", " +
                         ints(s.sizes) + ", " + ints(s.strides) + ");");
        return;
      }
      case StmtKind::Output:
        line(indent, "b.store(" + asI64(s.args[0]) + ", io, {b.index(" + std::to_string(p_.inputs + static_cast<int>(s.imm)) + ")});");
        return;
      case StmtKind::Return:
        line(indent, "b.ret({" + v(s.args[0]) + "});");
        return;
    }
  }

  static std::string parallelOptions(const Stmt& s) {
    return "ParallelOptions{.chunk = " + std::to_string(s.imm & 0xffffffff) + ", .schedule = ParallelSchedule::" +
           ((s.imm >> 32) & 1 ? "Dynamic" : "Static") + ((s.imm >> 33) & 1 ? ", .deterministic = true" : "") + "}";
  }
  // The same builder calls as lowering.cpp's Lowering::lanes.
  void lanes(const Stmt& s, int indent) {
    const auto n = static_cast<std::size_t>(s.sizes[0]);
    const std::string r = "l" + std::to_string(nextTemp_++);
    auto vec = [&](std::size_t first) {
      std::vector<int> scalars(s.args.begin() + static_cast<std::ptrdiff_t>(first),
                               s.args.begin() + static_cast<std::ptrdiff_t>(first + n));
      return "b.fromElements(" + list(scalars) + ")";
    };
    // Results [first, first + count) are lanes 0.. of `vector`.
    auto extractFrom = [&](const std::string& vector, std::size_t first, std::size_t count) {
      for (std::size_t k = 0; k < count; ++k)
        line(indent, "Value " + v(s.results[first + k]) + " = b.extract(" + vector + ", " + std::to_string(k) + ");");
    };
    auto extractAll = [&](const std::string& e) {
      line(indent, "Value " + r + " = " + e + ";");
      extractFrom(r, 0, n);
    };
    static const char* const kinds[] = {"Add", "Mul", "Min", "Max", "Minimumf", "Maximumf", "And", "Or", "Xor"};
    switch (s.lane) {
      case LaneOp::Splat: extractAll("b.splat(" + v(s.args[0]) + ", " + std::to_string(n) + ")"); return;
      case LaneOp::Step: extractAll("b.laneIndices(" + et(s.type) + ", " + std::to_string(n) + ")"); return;
      case LaneOp::Insert: extractAll("b.insert(" + vec(0) + ", " + v(s.args[n]) + ", " + v(s.args[n + 1]) + ")"); return;
      case LaneOp::Extract:
        line(indent, "Value " + v(s.results[0]) + " = b.extract(" + vec(0) + ", " + v(s.args[n]) + ");");
        return;
      case LaneOp::Reduce:
        line(indent, "Value " + v(s.results[0]) + " = b.reduce(FunctionBuilder::VectorReduction::" +
                         kinds[static_cast<int>(s.laneReduction)] + ", " + vec(0) + ");");
        return;
      case LaneOp::Shuffle: {
        std::string mask;
        for (std::int64_t m : s.offsets) mask += (mask.empty() ? "" : ", ") + std::to_string(m);
        line(indent, "Value " + r + " = b.shuffle(" + vec(0) + ", " + vec(n) + ", {" + mask + "});");
        extractFrom(r, 0, s.offsets.size());
        return;
      }
      case LaneOp::Interleave:
        line(indent, "Value " + r + " = b.interleave(" + vec(0) + ", " + vec(n) + ");");
        extractFrom(r, 0, 2 * n);
        return;
      case LaneOp::Deinterleave:
        line(indent, "auto [" + r + "e, " + r + "o] = b.deinterleave(" + vec(0) + ");");
        extractFrom(r + "e", 0, n / 2);
        extractFrom(r + "o", n / 2, n / 2);
        return;
      case LaneOp::Dot: {
        const std::size_t g = s.imm == kDotU8S8 ? 4 : 2;
        auto lanesFrom = [&](std::size_t first, std::size_t count) {
          std::vector<int> scalars(s.args.begin() + static_cast<std::ptrdiff_t>(first),
                                   s.args.begin() + static_cast<std::ptrdiff_t>(first + count));
          return "b.fromElements(" + list(scalars) + ")";
        };
        extractAll("b.dot(" + vec(0) + ", " + lanesFrom(n, g * n) + ", " + lanesFrom(n + g * n, g * n) + ")");
        return;
      }
      default: break;
    }
    const std::string m = v(s.args[0]), at = "{" + v(s.args[1]) + ", " + v(s.args[2]) + "}";
    auto mask = [&](std::size_t first) {
      if (s.unguarded) return vec(first);
      return "b.andi(" + vec(first) + ", b.createMask(" + std::to_string(n) + ", b.sub(b.dim(" + m + ", 1), " +
             v(s.args[2]) + ")))";
    };
    auto unitStride = [&] {
      const ValueType& vt = p_.values[static_cast<std::size_t>(s.args[0])];
      return "b.reinterpretCast(" + m + ", memjit::MemRefType(" + et(vt.elem) +
             ", {memjit::kDynamic, memjit::kDynamic}, memjit::StridedLayout{.offset = memjit::kDynamic, .strides = "
             "{memjit::kDynamic, 1}}), " + std::to_string(vt.offset) + ", {" + std::to_string(vt.sizes[0]) + ", " +
             std::to_string(vt.sizes[1]) + "}, {" + std::to_string(vt.strides[0]) + ", " + std::to_string(vt.strides[1]) + "})";
    };
    switch (s.lane) {
      case LaneOp::MaskedLoad: extractAll("b.maskedLoad(" + unitStride() + ", " + at + ", " + mask(3) + ", " + vec(3 + n) + ")"); return;
      case LaneOp::MaskedStore:
        line(indent, "b.maskedStore(" + vec(3 + n) + ", " + unitStride() + ", " + at + ", " + mask(3) + ");");
        return;
      case LaneOp::Gather: extractAll("b.gather(" + m + ", " + at + ", " + vec(3) + ", " + vec(3 + n) + ", " + vec(3 + 2 * n) + ")"); return;
      case LaneOp::Scatter:
        line(indent, "b.scatter(" + vec(3 + 2 * n) + ", " + m + ", " + at + ", " + vec(3) + ", " + vec(3 + n) + ");");
        return;
      case LaneOp::TransferRead: extractAll("b.transferRead(" + m + ", " + at + ", " + std::to_string(n) + ", " + v(s.args[3]) + ")"); return;
      case LaneOp::TransferWrite: line(indent, "b.transferWrite(" + vec(3) + ", " + m + ", " + at + ");"); return;
      case LaneOp::VectorLoad: extractAll("b.vectorLoad(" + unitStride() + ", " + at + ", " + std::to_string(n) + ")"); return;
      case LaneOp::VectorStore: line(indent, "b.vectorStore(" + vec(3) + ", " + unitStride() + ", " + at + ");"); return;
      default: return;
    }
  }

  const Program& p_;
  std::ostringstream out_;
  std::map<int, std::uint64_t> constants_;
  int nextTemp_ = 1000000;
};

std::string u64s(const std::vector<std::uint64_t>& xs) {
  std::string s = "{";
  for (std::size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + hexU(xs[i]);
  return s + "}";
}
std::string i64s(const std::vector<std::int64_t>& xs) {
  std::string s = "{";
  for (std::size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
  return s + "}";
}
void memArg(std::ostringstream& o, const char* name, const MemArg& m) {
  o << "  s." << name << ".sizes = " << i64s(m.sizes) << ";\n";
  o << "  s." << name << ".strides = " << i64s(m.strides) << ";\n";
  o << "  s." << name << ".offset = " << m.offset << ";\n";
  o << "  s." << name << ".data = " << u64s(m.data) << ";\n";
}

}  // namespace

std::string toBuilderSnippet(const Program& p) {
  const Outcome e = interpret(p);
  std::ostringstream o;
  o << "// memjit-difftest seed " << p.seed << ": `memjit-difftest --seed " << p.seed << " --count 1`\n";
  o << "TEST(DifftestRegression, Seed" << p.seed << ") {\n";
  o << "  using namespace memjit::codegen;\n  using memjit::ElementType;\n";
  o << "  memjit::difftest::Program s;\n";
  o << "  s.inputs = " << p.inputs << ";\n  s.outputs = " << p.outputs << ";\n";
  o << "  s.io = " << u64s(p.io) << ";\n";
  memArg(o, "fm", p.fm);
  memArg(o, "im", p.im);
  o << "  s.h = " << hexU(p.h) << ", s.g = " << hexU(p.g) << ", s.c = " << hexU(p.c) << ", s.d = " << hexU(p.d) << ";\n";
  o << "  memjit::difftest::Expectations e;\n";
  for (int k = 0; k < p.outputs && e.trap.empty(); ++k) {
    const Val& v = e.outputs[static_cast<std::size_t>(k)];
    if (v.flags == kExact)
      o << "  e.outputs.push_back({" << k << ", " << hexU(outputBits(e.outputTypes[static_cast<std::size_t>(k)], v.bits)) << "});\n";
  }
  if (e.trap.empty() && e.ret.flags == kExact) o << "  e.hasRet = true, e.ret = " << hexU(e.ret.bits) << ";\n";
  for (std::size_t i = 0; i < e.fm.size(); ++i)
    if (e.fm[i].flags == kExact && e.fm[i].bits != p.fm.data[i]) o << "  e.fm.push_back({" << i << ", " << hexU(e.fm[i].bits) << "});\n";
  for (std::size_t i = 0; i < e.im.size(); ++i)
    if (e.im[i].flags == kExact && e.im[i].bits != p.im.data[i]) o << "  e.im.push_back({" << i << ", " << hexU(e.im[i].bits) << "});\n";
  if (!p.helpers.empty()) {
    o << "  auto helpers = [&](Module& module, const memjit::codegen::FunctionOptions& options) -> memjit::Error {\n";
    Printer printer(p);
    for (std::size_t k = 0; k < p.helpers.size(); ++k) o << printer.helper(k);
    o << "    return memjit::Error::success();\n  };\n";
  }
  o << "  auto build = [&](FunctionBuilder& b) {\n";
  o << "    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);\n";
  o << "    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;\n";
  o << Printer(p).run();
  o << "  };\n";
  o << "  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e" << (p.helpers.empty() ? "" : ", helpers")
    << "), \"\");\n";
  o << "}\n";
  return o.str();
}

}  // namespace memjit::difftest
