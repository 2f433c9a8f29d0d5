// Fuzzes the .npy reader: any bytes give a Buffer or an Error (never a crash,
// a hang or an allocation larger than the input justifies), and whatever
// decodes re-encodes to an image that decodes to the same image again.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "memjit/runtime/npy.h"

using namespace memjit::runtime;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto buffer = decodeNpy(std::span<const unsigned char>(data, size));
  if (!buffer) {
    if (buffer.error().message().empty()) std::abort();
    return 0;
  }
  auto image = encodeNpy(*buffer);
  if (!image) std::abort();  // everything the reader makes, the writer takes
  auto again = decodeNpy(*image);
  if (!again) std::abort();
  auto second = encodeNpy(*again);
  if (!second || *second != *image) std::abort();
  return 0;
}
