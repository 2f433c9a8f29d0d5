// `memjit run`: a drop-in for mlir-cpu-runner on LLVM IR (or an object file).
//
//   mlir-opt-19 prog.mlir <lowering> | mlir-translate-19 --mlir-to-llvmir > prog.ll
//   memjit run prog.ll -e main --entry-point-result=void [--shared-libs=a.so,b.so] [-O0..-O3]
//
// prints what mlir-cpu-runner-19 prints for the LLVM-dialect form of the same
// program: the entry takes no arguments and returns void, i32, i64 or f32; a
// result is printed on its own line after the entry returns (through
// llvm::outs(), like the runner, so it lands in the same place relative to the
// program's own buffered stdout). Flags that are not memjit run's go to LLVM's
// command line (e.g. -enable-matrix). The work is jit::loadProgram's.
//
// With function-mode flags (--arg, --signature, --out, --benchmark, ...; see
// run_function.h) it calls any function with arguments from the command line
// instead, RunGen-style.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/raw_ostream.h>

#include "command.h"
#include "run_function.h"
#include "run_options.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/program.h"

namespace memjit::cli {
namespace {

constexpr const char* kName = "run";

enum class EntryResult { Void, I32, I64, F32 };

struct RunCommand {
  std::string input = "-";  // mlir-cpu-runner reads standard input by default
  std::string entry = "main";
  EntryResult result = EntryResult::F32;  // mlir-cpu-runner's default too
  std::string resultText = "f32";
  std::optional<jit::OptLevel> optLevel;
  std::vector<std::string> sharedLibraries;
  std::vector<std::string> llvmOptions;  // forwarded to llvm::cl
};

// `-name`, `--name`, with its value as `=value` or as the next argument.
struct Flag {
  std::string name;
  std::optional<std::string> inlineValue;
};

std::optional<Flag> splitFlag(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-') return std::nullopt;
  std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
  Flag flag;
  if (auto eq = body.find('='); eq != std::string::npos) {
    flag.inlineValue = body.substr(eq + 1);
    body.resize(eq);
  }
  flag.name = body;
  return flag;
}

std::vector<std::string> splitCommas(const std::string& list) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) parts.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

Expected<RunCommand> parse(const Args& args) {
  RunCommand command;
  bool haveInput = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::optional<Flag> flag = splitFlag(arg);
    if (!flag) {
      if (haveInput)
        return Error(ErrorCode::InvalidArgument, "more than one input file ('" + command.input + "', '" + arg + "')");
      command.input = arg;
      haveInput = true;
      continue;
    }
    auto value = [&]() -> Expected<std::string> {
      if (flag->inlineValue) return *flag->inlineValue;
      if (i + 1 >= args.size()) return Error(ErrorCode::InvalidArgument, arg + " needs a value");
      return args[++i];
    };
    if (flag->name == "e") {
      MEMJIT_ASSIGN_OR_RETURN(command.entry, value());
    } else if (flag->name == "entry-point-result") {
      MEMJIT_ASSIGN_OR_RETURN(command.resultText, value());
      if (command.resultText == "void") command.result = EntryResult::Void;
      else if (command.resultText == "i32") command.result = EntryResult::I32;
      else if (command.resultText == "i64") command.result = EntryResult::I64;
      else if (command.resultText == "f32") command.result = EntryResult::F32;
      else
        return Error(ErrorCode::InvalidArgument, "--entry-point-result='" + command.resultText +
                                                     "' is not one of void, i32, i64, f32");
    } else if (flag->name == "shared-libs") {
      MEMJIT_ASSIGN_OR_RETURN(std::string list, value());
      for (std::string& library : splitCommas(list)) command.sharedLibraries.push_back(std::move(library));
    } else if (!flag->inlineValue && flag->name.size() == 2 && flag->name[0] == 'O' && flag->name[1] >= '0' &&
               flag->name[1] <= '3') {
      command.optLevel = static_cast<jit::OptLevel>(flag->name[1] - '0');
    } else if (arg == "-") {
      command.input = arg;
      haveInput = true;
    } else {
      command.llvmOptions.push_back(arg);
    }
  }
  return command;
}

