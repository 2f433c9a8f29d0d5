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
      case Op::Dim: return "b.dim(" + a(0) + ", " + std::to_string(s.imm) + ")";
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
        std::string reductions = "{";
        for (std::size_t k = 0; k < s.reductions.size(); ++k)
          reductions += std::string(k ? ", " : "") + "Reduction::" + kinds[s.reductions[k]] + "(" + v(s.args[3 + k]) + ")";
        reductions += "}";
        const Block& body = s.blocks[0];
        line(indent, "auto " + r + " = b.parallelReduce(" + v(s.args[0]) + ", " + v(s.args[1]) + ", " + v(s.args[2]) +
                         ", ParallelOptions{.chunk = " + std::to_string(s.imm & 0xffffffff) + ", .schedule = ParallelSchedule::" +
                         ((s.imm >> 32) ? "Dynamic" : "Static") + "}, " + reductions + ", [&](Value " + v(body.params[0]) + ") {");
        block(body, indent + 2);
        line(indent + 2, "return std::vector<Value>" + list(body.yields) + ";");
        line(indent, "});");
        results(s, indent, r);
        return;
      }
      case StmtKind::If: {
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
      case StmtKind::Store:
        line(indent, "b.store(" + v(s.args[0]) + ", " + v(s.args[1]) + ", " + list(s.args, 2) + ");");
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
  o << "  auto build = [&](FunctionBuilder& b) {\n";
  o << "    Value io = b.arg(0), fm = b.arg(1), im = b.arg(2), h = b.arg(3), g = b.arg(4), c = b.arg(5), d = b.arg(6);\n";
  o << "    (void)fm, (void)im, (void)h, (void)g, (void)c, (void)d;\n";
  o << Printer(p).run();
  o << "  };\n";
  o << "  EXPECT_EQ(memjit::difftest::checkRegression(s, build, e), \"\");\n";
  o << "}\n";
  return o.str();
}

}  // namespace memjit::difftest
