// Fuzzes the Raw Function ABI parser: parse, mangle, parse again, compare;
// the ToString form is stable across the round trip; errors point into the input.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "memjit/signature/raw_signature.h"

using namespace memjit::signature;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto sig = parseRawSignature(text);
  if (!sig) {
    if (!sig.error().offset() || *sig.error().offset() > size) std::abort();
    return 0;
  }
  std::string mangled = mangle(*sig);
  auto again = parseRawSignature(mangled);
  if (!again || !(*again == *sig)) std::abort();
  if (mangle(*again) != mangled || toString(*again) != toString(*sig)) std::abort();
  return 0;
}
