// `memjit compile`: LLVM IR (e.g. from mlir-translate-19) in MLIR's memref
// convention to a self-describing object file plus a C++ header.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "command.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/aot_command.h"
#include "memjit/jit/embedded_metadata.h"
#include "memjit/metadata_symbols.h"
#include "memjit/type_syntax.h"

namespace memjit::cli {
namespace {

constexpr const char* kName = "compile";

Error addSignatures(llvm::Module& module,
                    const std::vector<std::pair<std::string, std::string>>& signatures) {
  for (const auto& [name, typeText] : signatures) {
    auto type = parseFunctionType(typeText);
    if (!type) return type.error().withContext("--signature " + name);
    if (!module.getFunction(name) &&
        !module.getFunction(metadata::symbolName(metadata::kCInterfacePrefix, name)))
      return Error(ErrorCode::NotFound, "--signature " + name + ": the module defines no function '" +
                                            name + "' or '" +
                                            metadata::symbolName(metadata::kCInterfacePrefix, name) + "'");
    auto sig = signature::describe(name, *type);
    if (!sig) return sig.error().withContext("--signature " + name);
    MEMJIT_TRY(jit::embedSignature(module, *sig));
  }
  return Error::success();
}

std::string milliseconds(std::chrono::nanoseconds time) {
  char text[32];
  std::snprintf(text, sizeof text, "%10.3f ms", static_cast<double>(time.count()) / 1e6);
  return text;
}

// --time-phases: where compileAhead's time went, after the time to read the input.
void printPhases(std::chrono::nanoseconds read, const jit::CompileStats& stats) {
  std::cout << "phases:\n"
            << "  read      " << milliseconds(read) << "\n"
            << "  verify    " << milliseconds(stats.verify) << "\n"
            << "  prepare   " << milliseconds(stats.prepare) << "\n"
            << "  optimize  " << milliseconds(stats.optimize) << "\n"
            << "  codegen   " << milliseconds(stats.codegen) << "\n"
            << "  total     " << milliseconds(read + stats.total) << "\n"
            << "  object    " << stats.objectBytes << " bytes\n";
}

int run(const Args& commandArgs) {
  Args args = commandArgs;
  auto timePhasesFlag = std::find(args.begin(), args.end(), "--time-phases");
  const bool timePhases = timePhasesFlag != args.end();
  if (timePhases) args.erase(timePhasesFlag);
  const auto started = std::chrono::steady_clock::now();
  auto command = jit::parseAotCommand(args);
  if (!command) return usageError(kName, command.error().message());
  if (command->inputs.size() != 1)
    return usageError(kName, "expected exactly one input file (.ll or .bc)");
  const std::string& input = command->inputs[0];

  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseIRFile(input, diagnostic, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream os(message);
    diagnostic.print(nullptr, os, false);
    os.flush();
    return fail(kName, Error(ErrorCode::ParseError, "cannot read '" + input + "': " + message));
  }
  if (Error e = addSignatures(*module, command->signatures)) return fail(kName, e);
  auto functions = jit::readEmbeddedSignatures(*module);
  if (!functions) return fail(kName, functions.error());
  if (command->header.moduleName.empty()) {
    std::string stem = input.substr(input.find_last_of('/') + 1);
    command->header.moduleName = stem.substr(0, stem.find('.'));
  }
  const auto read = std::chrono::steady_clock::now() - started;
  jit::CompileStats stats;
  if (timePhases) command->options.stats = &stats;
  if (Error e = jit::compileAhead(*module, command->outputs, command->options, command->header))
    return fail(kName, e);
  std::cout << "compiled " << input << " for " << command->options.target.triple << " ("
            << jit::optLevelName(command->options.optLevel) << ")\n";
  for (const auto& fn : *functions) std::cout << "  " << fn.name << " : " << toString(fn.type) << "\n";
  // C interfaces the header cannot declare: their types are unknown.
  for (const llvm::Function& f : *module) {
    llvm::StringRef name = f.getName();
    if (f.isDeclaration() || !name.starts_with(metadata::kCInterfacePrefix)) continue;
    const std::string base = name.drop_front(metadata::kCInterfacePrefix.size()).str();
    if (!module->getNamedGlobal(metadata::symbolName(metadata::kTypePrefix, base)))
      std::cout << "  note: " << name.str() << " has no signature metadata; add --signature " << base
                << "='<function type>' to describe it\n";
  }
  if (timePhases) printPhases(std::chrono::duration_cast<std::chrono::nanoseconds>(read), stats);
  return 0;
}

Registrar registrar({kName,
                     "memjit compile <file.ll|file.bc> -o <out.o> [--header <h>] [--target <triple>] "
                     "[--cpu <cpu>] [--features <f>] [-O0..3] [--emit-asm|--emit-ll|--emit-bc <file>] "
                     "[--signature NAME='<function type>']... [--recover] [--no-vector-math] [--time-phases]",
                     "compile IR in MLIR's memref convention to an object file and a C++ header", run});

}  // namespace
}  // namespace memjit::cli
