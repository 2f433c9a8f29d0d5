// Internal: operand checks and error recording shared by builder*.cpp.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "builder_impl.h"

namespace llvm {
class FastMathFlags;
class Function;
class IRBuilderBase;
class Type;
class Value;
}  // namespace llvm

namespace memjit::codegen::detail {

/// `fptrunc` of a float value `x` to `to`, except f64 -> bf16: LLVM lowers
/// that to __truncdfbf2, which no runtime here provides, and going through
/// f32 with two roundings to nearest would be wrong for values near a bf16
/// midpoint. It rounds to odd into f32 (exact, as a tie cannot arise), then
/// to nearest even into bf16, which together round correctly.
llvm::Value* truncateFloat(llvm::IRBuilderBase& ir, llvm::Value* x, llvm::Type* to);

/// An integer to `to` with one rounding. LLVM converts integers to bf16
/// through f32, which rounds twice for integers wider than f32's 24-bit
/// significand (2^40 + 2^32 + 1 became 2^40, not 2^40 + 2^33). Wider
/// integers are rounded to odd at 53 bits in integer arithmetic, converted
/// exactly to f64, and narrowed with truncateFloat.
llvm::Value* integerToFloat(llvm::IRBuilderBase& ir, llvm::Value* x, bool isSigned, llvm::Type* to);

/// abs (`sign` null, `flip` false), neg (`flip`) or copysign (`sign`) of a
/// half `x` as integer operations on its sign bit. LLVM's x86 back end
/// computes fabs/fneg/copysign of a half through f32, and narrowing back
/// flushes bf16 denormals (vcvtneps2bf16) and quiets signalling NaNs.
llvm::Value* halfSignOp(llvm::IRBuilderBase& ir, llvm::Value* x, llvm::Value* sign, bool flip);

/// A float (or vector) `x` to the integer type `to`, saturating: NaN gives 0,
/// a value beyond the type its nearest bound, anything else truncates. As
/// selects around fptosi/fptoui (whose poison for out-of-range values the
/// selects never pick), because LLVM 19's x86 back end turns vector
/// llvm.fpto[su]i.sat into a scalar conversion per lane.
llvm::Value* floatToInteger(llvm::IRBuilderBase& ir, llvm::Value* x, bool isUnsigned, llvm::Type* to);

/// Whether operations that depend on signedness (`div`, `rem`, `shr`, `min`,
/// `max`, `abs`, `mulhi`, comparisons, casts, reductions) treat `t` as
/// unsigned: the `ui` types and `i1`, whose true is 1 (C++'s bool, MLIR's
/// `arith.extui`/`uitofp` of a condition). Ops that name their signedness
/// (`divsi`, `shrsi`, ...) keep it on i1.
inline bool isUnsignedLike(ElementType t) { return isUnsignedInteger(t) || t == ElementType::I1; }

/// LLVM's flags for memjit's.
llvm::FastMathFlags toLLVM(FastMath flags);
/// The function attributes clang sets for function-wide fast-math flags
/// (some passes, e.g. the vectoriser's min/max reductions, read only these).
void addFastMathAttributes(llvm::Function& f, FastMath flags);

/// Records `e` as the builder's error unless one is already recorded.
void fail(FunctionBuilder& self, Error e);

/// "(f32, memref<?xi32>)": the operands' types for messages.
/// Why MLIR's memref.cast cannot go from `from` to `to` (element type, memory
/// space, rank, or a size, the offset or a stride static and different in
/// the two), or empty when it can.
std::string memrefCastMismatch(const MemRefType& from, const MemRefType& to);
std::string describeOperands(std::initializer_list<const Value*> vs);

/// False (with an error recorded) when an error is pending, an operand is
/// invalid or from another builder, or the function already returned; and,
/// unless `allowVectors`, when an operand is a vector: operations that do not
/// lift element-wise refuse vectors here, so none takes one by mistake.
bool checkOperands(FunctionBuilder& self, std::string_view op, std::initializer_list<const Value*> vs,
                   bool allowVectors = false);

/// `scalar` (an LLVM scalar type) shaped as `like`: the vector of as many
/// lanes when `like` is a vector value, else `scalar` itself.
llvm::Type* shapedLike(llvm::Type* scalar, llvm::Type* like);

// The helpers below take scalars and vectors alike (the element-wise lifted
// operations) and return the element type; operands of several must have
// the same lanes.

/// The scalar type of `v` (a vector's element type) or an error.
std::optional<ElementType> scalarOperand(FunctionBuilder& self, std::string_view op, const Value& v);
/// A scalar with arithmetic (integer, index or float).
std::optional<ElementType> numericScalar(FunctionBuilder& self, std::string_view op, const Value& v);
/// Two arithmetic scalars of one type.
std::optional<ElementType> sameNumericScalar(FunctionBuilder& self, std::string_view op, const Value& a,
                                             const Value& b);
/// Integer or index scalars of one type (i1 included).
std::optional<ElementType> sameIntegerScalar(FunctionBuilder& self, std::string_view op,
                                             std::initializer_list<const Value*> vs);
/// Float scalars of one type.
std::optional<ElementType> sameFloatScalar(FunctionBuilder& self, std::string_view op,
                                           std::initializer_list<const Value*> vs);

}  // namespace memjit::codegen::detail
