// `memjit call`'s command line, parsed (no I/O here): its flag table, which
// `memjit call --help` prints, and the options it fills.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "command.h"
#include "flags.h"
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

struct CallOptions {
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
  bool help = false;                 ///< --help: print callHelp() and nothing else
};

/// Every flag of `memjit call`, in the order its help lists them.
const std::vector<Flag<CallOptions>>& callFlags();

/// True when `arg` is spelled like one of callFlags() (`--arg`, `-arg=1`, ...).
bool isCallFlag(std::string_view arg);

/// Splits `NAME=VALUE` when the part before the first '=' looks like a name
/// (no '/' and no ':'): `x=in.npy`, `3=2.5`; not `random:8:seed=3` or `./a=b.npy`.
std::pair<std::optional<std::string>, std::string> splitKey(std::string_view text);

/// Parses everything after `memjit call`. InvalidArgument names the bad flag.
Expected<CallOptions> parseCallOptions(const Args& args);

/// `memjit call --help`: the synopsis, then callFlags()'s help.
std::string callHelp();

/// The one-line synopsis, for `memjit help` too.
extern const char* const kCallUsage;

}  // namespace memjit::cli
