#include "call_options.h"

#include <charconv>

namespace memjit::cli {
namespace {

Error usage(const std::string& message) { return Error(ErrorCode::InvalidArgument, message); }

Expected<int> countAtLeast(std::string_view flag, const std::string& text, int minimum) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < minimum)
    return usage("--" + std::string(flag) + " needs a whole number >= " + std::to_string(minimum) + ", got '" + text +
                 "'");
  return v;
}

using F = Flag<CallOptions>;

// Setters for the table, which reads as a list of flags rather than of lambdas.
auto setTrue(bool CallOptions::*member) {
  return [member](CallOptions& o, std::string_view, std::string) {
    o.*member = true;
    return Error::success();
  };
}

Error setEntry(CallOptions& o, std::string_view, std::string v) {
  o.entry = std::move(v);
  return Error::success();
}

Error setOptLevel(CallOptions& o, std::string_view name, std::string) {
  o.optLevel = static_cast<jit::OptLevel>(name[1] - '0');
  return Error::success();
}

Error addSharedLibs(CallOptions& o, std::string_view, std::string list) {
  for (std::string& library : splitCommaList(list)) o.sharedLibs.push_back(std::move(library));
  return Error::success();
}

Error addSignature(CallOptions& o, std::string_view, std::string v) {
  auto eq = v.find('=');
  if (eq == std::string::npos || eq == 0) return usage("--signature needs NAME='<function type>', got '" + v + "'");
  o.signatures.emplace_back(v.substr(0, eq), v.substr(eq + 1));
  return Error::success();
}

Error addArg(CallOptions& o, std::string_view, std::string v) {
  auto [key, value] = splitKey(v);
  if (value.empty()) return usage("--arg " + v + ": the value is empty");
  o.args.push_back({std::move(key), std::move(value)});
  return Error::success();
}

Error addOut(CallOptions& o, std::string_view name, std::string v) {
  auto [key, path] = splitKey(v);
  if (path.empty()) return usage("--" + std::string(name) + " " + v + ": the path is empty");
  o.outs.push_back({std::move(key), std::move(path)});
  return Error::success();
}

Error addPrint(CallOptions& o, std::string_view, std::string v) {
  o.prints.push_back(std::move(v));
  return Error::success();
}

Error setBenchmark(CallOptions& o, std::string_view name, std::string v) {
  o.benchmarkReps = 10;
  if (!v.empty()) {
    MEMJIT_ASSIGN_OR_RETURN(o.benchmarkReps, countAtLeast(name, v, 1));
  }
  return Error::success();
}

Error setWarmup(CallOptions& o, std::string_view name, std::string v) {
  MEMJIT_ASSIGN_OR_RETURN(o.warmups, countAtLeast(name, v, 0));
  return Error::success();
}

}  // namespace

const char* const kCallUsage = "memjit call FILE.{ll,bc,o} [-e ENTRY] [--arg [NAME=]VALUE]... [options]";

