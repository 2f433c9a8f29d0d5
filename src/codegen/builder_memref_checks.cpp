// Checked mode's memref checks (see builder_checks.h): indices, subview and
// reinterpret_cast bounds, alloc sizes. Arithmetic on operands the kernel
// computed uses LLVM's overflow intrinsics, so a huge size or stride fails
// the check instead of wrapping into range.
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "builder_checks.h"
#include "loop_proofs.h"
#include "mutants.h"
#include "memjit/codegen/lowering.h"
#include "memjit/runtime/checks.h"

namespace memjit::codegen::detail {

namespace {

using Impl = BuilderOps::Impl;

llvm::Value* zeroLike(llvm::Value* v) { return llvm::Constant::getNullValue(v->getType()); }
llvm::Value* oneLike(llvm::Value* v) { return llvm::ConstantInt::get(v->getType(), 1); }

// acc && x, acc || x, where a null acc stands for "nothing yet".
llvm::Value* both(llvm::IRBuilderBase& ir, llvm::Value* acc, llvm::Value* x) { return acc ? ir.CreateAnd(acc, x) : x; }
llvm::Value* either(llvm::IRBuilderBase& ir, llvm::Value* acc, llvm::Value* x) { return acc ? ir.CreateOr(acc, x) : x; }

// a op b (a signed *.with.overflow intrinsic), its overflow or-ed into `overflow`.
llvm::Value* withOverflow(llvm::IRBuilderBase& ir, llvm::Intrinsic::ID id, llvm::Value* a, llvm::Value* b,
                          llvm::Value*& overflow) {
  llvm::Value* r = ir.CreateBinaryIntrinsic(id, a, b);
  overflow = either(ir, overflow, ir.CreateExtractValue(r, {1}));
  return ir.CreateExtractValue(r, {0});
}

// Adds (size - 1) * stride of one dim to [lo, hi] (wrapping: for a source
// descriptor, whose extent the caller vouches for).
void extendBy(llvm::IRBuilderBase& ir, llvm::Value* size, llvm::Value* stride, Extent& e) {
  llvm::Value* reach = ir.CreateMul(ir.CreateSub(size, oneLike(size)), stride);
  e.lo = ir.CreateAdd(e.lo, ir.CreateBinaryIntrinsic(llvm::Intrinsic::smin, reach, zeroLike(reach)));
  e.hi = ir.CreateAdd(e.hi, ir.CreateBinaryIntrinsic(llvm::Intrinsic::smax, reach, zeroLike(reach)));
  e.empty = ir.CreateOr(ir.CreateICmpSLE(size, zeroLike(size)), e.empty);
}

}  // namespace

std::string memrefLabel(FunctionBuilder& self, const Value& m) {
  Impl& I = BuilderOps::impl(self);
  const auto& names = I.lowered.options.argumentNames;
  for (std::size_t i = 0; i < I.args.size(); ++i) {
    if (I.args[i].llvm() != m.llvm()) continue;
    const std::string name = i < names.size() && !names[i].empty() ? " '" + names[i] + "'" : "";
    return "argument #" + std::to_string(i) + name + " (" + m.typeName() + ")";
  }
  return m.typeName();
}

void checkIndices(FunctionBuilder& self, std::string_view op, std::string_view type,
                  const std::vector<llvm::Value*>& indices, const std::vector<llvm::Value*>& sizes,
                  std::size_t checkedDims) {
  if (!checking(self) || indices.empty()) return;
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value* ok = nullptr;
  std::vector<llvm::Value*> compares(indices.size());
  // Unsigned: a negative index is a huge one.
  for (std::size_t i = 0; i < indices.size() && i < checkedDims; ++i) {
    llvm::Value* inBounds = MEMJIT_MUTANT("checked_index_inclusive") ? ir.CreateICmpULE(indices[i], sizes[i])
                                                                     : ir.CreateICmpULT(indices[i], sizes[i]);
    if (llvm::isa<llvm::Instruction>(inBounds)) compares[i] = inBounds;
    ok = both(ir, ok, inBounds);
  }
  if (!ok) return;
  emitCheck(self, ok, MEMJIT_CHECK_INDEX, op, type, indices, sizes);
  recordIndexCheck(self, indices, sizes, compares);
}

void checkShapes(FunctionBuilder& self, llvm::Value* ok, std::string_view op, const std::vector<std::string>& names,
                 const std::vector<llvm::Value*>& sizes, const std::vector<std::int64_t>& ranks) {
  if (!checking(self)) return;
  auto& ir = BuilderOps::impl(self).ir;
  std::string joined;
  for (const std::string& n : names) joined += (joined.empty() ? "" : "\n") + n;
  std::vector<llvm::Value*> rankValues;
  for (std::int64_t r : ranks) rankValues.push_back(ir.getInt64(static_cast<std::uint64_t>(r)));
  emitCheck(self, ok, MEMJIT_CHECK_SHAPE, op, joined, sizes, rankValues);
}

void checkSubview(FunctionBuilder& self, std::string_view type, const std::vector<llvm::Value*>& offsets,
                  const std::vector<llvm::Value*>& sizes, const std::vector<llvm::Value*>& strides,
                  const std::vector<llvm::Value*>& sourceSizes, const std::vector<bool>& known) {
  if (!checking(self)) return;
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value* ok = nullptr;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    if (known[i]) continue;
    llvm::Value *o = offsets[i], *s = sizes[i], *st = strides[i];
    llvm::Value* valid = both(ir, both(ir, ir.CreateICmpSGE(o, zeroLike(o)), ir.CreateICmpSGE(s, zeroLike(s))),
                              ir.CreateICmpSGE(st, zeroLike(st)));
    llvm::Value* overflow = nullptr;
    llvm::Value* last = withOverflow(ir, llvm::Intrinsic::smul_with_overflow, ir.CreateSub(s, oneLike(s)), st, overflow);
    llvm::Value* end = withOverflow(ir, llvm::Intrinsic::sadd_with_overflow, o, last, overflow);
    llvm::Value* inside = ir.CreateAnd(ir.CreateNot(overflow), ir.CreateICmpSLT(end, sourceSizes[i]));
    ok = both(ir, ok, ir.CreateAnd(valid, ir.CreateOr(ir.CreateICmpEQ(s, zeroLike(s)), inside)));
  }
  if (!ok) return;
  std::vector<llvm::Value*> values(offsets);
  values.insert(values.end(), sizes.begin(), sizes.end());
  values.insert(values.end(), strides.begin(), strides.end());
  emitCheck(self, ok, MEMJIT_CHECK_SUBVIEW, "subview", type, values, sourceSizes);
}

