// The kernel builder: memref operations with MLIR's index linearization.
#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MemoryModelRelaxationAnnotations.h>
#include <llvm/IR/Module.h>

#include "builder_checks.h"
#include "builder_util.h"
#include "descriptor_ops.h"
#include "memref_access.h"
#include "memjit/codegen/builder.h"
#include "memjit/metadata_symbols.h"
#include "memjit/runtime/checks.h"
#include "memjit/type_syntax.h"
#include "mutants.h"

namespace memjit::codegen {

using detail::checkOperands;
using detail::fail;

namespace {

using Impl = BuilderOps::Impl;

const MemRefType* rankedOperand(FunctionBuilder& self, std::string_view op, const Value& m) {
  if (!checkOperands(self, op, {&m})) return nullptr;
  if (!isRankedMemRef(m.type())) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': needs a ranked memref, got " +
                                                  toString(m.type())));
    return nullptr;
  }
  return &std::get<MemRefType>(m.type());
}

llvm::Value* idxConst(Impl& I, std::int64_t v) {
  return llvm::ConstantInt::get(indexType(I.ir.getContext(), I.opts()), v, true);
}

// a*b and a+b on index values, folding constants and skipping unit factors
// and zero terms, with nsw: such arithmetic computes in-bounds positions.
llvm::Value* imul(Impl& I, llvm::Value* a, llvm::Value* b) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(a); c && c->isOne()) return b;
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(b); c && c->isOne()) return a;
  return I.ir.CreateMul(a, b, "", false, true);
}
llvm::Value* iadd(Impl& I, llvm::Value* a, llvm::Value* b) {
  if (!a) return b;
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(b); c && c->isZero()) return a;
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(a); c && c->isZero()) return b;
  return I.ir.CreateAdd(a, b, "", false, true);
}

// The static value or the descriptor field.
llvm::Value* strideOf(Impl& I, const MemRefType& t, llvm::Value* d, unsigned i) {
  std::int64_t s = t.effectiveStrides()[i];
  return s == kDynamic ? I.ir.CreateExtractValue(d, {4, i}) : idxConst(I, s);
}
llvm::Value* sizeOf(Impl& I, const MemRefType& t, llvm::Value* d, unsigned i) {
  return t.dim(i) == kDynamic ? I.ir.CreateExtractValue(d, {3, i}) : idxConst(I, t.dim(i));
}
llvm::Value* offsetOf(Impl& I, const MemRefType& t, llvm::Value* d) {
  std::int64_t o = t.effectiveOffset();
  return o == kDynamic ? I.ir.CreateExtractValue(d, {2}) : idxConst(I, o);
}

}  // namespace

namespace detail {

const MemRefType* rankedOperand(FunctionBuilder& self, std::string_view op, const Value& m) {
  return codegen::rankedOperand(self, op, m);
}
llvm::Value* memrefSize(FunctionBuilder& self, const MemRefType& t, llvm::Value* d, unsigned i) {
  return sizeOf(BuilderOps::impl(self), t, d, i);
}
llvm::Value* memrefStride(FunctionBuilder& self, const MemRefType& t, llvm::Value* d, unsigned i) {
  return strideOf(BuilderOps::impl(self), t, d, i);
}

// The element's address: aligned + offset + sum(index_i * stride_i).
llvm::Value* elementAddress(FunctionBuilder& self, std::string_view op, const Value& m,
                            const std::vector<Value>& indices, bool checkLast) {
  Impl& I = BuilderOps::impl(self);
  const MemRefType* t = rankedOperand(self, op, m);
  if (!t) return nullptr;
  if (indices.size() != t->rank()) {
    fail(self, Error(ErrorCode::ArityMismatch, "operation '" + std::string(op) + "': " +
                                                   std::to_string(indices.size()) + " indices given for " +
                                                   toString(m.type()) + " of rank " + std::to_string(t->rank())));
    return nullptr;
  }
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (!checkOperands(self, op, {&indices[i]})) return nullptr;
    if (!(indices[i].type() == Type(ElementType::Index))) {
      fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) + "': index #" + std::to_string(i) +
                                                    " is " + toString(indices[i].type()) + ", expected index"));
      return nullptr;
    }
  }
  llvm::Value* d = m.llvm();
  if (detail::checking(self)) {
    std::vector<llvm::Value*> at, sizes;
    for (unsigned i = 0; i < t->rank(); ++i) {
      at.push_back(indices[i].llvm());
      sizes.push_back(sizeOf(I, *t, d, i));
    }
    detail::checkIndices(self, op, detail::memrefLabel(self, m), at, sizes, t->rank() - (checkLast ? 0 : 1));
  }
  llvm::Value* linear = nullptr;
  for (unsigned i = 0; i < t->rank(); ++i) {
    const bool unit = i + 1 == t->rank() && MEMJIT_MUTANT("load_store_unit_inner_stride");
    linear = iadd(I, linear, imul(I, unit ? idxConst(I, 1) : strideOf(I, *t, d, i), indices[i].llvm()));
  }
  linear = iadd(I, linear, offsetOf(I, *t, d));
  llvm::Type* elem = lowerElementType(I.ir.getContext(), t->element(), I.opts());
  llvm::Value* aligned = I.ir.CreateExtractValue(d, {1});
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(linear); c && c->isZero()) return aligned;
  return I.ir.CreateInBoundsGEP(elem, aligned, linear);
}

}  // namespace detail

