// memjit: command-line front end. `memjit help` lists the subcommands.
#include <algorithm>
#include <iostream>

#include "command.h"

using namespace memjit::cli;

static void printHelp(std::ostream& os) {
  os << "usage: memjit <command> [args]\n\ncommands:\n";
  auto all = commands();
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.name < b.name; });
  for (const Command& c : all) os << "  " << c.usage << "\n      " << c.summary << "\n";
}

int main(int argc, char** argv) {
  if (argc < 2) {
    printHelp(std::cerr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "help" || name == "--help" || name == "-h") {
    printHelp(std::cout);
    return 0;
  }
  Args args(argv + 2, argv + argc);
  for (const Command& c : commands())
    if (c.name == name) return c.run(args);
  std::cerr << "memjit: unknown command '" << name << "' (try 'memjit help')\n";
  return 2;
}
