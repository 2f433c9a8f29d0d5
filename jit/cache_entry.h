// The self-checking entry every cache backend stores (internal to jit/):
// magic, format version, key length, payload size, BLAKE3 of the payload, then
// the key and the payload. One format for files and Redis strings, so an
// entry copied from one to the other stays valid.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace memjit::jit::detail {

/// The bytes to publish for `object` under `key`.
std::string encodeCacheEntry(std::string_view key, std::string_view object);

/// The object in `entry` when it is whole, of this format, stored under `key`
/// and its checksum matches; nullopt otherwise (truncated, torn, damaged or
/// another key's entry).
std::optional<std::string> decodeCacheEntry(std::string_view key, std::string_view entry);

}  // namespace memjit::jit::detail