namespace {

using detail::elementAddress;

std::int64_t identityStrideOrDynamic(const std::vector<std::int64_t>& shape, std::size_t i) {
  std::int64_t s = 1;
  for (std::size_t j = i + 1; j < shape.size(); ++j) {
    if (shape[j] == kDynamic) return kDynamic;
    s *= shape[j];
  }
  return s;
}

// A strided type, or the identity layout when the strides are the static
// row-major ones and the offset is zero.
MemRefType stridedType(ElementType e, std::vector<std::int64_t> shape, std::int64_t offset,
                       std::vector<std::int64_t> strides, unsigned space) {
  bool identity = offset == 0;
  for (std::size_t i = 0; identity && i < shape.size(); ++i) {
    std::int64_t want = identityStrideOrDynamic(shape, i);
    identity = want != kDynamic && strides[i] == want;
  }
  if (identity) return MemRefType(e, std::move(shape), std::nullopt, space);
  return MemRefType(e, std::move(shape), StridedLayout{offset, std::move(strides)}, space);
}

llvm::Value* operandValue(Impl& I, const IndexOperand& o) {
  if (auto* s = std::get_if<std::int64_t>(&o.value)) return idxConst(I, *s);
  return std::get<Value>(o.value).llvm();
}
// Constant index values count as static, as MLIR folds them.
std::int64_t operandStatic(const IndexOperand& o) {
  if (auto* s = std::get_if<std::int64_t>(&o.value)) return *s;
  if (auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(std::get<Value>(o.value).llvm())) return c->getSExtValue();
  return kDynamic;
}

bool checkIndexOperands(FunctionBuilder& self, std::string_view op, const std::vector<IndexOperand>& os) {
  for (const IndexOperand& o : os) {
    if (auto* v = std::get_if<Value>(&o.value)) {
      if (!checkOperands(self, op, {v})) return false;
      if (!(v->type() == Type(ElementType::Index))) {
        fail(self, Error(ErrorCode::TypeMismatch, "operation '" + std::string(op) +
                                                      "': offsets, sizes and strides must be index, got " +
                                                      toString(v->type())));
        return false;
      }
    } else if (std::get<std::int64_t>(o.value) < 0) {
      fail(self, Error(ErrorCode::InvalidArgument, "operation '" + std::string(op) +
                                                       "': negative static offset, size or stride " +
                                                       std::to_string(std::get<std::int64_t>(o.value))));
      return false;
    }
  }
  return true;
}

llvm::Value* buildDescriptor(Impl& I, const MemRefType& t, llvm::Value* allocated, llvm::Value* aligned,
                             llvm::Value* offset, const std::vector<llvm::Value*>& sizes,
                             const std::vector<llvm::Value*>& strides) {
  llvm::Value* d = llvm::UndefValue::get(descriptorType(I.ir.getContext(), t, I.opts()));
  d = I.ir.CreateInsertValue(d, allocated, {0});
  d = I.ir.CreateInsertValue(d, aligned, {1});
  d = I.ir.CreateInsertValue(d, offset, {2});
  for (unsigned i = 0; i < t.rank(); ++i) {
    d = I.ir.CreateInsertValue(d, sizes[i], {3, i});
    d = I.ir.CreateInsertValue(d, strides[i], {4, i});
  }
  return d;
}

}  // namespace

