// The matrix multiplies' first-tier bodies (matmul_first_tier.h): the
// kernels' arithmetic without sgemm's blocking, packing, masks and prefetches.
#include "matmul_first_tier.h"

#include <functional>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "memjit/codegen/function_lowering.h"
#include "memjit/metadata_symbols.h"

namespace memjit::codegen::detail {
namespace {

// A rank-2 memref: its data pointer, offset and strides (a static unit
// stride as the constant 1, as the kernel's layout declares it), sizes.
struct Matrix {
  llvm::Value *data, *offset, *sizes[2], *strides[2];
};

// `for (iv = begin; iv < end; iv += step) body(iv)` at the builder's
// position, which it leaves after the loop.
void forLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, llvm::Value* step,
             const std::function<void(llvm::Value*)>& body) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = f->getContext();
  llvm::BasicBlock* before = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context, "loop", f);
  auto* inside = llvm::BasicBlock::Create(context, "body", f);
  auto* after = llvm::BasicBlock::Create(context, "after", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(b.getInt64Ty(), 2);
  iv->addIncoming(begin, before);
  b.CreateCondBr(b.CreateICmpSLT(iv, end), inside, after);
  b.SetInsertPoint(inside);
  body(iv);
  iv->addIncoming(b.CreateAdd(iv, step), b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(after);
}

class Reference {
 public:
  Reference(llvm::Function* f, ElementType element, MatrixLayout a, MatrixLayout b, std::int64_t kc, unsigned lanes)
      : f_(f), b_(llvm::BasicBlock::Create(f->getContext(), "entry", f)), a_(a), bLayout_(b), kc_(kc), lanes_(lanes) {
    element_ = element == ElementType::F64 ? b_.getDoubleTy() : b_.getFloatTy();
    descriptor_ = llvm::StructType::get(b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty(),
                                        llvm::ArrayType::get(b_.getInt64Ty(), 2),
                                        llvm::ArrayType::get(b_.getInt64Ty(), 2));
  }

  // The C interface's body: the descriptors' fields, then the loop nest.
  void build() {
    A_ = read(f_->getArg(0), a_ == MatrixLayout::RowMajor);
    B_ = read(f_->getArg(1), bLayout_ == MatrixLayout::RowMajor);
    C_ = read(f_->getArg(2), true);
    acc_ = b_.CreateAlloca(vectorType(lanes_));
    accScalar_ = b_.CreateAlloca(element_);
    if (kc_ > 0) {  // the sum of the blocks so far
      total_ = b_.CreateAlloca(vectorType(lanes_));
      totalScalar_ = b_.CreateAlloca(element_);
    }
    llvm::Value *M = C_.sizes[0], *N = C_.sizes[1];
    // A column-major B has no unit stride along C's rows: scalar columns only.
    llvm::Value* vectorColumns =
        bLayout_ == MatrixLayout::RowMajor ? b_.CreateSub(N, b_.CreateSRem(N, index(lanes_))) : index(0);
    forLoop(b_, index(0), M, index(1), [&](llvm::Value* i) {
      forLoop(b_, index(0), vectorColumns, index(lanes_), [&](llvm::Value* j) { columns(i, j, lanes_); });
      forLoop(b_, vectorColumns, N, index(1), [&](llvm::Value* j) { columns(i, j, 1); });
    });
    b_.CreateRetVoid();
  }

 private:
  llvm::Value* index(std::int64_t v) { return b_.getInt64(v); }
  llvm::Type* vectorType(unsigned width) {
    return width == 1 ? element_ : llvm::FixedVectorType::get(element_, width);
  }

  Matrix read(llvm::Value* descriptor, bool unitColumnStride) {
    auto field = [&](llvm::Type* type, std::vector<unsigned> at) {
      std::vector<llvm::Value*> indices{b_.getInt32(0)};
      for (unsigned i : at) indices.push_back(b_.getInt32(i));
      return b_.CreateLoad(type, b_.CreateInBoundsGEP(descriptor_, descriptor, indices));
    };
    Matrix m;
    m.data = field(b_.getPtrTy(), {1});
    m.offset = field(b_.getInt64Ty(), {2});
    for (unsigned d = 0; d < 2; ++d) m.sizes[d] = field(b_.getInt64Ty(), {3, d});
    m.strides[0] = unitColumnStride ? field(b_.getInt64Ty(), {4, 0}) : index(1);
    m.strides[1] = unitColumnStride ? index(1) : field(b_.getInt64Ty(), {4, 1});
    return m;
  }

  llvm::Value* address(const Matrix& m, llvm::Value* row, llvm::Value* column) {
    // O0 folds nothing: a unit stride multiplies by nothing here.
    auto scaled = [&](llvm::Value* i, llvm::Value* stride) {
      auto* unit = llvm::dyn_cast<llvm::ConstantInt>(stride);
      return unit && unit->isOne() ? i : b_.CreateMul(i, stride);
    };
    llvm::Value* at = b_.CreateAdd(m.offset, b_.CreateAdd(scaled(row, m.strides[0]), scaled(column, m.strides[1])));
    return b_.CreateGEP(element_, m.data, at);
  }

  // C[i][j, j + width): per kc block an in-order FMA chain from +0, the
  // first block's chain the sum, each later one's added to it (chain + sum,
  // as the kernel's update adds C to the block's accumulators).
  void columns(llvm::Value* i, llvm::Value* j, unsigned width) {
    llvm::Type* type = vectorType(width);
    llvm::Value* total = width == 1 ? totalScalar_ : total_;
    llvm::Value* acc = width == 1 ? accScalar_ : acc_;
    const llvm::Align align(element_->getPrimitiveSizeInBits() / 8);
    // FastISel selects a load of a zero vector, not a store of the constant.
    auto* zeros = new llvm::GlobalVariable(*f_->getParent(), type, true, llvm::GlobalValue::PrivateLinkage,
                                           llvm::Constant::getNullValue(type), f_->getName() + ".zero");
    llvm::Value* zero = b_.CreateAlignedLoad(type, zeros, align);
    llvm::Value* K = A_.sizes[1];
    auto chainOver = [&](llvm::Value* begin, llvm::Value* end) {
      b_.CreateAlignedStore(zero, acc, align);
      forLoop(b_, begin, end, index(1), [&](llvm::Value* p) {
        llvm::Value* a = b_.CreateAlignedLoad(element_, address(A_, i, p), align);
        if (width > 1) a = b_.CreateVectorSplat(width, a);
        llvm::Value* bv = b_.CreateAlignedLoad(type, address(B_, p, j), align);
        llvm::Value* sum = b_.CreateAlignedLoad(type, acc, align);
        b_.CreateAlignedStore(b_.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {a, bv, sum}), acc, align);
      });
      return b_.CreateAlignedLoad(type, acc, align);
    };
    if (kc_ == 0) {  // one block (K == 0: C is +0)
      b_.CreateAlignedStore(chainOver(index(0), K), address(C_, i, j), align);
      return;
    }
    b_.CreateAlignedStore(zero, total, align);  // K == 0: C is +0
    llvm::Value* depth = index(kc_);
    forLoop(b_, index(0), K, depth, [&](llvm::Value* pc) {
      llvm::Value* rest = b_.CreateSub(K, pc);  // pc + kc could overflow
      llvm::Value* blockEnd = b_.CreateAdd(pc, b_.CreateSelect(b_.CreateICmpSLT(rest, depth), rest, depth));
      llvm::Value* chain = chainOver(pc, blockEnd);
      // A branch, not a select: FastISel selects no vector select.
      llvm::LLVMContext& context = f_->getContext();
      auto* first = llvm::BasicBlock::Create(context, "first_block", f_);
      auto* later = llvm::BasicBlock::Create(context, "later_block", f_);
      auto* next = llvm::BasicBlock::Create(context, "summed", f_);
      b_.CreateCondBr(b_.CreateICmpEQ(pc, index(0)), first, later);
      b_.SetInsertPoint(first);
      b_.CreateAlignedStore(chain, total, align);
      b_.CreateBr(next);
      b_.SetInsertPoint(later);
      b_.CreateAlignedStore(b_.CreateFAdd(chain, b_.CreateAlignedLoad(type, total, align)), total, align);
      b_.CreateBr(next);
      b_.SetInsertPoint(next);
    });
    b_.CreateAlignedStore(b_.CreateAlignedLoad(type, total, align), address(C_, i, j), align);
  }

  llvm::Function* f_;
  llvm::IRBuilder<> b_;
  const MatrixLayout a_, bLayout_;
  const std::int64_t kc_;  // 0: K is one block
  const unsigned lanes_;
  llvm::Type* element_ = nullptr;
  llvm::StructType* descriptor_ = nullptr;
  Matrix A_{}, B_{}, C_{};
  llvm::Value *total_ = nullptr, *acc_ = nullptr, *totalScalar_ = nullptr, *accScalar_ = nullptr;
};

