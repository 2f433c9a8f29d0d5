// Fuzzes the `iree.abi` reflection parser: parse, emit compact JSON, parse
// again, compare; the readable form and raw arity survive the round trip;
// every error carries an offset into the input.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "memjit/signature/reflection.h"

using namespace memjit::signature;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = parseReflection(text);
  if (!r) {
    if (!r.error().offset() || *r.error().offset() > size) std::abort();
    return 0;
  }
  std::string json = toJson(*r);
  auto again = parseReflection(json);
  if (!again || !(*again == *r) || toJson(*again) != json) std::abort();
  if (toReadableString(*again) != toReadableString(*r)) std::abort();
  std::size_t args = 0, results = 0;
  for (const TypeRecord& t : r->args) args += rawArity(t);
  for (const TypeRecord& t : r->results) results += rawArity(t);
  if (checkArity(*again, args, results) || !checkArity(*again, args + 1, results)) std::abort();
  return 0;
}