Value FunctionBuilder::load(const Value& m, const std::vector<Value>& indices, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  llvm::Value* addr = elementAddress(*this, "load", m, indices);
  if (!addr) return {};
  const auto& t = std::get<MemRefType>(m.type());
  llvm::Type* elem = lowerElementType(impl_->ir.getContext(), t.element(), impl_->opts());
  return Value(this, impl_->ir.CreateLoad(elem, addr), t.element());
}

void FunctionBuilder::store(const Value& v, const Value& m, const std::vector<Value>& indices,
                            StoreOptions options, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkOperands(*this, "store", {&v, &m})) return;
  if (isRankedMemRef(m.type()) && !(v.type() == Type(std::get<MemRefType>(m.type()).element()))) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation 'store': value of type " + toString(v.type()) +
                                                   " does not match the element type of " + toString(m.type())));
    return;
  }
  llvm::Value* addr = elementAddress(*this, "store", m, indices);
  if (!addr) return;
  llvm::StoreInst* s = impl_->ir.CreateStore(v.llvm(), addr);
  if (options.nontemporal) markNontemporal(s);
}

void markNontemporal(llvm::StoreInst* store) {
  // Not `!nontemporal` yet: LLVM's loop vectoriser refuses to widen such a
  // store unless its alignment already covers the vector (X86's
  // isLegalNTStore), which a scalar store's never does. memjit's pipeline
  // (jit/streaming_stores.h) turns this tag into `!nontemporal` after
  // vectorisation and alignment inference.
  store->setMetadata(llvm::LLVMContext::MD_mmra,
                     llvm::MMRAMetadata::getTagMD(store->getContext(), metadata::kStreamingStoreTagPrefix,
                                                  metadata::kStreamingStoreTagSuffix));
}

Value FunctionBuilder::dim(const Value& m, std::size_t i, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkOperands(*this, "dim", {&m})) return {};
  if (isScalar(m.type())) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation 'dim': needs a memref, got " + toString(m.type())));
    return {};
  }
  Impl& I = *impl_;
  if (isUnrankedMemRef(m.type())) {
    // sizes[i] sits after the two pointers and the offset.
    llvm::Type* idx = indexType(I.ir.getContext(), I.opts());
    std::uint64_t bytes = 2 * sizeof(void*) + (1 + i) * (I.opts().indexBitwidth / 8);
    llvm::Value* p = I.ir.CreateConstInBoundsGEP1_64(I.ir.getInt8Ty(), I.ir.CreateExtractValue(m.llvm(), {1}), bytes);
    return Value(this, I.ir.CreateLoad(idx, p), ElementType::Index);
  }
  const auto& t = std::get<MemRefType>(m.type());
  if (i >= t.rank()) {
    fail(*this, Error(ErrorCode::InvalidArgument, "operation 'dim': dim " + std::to_string(i) +
                                                      " is out of range for " + toString(m.type())));
    return {};
  }
  return Value(this, sizeOf(I, t, m.llvm(), static_cast<unsigned>(i)), ElementType::Index);
}

Value FunctionBuilder::rank(const Value& m, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkOperands(*this, "rank", {&m})) return {};
  if (isRankedMemRef(m.type())) return index(static_cast<std::int64_t>(std::get<MemRefType>(m.type()).rank()));
  if (isUnrankedMemRef(m.type())) return Value(this, impl_->ir.CreateExtractValue(m.llvm(), {0}), ElementType::Index);
  fail(*this, Error(ErrorCode::TypeMismatch, "operation 'rank': needs a memref, got " + toString(m.type())));
  return {};
}

