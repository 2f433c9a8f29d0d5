// Where an ObjectCache keeps compiled objects beyond its memory layer: one
// interface for a local directory (memjit/jit/directory_cache.h) and a shared
// Redis server (memjit/jit/redis_cache.h), so a fleet of processes and
// machines shares what any of them compiled (docs/fleet-cache.md).
//
// Every backend stores the same self-checking entry (magic, format version,
// key, payload size, BLAKE3 of the payload, then key and payload), published
// in one atomic step, and verifies it on every read: a truncated, torn or
// corrupted entry is a miss (counted as corrupt and removed), never a wrong
// object. A backend that fails (a full disk, a Redis server that is down or
// slower than its timeout) reports an Error; ObjectCache treats that as a miss
// and compiles locally.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"

namespace memjit::jit {

/// One stored entry, as `list` reports it.
struct CacheEntryInfo {
  std::string key;
  /// Bytes the entry takes in the store (a file's size; Redis's MEMORY USAGE).
  std::uint64_t bytes = 0;
  /// How long since the entry was last read or written (the LRU order).
  std::chrono::seconds idle{0};
  /// Time left before the store drops it (Redis TTL); nullopt: no expiry.
  std::optional<std::chrono::seconds> expiresIn;
  /// With `list(verify = true)`: the entry read back whole and its checksum matched.
  std::optional<bool> valid;
};

/// What `prune` removed.
struct PruneResult {
  std::uint64_t removedEntries = 0;
  std::uint64_t removedBytes = 0;
  /// Temporary files of writers that died before publishing (directories only).
  std::uint64_t removedOrphans = 0;
  std::uint64_t remainingBytes = 0;
};

class CacheBackend {
 public:
  virtual ~CacheBackend() = default;

  /// "dir:<path>" or "redis://<host>:<port>/<prefix>", for messages and the CLI.
  virtual std::string location() const = 0;

  /// The verified object stored under `key`; nullopt when there is none or the
  /// stored entry is damaged (then it is removed and `corruptEntries` counts it).
  [[nodiscard]] virtual Expected<std::optional<std::string>> get(const std::string& key) = 0;
  /// get() of several keys, answered in order. The default asks one key at a
  /// time; a remote backend overrides it to ask in one round trip (Redis
  /// pipelines the GETs). An Error means none of the answers can be trusted
  /// (the caller takes every key as a miss).
  [[nodiscard]] virtual Expected<std::vector<std::optional<std::string>>> getMany(
      const std::vector<std::string>& keys);
  /// Publishes `object` under `key` atomically: readers see the old entry,
  /// none, or the whole new one.
  [[nodiscard]] virtual Error put(const std::string& key, std::string_view object) = 0;
  [[nodiscard]] virtual Error remove(const std::string& key) = 0;

  /// Every entry; with `verify`, each is read back and checked (slow: reads it all).
  [[nodiscard]] virtual Expected<std::vector<CacheEntryInfo>> list(bool verify = false) = 0;
  /// Removes the least recently used entries until at most `maxBytes` remain
  /// (and, for a directory, temporary files of writers no longer running).
  [[nodiscard]] virtual Expected<PruneResult> prune(std::uint64_t maxBytes) = 0;
  /// Removes every entry this backend wrote (a Redis backend only its prefix's keys).
  [[nodiscard]] virtual Error clear() = 0;

  /// Entries found damaged by get() since this backend was made.
  virtual std::uint64_t corruptEntries() const = 0;
};

/// A backend for `location`: a Redis URL ("redis://host:port[/prefix]", with
/// the defaults of RedisCacheOptions) or else a directory path (created if
/// missing). What `memjit cache` opens.
[[nodiscard]] Expected<std::shared_ptr<CacheBackend>> openCacheLocation(const std::string& location);

}  // namespace memjit::jit
