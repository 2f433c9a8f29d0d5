#include "cache_entry.h"

#include <array>
#include <cstdint>
#include <cstring>

#include <llvm/Support/BLAKE3.h>

namespace memjit::jit::detail {
namespace {

constexpr char kMagic[8] = {'M', 'E', 'M', 'J', 'I', 'T', 'O', '\0'};
// 2: the payload's checksum is BLAKE3 (1: SHA-256, which cost a disk hit more
// than the rest of reading the entry).
constexpr std::uint32_t kFormatVersion = 2;
// magic, version, key length, payload size, payload BLAKE3, then key and payload.
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 8 + 32;

std::array<std::uint8_t, 32> checksum(std::string_view data) {
  llvm::BLAKE3 hash;
  hash.update(llvm::StringRef(data.data(), data.size()));
  return hash.final();
}

template <typename T>
void putLE(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff));
}

template <typename T>
T getLE(const char* p) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return static_cast<T>(v);
}

}  // namespace

std::string encodeCacheEntry(std::string_view key, std::string_view object) {
  std::string entry;
  entry.reserve(kHeaderSize + key.size() + object.size());
  entry.append(kMagic, 8);
  putLE<std::uint32_t>(entry, kFormatVersion);
  putLE<std::uint32_t>(entry, static_cast<std::uint32_t>(key.size()));
  putLE<std::uint64_t>(entry, object.size());
  const auto digest = checksum(object);
  entry.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  entry += key;
  entry += object;
  return entry;
}

std::optional<std::string> decodeCacheEntry(std::string_view key, std::string_view entry) {
  if (entry.size() < kHeaderSize || std::memcmp(entry.data(), kMagic, 8) != 0) return std::nullopt;
  const char* p = entry.data() + 8;
  if (getLE<std::uint32_t>(p) != kFormatVersion) return std::nullopt;
  const auto keySize = getLE<std::uint32_t>(p + 4);
  const auto payloadSize = getLE<std::uint64_t>(p + 8);
  const char* stored = p + 16;
  // Compared by subtraction: a damaged size field must not overflow the sum.
  if (keySize > entry.size() - kHeaderSize || payloadSize != entry.size() - kHeaderSize - keySize)
    return std::nullopt;
  if (entry.substr(kHeaderSize, keySize) != key) return std::nullopt;
  const std::string_view payload = entry.substr(kHeaderSize + keySize);
  const auto digest = checksum(payload);
  if (std::memcmp(digest.data(), stored, 32) != 0) return std::nullopt;
  return std::string(payload);
}

}  // namespace memjit::jit::detail
