// `memjit run`. Function mode (run_function.h) calls any function with
// arguments from the command line; the mlir-cpu-runner mode is another
// branch's and joins here at merge. Until then this file only dispatches.
#include <iostream>

#include "command.h"
#include "run_function.h"
#include "run_options.h"

namespace memjit::cli {
namespace {

int runCommand(const Args& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kFunctionModeHelp;
    return 0;
  }
  return runFunctionMode(args);
}

const Registrar registrar({"run",
                           "memjit run FILE.{ll,bc} [-e ENTRY] [--arg [NAME=]VALUE]... [--signature NAME='<type>'] "
                           "[--out [KEY=]PATH.npy]... [--print KEY] [--no-print] [--print-results] "
                           "[--benchmark[=N]] [--warmup=N] [-O0..3] [--shared-libs=LIBS]",
                           "call a function with arguments from .npy files, literals or generators (zeros:128x64, "
                           "random:N:seed=S); print or save its results; time it (memjit run --help)",
                           runCommand});

}  // namespace
}  // namespace memjit::cli
