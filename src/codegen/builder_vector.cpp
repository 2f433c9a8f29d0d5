// The kernel builder: vector values (MLIR's vector dialect over 1-D vectors).
// Each operation lowers as MLIR's -convert-vector-to-llvm lowers the op it
// is named after; the element-wise lifting of the scalar operations lives
// with them (builder.cpp, builder_math.cpp, builder_integer.cpp).
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "builder_checks.h"
#include "builder_impl.h"
#include "builder_util.h"
#include "memjit/codegen/vector_target.h"
#include "memjit/runtime/checks.h"
#include "memjit/type_syntax.h"
#include "mutants.h"

namespace memjit::codegen {

using detail::checkOperands;
using detail::describeOperands;
using detail::fail;

namespace {

using Impl = BuilderOps::Impl;

bool checkLanes(FunctionBuilder& self, std::string_view op, std::int64_t lanes) {
  if (lanes >= 1 && lanes <= VectorType::kMaxLanes) return true;
  fail(self, Error(ErrorCode::InvalidArgument, "operation '" + std::string(op) + "': " + std::to_string(lanes) +
                                                   " lanes (a vector has 1 to " +
                                                   std::to_string(VectorType::kMaxLanes) + ")"));
  return false;
}

// A vector operand (any element type) or an error naming the op.
bool vectorOperand(FunctionBuilder& self, std::string_view op, const Value& v) {
  if (!checkOperands(self, op, {&v}, true)) return false;
  if (v.isVector()) return true;
  fail(self, Error(ErrorCode::TypeMismatch,
                   "operation '" + std::string(op) + "': needs a vector, got " + v.typeName()));
  return false;
}

// A scalar that may fill a vector's lane.
std::optional<ElementType> laneScalar(FunctionBuilder& self, std::string_view op, const Value& v) {
  if (!checkOperands(self, op, {&v})) return std::nullopt;
  if (!isScalar(v.type()) || !isVectorElement(std::get<ElementType>(v.type()))) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) +
                                                  "': needs an integer, index or float scalar, got " +
                                                  v.typeName()));
    return std::nullopt;
  }
  return std::get<ElementType>(v.type());
}

ElementType elementOfValue(const Value& v) { return std::get<ElementType>(v.type()); }

// A dynamic lane position: an index in range (checked mode stops otherwise).
llvm::Value* lanePosition(FunctionBuilder& self, std::string_view op, const Value& v, const Value& lane) {
  if (!checkOperands(self, op, {&lane})) return nullptr;
  if (!(lane.type() == Type(ElementType::Index))) {
    fail(self, Error(ErrorCode::TypeMismatch,
                     "operation '" + std::string(op) + "': the lane position must be index, got " + lane.typeName()));
    return nullptr;
  }
  if (detail::checking(self)) {
    llvm::Value* n = llvm::ConstantInt::get(lane.llvm()->getType(), v.lanes());
    detail::checkIndices(self, op, v.typeName(), {lane.llvm()}, {n});
  }
  return lane.llvm();
}

}  // namespace

std::uint32_t FunctionBuilder::nativeLanes(ElementType t) const { return VectorTarget::host().lanes(t); }

Value FunctionBuilder::splat(const Value& scalar, std::uint32_t lanes, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  auto t = laneScalar(*this, "splat", scalar);
  if (!t || !checkLanes(*this, "splat", lanes)) return {};
  // vector.broadcast of a scalar: insertelement + shufflevector zeroinitializer.
  return BuilderOps::make(*this, impl_->ir.CreateVectorSplat(lanes, scalar.llvm()), *t);
}

Value FunctionBuilder::fromElements(const std::vector<Value>& scalars, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (impl_->error) return {};
  if (!checkLanes(*this, "from_elements", static_cast<std::int64_t>(scalars.size()))) return {};
  auto t = laneScalar(*this, "from_elements", scalars[0]);
  if (!t) return {};
  std::vector<llvm::Constant*> constants;
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    if (!laneScalar(*this, "from_elements", scalars[i])) return {};
    if (!(scalars[i].type() == scalars[0].type())) {
      fail(*this, Error(ErrorCode::TypeMismatch, "operation 'from_elements': element #" + std::to_string(i) +
                                                     " is " + scalars[i].typeName() + ", element #0 is " +
                                                     scalars[0].typeName()));
      return {};
    }
    if (auto* c = llvm::dyn_cast<llvm::Constant>(scalars[i].llvm())) constants.push_back(c);
  }
  if (constants.size() == scalars.size()) return BuilderOps::make(*this, llvm::ConstantVector::get(constants), *t);
  auto& ir = impl_->ir;
  llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(scalars[0].llvm()->getType(),
                                                                      static_cast<unsigned>(scalars.size())));
  for (std::size_t i = 0; i < scalars.size(); ++i) v = ir.CreateInsertElement(v, scalars[i].llvm(), i);
  return BuilderOps::make(*this, v, *t);
}

