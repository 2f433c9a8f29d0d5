#include "memjit/jit/aot_command.h"

#include <iostream>

namespace memjit::jit {

Expected<AotCommand> parseAotCommand(const std::vector<std::string>& args) {
  AotCommand command;
  bool targetGiven = false, cpuGiven = false, featuresGiven = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string& out) -> Error {
      if (i + 1 >= args.size())
        return Error(ErrorCode::InvalidArgument, "option '" + arg + "' needs a value");
      out = args[++i];
      return Error::success();
    };
    if (arg == "-o") MEMJIT_TRY(value(command.outputs.object));
    else if (arg == "--header") MEMJIT_TRY(value(command.outputs.header));
    else if (arg == "--emit-asm") MEMJIT_TRY(value(command.outputs.assembly));
    else if (arg == "--emit-ll") MEMJIT_TRY(value(command.outputs.ir));
    else if (arg == "--emit-bc") MEMJIT_TRY(value(command.outputs.bitcode));
    else if (arg == "--namespace") MEMJIT_TRY(value(command.header.cppNamespace));
    else if (arg == "--target") { MEMJIT_TRY(value(command.options.target.triple)); targetGiven = true; }
    else if (arg == "--cpu") { MEMJIT_TRY(value(command.options.target.cpu)); cpuGiven = true; }
    else if (arg == "--features") { MEMJIT_TRY(value(command.options.target.features)); featuresGiven = true; }
    else if (arg == "-O0") command.options.optLevel = OptLevel::O0;
    else if (arg == "-O1") command.options.optLevel = OptLevel::O1;
    else if (arg == "-O2") command.options.optLevel = OptLevel::O2;
    else if (arg == "-O3") command.options.optLevel = OptLevel::O3;
    else if (arg == "--recover") command.options.recoverFromLlvmCrashes = true;
    else if (arg == "--no-vector-math") command.options.vectorMath = false;
    else if (arg == "--signature") {
      std::string spec;
      MEMJIT_TRY(value(spec));
      const auto eq = spec.find('=');
      if (eq == std::string::npos || eq == 0)
        return Error(ErrorCode::InvalidArgument,
                     "--signature expects NAME='<function type>', got '" + spec + "'");
      command.signatures.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
    } else if (!arg.empty() && arg[0] == '-') {
      return Error(ErrorCode::InvalidArgument, "unknown option '" + arg + "'");
    } else {
      command.inputs.push_back(arg);
    }
  }
  // A cross target does not inherit the host's CPU and features.
  if (targetGiven && command.options.target.triple != TargetSpec::host().triple) {
    if (!cpuGiven) command.options.target.cpu = "generic";
    if (!featuresGiven) command.options.target.features.clear();
  }
  if (command.outputs.object.empty() && command.outputs.assembly.empty() &&
      command.outputs.ir.empty() && command.outputs.bitcode.empty() && command.outputs.header.empty())
    return Error(ErrorCode::InvalidArgument,
                 "nothing to write: give -o, --header, --emit-asm, --emit-ll or --emit-bc");
  return command;
}

int runGenerator(int argc, char** argv, codegen::Module& module, std::ostream& errors) {
  const std::string program = argc > 0 ? argv[0] : "generator";
  auto command = parseAotCommand(std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + argc));
  if (!command) {
    errors << program << ": " << command.error().str() << "\n";
    return 2;
  }
  if (!command->inputs.empty()) {
    errors << program << ": unexpected argument '" << command->inputs[0] << "'\n";
    return 2;
  }
  if (Error e = compileAhead(module, command->outputs, command->options, command->header)) {
    errors << program << ": " << e.str() << "\n";
    return 1;
  }
  return 0;
}

int runGenerator(int argc, char** argv, codegen::Module& module) {
  return runGenerator(argc, argv, module, std::cerr);
}

}  // namespace memjit::jit