Value FunctionBuilder::subview(const Value& m, const std::vector<IndexOperand>& offsets,
                               const std::vector<IndexOperand>& sizes, const std::vector<IndexOperand>& strides,
                               std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const MemRefType* t = rankedOperand(*this, "subview", m);
  if (!t) return {};
  const std::size_t r = t->rank();
  if (offsets.size() != r || sizes.size() != r || strides.size() != r) {
    fail(*this, Error(ErrorCode::ArityMismatch, "operation 'subview': " + std::to_string(offsets.size()) + " offsets, " +
                                                    std::to_string(sizes.size()) + " sizes and " +
                                                    std::to_string(strides.size()) + " strides given for " +
                                                    toString(m.type()) + " of rank " + std::to_string(r)));
    return {};
  }
  if (!checkIndexOperands(*this, "subview", offsets) || !checkIndexOperands(*this, "subview", sizes) ||
      !checkIndexOperands(*this, "subview", strides))
    return {};
  for (std::size_t i = 0; i < r; ++i) {
    std::int64_t o = operandStatic(offsets[i]), s = operandStatic(sizes[i]), st = operandStatic(strides[i]);
    if (o != kDynamic && s != kDynamic && st != kDynamic && t->dim(i) != kDynamic && s > 0 &&
        o + (s - 1) * st >= t->dim(i)) {
      fail(*this, Error(ErrorCode::InvalidArgument, "operation 'subview': dim " + std::to_string(i) + " of " +
                                                        toString(m.type()) + " reaches index " +
                                                        std::to_string(o + (s - 1) * st) + ", out of bounds"));
      return {};
    }
  }
  Impl& I = *impl_;
  llvm::Value* d = m.llvm();
  if (detail::checking(*this)) {
    std::vector<llvm::Value*> o(r), s(r), st(r), dims(r);
    std::vector<bool> known(r);
    for (unsigned i = 0; i < r; ++i) {
      o[i] = operandValue(I, offsets[i]), s[i] = operandValue(I, sizes[i]), st[i] = operandValue(I, strides[i]);
      dims[i] = sizeOf(I, *t, d, i);
      // Fully static dims were checked above.
      known[i] = operandStatic(offsets[i]) != kDynamic && operandStatic(sizes[i]) != kDynamic &&
                 operandStatic(strides[i]) != kDynamic && t->dim(i) != kDynamic;
    }
    detail::checkSubview(*this, detail::memrefLabel(*this, m), o, s, st, dims, known);
  }
  const auto srcStrides = t->effectiveStrides();
  std::int64_t staticOffset = t->effectiveOffset();
  llvm::Value* offset = offsetOf(I, *t, d);
  std::vector<std::int64_t> shape(r), newStrides(r);
  std::vector<llvm::Value*> sizeV(r), strideV(r);
  for (unsigned i = 0; i < r; ++i) {
    std::int64_t o = operandStatic(offsets[i]);
    if (o != 0 && MEMJIT_MUTANT("subview_offset_one_stride_more")) {
      offset = iadd(I, offset, strideOf(I, *t, d, i));
      staticOffset = srcStrides[i] == kDynamic || staticOffset == kDynamic ? kDynamic : staticOffset + srcStrides[i];
    }
    if (o != 0) {
      offset = iadd(I, offset, imul(I, operandValue(I, offsets[i]), strideOf(I, *t, d, i)));
      if (o == kDynamic || srcStrides[i] == kDynamic || staticOffset == kDynamic)
        staticOffset = kDynamic;
      else
        staticOffset += o * srcStrides[i];
    }
    shape[i] = operandStatic(sizes[i]);
    sizeV[i] = operandValue(I, sizes[i]);
    std::int64_t st = operandStatic(strides[i]);
    newStrides[i] = st == kDynamic || srcStrides[i] == kDynamic ? kDynamic : st * srcStrides[i];
    strideV[i] = imul(I, operandValue(I, strides[i]), strideOf(I, *t, d, i));
    if (MEMJIT_MUTANT("subview_stride_not_composed")) newStrides[i] = st, strideV[i] = operandValue(I, strides[i]);
  }
  MemRefType result = stridedType(t->element(), shape, staticOffset, newStrides, t->memorySpace());
  llvm::Value* nd = buildDescriptor(I, result, I.ir.CreateExtractValue(d, {0}), I.ir.CreateExtractValue(d, {1}),
                                    offset, sizeV, strideV);
  return Value(this, nd, result);
}