Value FunctionBuilder::laneIndices(ElementType t, std::uint32_t lanes, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (impl_->error) return {};
  if (!(isInteger(t) && t != ElementType::I1) && t != ElementType::Index) {
    fail(*this, Error(ErrorCode::TypeMismatch,
                      "operation 'step': needs an integer or index element type, got " + toString(t)));
    return {};
  }
  if (!checkLanes(*this, "step", lanes)) return {};
  const unsigned w = bitWidth(t);
  const std::uint64_t largest = isSignedInteger(t) ? (std::uint64_t{1} << (w - 1)) - 1
                                : w >= 64         ? ~std::uint64_t{0}
                                                  : (std::uint64_t{1} << w) - 1;
  if (lanes - 1 > largest) {
    fail(*this, Error(ErrorCode::InvalidArgument, "operation 'step': lane " + std::to_string(lanes - 1) +
                                                      " does not fit " + toString(t)));
    return {};
  }
  llvm::Type* et = lowerElementType(impl_->ir.getContext(), t, impl_->opts());
  std::vector<llvm::Constant*> c;
  for (std::uint32_t i = 0; i < lanes; ++i) c.push_back(llvm::ConstantInt::get(et, i));
  return BuilderOps::make(*this, llvm::ConstantVector::get(c), t);
}

Value FunctionBuilder::extract(const Value& v, std::uint32_t lane, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!vectorOperand(*this, "extract", v)) return {};
  if (lane >= v.lanes()) {
    fail(*this, Error(ErrorCode::InvalidArgument, "operation 'extract': lane " + std::to_string(lane) +
                                                      " of " + v.typeName()));
    return {};
  }
  if (MEMJIT_MUTANT("extract_lane_reversed")) lane = v.lanes() - 1 - lane;
  return BuilderOps::make(*this, impl_->ir.CreateExtractElement(v.llvm(), lane), elementOfValue(v));
}

Value FunctionBuilder::extract(const Value& v, const Value& lane, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!vectorOperand(*this, "extract", v)) return {};
  llvm::Value* position = lanePosition(*this, "extract", v, lane);
  if (!position) return {};
  return BuilderOps::make(*this, impl_->ir.CreateExtractElement(v.llvm(), position), elementOfValue(v));
}

namespace {

bool insertOperands(FunctionBuilder& self, const Value& v, const Value& scalar) {
  if (!vectorOperand(self, "insert", v) || !laneScalar(self, "insert", scalar)) return false;
  if (scalar.type() == v.type()) return true;
  fail(self, Error(ErrorCode::TypeMismatch, "operation 'insert': cannot insert " + scalar.typeName() + " into " +
                                                v.typeName()));
  return false;
}

}  // namespace

Value FunctionBuilder::insert(const Value& v, const Value& scalar, std::uint32_t lane, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!insertOperands(*this, v, scalar)) return {};
  if (lane >= v.lanes()) {
    fail(*this, Error(ErrorCode::InvalidArgument, "operation 'insert': lane " + std::to_string(lane) +
                                                      " of " + v.typeName()));
    return {};
  }
  return BuilderOps::make(*this, impl_->ir.CreateInsertElement(v.llvm(), scalar.llvm(), lane), elementOfValue(v));
}

Value FunctionBuilder::insert(const Value& v, const Value& scalar, const Value& lane, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!insertOperands(*this, v, scalar)) return {};
  llvm::Value* position = lanePosition(*this, "insert", v, lane);
  if (!position) return {};
  return BuilderOps::make(*this, impl_->ir.CreateInsertElement(v.llvm(), scalar.llvm(), position), elementOfValue(v));
}

Value FunctionBuilder::reduce(VectorReduction kind, const Value& v, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  static const char* const names[] = {"add", "mul", "min", "max", "minimumf", "maximumf", "and", "or", "xor"};
  const std::string op = std::string("reduction <") + names[static_cast<int>(kind)] + ">";
  if (!vectorOperand(*this, op, v)) return {};
  const ElementType t = elementOfValue(v);
  auto& ir = impl_->ir;
  llvm::Value* x = v.llvm();
  const bool isFloatVector = isFloat(t);
  const bool bitwise = kind == VectorReduction::And || kind == VectorReduction::Or || kind == VectorReduction::Xor;
  const bool nanPropagating = kind == VectorReduction::Minimumf || kind == VectorReduction::Maximumf;
  if ((bitwise && isFloatVector) || (nanPropagating && !isFloatVector)) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation '" + op + "': needs " +
                                                   (bitwise ? "an integer or index" : "a float") + " vector, got " +
                                                   v.typeName()));
    return {};
  }
  const bool uns = detail::isUnsignedLike(t);
  llvm::Value* r = nullptr;
  // MLIR: vector.reduction -> llvm.vector.reduce.*; float add/mul start from
  // the identity and are ordered (sequential) unless reassociation is allowed.
  switch (kind) {
    case VectorReduction::Add:
      r = isFloatVector ? ir.CreateFAddReduce(llvm::ConstantFP::getNegativeZero(x->getType()->getScalarType()), x)
                        : ir.CreateAddReduce(x);
      break;
    case VectorReduction::Mul:
      r = isFloatVector ? ir.CreateFMulReduce(llvm::ConstantFP::get(x->getType()->getScalarType(), 1.0), x)
                        : ir.CreateMulReduce(x);
      break;
    case VectorReduction::Min:
      r = isFloatVector ? ir.CreateFPMinReduce(x) : ir.CreateIntMinReduce(x, !uns);
      break;
    case VectorReduction::Max:
      r = isFloatVector ? ir.CreateFPMaxReduce(x) : ir.CreateIntMaxReduce(x, !uns);
      break;
    case VectorReduction::Minimumf: r = ir.CreateFPMinimumReduce(x); break;
    case VectorReduction::Maximumf: r = ir.CreateFPMaximumReduce(x); break;
    case VectorReduction::And: r = ir.CreateAndReduce(x); break;
    case VectorReduction::Or: r = ir.CreateOrReduce(x); break;
    case VectorReduction::Xor: r = ir.CreateXorReduce(x); break;
  }
  return BuilderOps::make(*this, r, t);
}

