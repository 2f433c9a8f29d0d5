// The kernel builder: vector loads and stores on memrefs, lowered as MLIR's
// -convert-vector-to-llvm lowers the vector op each is named after:
//   vector.load/store           -> load/store <N x T>, align of T (or the given one)
//   vector.maskedload/store     -> llvm.masked.load/store
//   vector.gather/scatter       -> llvm.masked.gather/scatter over a vector of GEPs
//   vector.transfer_read/write  -> a mask of the lanes within the dim, then a
//                                  masked load/store (unit stride) or gather/scatter
// Checked mode checks every accessed lane's index on the last dim against
// its size (the other dims as scalar loads do) and names the first lane out
// of bounds.
#include <algorithm>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "builder_checks.h"
#include "builder_impl.h"
#include "builder_util.h"
#include "memjit/runtime/checks.h"
#include "memjit/type_syntax.h"
#include "memref_access.h"

namespace memjit::codegen {

using detail::checkOperands;
using detail::fail;

namespace {

using Impl = BuilderOps::Impl;

// One vector access: the first lane's address and the last dim's position,
// size and stride (index values).
struct Access {
  const MemRefType* type = nullptr;
  llvm::Type* element = nullptr;
  llvm::Value* address = nullptr;
  llvm::Value* last = nullptr;
  llvm::Value* size = nullptr;
  llvm::Value* stride = nullptr;
  std::vector<llvm::Value*> indices;  // all of them, for reports
  std::vector<llvm::Value*> sizes;
};

std::optional<Access> access(FunctionBuilder& self, std::string_view op, const Value& m,
                             const std::vector<Value>& indices) {
  const MemRefType* t = detail::rankedOperand(self, op, m);
  if (!t) return std::nullopt;
  if (t->rank() == 0 || !isVectorElement(t->element())) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': needs a memref of rank >= 1 " +
                                                  "with integer, index or float elements, got " + m.typeName()));
    return std::nullopt;
  }
  if (t->element() == ElementType::I1) {
    // LLVM stores <N x i1> as N bits, a memref of i1 holds a byte per element.
    fail(self, Error(ErrorCode::Unsupported, "operation '" + std::string(op) + "': vectors of i1 cannot move to or " +
                                                 "from " + m.typeName() + " (one byte per element; use i8)"));
    return std::nullopt;
  }
  llvm::Value* address = detail::elementAddress(self, op, m, indices, false);
  if (!address) return std::nullopt;
  Impl& I = BuilderOps::impl(self);
  Access a;
  a.type = t;
  a.element = lowerElementType(I.ir.getContext(), t->element(), I.opts());
  a.address = address;
  const auto lastDim = static_cast<unsigned>(t->rank() - 1);
  a.last = indices.back().llvm();
  a.size = detail::memrefSize(self, *t, m.llvm(), lastDim);
  a.stride = detail::memrefStride(self, *t, m.llvm(), lastDim);
  for (unsigned i = 0; i < t->rank(); ++i) {
    a.indices.push_back(indices[i].llvm());
    a.sizes.push_back(detail::memrefSize(self, *t, m.llvm(), i));
  }
  return a;
}

bool unitStride(FunctionBuilder& self, std::string_view op, const Value& m, const Access& a) {
  if (a.type->effectiveStrides().back() == 1) return true;
  fail(self, Error(ErrorCode::Unsupported, "operation '" + std::string(op) + "': the last dim of " + m.typeName() +
                                               " does not have stride 1 (use transferRead or gather)"));
  return false;
}

llvm::Align alignmentOf(Impl& I, const Access& a, const VectorMemoryOptions& o) {
  if (o.alignment) return llvm::Align(o.alignment);
  // The element's natural alignment (its ABI alignment on memjit's 64-bit
  // targets; the module has no data layout before the JIT picks a target).
  (void)I;
  return llvm::Align(std::max<std::uint64_t>(1, a.element->getScalarSizeInBits() / 8));
}

bool checkAlignmentOption(FunctionBuilder& self, std::string_view op, const VectorMemoryOptions& o) {
  if ((o.alignment & (o.alignment - 1)) == 0) return true;
  fail(self, Error(ErrorCode::InvalidArgument, "operation '" + std::string(op) + "': alignment " +
                                                   std::to_string(o.alignment) + " is not a power of two"));
  return false;
}

// The last-dim position of each lane: last + [0, 1, ...], or last + offsets.
llvm::Value* consecutiveLanes(Impl& I, const Access& a, std::uint32_t lanes) {
  std::vector<llvm::Constant*> step;
  for (std::uint32_t k = 0; k < lanes; ++k) step.push_back(llvm::ConstantInt::get(a.last->getType(), k));
  return I.ir.CreateAdd(I.ir.CreateVectorSplat(lanes, a.last), llvm::ConstantVector::get(step));
}