// The expanded convention's body: its fields packed into descriptors for the
// C interface's body (`first`).
void packAndCall(llvm::Function* expanded, llvm::Function* first, llvm::StructType* descriptor) {
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(expanded->getContext(), "entry", expanded));
  std::vector<llvm::Value*> descriptors;
  unsigned arg = 0;
  for (unsigned m = 0; m < 3; ++m) {
    llvm::Value* d = b.CreateAlloca(descriptor);
    auto store = [&](std::vector<unsigned> at) {
      std::vector<llvm::Value*> indices{b.getInt32(0)};
      for (unsigned i : at) indices.push_back(b.getInt32(i));
      b.CreateStore(expanded->getArg(arg++), b.CreateInBoundsGEP(descriptor, d, indices));
    };
    for (std::vector<unsigned> at : {std::vector<unsigned>{0}, {1}, {2}, {3, 0}, {3, 1}, {4, 0}, {4, 1}}) store(at);
    descriptors.push_back(d);
  }
  b.CreateCall(first, descriptors);
  b.CreateRetVoid();
}

}  // namespace

void addMatmulFirstTierBody(Module& m, const std::string& name, ElementType element, MatrixLayout a,
                            MatrixLayout b, std::int64_t kc, unsigned lanes) {
  if (element != ElementType::F32 && element != ElementType::F64) return;
  auto lowered = lookupFunction(m, name);
  if (!lowered || !lowered->cInterface || !lowered->function) return;
  llvm::Function* kernel = lowered->function;
  llvm::Function* cInterface = lowered->cInterface;
  llvm::LLVMContext& context = kernel->getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  // Expanded: (allocated, aligned, offset, 2 sizes, 2 strides) per matrix; C interface: a descriptor pointer each.
  std::vector<llvm::Type*> expanded;
  for (int i = 0; i < 3; ++i) expanded.insert(expanded.end(), {ptr, ptr, i64, i64, i64, i64, i64});
  auto* voidType = llvm::Type::getVoidTy(context);
  if (kernel->getFunctionType() != llvm::FunctionType::get(voidType, expanded, false) ||
      cInterface->getFunctionType() != llvm::FunctionType::get(voidType, {ptr, ptr, ptr}, false))
    return;
  const std::string suffix(metadata::kFirstTierBodySuffix);
  auto* first = llvm::Function::Create(cInterface->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                       name + ".c_interface" + suffix, kernel->getParent());
  Reference(first, element, a, b, kc, lanes).build();
  auto* packing = llvm::Function::Create(kernel->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                         name + suffix, kernel->getParent());
  auto* descriptor = llvm::StructType::get(ptr, ptr, i64, llvm::ArrayType::get(i64, 2), llvm::ArrayType::get(i64, 2));
  packAndCall(packing, first, descriptor);
  cInterface->addFnAttr(metadata::kFirstTierBodyAttribute, first->getName());
  kernel->addFnAttr(metadata::kFirstTierBodyAttribute, packing->getName());
}

}  // namespace memjit::codegen::detail
