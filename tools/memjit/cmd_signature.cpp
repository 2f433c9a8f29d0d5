// memjit mangle '<function type>'    prints f=, sip= and iree.abi= lines
// memjit demangle '<raw signature>'  prints the raw ToString form
// memjit demangle --sip '<sip>'      prints the canonical SIP text of inputs, then results
// memjit demangle --json '<json>'    prints the reflection records readably
#include <iostream>

#include "command.h"
#include "memjit/signature/raw_signature.h"
#include "memjit/signature/reflection.h"
#include "memjit/signature/sip_signature.h"
#include "memjit/type_syntax.h"

namespace memjit::cli {
namespace {

int mangleCommand(const Args& args) {
  if (args.size() != 1) return usageError("mangle", "expects exactly one argument: an MLIR function type");
  auto fn = parseFunctionType(args[0]);
  if (!fn) return fail("mangle", fn.error());
  std::cout << "f=" << signature::mangle(signature::toRawSignature(*fn)) << "\n"
            << "sip=" << signature::mangle(signature::identitySipStructure(fn->inputs.size(), fn->results.size()))
            << "\n"
            << "iree.abi=" << signature::toJson(signature::defaultReflection(*fn)) << "\n";
  return 0;
}

int demangleCommand(const Args& args) {
  if (args.size() == 1 && !args[0].empty() && args[0] != "--sip" && args[0] != "--json") {
    auto raw = signature::parseRawSignature(args[0]);
    if (!raw) return fail("demangle", raw.error());
    std::cout << signature::toString(*raw) << "\n";
    return 0;
  }
  if (args.size() == 2 && args[0] == "--sip") {
    auto sip = signature::parseSipSignature(args[1]);
    if (!sip) return fail("demangle", sip.error());
    std::cout << "inputs:\n" << signature::toString(sip->inputs) << "results:\n" << signature::toString(sip->results);
    return 0;
  }
  if (args.size() == 2 && args[0] == "--json") {
    auto refl = signature::parseReflection(args[1]);
    if (!refl) return fail("demangle", refl.error());
    std::cout << signature::toReadableString(*refl);
    return 0;
  }
  if (args.size() == 1 && args[0].empty()) {
    // An empty raw signature is malformed input, not a usage problem.
    auto raw = signature::parseRawSignature(args[0]);
    return fail("demangle", raw.error());
  }
  return usageError("demangle", "expects '<raw signature>', --sip '<sip signature>' or --json '<iree.abi json>'");
}

const Registrar mangleRegistrar({"mangle", "memjit mangle '<function type>'",
                                 "print the raw (f=), identity SIP (sip=) and reflection (iree.abi=) metadata",
                                 mangleCommand});
const Registrar demangleRegistrar({"demangle", "memjit demangle '<raw>' | --sip '<sip>' | --json '<iree.abi json>'",
                                   "print a raw signature, a SIP structure or a reflection readably",
                                   demangleCommand});

}  // namespace
}  // namespace memjit::cli
