// Internal: operand checks and error recording shared by builder*.cpp.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "builder_impl.h"

namespace memjit::codegen::detail {

/// Records `e` as the builder's error unless one is already recorded.
void fail(FunctionBuilder& self, Error e);

/// "(f32, memref<?xi32>)": the operands' types for messages.
std::string describeOperands(std::initializer_list<const Value*> vs);

/// False (with an error recorded) when an error is pending, an operand is
/// invalid or from another builder, or the function already returned.
bool checkOperands(FunctionBuilder& self, std::string_view op, std::initializer_list<const Value*> vs);

/// The scalar type of `v` or an error.
std::optional<ElementType> scalarOperand(FunctionBuilder& self, std::string_view op, const Value& v);
/// A scalar with arithmetic (integer, index or float).
std::optional<ElementType> numericScalar(FunctionBuilder& self, std::string_view op, const Value& v);
/// Two arithmetic scalars of one type.
std::optional<ElementType> sameNumericScalar(FunctionBuilder& self, std::string_view op, const Value& a,
                                             const Value& b);

}  // namespace memjit::codegen::detail
