#include "program.h"

#include "memjit/type_syntax.h"

namespace memjit::difftest {

const char* opName(Op op) {
  static const char* const names[] = {
      "constant", "add", "sub", "mul", "div", "rem", "divsi", "divui", "remsi", "remui", "ceildivsi", "ceildivui",
      "floordivsi", "mulhi", "neg", "andi", "ori", "xori", "noti", "shl", "shr", "shrsi", "shrui", "rotl", "rotr",
      "ctpop", "ctlz", "cttz", "min", "max", "minnumf", "maxnumf", "minimumf", "maximumf", "abs", "cmp", "select",
      "cast", "bitcast", "sqrt", "rsqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
      "powi", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "erf", "erfc", "floor",
      "ceil", "round", "roundeven", "trunc", "copysign", "fma", "dim", "rank", "load"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(Op::Count));
  return names[static_cast<std::size_t>(op)];
}

bool isTranscendental(Op op) {
  switch (op) {
    case Op::Cbrt: case Op::Exp: case Op::Exp2: case Op::Expm1: case Op::Log: case Op::Log2: case Op::Log10:
    case Op::Log1p: case Op::Pow: case Op::Powi: case Op::Sin: case Op::Cos: case Op::Tan: case Op::Asin:
    case Op::Acos: case Op::Atan: case Op::Atan2: case Op::Sinh: case Op::Cosh: case Op::Tanh: case Op::Erf:
    case Op::Erfc:
      return true;
    default:
      return false;
  }
}

std::size_t countStatements(const Block& b) {
  std::size_t n = 0;
  for (const Stmt& s : b.stmts) {
    ++n;
    for (const Block& inner : s.blocks) n += countStatements(inner);
  }
  return n;
}

std::size_t countStatements(const Program& p) {
  std::size_t n = countStatements(p.body);
  for (const Helper& h : p.helpers) n += countStatements(h.body);
  return n;
}

std::string helperSignature(const Program& p, const Helper& h) {
  auto typeName = [&](int id) {
    const ValueType& t = p.values[static_cast<std::size_t>(id)];
    if (t.rank == 0) return toString(t.elem);
    return "memref<?x?x" + toString(t.elem) + ", strided<[?, ?], offset: ?>>";
  };
  std::string s = "(";
  for (std::size_t i = 0; i < h.params.size(); ++i) s += (i ? ", " : "") + typeName(h.params[i]);
  s += ") -> (";
  for (std::size_t i = 0; i < h.body.yields.size(); ++i) s += (i ? ", " : "") + typeName(h.body.yields[i]);
  return s + ")";
}

}  // namespace memjit::difftest
