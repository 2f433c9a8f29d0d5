// A subcommand's flags as one table that drives both parsing and `--help`, so
// the two cannot disagree. Every flag is accepted with one or two dashes, its
// value as `--flag=value` or as the next argument (LLVM's cl convention, which
// mlir-cpu-runner users type).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "memjit/error.h"

namespace memjit::cli {

enum class FlagValue {
  None,      ///< `--no-print`
  Required,  ///< `--arg VALUE`, `--arg=VALUE`
  Optional,  ///< `--benchmark`, `--benchmark=N` (never the next argument)
};

template <class Options>
struct Flag {
  /// Spellings without dashes; help shows those of up to two characters with
  /// one dash (`-e`, `-O3`), longer ones with two.
  std::vector<std::string_view> names;
  FlagValue value = FlagValue::None;
  std::string_view placeholder;  ///< the value in help: "ENTRY", "[KEY=]PATH.npy"
  std::string_view help;         ///< lines separated by '\n'
  /// Stores the value; `name` is the spelling used, `value` "" when there is none.
  std::function<Error(Options&, std::string_view name, std::string value)> apply;
};

/// `-name`, `--name`, `--name=value` split; nullopt for what is not a flag
/// (no leading '-', or "-" alone, which names standard input).
struct SplitFlag {
  std::string name;  ///< without dashes and value
  std::optional<std::string> inlineValue;
};
std::optional<SplitFlag> splitFlag(std::string_view arg);

/// "a.so,,b.so" as {"a.so", "b.so"}: a list flag's items, empty ones dropped.
std::vector<std::string> splitCommaList(std::string_view list);

/// One help entry: "  -e, --entry ENTRY      first line\n" and the further
/// lines indented below it.
std::string formatFlagHelp(const std::vector<std::string_view>& names, FlagValue value, std::string_view placeholder,
                           std::string_view help);

/// The help of every flag of `table`, in its order.
template <class Options>
std::string flagHelp(const std::vector<Flag<Options>>& table) {
  std::string text;
  for (const Flag<Options>& f : table) text += formatFlagHelp(f.names, f.value, f.placeholder, f.help);
  return text;
}

/// A command's whole help: "usage: <usage>", the intro, the table, the notes.
template <class Options>
std::string commandHelp(std::string_view usage, std::string_view intro, const std::vector<Flag<Options>>& table,
                        std::string_view notes) {
  return "usage: " + std::string(usage) + "\n\n" + std::string(intro) + "\n" + flagHelp(table) + "\n" +
         std::string(notes);
}

/// The entry of `table` spelled `name` (without dashes), or null.
template <class Options>
const Flag<Options>* findFlag(const std::vector<Flag<Options>>& table, std::string_view name) {
  for (const Flag<Options>& f : table)
    for (std::string_view n : f.names)
      if (n == name) return &f;
  return nullptr;
}

/// Parses `args` into `options`: flags of `table` through their apply; other
/// arguments through `positional`, and flags not in the table through
/// `unknown` (each returns an error to stop). InvalidArgument names the flag.
template <class Options>
Error parseFlags(const std::vector<Flag<Options>>& table, const Args& args, Options& options,
                 const std::function<Error(Options&, const std::string&)>& positional,
                 const std::function<Error(Options&, const std::string&)>& unknown) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::optional<SplitFlag> split = splitFlag(arg);
    if (!split) {
      MEMJIT_TRY(positional(options, arg));
      continue;
    }
    const Flag<Options>* flag = findFlag(table, split->name);
    if (!flag) {
      MEMJIT_TRY(unknown(options, arg));
      continue;
    }
    const std::string spelled = arg.substr(0, arg.find('='));
    std::string value;
    switch (flag->value) {
      case FlagValue::None:
        if (split->inlineValue) return Error(ErrorCode::InvalidArgument, spelled + " takes no value, got '" + arg + "'");
        break;
      case FlagValue::Required:
        if (split->inlineValue) value = *split->inlineValue;
        else if (i + 1 < args.size()) value = args[++i];
        else return Error(ErrorCode::InvalidArgument, spelled + " needs a value");
        break;
      case FlagValue::Optional:
        value = split->inlineValue.value_or("");
        break;
    }
    MEMJIT_TRY(flag->apply(options, split->name, std::move(value)));
  }
  return Error::success();
}

}  // namespace memjit::cli
