// Ahead-of-time compilation to files.
#include "memjit/jit/aot.h"

#include <fstream>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "compile.h"
#include "crash_recovery.h"
#include "llvm_error.h"
#include "phase_timer.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/embedded_metadata.h"

namespace memjit::jit {
namespace {

Error writeFile(const std::string& path, std::string_view data, const char* what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) return Error(ErrorCode::IoError, std::string("cannot write ") + what + " '" + path + "'");
  return Error::success();
}

// After the header's first comment block: what the object needs at link time.
std::string withLinkNote(const std::string& header, const llvm::Module& module) {
  bool callsVectorMath = false;
  for (const llvm::Function& f : module)
    if (f.isDeclaration() && f.getName().starts_with("_ZGV")) callsVectorMath = true;
  if (!callsVectorMath || header.empty()) return header;
  const std::size_t end = header.find("\n\n");
  const std::string note =
      "\n// Link with -lmvec -lm: the object calls glibc's vector math library (libmvec;\n"
      "// memjit_add_aot_library adds it; AotOptions::vectorMath = false compiles without it).";
  return end == std::string::npos ? header + note : header.substr(0, end) + note + header.substr(end);
}

// Optimises `module` with `machine` and writes the outputs (header text ready).
Error compileAndWrite(llvm::Module& module, llvm::TargetMachine& machine, const AotOutputs& outputs,
                      const AotOptions& options, const std::string& headerText) {
  CompileStats* stats = options.stats;
  {
    detail::PhaseTimer timer(stats ? &stats->prepare : nullptr);
    detail::prepareModule(module, machine);
  }
  {
    detail::PhaseTimer timer(stats ? &stats->optimize : nullptr);
    if (options.remarks) options.remarks->clear();
    detail::optimize(module, machine,
                     {options.optLevel, options.skipVectorEpilogue, options.vectorMath, options.remarks});
  }
  const std::string header = withLinkNote(headerText, module);
  if (!outputs.ir.empty()) MEMJIT_TRY(writeFile(outputs.ir, detail::printIR(module), "IR"));
  if (!outputs.bitcode.empty())
    MEMJIT_TRY(writeFile(outputs.bitcode, detail::writeBitcode(module), "bitcode"));
  // Code generation changes the IR, so with two code outputs the first works on a copy.
  if (!outputs.assembly.empty()) {
    std::unique_ptr<llvm::Module> copy;
    llvm::Module* target = &module;
    if (!outputs.object.empty()) {
      copy = llvm::CloneModule(module);
      target = copy.get();
    }
    detail::PhaseTimer timer(stats ? &stats->codegen : nullptr);
    MEMJIT_ASSIGN_OR_RETURN(auto text, detail::emitCode(*target, machine, detail::EmitKind::Assembly));
    MEMJIT_TRY(writeFile(outputs.assembly, text, "assembly"));
  }
  if (!outputs.object.empty()) {
    std::string object;
    {
      detail::PhaseTimer timer(stats ? &stats->codegen : nullptr);
      MEMJIT_ASSIGN_OR_RETURN(object, detail::emitCode(module, machine, detail::EmitKind::Object));
    }
    if (stats) stats->objectBytes = object.size();
    MEMJIT_TRY(writeFile(outputs.object, object, "object file"));
  }
  if (!outputs.header.empty()) MEMJIT_TRY(writeFile(outputs.header, header, "header"));
  return Error::success();
}

}  // namespace

Error compileAhead(llvm::Module& module, const AotOutputs& outputs, const AotOptions& options,
                   const HeaderOptions& headerOptions) {
  if (options.stats) *options.stats = CompileStats{};
  detail::PhaseTimer total(options.stats ? &options.stats->total : nullptr);
  {
    detail::PhaseTimer timer(options.stats ? &options.stats->verify : nullptr);
    MEMJIT_TRY(detail::verify(module));
  }
  // Read the metadata first: a bad header should fail before any file is written.
  std::string header;
  if (!outputs.header.empty()) {
    MEMJIT_ASSIGN_OR_RETURN(auto functions, readEmbeddedSignatures(module));
    HeaderOptions h = headerOptions;
    if (h.moduleName.empty()) h.moduleName = module.getModuleIdentifier();
    MEMJIT_ASSIGN_OR_RETURN(header, generateHeader(functions, h));
  }
  MEMJIT_ASSIGN_OR_RETURN(auto machine, detail::createTargetMachine(options.target, options.optLevel));
  if (!options.recoverFromLlvmCrashes) return compileAndWrite(module, *machine, outputs, options, header);

  // After a crash the IR LLVM worked on cannot even be destroyed safely (value
  // handles of unwound frames still point into it), and the caller's module
  // must stay theirs to destroy: compile a copy in a context of its own.
  const std::string name = module.getModuleIdentifier();
  auto context = std::make_unique<llvm::LLVMContext>();
  const std::string bitcode = detail::writeBitcode(module);
  auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, name), *context);
  if (!parsed)
    return detail::fromLLVM(parsed.takeError(), ErrorCode::Internal, "cannot copy module '" + name + "'");
  std::unique_ptr<llvm::Module> copy = std::move(*parsed);
  copy->setModuleIdentifier(name);
  bool crashed = false;
  Error result = detail::runRecoveringFromCrashes(
      name, [&] { return compileAndWrite(*copy, *machine, outputs, options, header); }, crashed);
  if (crashed) {
    (void)copy.release();
    (void)context.release();
    (void)machine.release();
  }
  return result;
}

Error compileAhead(codegen::Module& module, const AotOutputs& outputs, const AotOptions& options,
                   const HeaderOptions& header) {
  HeaderOptions h = header;
  if (h.moduleName.empty()) h.moduleName = module.name();
  return compileAhead(module.llvm(), outputs, options, h);
}

}  // namespace memjit::jit
