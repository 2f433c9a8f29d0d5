#include "builder_util.h"

#include "memjit/type_syntax.h"

namespace memjit::codegen::detail {

void fail(FunctionBuilder& self, Error e) {
  auto& I = BuilderOps::impl(self);
  if (!I.error) I.error = e.withContext("in function '" + I.name + "'");
}

std::string describeOperands(std::initializer_list<const Value*> vs) {
  std::string s = "(";
  bool first = true;
  for (const Value* v : vs) {
    if (!first) s += ", ";
    first = false;
    s += v->valid() ? toString(v->type()) : "<invalid>";
  }
  return s + ")";
}

bool checkOperands(FunctionBuilder& self, std::string_view op, std::initializer_list<const Value*> vs) {
  auto& I = BuilderOps::impl(self);
  if (I.error) return false;
  if (I.returned) {
    fail(self, Error(ErrorCode::InvalidArgument,
                     "operation '" + std::string(op) + "' after the function returned"));
    return false;
  }
  std::size_t k = 0;
  for (const Value* v : vs) {
    if (!v->valid()) {
      fail(self, Error(ErrorCode::InvalidArgument,
                       "operation '" + std::string(op) + "': operand #" + std::to_string(k) + " is not a value"));
      return false;
    }
    if (v->builder() != &self) {
      fail(self, Error(ErrorCode::InvalidArgument,
                       "operation '" + std::string(op) + "': operand #" + std::to_string(k) + " of type " +
                           toString(v->type()) + " is a value of another function, not of '" + I.name + "'"));
      return false;
    }
    ++k;
  }
  return true;
}

std::optional<ElementType> scalarOperand(FunctionBuilder& self, std::string_view op, const Value& v) {
  if (!checkOperands(self, op, {&v})) return std::nullopt;
  if (!isScalar(v.type())) {
    fail(self, Error(ErrorCode::TypeMismatch,
                     "operation '" + std::string(op) + "': needs a scalar, got " + toString(v.type())));
    return std::nullopt;
  }
  return std::get<ElementType>(v.type());
}

std::optional<ElementType> numericScalar(FunctionBuilder& self, std::string_view op, const Value& v) {
  auto t = scalarOperand(self, op, v);
  if (!t) return t;
  if (!isInteger(*t) && !isFloat(*t) && *t != ElementType::Index) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) +
                                                  "': needs an integer, index or float operand, got " +
                                                  toString(*t)));
    return std::nullopt;
  }
  return t;
}

std::optional<ElementType> sameNumericScalar(FunctionBuilder& self, std::string_view op, const Value& a,
                                             const Value& b) {
  if (!checkOperands(self, op, {&a, &b})) return std::nullopt;
  auto ta = numericScalar(self, op, a);
  if (!ta) return ta;
  auto tb = numericScalar(self, op, b);
  if (!tb) return tb;
  if (*ta != *tb) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': operand types differ " +
                                                  describeOperands({&a, &b})));
    return std::nullopt;
  }
  return ta;
}

}  // namespace memjit::codegen::detail
