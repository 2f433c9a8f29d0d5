#include "command.h"

#include <iostream>

namespace memjit::cli {

static std::vector<Command>& registry() {
  static std::vector<Command> all;
  return all;
}

void registerCommand(Command command) { registry().push_back(std::move(command)); }

const std::vector<Command>& commands() { return registry(); }

int fail(std::string_view command, const Error& error) {
  std::string line = error.str();
  for (char& c : line)
    if (c == '\n') c = ' ';
  std::cerr << "memjit " << command << ": " << line << "\n";
  return 1;
}

int usageError(std::string_view command, std::string_view message) {
  std::cerr << "memjit " << command << ": " << message << "\n";
  return 2;
}

}  // namespace memjit::cli