// Checked mode: every lane set in `mask` (all when null) at a position in
// [0, size); the report names the first lane's position that is not.
void checkLanes(FunctionBuilder& self, std::string_view op, const Value& m, const Access& a, llvm::Value* positions,
                llvm::Value* mask) {
  if (!detail::checking(self)) return;
  auto& ir = BuilderOps::impl(self).ir;
  const auto lanes = llvm::cast<llvm::FixedVectorType>(positions->getType())->getNumElements();
  llvm::Value* outside = ir.CreateICmpUGE(positions, ir.CreateVectorSplat(lanes, a.size));
  if (mask) outside = ir.CreateAnd(outside, mask);
  llvm::Value* firstBad = ir.CreateUnaryIntrinsic(
      llvm::Intrinsic::vector_reduce_umin,
      ir.CreateSelect(outside, positions, llvm::Constant::getAllOnesValue(positions->getType())));
  std::vector<llvm::Value*> at = a.indices;
  at.back() = firstBad;
  detail::emitCheck(self, ir.CreateNot(ir.CreateOrReduce(outside)), MEMJIT_CHECK_INDEX, op, detail::memrefLabel(self, m), at,
                    a.sizes);
}

// A vector<N x i1> operand of `lanes` lanes.
bool maskOperand(FunctionBuilder& self, std::string_view op, const Value& mask, std::uint32_t lanes) {
  if (!checkOperands(self, op, {&mask}, true)) return false;
  if (mask.isVector() && mask.type() == Type(ElementType::I1) && (lanes == 0 || mask.lanes() == lanes)) return true;
  fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': the mask must be vector<" +
                                                (lanes ? std::to_string(lanes) : std::string("N")) + "xi1>, got " +
                                                mask.typeName()));
  return false;
}

// A vector of the memref's element type with `lanes` lanes (0: any).
bool dataOperand(FunctionBuilder& self, std::string_view op, const char* what, const Value& v, const Value& m,
                 std::uint32_t lanes) {
  if (!checkOperands(self, op, {&v, &m}, true)) return false;
  if (v.isVector() && isRankedMemRef(m.type()) && v.type() == Type(std::get<MemRefType>(m.type()).element()) &&
      (lanes == 0 || v.lanes() == lanes))
    return true;
  fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': " + what + " " + v.typeName() +
                                                " must be a vector" +
                                                (lanes ? " of " + std::to_string(lanes) + " lanes" : std::string()) +
                                                " of the element type of " + m.typeName()));
  return false;
}

// Gather/scatter offsets as index values (extended by their signedness).
llvm::Value* indexOffsets(Impl& I, const Access& a, const Value& offsets) {
  auto& ir = I.ir;
  llvm::Type* idx = llvm::FixedVectorType::get(a.last->getType(), offsets.lanes());
  const bool uns = isUnsignedInteger(std::get<ElementType>(offsets.type()));
  return uns ? ir.CreateZExtOrTrunc(offsets.llvm(), idx) : ir.CreateSExtOrTrunc(offsets.llvm(), idx);
}

// Addresses of base + offsets[k] * stride, offsets widened to the index type.
llvm::Value* laneAddresses(Impl& I, const Access& a, const Value& offsets) {
  auto& ir = I.ir;
  llvm::Value* o = indexOffsets(I, a, offsets);
  return ir.CreateInBoundsGEP(a.element, a.address, ir.CreateMul(o, ir.CreateVectorSplat(offsets.lanes(), a.stride)));
}

// Checked mode: the lanes of a gather or scatter set in `mask`, at last-dim
// positions last + offsets[k], are within the memref.
void checkOffsetLanes(FunctionBuilder& self, std::string_view op, const Value& m, const Access& a,
                      const Value& offsets, const Value& mask) {
  if (!detail::checking(self)) return;
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value* o = indexOffsets(BuilderOps::impl(self), a, offsets);
  checkLanes(self, op, m, a, ir.CreateAdd(ir.CreateVectorSplat(offsets.lanes(), a.last), o), mask.llvm());
}

bool offsetsOperand(FunctionBuilder& self, std::string_view op, const Value& offsets) {
  if (!checkOperands(self, op, {&offsets}, true)) return false;
  const auto t = std::get<ElementType>(offsets.type());
  if (offsets.isVector() && ((isInteger(t) && t != ElementType::I1) || t == ElementType::Index)) return true;
  fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) +
                                                "': the offsets must be a vector of integer or index type, got " +
                                                offsets.typeName()));
  return false;
}

}  // namespace

