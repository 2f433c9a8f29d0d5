#include "code_emitter.h"

#include "codegen_pass_gate.h"
#include "half_loads.h"
#include "half_registers.h"
#include "identity_lanes.h"
#include "loads_across_writes.h"
#include "shift_amounts.h"
#include "splat_bitcasts.h"

#include <optional>

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace memjit::jit::detail {

namespace {

// Collects error diagnostics while it lives instead of letting LLVM print them
// and exit, then gives the context its previous handler back.
class DiagnosticCapture {
 public:
  explicit DiagnosticCapture(llvm::LLVMContext& context)
      : context_(context),
        previousHandler_(context.getDiagnosticHandlerCallBack()),
        previousContext_(context.getDiagnosticContext()) {
    context.setDiagnosticHandlerCallBack(&DiagnosticCapture::handle, this);
  }
  ~DiagnosticCapture() { context_.setDiagnosticHandlerCallBack(previousHandler_, previousContext_); }
  DiagnosticCapture(const DiagnosticCapture&) = delete;
  DiagnosticCapture& operator=(const DiagnosticCapture&) = delete;

  const std::string& errors() const { return errors_; }

 private:
  static void handle(const llvm::DiagnosticInfo* info, void* self) {
    if (info->getSeverity() != llvm::DS_Error) return;
    auto* capture = static_cast<DiagnosticCapture*>(self);
    llvm::raw_string_ostream os(capture->errors_);
    if (!capture->errors_.empty()) os << "; ";
    llvm::DiagnosticPrinterRawOStream printer(os);
    info->print(printer);
  }

  llvm::LLVMContext& context_;
  llvm::DiagnosticHandler::DiagnosticHandlerTy previousHandler_;
  void* previousContext_;
  std::string errors_;
};

}  // namespace

Expected<std::unique_ptr<CodeEmitter>> CodeEmitter::create(llvm::TargetMachine& machine, EmitKind kind) {
  std::unique_ptr<CodeEmitter> emitter(new CodeEmitter(machine, machine.getOptLevel()));
  const auto fileType = kind == EmitKind::Object ? llvm::CodeGenFileType::ObjectFile
                                                 : llvm::CodeGenFileType::AssemblyFile;
  if (machine.addPassesToEmitFile(emitter->passes_, emitter->stream_, nullptr, fileType))
    return Error(ErrorCode::Unsupported, "target " + machine.getTargetTriple().str() +
                                             " cannot emit this kind of file");
  return emitter;
}

Expected<std::string> CodeEmitter::emit(llvm::Module& module) {
  buffer_.clear();
  identityLanesAsOperands(module);
  passHalvesAsBits(module);
  zeroOutOfRangeShiftLanes(module);
  splatBitcastsOfScalars(module);
  widenHalfLoadsInVectorRegisters(module, machine_);
  // Last: after passHalvesAsBits, a half is loaded as i16 (a frozen bf16
  // would be widened and narrowed through vcvtneps2bf16, flushing denormals).
  freezeLoadsUsedAfterWrites(module);
  // The instruction selector, chosen per module. Building an O0 pipeline
  // switches the machine to FastISel for good (TargetPassConfig sets
  // EnableFastISel on the TargetMachine, and SelectionDAGISel reads it for
  // every function), so a pooled machine that had once compiled at O0 selected
  // O1-O3 code with FastISel too. And FastISel keeps a value another
  // instruction uses in a virtual register of its register type, f32 for bf16
  // (and for f16 without AVX512-FP16), narrowed back with vcvtneps2bf16 or
  // vcvtps2ph, which flush bf16 denormals and quiet signalling NaNs (issue 24).
  // Modules with half values take SelectionDAG at O0 as well, which keeps a
  // half used in its own block where it is (passHalvesAsBits handles the rest).
  machine_.setFastISel(level_ == llvm::CodeGenOptLevel::None && !hasHalfValues(module));
  {
    DiagnosticCapture diagnostics(module.getContext());
    std::optional<CodegenPassGate> gate;
    if (level_ != llvm::CodeGenOptLevel::None) gate.emplace(module, &machine_);
    passes_.run(module);
    if (!diagnostics.errors().empty()) {
      buffer_.clear();
      return Error(ErrorCode::CompileError, "code generation for module '" + module.getModuleIdentifier() +
                                                "' failed: " + diagnostics.errors());
    }
  }
  std::string code(buffer_.data(), buffer_.size());
  buffer_.clear();
  return code;
}

Expected<std::string> emitCode(llvm::Module& module, llvm::TargetMachine& machine, EmitKind kind) {
  MEMJIT_ASSIGN_OR_RETURN(auto emitter, CodeEmitter::create(machine, kind));
  return emitter->emit(module);
}

}  // namespace memjit::jit::detail
