// Ahead-of-time compilation to files.
#include "memjit/jit/aot.h"

#include <fstream>

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "compile.h"
#include "memjit/jit/embedded_metadata.h"

namespace memjit::jit {
namespace {

Error writeFile(const std::string& path, std::string_view data, const char* what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) return Error(ErrorCode::IoError, std::string("cannot write ") + what + " '" + path + "'");
  return Error::success();
}

}  // namespace

Error compileAhead(llvm::Module& module, const AotOutputs& outputs, const AotOptions& options,
                   const HeaderOptions& headerOptions) {
  MEMJIT_TRY(detail::verify(module));
  // Read the metadata first: a bad header should fail before any file is written.
  std::string header;
  if (!outputs.header.empty()) {
    MEMJIT_ASSIGN_OR_RETURN(auto functions, readEmbeddedSignatures(module));
    HeaderOptions h = headerOptions;
    if (h.moduleName.empty()) h.moduleName = module.getModuleIdentifier();
    MEMJIT_ASSIGN_OR_RETURN(header, generateHeader(functions, h));
  }
  MEMJIT_ASSIGN_OR_RETURN(auto machine, detail::createTargetMachine(options.target, options.optLevel));
  detail::prepareModule(module, *machine);
  detail::optimize(module, *machine, options.optLevel, options.skipVectorEpilogue);
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
    MEMJIT_ASSIGN_OR_RETURN(auto text, detail::emitCode(*target, *machine, detail::EmitKind::Assembly));
    MEMJIT_TRY(writeFile(outputs.assembly, text, "assembly"));
  }
  if (!outputs.object.empty()) {
    MEMJIT_ASSIGN_OR_RETURN(auto object, detail::emitCode(module, *machine, detail::EmitKind::Object));
    MEMJIT_TRY(writeFile(outputs.object, object, "object file"));
  }
  if (!outputs.header.empty()) MEMJIT_TRY(writeFile(outputs.header, header, "header"));
  return Error::success();
}

}  // namespace memjit::jit
