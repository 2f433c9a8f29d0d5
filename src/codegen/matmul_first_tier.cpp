// The matrix multiplies' first-tier bodies (matmul_first_tier.h): calls of
// the runtime's memjit_first_tier_matmul_f32/f64 (src/runtime/first_tier_matmul.cpp),
// so that the first tier compiles two calls. As an IR loop nest, vectorised
// along C's rows, the body took twice the instructions of matmul's own O0
// compile (4.05M against 2.18M per add).
#include "matmul_first_tier.h"

#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "descriptor_ops.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/metadata_symbols.h"

namespace memjit::codegen::detail {
namespace {

// The expanded convention's body: its arguments packed into descriptors, as
// the function lowering packs them, for the C interface's body (`first`).
void packAndCall(llvm::Function* expanded, llvm::Function* first, ElementType element) {
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(expanded->getContext(), "entry", expanded));
  std::vector<llvm::Value*> fields;
  for (llvm::Argument& arg : expanded->args()) fields.push_back(&arg);
  auto it = std::as_const(fields).begin();
  std::vector<llvm::Value*> descriptors;
  for (int m = 0; m < 3; ++m) {
    llvm::Value* d = packArgument(b, MemRefType(element, {kDynamic, kDynamic}), LoweringOptions{}, it);
    llvm::AllocaInst* slot = b.CreateAlloca(d->getType());
    b.CreateStore(d, slot);
    descriptors.push_back(slot);
  }
  b.CreateCall(first, descriptors);
  b.CreateRetVoid();
}

}  // namespace

void addMatmulFirstTierBody(Module& m, const std::string& name, ElementType element, MatrixLayout a,
                            MatrixLayout b, std::int64_t kc) {
  if (element != ElementType::F32 && element != ElementType::F64) return;
  auto lowered = lookupFunction(m, name);
  if (!lowered || !lowered->cInterface || !lowered->function) return;
  llvm::Function* kernel = lowered->function;
  llvm::Function* cInterface = lowered->cInterface;
  llvm::Module& module = *kernel->getParent();
  llvm::LLVMContext& context = kernel->getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  llvm::Type* voidType = llvm::Type::getVoidTy(context);
  // Expanded: (allocated, aligned, offset, 2 sizes, 2 strides) per matrix; C interface: a descriptor pointer each.
  std::vector<llvm::Type*> expanded;
  for (int i = 0; i < 3; ++i) expanded.insert(expanded.end(), {ptr, ptr, i64, i64, i64, i64, i64});
  if (kernel->getFunctionType() != llvm::FunctionType::get(voidType, expanded, false) ||
      cInterface->getFunctionType() != llvm::FunctionType::get(voidType, {ptr, ptr, ptr}, false))
    return;
  const std::string suffix(metadata::kFirstTierBodySuffix);
  auto* first = llvm::Function::Create(cInterface->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                       name + ".c_interface" + suffix, module);
  llvm::FunctionCallee runtime = module.getOrInsertFunction(
      element == ElementType::F64 ? "memjit_first_tier_matmul_f64" : "memjit_first_tier_matmul_f32",
      llvm::FunctionType::get(voidType, {ptr, ptr, ptr, i64, i32}, false));
  llvm::IRBuilder<> ir(llvm::BasicBlock::Create(context, "entry", first));
  const int columnMajor = (a == MatrixLayout::ColumnMajor ? 1 : 0) | (b == MatrixLayout::ColumnMajor ? 2 : 0);
  ir.CreateCall(runtime, {first->getArg(0), first->getArg(1), first->getArg(2), ir.getInt64(kc), ir.getInt32(columnMajor)});
  ir.CreateRetVoid();
  auto* packing = llvm::Function::Create(kernel->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                         name + suffix, module);
  packAndCall(packing, first, element);
  cInterface->addFnAttr(metadata::kFirstTierBodyAttribute, first->getName());
  kernel->addFnAttr(metadata::kFirstTierBodyAttribute, packing->getName());
}

}  // namespace memjit::codegen::detail
