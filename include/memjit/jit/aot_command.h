// The command line shared by AOT generators (programs run by the CMake
// function memjit_add_aot_library) and `memjit compile`:
//
//   -o <file.o>  --header <file.h>  --emit-asm <file.s>  --emit-ll <file.ll>
//   --emit-bc <file.bc>  --target <triple>  --cpu <name>  --features <+a,-b>
//   -O0|-O1|-O2|-O3  --namespace <c++ namespace>  --signature NAME='<type>'
//   --recover (AotOptions::recoverFromLlvmCrashes: an LLVM crash becomes an error)
//   and (for `memjit compile`) one input file.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "memjit/codegen/module.h"
#include "memjit/error.h"
#include "memjit/jit/aot.h"

namespace memjit::jit {

struct AotCommand {
  AotOutputs outputs;
  AotOptions options;
  HeaderOptions header;
  std::vector<std::string> inputs;                               ///< positional arguments
  std::vector<std::pair<std::string, std::string>> signatures;  ///< --signature NAME=TYPE
};

/// Parses the arguments; InvalidArgument names the bad flag. Without
/// --target the host is used (with its CPU and features unless given).
Expected<AotCommand> parseAotCommand(const std::vector<std::string>& args);

/// main() of an AOT generator: parses argv (no positional inputs allowed),
/// compiles `module` and writes what was asked. Returns 0 on success; else
/// prints one line, "<argv[0]>: <what went wrong>", on `errors` and returns 2
/// on a usage error, 1 when compiling or writing failed.
int runGenerator(int argc, char** argv, codegen::Module& module, std::ostream& errors);
/// The same, printing on std::cerr.
int runGenerator(int argc, char** argv, codegen::Module& module);

}  // namespace memjit::jit