Value FunctionBuilder::vectorLoad(const Value& m, const std::vector<Value>& indices, std::uint32_t lanes,
                                  VectorMemoryOptions options, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const char* op = "vector.load";
  if (lanes < 1 || lanes > VectorType::kMaxLanes) {
    fail(*this, Error(ErrorCode::InvalidArgument, std::string("operation '") + op + "': " + std::to_string(lanes) +
                                                      " lanes (a vector has 1 to " +
                                                      std::to_string(VectorType::kMaxLanes) + ")"));
    return {};
  }
  if (!checkAlignmentOption(*this, op, options)) return {};
  auto a = access(*this, op, m, indices);
  if (!a || !unitStride(*this, op, m, *a)) return {};
  checkLanes(*this, op, m, *a, consecutiveLanes(*impl_, *a, lanes), nullptr);
  llvm::Type* vt = llvm::FixedVectorType::get(a->element, lanes);
  return BuilderOps::make(*this, impl_->ir.CreateAlignedLoad(vt, a->address, alignmentOf(*impl_, *a, options)),
                          a->type->element());
}

void FunctionBuilder::vectorStore(const Value& v, const Value& m, const std::vector<Value>& indices,
                                  VectorMemoryOptions options, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const char* op = "vector.store";
  if (!dataOperand(*this, op, "the value", v, m, 0) || !checkAlignmentOption(*this, op, options)) return;
  auto a = access(*this, op, m, indices);
  if (!a || !unitStride(*this, op, m, *a)) return;
  checkLanes(*this, op, m, *a, consecutiveLanes(*impl_, *a, v.lanes()), nullptr);
  llvm::StoreInst* s = impl_->ir.CreateAlignedStore(v.llvm(), a->address, alignmentOf(*impl_, *a, options));
  if (options.nontemporal) markNontemporal(s);
}

Value FunctionBuilder::maskedLoad(const Value& m, const std::vector<Value>& indices, const Value& mask,
                                  const Value& passThru, VectorMemoryOptions options, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const char* op = "vector.maskedload";
  if (!maskOperand(*this, op, mask, 0) || !dataOperand(*this, op, "the pass-through value", passThru, m, mask.lanes()) ||
      !checkAlignmentOption(*this, op, options))
    return {};
  auto a = access(*this, op, m, indices);
  if (!a || !unitStride(*this, op, m, *a)) return {};
  checkLanes(*this, op, m, *a, consecutiveLanes(*impl_, *a, mask.lanes()), mask.llvm());
  return BuilderOps::make(*this,
                          impl_->ir.CreateMaskedLoad(passThru.llvm()->getType(), a->address,
                                                     alignmentOf(*impl_, *a, options), mask.llvm(), passThru.llvm()),
                          a->type->element());
}

void FunctionBuilder::maskedStore(const Value& v, const Value& m, const std::vector<Value>& indices, const Value& mask,
                                  VectorMemoryOptions options, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const char* op = "vector.maskedstore";
  if (!dataOperand(*this, op, "the value", v, m, 0) || !maskOperand(*this, op, mask, v.lanes()) ||
      !checkAlignmentOption(*this, op, options))
    return;
  if (options.nontemporal) {
    fail(*this, Error(ErrorCode::Unsupported, std::string("operation '") + op +
                                                  "': LLVM has no streaming masked store (use vectorStore)"));
    return;
  }
  auto a = access(*this, op, m, indices);
  if (!a || !unitStride(*this, op, m, *a)) return;
  checkLanes(*this, op, m, *a, consecutiveLanes(*impl_, *a, v.lanes()), mask.llvm());
  impl_->ir.CreateMaskedStore(v.llvm(), a->address, alignmentOf(*impl_, *a, options), mask.llvm());
}

Value FunctionBuilder::gather(const Value& m, const std::vector<Value>& indices, const Value& offsets,
                              const Value& mask, const Value& passThru, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const char* op = "vector.gather";
  if (!offsetsOperand(*this, op, offsets) || !maskOperand(*this, op, mask, offsets.lanes()) ||
      !dataOperand(*this, op, "the pass-through value", passThru, m, offsets.lanes()))
    return {};
  auto a = access(*this, op, m, indices);
  if (!a) return {};
  auto& ir = impl_->ir;
  checkOffsetLanes(*this, op, m, *a, offsets, mask);
  llvm::Value* ptrs = laneAddresses(*impl_, *a, offsets);
  return BuilderOps::make(*this,
                          ir.CreateMaskedGather(passThru.llvm()->getType(), ptrs, alignmentOf(*impl_, *a, {}),
                                                mask.llvm(), passThru.llvm()),
                          a->type->element());
}

