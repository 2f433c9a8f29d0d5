// The memjit CLI's subcommand registry. A subcommand is a function from its
// arguments (after the subcommand name) to an exit status; it prints results
// on stdout and, on failure, exactly one line on stderr.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"

namespace memjit::cli {

using Args = std::vector<std::string>;
using CommandFn = std::function<int(const Args&)>;

struct Command {
  std::string name;
  std::string usage;    ///< one line: "memjit parse-type '<type>'"
  std::string summary;  ///< one line: what it does
  CommandFn run;
};

/// Adds a command; called from a static Registrar in each cmd_*.cpp.
void registerCommand(Command command);
const std::vector<Command>& commands();

struct Registrar {
  explicit Registrar(Command command) { registerCommand(std::move(command)); }
};

/// Prints "memjit <command>: <error>" as one line on stderr and returns 1.
int fail(std::string_view command, const Error& error);
/// The same for a usage problem.
int usageError(std::string_view command, std::string_view message);

}  // namespace memjit::cli
