// MLIR's own toolchain as the `mlir` peer of the benchmarks: one context with
// the dialects the peer kernels use, the lowering mlir-opt users run, and the
// peer kernels themselves, read from bench/mlir/<name>.mlir (their one copy;
// bench/CMakeLists.txt sets MEMJIT_BENCH_MLIR_DIR). Only included where
// libmlir-19-dev was found (MEMJIT_HAVE_MLIR).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

namespace memjit::bench {

/// The process's MLIR context (never destroyed, like the engines made in it),
/// with the native target registered for MLIR's ExecutionEngine.
inline mlir::MLIRContext& peerContext() {
  static mlir::MLIRContext* context = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    mlir::DialectRegistry registry;
    registry.insert<mlir::func::FuncDialect, mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                    mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect, mlir::math::MathDialect,
                    mlir::LLVM::LLVMDialect>();
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    auto* c = new mlir::MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *context;
}

/// Lowers func/scf/memref/arith/cf (and math, when asked) to the LLVM dialect,
/// as mlir-opt's --convert-scf-to-cf --finalize-memref-to-llvm
/// [--convert-math-to-llvm] --convert-arith-to-llvm --convert-cf-to-llvm
/// --convert-func-to-llvm --reconcile-unrealized-casts. Only the passes a
/// kernel needs: Compile/*/mlir times this, and a pass with nothing to do
/// still walks the module.
inline mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module, bool convertMath = false) {
  mlir::PassManager pm(module.getContext());
  pm.addPass(mlir::createConvertSCFToCFPass());
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  if (convertMath) pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  return pm.run(module);
}

/// The text of bench/mlir/<name>.mlir for each of `names`, one after the
/// other (each file defines the function of its name), or which file could
/// not be read.
inline llvm::Expected<std::string> peerSource(std::initializer_list<const char*> names) {
  std::string text;
  for (const char* name : names) {
    const std::string path = std::string(MEMJIT_BENCH_MLIR_DIR) + "/" + name + ".mlir";
    auto file = llvm::MemoryBuffer::getFile(path);
    if (!file) return llvm::createStringError(file.getError(), "cannot read " + path + ": " + file.getError().message());
    text += (*file)->getBuffer();
  }
  return text;
}

/// Whether `source` uses the math dialect, so its lowering needs
/// --convert-math-to-llvm (lowerToLLVMDialect's convertMath).
inline bool usesMath(const std::string& source) { return source.find("math.") != std::string::npos; }

/// An ExecutionEngine made from `module` (lowered to the LLVM dialect) at
/// -O`level` (MLIR's makeOptimizingTransformer and the code generator level
/// that matches), and the address of `entry` in it.
struct PeerEngine {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  void* entry = nullptr;
};
inline llvm::Expected<PeerEngine> peerEngine(mlir::ModuleOp module, unsigned level, const std::string& entry) {
  mlir::ExecutionEngineOptions options;
  auto transformer = mlir::makeOptimizingTransformer(level, 0, nullptr);
  options.transformer = transformer;
  options.jitCodeGenOptLevel = level == 0   ? llvm::CodeGenOptLevel::None
                               : level == 3 ? llvm::CodeGenOptLevel::Aggressive
                                            : llvm::CodeGenOptLevel::Default;
  auto engine = mlir::ExecutionEngine::create(module, options);
  if (!engine) return engine.takeError();
  auto fn = (*engine)->lookup(entry);
  if (!fn) return fn.takeError();
  return PeerEngine{std::move(*engine), *fn};
}

/// The peer kernels `names` parsed into one module and lowered to the LLVM
/// dialect, ready for an ExecutionEngine.
inline llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> loweredPeerModule(std::initializer_list<const char*> names) {
  auto source = peerSource(names);
  if (!source) return source.takeError();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(*source, &peerContext());
  if (!module) return llvm::createStringError("MLIR could not parse the kernels");
  if (mlir::failed(lowerToLLVMDialect(*module, usesMath(*source))))
    return llvm::createStringError("MLIR's lowering failed");
  return module;
}

}  // namespace memjit::bench
