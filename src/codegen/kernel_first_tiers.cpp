// The library kernels' first-tier bodies (kernel_first_tiers.h): calls of
// the runtime's memjit_first_tier_matmul_f32/f64 (src/runtime/first_tier_matmul.cpp)
// and memjit_first_tier_softmax_f32/f64 (first_tier_softmax.cpp), so that the
// first tier compiles two calls. As an IR loop nest, vectorised along C's
// rows, matmul's body took twice the instructions of its own O0 compile
// (4.05M against 2.18M per add).
#include "kernel_first_tiers.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "descriptor_ops.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/metadata_symbols.h"
#include "memjit/runtime/detail/first_tier.h"

namespace memjit::codegen::detail {
namespace {

// The expanded convention's body: its arguments packed into `matrices`
// descriptors, as the function lowering packs them, for the C interface's body (`first`).
void packAndCall(llvm::Function* expanded, llvm::Function* first, ElementType element, int matrices) {
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(expanded->getContext(), "entry", expanded));
  std::vector<llvm::Value*> fields;
  for (llvm::Argument& arg : expanded->args()) fields.push_back(&arg);
  auto it = std::as_const(fields).begin();
  std::vector<llvm::Value*> descriptors;
  for (int m = 0; m < matrices; ++m) {
    llvm::Value* d = packArgument(b, MemRefType(element, {kDynamic, kDynamic}), LoweringOptions{}, it);
    llvm::AllocaInst* slot = b.CreateAlloca(d->getType());
    b.CreateStore(d, slot);
    descriptors.push_back(slot);
  }
  b.CreateCall(first, descriptors);
  b.CreateRetVoid();
}

// The kernel `name` and its C interface when they take `matrices` rank-2
// descriptors of `element` and return nothing, else nullopt.
std::optional<LoweredFunction> matrixKernel(Module& m, const std::string& name, ElementType element, int matrices) {
  if (element != ElementType::F32 && element != ElementType::F64) return std::nullopt;
  auto lowered = lookupFunction(m, name);
  if (!lowered || !lowered->cInterface || !lowered->function) return std::nullopt;
  llvm::LLVMContext& context = lowered->function->getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* voidType = llvm::Type::getVoidTy(context);
  // Expanded: (allocated, aligned, offset, 2 sizes, 2 strides) per matrix; C interface: a descriptor pointer each.
  std::vector<llvm::Type*> expanded, descriptors(static_cast<std::size_t>(matrices), ptr);
  for (int i = 0; i < matrices; ++i) expanded.insert(expanded.end(), {ptr, ptr, i64, i64, i64, i64, i64});
  if (lowered->function->getFunctionType() != llvm::FunctionType::get(voidType, expanded, false) ||
      lowered->cInterface->getFunctionType() != llvm::FunctionType::get(voidType, descriptors, false))
    return std::nullopt;
  return *lowered;
}

// The runtime function `name` of `type`, declared extern_weak: only memjit's
// first tier calls it, and every other compile of memjit drops the bodies
// that do; a module compiled by plain LLVM (at O0 the bodies stay) links
// without memjit's runtime, the reference resolving to null.
llvm::FunctionCallee weakRuntimeFunction(llvm::Module& module, const char* name, llvm::FunctionType* type) {
  llvm::FunctionCallee callee = module.getOrInsertFunction(name, type);
  if (auto* declared = llvm::dyn_cast<llvm::Function>(callee.getCallee()); declared && declared->isDeclaration())
    declared->setLinkage(llvm::GlobalValue::ExternalWeakLinkage);
  return callee;
}

// Gives the kernel and its C interface first-tier bodies: `callRuntime` fills
// the C interface's (its arguments are the descriptors' pointers).
void addBodies(const std::string& name, ElementType element, int matrices, const LoweredFunction& lowered,
               const std::function<void(llvm::IRBuilder<>&, llvm::Function&)>& callRuntime) {
  llvm::Function* kernel = lowered.function;
  llvm::Function* cInterface = lowered.cInterface;
  llvm::Module& module = *kernel->getParent();
  const std::string suffix(metadata::kFirstTierBodySuffix);
  auto* first = llvm::Function::Create(cInterface->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                       name + ".c_interface" + suffix, module);
  llvm::IRBuilder<> ir(llvm::BasicBlock::Create(kernel->getContext(), "entry", first));
  callRuntime(ir, *first);
  ir.CreateRetVoid();
  auto* packing = llvm::Function::Create(kernel->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                         name + suffix, module);
  packAndCall(packing, first, element, matrices);
  cInterface->addFnAttr(metadata::kFirstTierBodyAttribute, first->getName());
  kernel->addFnAttr(metadata::kFirstTierBodyAttribute, packing->getName());
}

}  // namespace

void addMatmulFirstTierBody(Module& m, const std::string& name, ElementType element, MatrixLayout a,
                            MatrixLayout b, std::int64_t kc) {
  auto lowered = matrixKernel(m, name, element, 3);
  if (!lowered) return;
  // The offsets the kernel's types fix at 0 are 0 in the body too, whatever
  // a descriptor says (the tiers agree); another static offset has no body.
  int zeroOffsets = 0;
  for (int i = 0; i < 3; ++i) {
    const auto* type = std::get_if<MemRefType>(&lowered->type.inputs[static_cast<std::size_t>(i)]);
    if (!type) return;
    if (type->effectiveOffset() == 0)
      zeroOffsets |= runtime::first_tier::kZeroOffsetA << i;
    else if (type->effectiveOffset() != kDynamic)
      return;
  }
  addBodies(name, element, 3, *lowered, [&](llvm::IRBuilder<>& ir, llvm::Function& first) {
    llvm::Type* ptr = ir.getPtrTy();
    llvm::FunctionCallee runtime = weakRuntimeFunction(
        *first.getParent(), element == ElementType::F64 ? "memjit_first_tier_matmul_f64" : "memjit_first_tier_matmul_f32",
        llvm::FunctionType::get(ir.getVoidTy(), {ptr, ptr, ptr, ir.getInt64Ty(), ir.getInt32Ty()}, false));
    using namespace runtime::first_tier;
    const int layout = (a == MatrixLayout::ColumnMajor ? kColumnMajorA : 0) |
                       (b == MatrixLayout::ColumnMajor ? kColumnMajorB : 0) | zeroOffsets;
    ir.CreateCall(runtime, {first.getArg(0), first.getArg(1), first.getArg(2), ir.getInt64(kc), ir.getInt32(layout)});
  });
}

void addSoftmaxFirstTierBody(Module& m, const std::string& name, ElementType element) {
  auto lowered = matrixKernel(m, name, element, 2);
  if (!lowered) return;
  addBodies(name, element, 2, *lowered, [&](llvm::IRBuilder<>& ir, llvm::Function& first) {
    llvm::Type* ptr = ir.getPtrTy();
    llvm::FunctionCallee runtime = weakRuntimeFunction(
        *first.getParent(), element == ElementType::F64 ? "memjit_first_tier_softmax_f64" : "memjit_first_tier_softmax_f32",
        llvm::FunctionType::get(ir.getVoidTy(), {ptr, ptr}, false));
    ir.CreateCall(runtime, {first.getArg(0), first.getArg(1)});
  });
}

}  // namespace memjit::codegen::detail