// Hands the flags memjit run does not know to LLVM (process-global options).
Error forwardToLLVM(const std::vector<std::string>& options) {
  if (options.empty()) return Error::success();
  std::vector<const char*> argv{"memjit run"};
  for (const std::string& option : options) argv.push_back(option.c_str());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "", &os)) return Error::success();
  os.flush();
  std::string first = errors.substr(0, errors.find('\n'));
  if (first.rfind("memjit run: ", 0) == 0) first.erase(0, 12);
  return Error(ErrorCode::InvalidArgument, "not an option of memjit run, and LLVM says: " + first);
}

const char* irTypeOf(EntryResult result) {
  switch (result) {
    case EntryResult::Void: return "void";
    case EntryResult::I32: return "i32";
    case EntryResult::I64: return "i64";
    case EntryResult::F32: return "float";
  }
  return "?";
}

// The checks mlir-cpu-runner makes on the entry's type (only possible for IR).
Error checkEntry(const jit::Program& program, const RunCommand& command) {
  auto type = program.irFunctionType(command.entry);
  if (!type) return Error::success();
  const std::string where = "'" + program.path() + "': entry point '" + command.entry + "'";
  if (!type->parameters.empty() || type->variadic) {
    std::string list;
    for (const std::string& parameter : type->parameters) list += (list.empty() ? "" : ", ") + parameter;
    return Error(ErrorCode::TypeMismatch, where + " takes arguments (" + list + "); it must take none");
  }
  if (type->result != irTypeOf(command.result))
    return Error(ErrorCode::TypeMismatch, where + " returns " + type->result + ", not " + command.resultText +
                                              " (--entry-point-result=" + command.resultText +
                                              (command.resultText == "f32" ? ", the default" : "") + ")");
  return Error::success();
}

int run(const Args& args) {
  for (const std::string& arg : args)
    if (arg == "--help" || arg == "-h" || arg == "-help") {
      llvm::outs() << "usage: memjit run <file.ll|file.bc|file.o> [-e <entry>] "
                      "[--entry-point-result=void|i32|i64|f32] [--shared-libs=a.so,b.so] [-O0..-O3] "
                      "[LLVM options]\n\n"
                   << kFunctionModeHelp;
      llvm::outs().flush();
      return 0;
    }
  if (wantsFunctionMode(args)) return runFunctionMode(args);
  auto command = parse(args);
  if (!command) return usageError(kName, command.error().message());
  if (Error e = forwardToLLVM(command->llvmOptions)) return usageError(kName, e.message());

  jit::JitOptions jitOptions;
  jitOptions.vectorMath = false;  // MLIR's pipeline calls the scalar libm: same bits
  // LLVM's "Cannot select" and the like become one line naming the file, not
  // an abort (the process ends right after anyway, so what recovery leaks is moot).
  jitOptions.recoverFromLlvmCrashes = true;
  auto jit = jit::Jit::create(jitOptions);
  if (!jit) return fail(kName, jit.error());
  jit::ProgramOptions options;
  options.optLevel = command->optLevel;
  options.sharedLibraries = command->sharedLibraries;
  auto program = jit::loadProgram(*jit, command->input, options);
  if (!program) return fail(kName, program.error());
  auto entry = program->symbol(command->entry);
  if (!entry)
    return fail(kName, Error(ErrorCode::NotFound,
                             "'" + command->input + "': entry point '" + command->entry + "' not found"));
  if (Error e = checkEntry(*program, *command)) return fail(kName, e);

  program->runConstructors();
  switch (command->result) {
    case EntryResult::Void: reinterpret_cast<void (*)()>(*entry)(); break;
    case EntryResult::I32: llvm::outs() << reinterpret_cast<std::int32_t (*)()>(*entry)() << '\n'; break;
    case EntryResult::I64: llvm::outs() << reinterpret_cast<std::int64_t (*)()>(*entry)() << '\n'; break;
    case EntryResult::F32:
      llvm::outs() << llvm::format("%e", static_cast<double>(reinterpret_cast<float (*)()>(*entry)())) << '\n';
      break;
  }
  program->runDestructors();
  return 0;
}

Registrar registrar({kName,
                     "memjit run <file.ll|file.bc|file.o> [-e <entry>] [--entry-point-result=void|i32|i64|f32] "
                     "[--shared-libs=a.so,b.so] [-O0..-O3] [LLVM options]",
                     "run a program's entry like mlir-cpu-runner (LLVM IR from mlir-translate, or an object), "
                     "or call any function with --arg values (.npy, literals, generators) and time it (run --help)", run});

}  // namespace
}  // namespace memjit::cli