namespace {

// reinterpret_cast's view must keep the element type and memory space, and
// its offset, sizes and strides must agree with the type's static ones.
bool checkCastOperands(FunctionBuilder& self, const Value& m, const MemRefType& type, IndexOperand offset,
                       const std::vector<IndexOperand>& sizes, const std::vector<IndexOperand>& strides) {
  if (!checkOperands(self, "reinterpret_cast", {&m})) return false;
  if (isScalar(m.type()) || elementOf(m.type()) != type.element() ||
      (isRankedMemRef(m.type()) ? std::get<MemRefType>(m.type()).memorySpace()
                                : std::get<UnrankedMemRefType>(m.type()).memorySpace) != type.memorySpace()) {
    fail(self, Error(ErrorCode::TypeMismatch, "operation 'reinterpret_cast': cannot view " + toString(m.type()) +
                                                  " as " + toString(type) +
                                                  " (element type and memory space must agree)"));
    return false;
  }
  if (sizes.size() != type.rank() || strides.size() != type.rank()) {
    fail(self, Error(ErrorCode::ArityMismatch, "operation 'reinterpret_cast': " + std::to_string(sizes.size()) +
                                                   " sizes and " + std::to_string(strides.size()) +
                                                   " strides given for " + toString(type)));
    return false;
  }
  if (!checkIndexOperands(self, "reinterpret_cast", {offset}) ||
      !checkIndexOperands(self, "reinterpret_cast", sizes) || !checkIndexOperands(self, "reinterpret_cast", strides))
    return false;
  auto mismatch = [&](const char* what, std::size_t i, std::int64_t typeV, std::int64_t opV) {
    fail(self, Error(ErrorCode::InvalidArgument,
                     std::string("operation 'reinterpret_cast': ") + what + (i == SIZE_MAX ? "" : " #" + std::to_string(i)) +
                         " is " + (opV == kDynamic ? std::string("dynamic") : std::to_string(opV)) + " but " +
                         toString(type) + " says " + std::to_string(typeV)));
    return false;
  };
  if (type.effectiveOffset() != kDynamic && operandStatic(offset) != type.effectiveOffset())
    return mismatch("the offset", SIZE_MAX, type.effectiveOffset(), operandStatic(offset));
  const auto want = type.effectiveStrides();
  for (std::size_t i = 0; i < type.rank(); ++i) {
    if (type.dim(i) != kDynamic && operandStatic(sizes[i]) != type.dim(i))
      return mismatch("size", i, type.dim(i), operandStatic(sizes[i]));
    if (want[i] != kDynamic && operandStatic(strides[i]) != want[i])
      return mismatch("stride", i, want[i], operandStatic(strides[i]));
  }
  return true;
}

// The allocated and aligned pointers of `m`, ranked or unranked.
std::pair<llvm::Value*, llvm::Value*> basePointers(Impl& I, const Value& m, unsigned memorySpace) {
  if (isRankedMemRef(m.type()))
    return {I.ir.CreateExtractValue(m.llvm(), {0}), I.ir.CreateExtractValue(m.llvm(), {1})};
  llvm::Type* ptr = llvm::PointerType::get(I.ir.getContext(), memorySpace);
  llvm::Value* p = I.ir.CreateExtractValue(m.llvm(), {1});
  llvm::Value* allocated = I.ir.CreateLoad(ptr, p);
  llvm::Value* aligned = I.ir.CreateLoad(ptr, I.ir.CreateConstInBoundsGEP1_64(I.ir.getInt8Ty(), p, sizeof(void*)));
  return {allocated, aligned};
}

// What `m` spans, for checked mode.
detail::Extent extentOf(FunctionBuilder& self, Impl& I, const Value& m) {
  const auto* t = std::get_if<MemRefType>(&m.type());
  if (!t) return detail::unrankedExtent(self, m.llvm());
  std::vector<llvm::Value*> srcSizes, srcStrides;
  for (unsigned i = 0; i < t->rank(); ++i) {
    srcSizes.push_back(sizeOf(I, *t, m.llvm(), i));
    srcStrides.push_back(strideOf(I, *t, m.llvm(), i));
  }
  return detail::rankedExtent(self, offsetOf(I, *t, m.llvm()), srcSizes, srcStrides);
}

}  // namespace