Value FunctionBuilder::shuffle(const Value& a, const Value& b, const std::vector<std::int32_t>& mask,
                               std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!vectorOperand(*this, "shuffle", a) || !vectorOperand(*this, "shuffle", b)) return {};
  if (!(a.type() == b.type()) || a.lanes() != b.lanes()) {
    fail(*this, Error(ErrorCode::TypeMismatch,
                      "operation 'shuffle': operand types differ " + describeOperands({&a, &b})));
    return {};
  }
  if (!checkLanes(*this, "shuffle", static_cast<std::int64_t>(mask.size()))) return {};
  const std::int64_t limit = 2 * static_cast<std::int64_t>(a.lanes());
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] < 0 || mask[i] >= limit) {
      fail(*this, Error(ErrorCode::InvalidArgument, "operation 'shuffle': mask entry #" + std::to_string(i) + " is " +
                                                        std::to_string(mask[i]) + ", outside [0, " +
                                                        std::to_string(limit) + ") for two " + a.typeName()));
      return {};
    }
  std::vector<int> m(mask.begin(), mask.end());
  if (MEMJIT_MUTANT("shuffle_last_lane_of_b_from_a"))
    for (int& lane : m)
      if (lane == limit - 1) lane = 0;
  return BuilderOps::make(*this, impl_->ir.CreateShuffleVector(a.llvm(), b.llvm(), m), elementOfValue(a));
}

Value FunctionBuilder::interleave(const Value& a, const Value& b, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!vectorOperand(*this, "interleave", a) || !vectorOperand(*this, "interleave", b)) return {};
  if (!(a.type() == b.type()) || a.lanes() != b.lanes() || 2 * a.lanes() > VectorType::kMaxLanes) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation 'interleave': needs two vectors of one type, got " +
                                                   describeOperands({&a, &b})));
    return {};
  }
  std::vector<std::int32_t> mask;
  for (std::uint32_t i = 0; i < a.lanes(); ++i) {
    mask.push_back(static_cast<std::int32_t>(i));
    mask.push_back(static_cast<std::int32_t>(i + a.lanes()));
  }
  return shuffle(a, b, mask);
}

std::pair<Value, Value> FunctionBuilder::deinterleave(const Value& v, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!vectorOperand(*this, "deinterleave", v)) return {};
  if (v.lanes() % 2 != 0) {
    fail(*this, Error(ErrorCode::TypeMismatch,
                      "operation 'deinterleave': needs an even number of lanes, got " + v.typeName()));
    return {};
  }
  std::vector<std::int32_t> even, odd;
  for (std::uint32_t i = 0; i < v.lanes(); i += 2) {
    even.push_back(static_cast<std::int32_t>(i));
    odd.push_back(static_cast<std::int32_t>(i + 1));
  }
  return {shuffle(v, v, even), shuffle(v, v, odd)};
}

Value FunctionBuilder::createMask(std::uint32_t lanes, const Value& n, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkOperands(*this, "create_mask", {&n})) return {};
  if (!(n.type() == Type(ElementType::Index))) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation 'create_mask': the bound must be index, got " + n.typeName()));
    return {};
  }
  if (!checkLanes(*this, "create_mask", lanes)) return {};
  // MLIR: [0, 1, ...] < splat(n), a signed compare (a negative n sets none).
  auto& ir = impl_->ir;
  Value step = laneIndices(ElementType::Index, lanes);
  llvm::Value* bound = ir.CreateVectorSplat(lanes, n.llvm());
  return BuilderOps::make(*this, ir.CreateICmpSLT(step.llvm(), bound), ElementType::I1);
}

}  // namespace memjit::codegen
