#include "run_options.h"

#include <charconv>

namespace memjit::cli {
namespace {

Error usage(const std::string& message) { return Error(ErrorCode::InvalidArgument, message); }

// `--flag=value` or `--flag value`: the value, advancing `i` past it.
Expected<std::string> flagValue(const Args& args, std::size_t& i, std::string_view flag) {
  const std::string& a = args[i];
  if (a.size() > flag.size() && a[flag.size()] == '=') return a.substr(flag.size() + 1);
  if (i + 1 >= args.size()) return usage(std::string(flag) + " needs a value");
  return args[++i];
}

// The flag part of `--flag=value`, or the whole argument.
std::string_view flagName(std::string_view a) {
  if (a.rfind("--", 0) == 0 || a.rfind("-e", 0) == 0)
    if (auto eq = a.find('='); eq != std::string_view::npos) return a.substr(0, eq);
  return a;
}

Expected<int> positiveCount(std::string_view flag, const std::string& text, int minimum) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < minimum)
    return usage(std::string(flag) + " needs a whole number >= " + std::to_string(minimum) + ", got '" + text + "'");
  return v;
}

}  // namespace

bool isFunctionModeFlag(std::string_view arg) noexcept {
  std::string_view f = flagName(arg);
  return f == "--arg" || f == "--signature" || f == "--out" || f == "--output" || f == "--print" ||
         f == "--no-print" || f == "--print-results" || f == "--benchmark" || f == "--warmup";
}

std::pair<std::optional<std::string>, std::string> splitKey(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return {std::nullopt, std::string(text)};
  std::string_view key = text.substr(0, eq);
  if (key.find_first_of("/:") != std::string_view::npos) return {std::nullopt, std::string(text)};
  return {std::string(key), std::string(text.substr(eq + 1))};
}

Expected<RunOptions> parseRunOptions(const Args& args) {
  RunOptions o;
  bool haveFile = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string_view f = flagName(a);
    if (f == "-e" || f == "--e") {
      MEMJIT_ASSIGN_OR_RETURN(o.entry, flagValue(args, i, f));
    } else if (a.size() == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3') {
      o.optLevel = static_cast<jit::OptLevel>(a[2] - '0');
    } else if (f == "--shared-libs") {
      MEMJIT_ASSIGN_OR_RETURN(std::string list, flagValue(args, i, f));
      for (std::size_t start = 0; start <= list.size();) {
        std::size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) o.sharedLibs.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (f == "--signature") {
      MEMJIT_ASSIGN_OR_RETURN(std::string v, flagValue(args, i, f));
      auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        return usage("--signature needs NAME='<function type>', got '" + v + "'");
      o.signatures.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (f == "--arg") {
      MEMJIT_ASSIGN_OR_RETURN(std::string v, flagValue(args, i, f));
      auto [key, value] = splitKey(v);
      if (value.empty()) return usage("--arg " + v + ": the value is empty");
      o.args.push_back({std::move(key), std::move(value)});
    } else if (f == "--out" || f == "--output") {
      MEMJIT_ASSIGN_OR_RETURN(std::string v, flagValue(args, i, f));
      auto [key, path] = splitKey(v);
      if (path.empty()) return usage(std::string(f) + " " + v + ": the path is empty");
      o.outs.push_back({std::move(key), std::move(path)});
    } else if (f == "--print") {
      MEMJIT_ASSIGN_OR_RETURN(std::string v, flagValue(args, i, f));
      o.prints.push_back(std::move(v));
    } else if (a == "--no-print") {
      o.printResults = false;
    } else if (a == "--print-results") {
      o.forcePrintResults = true;
    } else if (f == "--benchmark") {
      o.benchmarkReps = 10;
      if (a.size() > f.size()) {
        MEMJIT_ASSIGN_OR_RETURN(o.benchmarkReps, positiveCount(f, a.substr(f.size() + 1), 1));
      }
    } else if (f == "--warmup") {
      MEMJIT_ASSIGN_OR_RETURN(std::string v, flagValue(args, i, f));
      MEMJIT_ASSIGN_OR_RETURN(o.warmups, positiveCount(f, v, 0));
    } else if (a.size() > 1 && a[0] == '-') {
      return usage("unknown option '" + a + "' (see memjit run --help)");
    } else if (haveFile) {
      return usage("expects one program file, got a second: '" + a + "' (arguments go after --arg)");
    } else {
      o.file = a;
      haveFile = true;
    }
  }
  if (!haveFile) return usage("expects a program file (.ll or .bc)");
  if (o.forcePrintResults && !o.printResults) return usage("--print-results and --no-print contradict each other");
  return o;
}

const char* const kFunctionModeHelp =
    R"(memjit run FILE.{ll,bc} [-e ENTRY] [--arg [NAME=]VALUE]... [options]
  Calls ENTRY (a function with memjit signature metadata, or one described by
  --signature) with the given arguments and prints or saves its results.

  -e ENTRY, --e ENTRY      the function to call (default: the only one the file describes)
  --arg VALUE              the next positional input (raw inputs, in order)
  --arg NAME=VALUE         the input NAME: its name in the V1 reflection (`named`
                           records) or its SIP key path joined by '.', e.g.
                           inputs.mask; `argN` is the N-th raw input
      VALUE is one of:
        PATH.npy           a NumPy array (any version, byte order and order)
        a literal          5, -3, 0x1f, 2.5, 1e-3, inf, nan, true, false: converted
                           exactly to the input's type (out of range, inexact integer
                           for a float or a float for an integer is an error)
        zeros[:SHAPE]      a new array of zeros; SHAPE like 128x64 (default: the
        ones[:SHAPE]       input's static shape); ones; iota counts 0, 1, 2, ...
        iota[:SHAPE]       in row-major order (wrapping in narrow integers);
        random[:SHAPE][:seed=S]   uniform [0, 1) for floats (both parts of a
                           complex), integers uniform in [0, 100), i1 in {0, 1};
                           from std::mt19937_64 with explicit bit arithmetic, so
                           identical on every compiler; default seed: the raw
                           input's position
  --signature NAME='<type>'  call NAME's `_mlir_ciface_NAME` as this MLIR function
                           type, e.g. '(memref<?xf32>, f32) -> f32' (for IR without
                           memjit metadata, such as mlir-translate's)
  --out PATH.npy           write the only result to PATH.npy
  --out KEY=PATH.npy       write result KEY (its index or name) or, when no result
  --output ...             has that key, input KEY (in-place outputs) after the call
  --print KEY              print input KEY (or result KEY) after the call
  --no-print               print no results
  --print-results          print results even when --out writes them (and select
                           function mode for a function without inputs)
  --benchmark[=N]          after the call: --warmup calls, then N timed calls (default
                           10); prints min, median and max time and GB/s (bytes of
                           all memref inputs and results over the median time)
  --warmup=N               untimed calls before the timed ones (default 1)
  -O0 .. -O3               optimisation level (default -O3)
  --shared-libs=A.so,B.so  libraries whose symbols the program may call
Results print as MLIR's printMemref prints memrefs, scalars one per line;
printed and written values are those of the first call.
)";

}  // namespace memjit::cli