const std::vector<Flag<CallOptions>>& callFlags() {
  // Help lines stay within 52 characters: 80 columns after the flag column.
  static const std::vector<F> table{
      {{"e"}, FlagValue::Required, "ENTRY",
       "the function to call (default: the only one the\nfile describes, or the only --signature)", setEntry},
      {{"arg"}, FlagValue::Required, "[NAME=]VALUE",
       "a value for the next raw input (in order), or for\n"
       "input NAME: its V1 name (`named` records), its SIP\n"
       "key path joined by '.' (inputs.mask), or argN, the\n"
       "N-th raw input. VALUE is one of:\n"
       "PATH.npy: a NumPy array (any version, byte order\n"
       "  and order);\n"
       "a literal: 5, -3, 0x1f, 2.5, 1e-3, inf, nan, true,\n"
       "  false, converted exactly to the input's type (out\n"
       "  of range, an inexact integer for a float or a\n"
       "  float for an integer is an error);\n"
       "zeros[:SHAPE], ones[:SHAPE], iota[:SHAPE]: a new\n"
       "  array; SHAPE like 128x64 (default: the input's\n"
       "  static shape); iota counts 0, 1, 2, ... row-major\n"
       "  (wrapping in narrow integers);\n"
       "random[:SHAPE][:seed=S]: floats uniform in [0, 1)\n"
       "  (both parts of a complex), integers in [0, 100),\n"
       "  i1 in {0, 1}; std::mt19937_64 with explicit bit\n"
       "  arithmetic, so the same on every compiler; the\n"
       "  default seed is the raw input's position",
       addArg},
      {{"signature"}, FlagValue::Required, "NAME='<type>'",
       "call `_mlir_ciface_NAME` as this MLIR function type,\n"
       "e.g. '(memref<?xf32>, f32) -> f32', for IR without\n"
       "memjit metadata such as mlir-translate's; checked\n"
       "against the IR's C interface (memref rank and\n"
       "element type excepted: pointers are opaque) and\n"
       "against the metadata when the file has it",
       addSignature},
      {{"out", "output"}, FlagValue::Required, "[KEY=]PATH.npy",
       "after the call, write to PATH.npy the only result,\n"
       "or result KEY (its index or name), or else input\n"
       "KEY (in-place outputs)",
       addOut},
      {{"print"}, FlagValue::Required, "KEY", "print input KEY (or result KEY) after the call", addPrint},
      {{"no-print"}, FlagValue::None, "", "print no results",
       [](CallOptions& o, std::string_view, std::string) {
         o.printResults = false;
         return Error::success();
       }},
      {{"print-results"}, FlagValue::None, "", "print results even when --out writes them",
       setTrue(&CallOptions::forcePrintResults)},
      {{"benchmark"}, FlagValue::Optional, "N",
       "after the call: --warmup calls, then N timed calls\n"
       "(default 10); prints min, median and max time and\n"
       "GB/s (bytes of all memref inputs and results over\n"
       "the median time)",
       setBenchmark},
      {{"warmup"}, FlagValue::Required, "N", "untimed calls before the timed ones (default 1)", setWarmup},
      {{"O0", "O1", "O2", "O3"}, FlagValue::None, "", "optimisation level (default -O3)", setOptLevel},
      {{"shared-libs"}, FlagValue::Required, "A.so,B.so", "libraries whose symbols the program may call",
       addSharedLibs},
      {{"help", "h"}, FlagValue::None, "", "print this help", setTrue(&CallOptions::help)},
  };
  return table;
}

bool isCallFlag(std::string_view arg) {
  auto split = splitFlag(arg);
  return split && findFlag(callFlags(), split->name);
}

std::pair<std::optional<std::string>, std::string> splitKey(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return {std::nullopt, std::string(text)};
  std::string_view key = text.substr(0, eq);
  if (key.find_first_of("/:") != std::string_view::npos) return {std::nullopt, std::string(text)};
  return {std::string(key), std::string(text.substr(eq + 1))};
}

Expected<CallOptions> parseCallOptions(const Args& args) {
  CallOptions o;
  bool haveFile = false;
  auto positional = [&](CallOptions& options, const std::string& a) -> Error {
    if (haveFile) return usage("expects one program file, got a second: '" + a + "' (arguments go after --arg)");
    options.file = a;
    haveFile = true;
    return Error::success();
  };
  auto unknown = [](CallOptions&, const std::string& a) -> Error {
    return usage("unknown option '" + a + "' (see memjit call --help)");
  };
  MEMJIT_TRY(parseFlags<CallOptions>(callFlags(), args, o, positional, unknown));
  if (o.help) return o;
  if (!haveFile) return usage("expects a program file (.ll, .bc or .o)");
  if (o.forcePrintResults && !o.printResults) return usage("--print-results and --no-print contradict each other");
  return o;
}

std::string callHelp() {
  return commandHelp(kCallUsage,
                     "Calls ENTRY (a function with memjit signature metadata, or one described by\n"
                     "--signature) with the given arguments and prints or saves its results.\n",
                     callFlags(),
                     "Results print as MLIR's printMemref prints memrefs, scalars one per line;\n"
                     "printed and written values are those of the first call.\n");
}

}  // namespace memjit::cli