Value FunctionBuilder::reinterpretCast(const Value& m, const MemRefType& type, IndexOperand offset,
                                       const std::vector<IndexOperand>& sizes,
                                       const std::vector<IndexOperand>& strides, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkCastOperands(*this, m, type, offset, sizes, strides)) return {};
  Impl& I = *impl_;
  const auto [allocated, aligned] = basePointers(I, m, type.memorySpace());
  std::vector<llvm::Value*> sizeV, strideV;
  for (std::size_t i = 0; i < type.rank(); ++i) {
    sizeV.push_back(operandValue(I, sizes[i]));
    strideV.push_back(operandValue(I, strides[i]));
  }
  if (detail::checking(*this)) {
    const detail::Extent source = extentOf(*this, I, m);
    detail::checkReinterpretCast(*this, detail::memrefLabel(*this, m) + " to " + toString(type), source,
                                 operandValue(I, offset), sizeV, strideV);
  }
  return Value(this, buildDescriptor(I, type, allocated, aligned, operandValue(I, offset), sizeV, strideV), type);
}

Value FunctionBuilder::alloc(const MemRefType& type, const std::vector<Value>& dynamicSizes, unsigned alignment,
                             std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  Impl& I = *impl_;
  if (I.error) return {};
  for (const Value& v : dynamicSizes)
    if (!checkOperands(*this, "alloc", {&v})) return {};
  if (!type.hasIdentityLayout() || type.memorySpace() != 0) {
    fail(*this, Error(ErrorCode::Unsupported, "operation 'alloc': only identity layouts in memory space 0 can be "
                                              "allocated, not " + toString(type)));
    return {};
  }
  if (alignment == 0 || (alignment & (alignment - 1))) {
    fail(*this, Error(ErrorCode::InvalidArgument, "operation 'alloc': alignment " + std::to_string(alignment) +
                                                      " is not a power of two"));
    return {};
  }
  if (dynamicSizes.size() != type.numDynamicDims()) {
    fail(*this, Error(ErrorCode::ArityMismatch, "operation 'alloc': " + std::to_string(dynamicSizes.size()) +
                                                    " dynamic sizes given for " + toString(type) + " with " +
                                                    std::to_string(type.numDynamicDims()) + " dynamic dims"));
    return {};
  }
  for (const Value& v : dynamicSizes)
    if (!(v.type() == Type(ElementType::Index))) {
      fail(*this, Error(ErrorCode::TypeMismatch, "operation 'alloc': sizes must be index, got " + toString(v.type())));
      return {};
    }
  auto& ir = I.ir;
  const unsigned r = static_cast<unsigned>(type.rank());
  std::vector<llvm::Value*> sizes(r), strides(r);
  for (unsigned i = 0, k = 0; i < r; ++i)
    sizes[i] = type.dim(i) == kDynamic ? dynamicSizes[k++].llvm() : idxConst(I, type.dim(i));
  llvm::Value* running = idxConst(I, 1);
  for (unsigned i = r; i-- > 0;) {
    strides[i] = running;
    running = imul(I, running, sizes[i]);
  }
  std::uint64_t elemBytes = type.element() == ElementType::Index ? I.opts().indexBitwidth / 8
                                                                 : storageSize(type.element());
  if (detail::checking(*this)) {
    std::vector<bool> dynamic(r);
    for (unsigned i = 0; i < r; ++i) dynamic[i] = type.dim(i) == kDynamic;
    detail::checkAlloc(*this, toString(type), sizes, dynamic, elemBytes, alignment - 1);
  }
  llvm::Value* bytes = imul(I, running, idxConst(I, static_cast<std::int64_t>(elemBytes)));
  llvm::Value* padded = iadd(I, bytes, idxConst(I, alignment - 1));
  llvm::Module& mod = *I.lowered.function->getParent();
  llvm::Value* allocated = ir.CreateCall(detail::mallocFunction(mod, I.opts()), {padded});
  llvm::Value* aligned = allocated;
  if (alignment > 1) {
    llvm::Value* bumped = ir.CreateConstInBoundsGEP1_64(ir.getInt8Ty(), allocated, alignment - 1);
    aligned = ir.CreateIntrinsic(llvm::Intrinsic::ptrmask, {bumped->getType(), ir.getInt64Ty()},
                                 {bumped, ir.getInt64(~static_cast<std::uint64_t>(alignment - 1))});
  }
  // finish() moves it to the stack or the arena unless it escapes (temporaries.cpp); the mark survives the
  // outlining of parallel bodies.
  std::optional<std::uint64_t> staticBytes;
  if (type.numDynamicDims() == 0) {
    std::uint64_t n = elemBytes;
    bool fits = true;
    for (unsigned i = 0; i < r; ++i)
      fits = fits && !__builtin_mul_overflow(n, static_cast<std::uint64_t>(type.dim(i)), &n);
    if (fits) staticBytes = n;
  }
  detail::markAlloc(llvm::cast<llvm::CallInst>(allocated), alignment, staticBytes);
  return Value(this, buildDescriptor(I, type, allocated, aligned, idxConst(I, 0), sizes, strides), type);
}

