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
// Calling any function with arguments is `memjit call`'s (cmd_call.cpp): its
// flags given here are an error that says so.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/raw_ostream.h>

#include "command.h"
#include "call_function.h"
#include "call_options.h"
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
  bool help = false;
};

Error setEntry(RunCommand& c, std::string_view, std::string v) {
  c.entry = std::move(v);
  return Error::success();
}

Error setResult(RunCommand& c, std::string_view, std::string v) {
  if (v == "void") c.result = EntryResult::Void;
  else if (v == "i32") c.result = EntryResult::I32;
  else if (v == "i64") c.result = EntryResult::I64;
  else if (v == "f32") c.result = EntryResult::F32;
  else return Error(ErrorCode::InvalidArgument, "--entry-point-result='" + v + "' is not one of void, i32, i64, f32");
  c.resultText = std::move(v);
  return Error::success();
}

Error addSharedLibs(RunCommand& c, std::string_view, std::string list) {
  for (std::string& library : splitCommaList(list)) c.sharedLibraries.push_back(std::move(library));
  return Error::success();
}

Error setOptLevel(RunCommand& c, std::string_view name, std::string) {
  c.optLevel = static_cast<jit::OptLevel>(name[1] - '0');
  return Error::success();
}

Error setHelp(RunCommand& c, std::string_view, std::string) {
  c.help = true;
  return Error::success();
}

const std::vector<Flag<RunCommand>>& runFlags() {
  static const std::vector<Flag<RunCommand>> table{
      {{"e"}, FlagValue::Required, "ENTRY", "the function to run; it takes no arguments\n(default: main)", setEntry},
      {{"entry-point-result"}, FlagValue::Required, "void|i32|i64|f32",
       "what the entry returns, printed on a line of its\nown after it returns (default: f32)", setResult},
      {{"shared-libs"}, FlagValue::Required, "A.so,B.so",
       "libraries whose symbols the program may call,\nsearched in order before memjit's runner utilities",
       addSharedLibs},
      {{"O0", "O1", "O2", "O3"}, FlagValue::None, "",
       "optimise the IR at this level first (without:\nnot at all, like mlir-cpu-runner)", setOptLevel},
      {{"help", "h"}, FlagValue::None, "", "print this help", setHelp},
  };
  return table;
}

constexpr const char* kUsage = "memjit run <file.ll|file.bc|file.o> [options] [LLVM options]";

std::string runHelp() {
  return commandHelp(kUsage,
                     "Runs a program's entry like mlir-cpu-runner and prints what it prints (the\n"
                     "program reads standard input when no file or '-' is given).\n",
                     runFlags(),
                     "Other flags go to LLVM's command line (e.g. -enable-matrix). To call any\n"
                     "function with arguments from the command line, see memjit call --help.\n");
}

Expected<RunCommand> parse(const Args& args) {
  RunCommand command;
  bool haveInput = false;
  auto input = [&](RunCommand& c, const std::string& arg) -> Error {
    if (haveInput) return Error(ErrorCode::InvalidArgument, "more than one input file ('" + c.input + "', '" + arg + "')");
    c.input = arg;
    haveInput = true;
    return Error::success();
  };
  auto other = [](RunCommand& c, const std::string& arg) -> Error {
    if (isCallFlag(arg))
      return Error(ErrorCode::InvalidArgument,
                   arg.substr(0, arg.find('=')) + " is an option of memjit call, not of memjit run (which runs an "
                   "entry without arguments, like mlir-cpu-runner): memjit call FILE -e ENTRY --arg VALUE... "
                   "calls a function with arguments");
    c.llvmOptions.push_back(arg);
    return Error::success();
  };
  MEMJIT_TRY(parseFlags<RunCommand>(runFlags(), args, command, input, other));
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
  auto command = parse(args);
  if (!command) return usageError(kName, command.error().message());
  if (command->help) {
    llvm::outs() << runHelp();
    llvm::outs().flush();
    return 0;
  }
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

const Registrar registrar({kName, kUsage,
                           "run a program's entry like mlir-cpu-runner (LLVM IR from mlir-translate, or an object; "
                           "memjit run --help)",
                           run});

}  // namespace
}  // namespace memjit::cli
