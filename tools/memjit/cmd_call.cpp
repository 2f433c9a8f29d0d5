// `memjit call FILE -e ENTRY --arg ...`: see call_function.h.
#include "call_function.h"
#include "call_options.h"
#include "command.h"

namespace memjit::cli {
namespace {

const Registrar registrar({"call", kCallUsage,
                           "call any function of a program file with --arg values (.npy, literals, generators), "
                           "print or save its results and time it (memjit call --help)",
                           runCall});

}  // namespace
}  // namespace memjit::cli
