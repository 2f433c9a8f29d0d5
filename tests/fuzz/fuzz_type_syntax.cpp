// Fuzzes the MLIR type-syntax parser: whatever parses must print canonically,
// re-parse to the same model, and print the same text again.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "memjit/type_syntax.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto fn = memjit::parseFunctionType(text)) {
    std::string printed = memjit::toString(*fn);
    auto again = memjit::parseFunctionType(printed);
    if (!again || !(*again == *fn) || memjit::toString(*again) != printed) std::abort();
  } else if (!fn.error().offset() || *fn.error().offset() > size) {
    std::abort();  // every parse error must point into the input
  }
  if (auto t = memjit::parseType(text)) {
    std::string printed = memjit::toString(*t);
    auto again = memjit::parseType(printed);
    if (!again || !(*again == *t) || memjit::toString(*again) != printed) std::abort();
  }
  return 0;
}
