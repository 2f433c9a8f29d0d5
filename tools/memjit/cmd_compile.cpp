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
#include "flags.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/aot_command.h"
#include "memjit/jit/embedded_metadata.h"
#include "memjit/jit/remarks.h"
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

// The command's own flags; the rest are jit::parseAotCommand's (shared with
// AOT generators), collected in their canonical spelling and parsed by it, so
// the two command lines cannot drift apart.
struct CompileCommand {
  Args aotArgs;
  bool timePhases = false;
  bool remarks = false;
  bool help = false;
};

// An AOT flag: passed on, with its value when it has one.
Error passOn(CompileCommand& c, std::string_view name, std::string value) {
  c.aotArgs.push_back((name.size() <= 2 ? "-" : "--") + std::string(name));
  if (!value.empty()) c.aotArgs.push_back(std::move(value));
  return Error::success();
}

Error passOnValue(CompileCommand& c, std::string_view name, std::string value) {
  if (value.empty()) return Error(ErrorCode::InvalidArgument, "--" + std::string(name) + " needs a value");
  return passOn(c, name, std::move(value));
}

const std::vector<Flag<CompileCommand>>& compileFlags() {
  static const std::vector<Flag<CompileCommand>> table{
      {{"o"}, FlagValue::Required, "FILE.o", "write the object file", passOnValue},
      {{"header"}, FlagValue::Required, "FILE.h", "write a C++ header declaring the functions", passOnValue},
      {{"namespace"}, FlagValue::Required, "NS", "the header's namespace (default: the file's stem)", passOnValue},
      {{"emit-asm"}, FlagValue::Required, "FILE.s", "write the assembly", passOnValue},
      {{"emit-ll"}, FlagValue::Required, "FILE.ll", "write the optimised IR", passOnValue},
      {{"emit-bc"}, FlagValue::Required, "FILE.bc", "write the optimised bitcode", passOnValue},
      {{"target"}, FlagValue::Required, "TRIPLE", "compile for another target (default: this host)", passOnValue},
      {{"cpu"}, FlagValue::Required, "CPU", "the target CPU (default: the host's, or generic)", passOnValue},
      {{"features"}, FlagValue::Required, "+A,-B", "the target features (default: the host's, or none)", passOnValue},
      {{"O0", "O1", "O2", "O3"}, FlagValue::None, "", "optimisation level (default: O2)", passOn},
      {{"signature"}, FlagValue::Required, "NAME='<type>'",
       "describe function NAME (or _mlir_ciface_NAME) with this\nMLIR function type; repeatable", passOnValue},
      {{"recover"}, FlagValue::None, "", "an LLVM crash becomes an error naming the file", passOn},
      {{"no-vector-math"}, FlagValue::None, "", "keep math calls scalar (no libmvec)", passOn},
      {{"remarks"}, FlagValue::None, "",
       "print the loop vectoriser's verdict on each loop: its\nwidth and interleave count, or LLVM's reason",
       [](CompileCommand& c, std::string_view, std::string) {
         c.remarks = true;
         return Error::success();
       }},
      {{"time-phases"}, FlagValue::None, "", "print where the compile's time went",
       [](CompileCommand& c, std::string_view, std::string) {
         c.timePhases = true;
         return Error::success();
       }},
      {{"help", "h"}, FlagValue::None, "", "print this help",
       [](CompileCommand& c, std::string_view, std::string) {
         c.help = true;
         return Error::success();
       }},
  };
  return table;
}

constexpr const char* kUsage = "memjit compile <file.ll|file.bc> -o <out.o> [options]";

std::string compileHelp() {
  return commandHelp(kUsage,
                     "Compiles LLVM IR in MLIR's memref convention (e.g. from mlir-translate-19) to a\n"
                     "self-describing object file and a C++ header.\n",
                     compileFlags(),
                     "Remarks name each loop by its debug location when the IR has one (file:line:col);\n"
                     "docs/debugging.md, \"Why is my kernel slow?\", reads them.\n");
}

Expected<CompileCommand> parse(const Args& args) {
  CompileCommand command;
  auto input = [](CompileCommand& c, const std::string& arg) -> Error {
    c.aotArgs.push_back(arg);
    return Error::success();
  };
  auto unknown = [](CompileCommand&, const std::string& arg) -> Error {
    return Error(ErrorCode::InvalidArgument, "unknown option '" + arg + "' (see memjit compile --help)");
  };
  MEMJIT_TRY(parseFlags<CompileCommand>(compileFlags(), args, command, input, unknown));
  return command;
}

// --remarks: one line per loop the vectoriser looked at.
void printRemarks(const std::vector<jit::Remark>& remarks) {
  const auto loops = jit::loopVectorization(remarks);
  std::cout << "remarks:\n";
  if (loops.empty()) std::cout << "  no loop reached the loop vectoriser (it runs at -O2 and -O3)\n";
  for (const jit::LoopVectorization& loop : loops) std::cout << "  " << jit::describe(loop) << "\n";
}

int run(const Args& commandArgs) {
  auto parsed = parse(commandArgs);
  if (!parsed) return usageError(kName, parsed.error().message());
  if (parsed->help) {
    std::cout << compileHelp();
    return 0;
  }
  const Args& args = parsed->aotArgs;
  const bool timePhases = parsed->timePhases;
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
  std::vector<jit::Remark> remarks;
  if (parsed->remarks) command->options.remarks = &remarks;
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
  if (parsed->remarks) printRemarks(remarks);
  if (timePhases) printPhases(std::chrono::duration_cast<std::chrono::nanoseconds>(read), stats);
  return 0;
}

Registrar registrar({kName, kUsage,
                     "compile IR in MLIR's memref convention to an object file and a C++ header "
                     "(memjit compile --help)",
                     run});

}  // namespace
}  // namespace memjit::cli