void FunctionBuilder::scatter(const Value& v, const Value& m, const std::vector<Value>& indices, const Value& offsets,
                              const Value& mask, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const char* op = "vector.scatter";
  if (!dataOperand(*this, op, "the value", v, m, 0) || !offsetsOperand(*this, op, offsets) ||
      !maskOperand(*this, op, mask, v.lanes()))
    return;
  if (offsets.lanes() != v.lanes()) {
    fail(*this, Error(ErrorCode::TypeMismatch, std::string("operation '") + op + "': " + offsets.typeName() +
                                                   " offsets for " + v.typeName()));
    return;
  }
  auto a = access(*this, op, m, indices);
  if (!a) return;
  auto& ir = impl_->ir;
  checkOffsetLanes(*this, op, m, *a, offsets, mask);
  ir.CreateMaskedScatter(v.llvm(), laneAddresses(*impl_, *a, offsets), alignmentOf(*impl_, *a, {}), mask.llvm());
}

namespace {

// transfer_read/write's lanes: those whose position falls in [0, size). The
// position is compared unsigned, so a negative start masks its lanes off
// too (MLIR leaves that undefined).
llvm::Value* inBoundsMask(Impl& I, const Access& a, std::uint32_t lanes) {
  return I.ir.CreateICmpULT(consecutiveLanes(I, a, lanes), I.ir.CreateVectorSplat(lanes, a.size));
}

// Strided lanes: base + k * stride.
llvm::Value* stridedAddresses(Impl& I, const Access& a, std::uint32_t lanes) {
  std::vector<llvm::Constant*> step;
  for (std::uint32_t k = 0; k < lanes; ++k) step.push_back(llvm::ConstantInt::get(a.last->getType(), k));
  llvm::Value* offsets = I.ir.CreateMul(llvm::ConstantVector::get(step), I.ir.CreateVectorSplat(lanes, a.stride));
  return I.ir.CreateGEP(a.element, a.address, offsets);
}

}  // namespace

Value FunctionBuilder::transferRead(const Value& m, const std::vector<Value>& indices, std::uint32_t lanes,
                                    const Value& padding, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const char* op = "vector.transfer_read";
  if (!checkOperands(*this, op, {&padding, &m})) return {};
  if (lanes < 1 || lanes > VectorType::kMaxLanes || !isRankedMemRef(m.type()) ||
      !(padding.type() == Type(std::get<MemRefType>(m.type()).element()))) {
    fail(*this, Error(ErrorCode::TypeMismatch, std::string("operation '") + op + "': " + std::to_string(lanes) +
                                                   " lanes of " + m.typeName() + " padded with " + padding.typeName() +
                                                   " (needs 1 to " + std::to_string(VectorType::kMaxLanes) +
                                                   " lanes and padding of the element type)"));
    return {};
  }
  auto a = access(*this, op, m, indices);
  if (!a) return {};
  auto& ir = impl_->ir;
  llvm::Value* mask = inBoundsMask(*impl_, *a, lanes);
  llvm::Value* pass = ir.CreateVectorSplat(lanes, padding.llvm());
  const llvm::Align align = alignmentOf(*impl_, *a, {});
  llvm::Value* r = a->type->effectiveStrides().back() == 1
                       ? ir.CreateMaskedLoad(pass->getType(), a->address, align, mask, pass)
                       : ir.CreateMaskedGather(pass->getType(), stridedAddresses(*impl_, *a, lanes), align, mask, pass);
  return BuilderOps::make(*this, r, a->type->element());
}

void FunctionBuilder::transferWrite(const Value& v, const Value& m, const std::vector<Value>& indices,
                                    std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const char* op = "vector.transfer_write";
  if (!dataOperand(*this, op, "the value", v, m, 0)) return;
  auto a = access(*this, op, m, indices);
  if (!a) return;
  auto& ir = impl_->ir;
  llvm::Value* mask = inBoundsMask(*impl_, *a, v.lanes());
  const llvm::Align align = alignmentOf(*impl_, *a, {});
  if (a->type->effectiveStrides().back() == 1)
    ir.CreateMaskedStore(v.llvm(), a->address, align, mask);
  else
    ir.CreateMaskedScatter(v.llvm(), stridedAddresses(*impl_, *a, v.lanes()), align, mask);
}

}  // namespace memjit::codegen