void FunctionBuilder::dealloc(const Value& m, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkOperands(*this, "dealloc", {&m})) return;
  if (isScalar(m.type()) || (isRankedMemRef(m.type()) ? std::get<MemRefType>(m.type()).memorySpace()
                                                      : std::get<UnrankedMemRefType>(m.type()).memorySpace) != 0) {
    fail(*this, Error(ErrorCode::TypeMismatch,
                      "operation 'dealloc': needs a memref in memory space 0, got " + toString(m.type())));
    return;
  }
  Impl& I = *impl_;
  llvm::Value* allocated =
      isRankedMemRef(m.type())
          ? I.ir.CreateExtractValue(m.llvm(), {0})
          : static_cast<llvm::Value*>(I.ir.CreateLoad(I.ir.getPtrTy(), I.ir.CreateExtractValue(m.llvm(), {1})));
  I.ir.CreateCall(detail::freeFunction(*I.lowered.function->getParent()), {allocated});
}

Value FunctionBuilder::castToUnranked(const Value& m, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  const MemRefType* t = rankedOperand(*this, "cast_to_unranked", m);
  if (!t) return {};
  Impl& I = *impl_;
  // Placed here rather than in the entry block; inside a loop the iteration's
  // stacksave/stackrestore scope releases it.
  llvm::AllocaInst* slot = I.ir.CreateAlloca(m.llvm()->getType());
  if (!I.scopes.empty()) I.scopes.back().allocates = true;
  I.ir.CreateStore(m.llvm(), slot);
  llvm::Value* u = llvm::UndefValue::get(unrankedDescriptorType(I.ir.getContext(), I.opts()));
  u = I.ir.CreateInsertValue(u, idxConst(I, static_cast<std::int64_t>(t->rank())), {0});
  u = I.ir.CreateInsertValue(u, slot, {1});
  return Value(this, u, UnrankedMemRefType{t->element(), t->memorySpace()});
}

Value FunctionBuilder::castToRanked(const Value& m, const MemRefType& type, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkOperands(*this, "cast_to_ranked", {&m})) return {};
  if (!isUnrankedMemRef(m.type()) || elementOf(m.type()) != type.element() ||
      std::get<UnrankedMemRefType>(m.type()).memorySpace != type.memorySpace()) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation 'cast_to_ranked': cannot cast " + toString(m.type()) +
                                                   " to " + toString(type)));
    return {};
  }
  Impl& I = *impl_;
  llvm::Type* d = descriptorType(I.ir.getContext(), type, I.opts());
  return Value(this, I.ir.CreateLoad(d, I.ir.CreateExtractValue(m.llvm(), {1})), type);
}

}  // namespace memjit::codegen