Extent rankedExtent(FunctionBuilder& self, llvm::Value* offset, const std::vector<llvm::Value*>& sizes,
                    const std::vector<llvm::Value*>& strides) {
  auto& ir = BuilderOps::impl(self).ir;
  Extent e{offset, offset, ir.getFalse()};
  for (std::size_t i = 0; i < sizes.size(); ++i) extendBy(ir, sizes[i], strides[i], e);
  return e;
}

Extent unrankedExtent(FunctionBuilder& self, llvm::Value* unranked) {
  Impl& I = BuilderOps::impl(self);
  auto& ir = I.ir;
  llvm::LLVMContext& ctx = ir.getContext();
  llvm::Type* idx = indexType(ctx, I.opts());
  const unsigned indexBytes = I.opts().indexBitwidth / 8;
  // The descriptor: two pointers, the offset, rank sizes, rank strides.
  llvm::Value* rank = ir.CreateExtractValue(unranked, {0});
  llvm::Value* descriptor = ir.CreateExtractValue(unranked, {1});
  llvm::Value* offset = ir.CreateLoad(idx, ir.CreateConstInBoundsGEP1_64(ir.getInt8Ty(), descriptor, 2 * sizeof(void*)));
  llvm::Value* sizes = ir.CreateConstInBoundsGEP1_64(ir.getInt8Ty(), descriptor, 2 * sizeof(void*) + indexBytes);
  llvm::Value* strides = ir.CreateInBoundsGEP(idx, sizes, rank);
  llvm::BasicBlock* pre = ir.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx, "check.extent", I.lowered.function);
  auto* body = llvm::BasicBlock::Create(ctx, "check.extent.dim", I.lowered.function);
  auto* done = llvm::BasicBlock::Create(ctx, "check.extent.done", I.lowered.function);
  ir.CreateBr(header);
  ir.SetInsertPoint(header);
  llvm::PHINode* i = ir.CreatePHI(idx, 2);
  llvm::PHINode* lo = ir.CreatePHI(idx, 2);
  llvm::PHINode* hi = ir.CreatePHI(idx, 2);
  llvm::PHINode* empty = ir.CreatePHI(ir.getInt1Ty(), 2);
  i->addIncoming(llvm::ConstantInt::get(idx, 0), pre);
  lo->addIncoming(offset, pre);
  hi->addIncoming(offset, pre);
  empty->addIncoming(ir.getFalse(), pre);
  ir.CreateCondBr(ir.CreateICmpSLT(i, rank), body, done);
  ir.SetInsertPoint(body);
  Extent e{lo, hi, empty};
  extendBy(ir, ir.CreateLoad(idx, ir.CreateInBoundsGEP(idx, sizes, i)),
           ir.CreateLoad(idx, ir.CreateInBoundsGEP(idx, strides, i)), e);
  i->addIncoming(ir.CreateAdd(i, llvm::ConstantInt::get(idx, 1)), body);
  lo->addIncoming(e.lo, body);
  hi->addIncoming(e.hi, body);
  empty->addIncoming(e.empty, body);
  ir.CreateBr(header);
  ir.SetInsertPoint(done);
  return {lo, hi, empty};
}

