// Runs the memjit CLI in a child process and captures what it printed.
#pragma once

#include <string>
#include <vector>

namespace memjit::test {

struct CliResult {
  int status = -1;     ///< exit status (-1 when it did not exit normally)
  std::string out;     ///< stdout
  std::string err;     ///< stderr
};

/// Runs `memjit <args...>` (no shell: arguments are passed as they are).
CliResult runCli(const std::vector<std::string>& args, const std::string& stdinText = "");

}  // namespace memjit::test