namespace memjit::codegen {

namespace detail {

std::string memrefCastMismatch(const MemRefType& from, const MemRefType& to) {
  if (from.element() != to.element()) return "the element types differ";
  if (from.memorySpace() != to.memorySpace()) return "the memory spaces differ";
  if (from.rank() != to.rank()) return "the ranks differ";
  auto agree = [](std::int64_t a, std::int64_t b) { return a == kDynamic || b == kDynamic || a == b; };
  for (std::size_t i = 0; i < from.rank(); ++i)
    if (!agree(from.dim(i), to.dim(i))) return "the sizes of dim " + std::to_string(i) + " differ";
  if (!agree(from.effectiveOffset(), to.effectiveOffset())) return "the offsets differ";
  const auto fs = from.effectiveStrides(), ts = to.effectiveStrides();
  for (std::size_t i = 0; i < from.rank(); ++i)
    if (!agree(fs[i], ts[i])) return "the strides of dim " + std::to_string(i) + " differ";
  return {};
}

}  // namespace detail

namespace {

// Checked mode: the memref keeps every promise `to` makes beyond `from`. A
// stride the memref cannot observe (its dim has size 1, or it is empty) is
// not held against it.
void checkMemrefCast(FunctionBuilder& self, const Value& m, const MemRefType& from, const MemRefType& to) {
  Impl& I = BuilderOps::impl(self);
  auto& ir = I.ir;
  llvm::Value* d = m.llvm();
  const unsigned rank = static_cast<unsigned>(to.rank());
  std::vector<llvm::Value*> sizes, strides;
  llvm::Value* empty = ir.getFalse();
  for (unsigned i = 0; i < rank; ++i) {
    sizes.push_back(sizeOf(I, from, d, i));
    strides.push_back(strideOf(I, from, d, i));
    empty = ir.CreateOr(empty, ir.CreateICmpEQ(sizes[i], idxConst(I, 0)));
  }
  llvm::Value* offset = offsetOf(I, from, d);
  llvm::Value* ok = ir.getTrue();
  auto require = [&](llvm::Value* c) { ok = ir.CreateAnd(ok, c); };
  auto unobservable = [&](unsigned i) { return ir.CreateOr(empty, ir.CreateICmpEQ(sizes[i], idxConst(I, 1))); };
  const auto fromStrides = from.effectiveStrides(), toStrides = to.effectiveStrides();
  std::vector<llvm::Value*> bounds{idxConst(I, to.effectiveOffset())};
  if (to.effectiveOffset() != kDynamic && from.effectiveOffset() == kDynamic)
    require(ir.CreateICmpEQ(offset, idxConst(I, to.effectiveOffset())));
  for (unsigned i = 0; i < rank; ++i) {
    bounds.push_back(idxConst(I, to.dim(i)));
    if (to.dim(i) != kDynamic && from.dim(i) == kDynamic) require(ir.CreateICmpEQ(sizes[i], idxConst(I, to.dim(i))));
  }
  // The identity layout is row-major strides over the run-time sizes, which
  // its static strides (kDynamic after a dynamic dim) do not all say.
  const bool identity = to.hasIdentityLayout() && !from.hasIdentityLayout();
  llvm::Value* rowMajor = idxConst(I, 1);
  for (unsigned i = rank; i-- > 0;) {
    llvm::Value* want = identity ? rowMajor : (toStrides[i] != kDynamic && fromStrides[i] == kDynamic)
                                                  ? idxConst(I, toStrides[i])
                                                  : nullptr;
    if (want) require(ir.CreateOr(unobservable(i), ir.CreateICmpEQ(strides[i], want)));
    rowMajor = ir.CreateMul(rowMajor, sizes[i]);
  }
  for (unsigned i = 0; i < rank; ++i) bounds.push_back(idxConst(I, toStrides[i]));
  bounds.push_back(idxConst(I, to.hasIdentityLayout() ? 1 : 0));
  std::vector<llvm::Value*> values{offset};
  values.insert(values.end(), sizes.begin(), sizes.end());
  values.insert(values.end(), strides.begin(), strides.end());
  detail::emitCheck(self, ok, MEMJIT_CHECK_MEMREF_CAST, "memref.cast",
                    detail::memrefLabel(self, m) + " to " + toString(to), values, bounds);
}

}  // namespace

Value FunctionBuilder::memrefCast(const Value& m, const MemRefType& type, std::source_location loc) {
  const detail::OpLocation at(*this, loc);
  if (!checkOperands(*this, "memref.cast", {&m})) return {};
  const MemRefType* from = std::get_if<MemRefType>(&m.type());
  std::string why = from ? detail::memrefCastMismatch(*from, type) : "it is not a ranked memref";
  if (!why.empty()) {
    fail(*this, Error(ErrorCode::TypeMismatch, "operation 'memref.cast': cannot cast " + toString(m.type()) + " to " +
                                                   toString(type) + ": " + why));
    return {};
  }
  if (detail::checking(*this)) checkMemrefCast(*this, m, *from, type);
  return Value(this, m.llvm(), type);
}

}  // namespace memjit::codegen