void checkReinterpretCast(FunctionBuilder& self, std::string_view types, const Extent& source, llvm::Value* offset,
                          const std::vector<llvm::Value*>& sizes, const std::vector<llvm::Value*>& strides) {
  if (!checking(self)) return;
  auto& ir = BuilderOps::impl(self).ir;
  llvm::Value *negative = nullptr, *resultEmpty = nullptr, *overflow = nullptr;
  llvm::Value *lo = offset, *hi = offset;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    llvm::Value *s = sizes[i], *st = strides[i];
    negative = either(ir, negative, ir.CreateICmpSLT(s, zeroLike(s)));
    resultEmpty = either(ir, resultEmpty, ir.CreateICmpEQ(s, zeroLike(s)));
    llvm::Value* reach = withOverflow(ir, llvm::Intrinsic::smul_with_overflow, ir.CreateSub(s, oneLike(s)), st, overflow);
    lo = withOverflow(ir, llvm::Intrinsic::sadd_with_overflow, lo,
                      ir.CreateBinaryIntrinsic(llvm::Intrinsic::smin, reach, zeroLike(reach)), overflow);
    hi = withOverflow(ir, llvm::Intrinsic::sadd_with_overflow, hi,
                      ir.CreateBinaryIntrinsic(llvm::Intrinsic::smax, reach, zeroLike(reach)), overflow);
  }
  llvm::Value* inside = ir.CreateAnd(ir.CreateNot(source.empty),
                                     ir.CreateAnd(ir.CreateICmpSGE(lo, source.lo), ir.CreateICmpSLE(hi, source.hi)));
  if (overflow) inside = ir.CreateAnd(inside, ir.CreateNot(overflow));
  llvm::Value* ok = resultEmpty ? ir.CreateOr(resultEmpty, inside) : inside;
  if (negative) ok = ir.CreateAnd(ok, ir.CreateNot(negative));
  std::vector<llvm::Value*> values{offset};
  values.insert(values.end(), sizes.begin(), sizes.end());
  values.insert(values.end(), strides.begin(), strides.end());
  llvm::Value* none = llvm::ConstantInt::get(offset->getType(), -1, true);
  emitCheck(self, ok, MEMJIT_CHECK_REINTERPRET_CAST, "reinterpret_cast", types, values,
            {ir.CreateSelect(source.empty, zeroLike(offset), source.lo), ir.CreateSelect(source.empty, none, source.hi)});
}

void checkAlloc(FunctionBuilder& self, std::string_view type, const std::vector<llvm::Value*>& sizes,
                const std::vector<bool>& dynamic, std::uint64_t elementBytes, std::uint64_t padding) {
  if (!checking(self)) return;
  Impl& I = BuilderOps::impl(self);
  auto& ir = I.ir;
  llvm::Type* idx = indexType(ir.getContext(), I.opts());
  llvm::Value* negative = nullptr;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (dynamic[i]) negative = either(ir, negative, ir.CreateICmpSLT(sizes[i], zeroLike(sizes[i])));
  if (negative) emitCheck(self, ir.CreateNot(negative), MEMJIT_CHECK_ALLOC_NEGATIVE, "alloc", type, sizes);
  llvm::Value* bytes = llvm::ConstantInt::get(idx, elementBytes);
  llvm::Value* ok;
  if (!negative) {
    // Static shape: decided here.
    const unsigned width = idx->getIntegerBitWidth();
    bool overflow = false;
    llvm::APInt total(width, 1);
    for (llvm::Value* s : sizes) {
      bool o = false;
      total = total.smul_ov(llvm::cast<llvm::ConstantInt>(s)->getValue(), o);
      overflow |= o;
    }
    bool o1 = false, o2 = false;
    total = total.smul_ov(llvm::APInt(width, elementBytes), o1).sadd_ov(llvm::APInt(width, padding), o2);
    if (!(overflow || o1 || o2)) return;
    ok = ir.getFalse();
  } else {
    llvm::Value* overflow = nullptr;
    llvm::Value* total = llvm::ConstantInt::get(idx, 1);
    for (llvm::Value* s : sizes) total = withOverflow(ir, llvm::Intrinsic::smul_with_overflow, total, s, overflow);
    total = withOverflow(ir, llvm::Intrinsic::smul_with_overflow, total, bytes, overflow);
    withOverflow(ir, llvm::Intrinsic::sadd_with_overflow, total, llvm::ConstantInt::get(idx, padding), overflow);
    ok = ir.CreateNot(overflow);
  }
  emitCheck(self, ok, MEMJIT_CHECK_ALLOC_OVERFLOW, "alloc", type, sizes, {bytes});
}

}  // namespace memjit::codegen::detail
