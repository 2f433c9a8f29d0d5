// `memjit run` in function mode: its command line, parsed (no I/O here).
//
//   memjit run FILE.{ll,bc} [-e ENTRY] [--arg [NAME=]VALUE]... [--signature NAME='<type>']...
//              [--out [KEY=]PATH.npy]... [--print KEY]... [--no-print] [--print-results]
//              [--benchmark[=REPS]] [--warmup=N] [-O0..-O3] [--shared-libs=A.so,B.so]
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "command.h"
#include "memjit/error.h"
#include "memjit/jit/options.h"

namespace memjit::cli {

/// One `--arg`: a value for the next positional input, or for the input named `key`.
struct ArgSpec {
  std::optional<std::string> key;
  std::string value;
};

/// One `--out`: where a result or an argument goes; no key means the only result.
struct OutSpec {
  std::optional<std::string> key;
  std::string path;
};

struct RunOptions {
  std::string file;
  std::optional<std::string> entry;
  jit::OptLevel optLevel = jit::OptLevel::O3;
  std::vector<std::string> sharedLibs;
  std::vector<std::pair<std::string, std::string>> signatures;  ///< --signature NAME=TYPE
  std::vector<ArgSpec> args;
  std::vector<OutSpec> outs;
  std::vector<std::string> prints;  ///< --print KEY: arguments (or results) to print after the call
  bool printResults = true;         ///< --no-print turns it off
  bool forcePrintResults = false;   ///< --print-results: print even what --out writes
  std::optional<int> benchmarkReps;  ///< --benchmark[=N]
  int warmups = 1;                   ///< --warmup=N
};

/// The flags only function mode has (so `memjit run` can tell the modes apart).
bool isFunctionModeFlag(std::string_view arg) noexcept;

/// Splits `NAME=VALUE` when the part before the first '=' looks like a name
/// (no '/' and no ':'): `x=in.npy`, `3=2.5`; not `random:8:seed=3` or `./a=b.npy`.
std::pair<std::optional<std::string>, std::string> splitKey(std::string_view text);

/// Parses everything after `memjit run`. InvalidArgument names the bad flag.
Expected<RunOptions> parseRunOptions(const Args& args);

/// The usage text of function mode (`memjit run --help`).
extern const char* const kFunctionModeHelp;

}  // namespace memjit::cli
