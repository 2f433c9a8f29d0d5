// A cache of compiled object files, in memory and optionally on disk.
//
// Keys are cryptographic hashes of everything that determines the object: the
// module's contents (a structural digest, or its bitcode), the target triple, CPU and features, the optimisation
// level and memjit's version (see cacheKey), so a hit is always safe to load
// and any change of a part misses. Unlike MLIR's ExecutionEngine cache (one
// object per engine), one cache serves any number of modules, Jits and threads.
//
// On disk each entry is `<dir>/<key>.mjo`: a header (magic, format version,
// payload size, BLAKE3 of the payload, the key) and the object. An entry
// whose header, size or checksum does not match is reported as corrupt,
// deleted and treated as a miss, so a truncated or damaged file is recompiled
// and never loaded. Files are written to a temporary name and renamed, so
// concurrent processes sharing a directory never see half-written entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <deque>
#include <unordered_map>

#include "memjit/error.h"

namespace memjit::jit {

/// What was hashed into a key, in a fixed order.
struct CacheKeyParts {
  /// The module's contents: its structural digest, or its bitcode.
  std::string_view moduleBitcode;
  std::string_view triple;
  std::string_view cpu;
  std::string_view features;
  int optLevel = 2;
  std::string_view memjitVersion;
  /// Options that change the generated code for the same module (e.g. the vector math library).
  std::string_view pipeline;
};

/// 64 hex digits of BLAKE3 (256 bits) over the parts (each length-prefixed, so moving
/// bytes from one part to the next changes the key).
std::string cacheKey(const CacheKeyParts& parts);

/// Counters, for tests and for tuning.
struct CacheStats {
  std::uint64_t hits = 0;        ///< lookups answered (memory or disk)
  std::uint64_t misses = 0;      ///< lookups not answered
  std::uint64_t corrupt = 0;     ///< disk entries rejected (and deleted)
  std::uint64_t stores = 0;      ///< objects stored
  std::uint64_t diskWriteErrors = 0;  ///< entries that could not be written (cache stays usable)
};

class ObjectCache {
 public:
  /// An in-memory cache holding at most `maxMemoryBytes` of objects (oldest
  /// dropped first).
  static std::shared_ptr<ObjectCache> inMemory(std::size_t maxMemoryBytes = 256u << 20);
  /// A cache backed by `directory` (created if missing), with an in-memory
  /// layer in front of it. Fails when the directory cannot be created.
  static Expected<std::shared_ptr<ObjectCache>> onDisk(std::string directory,
                                                       std::size_t maxMemoryBytes = 256u << 20);

  /// The object stored under `key`, or nullopt. Thread-safe.
  std::optional<std::shared_ptr<const std::string>> get(const std::string& key);
  /// Stores an object under `key` (replacing any). Thread-safe; a disk write
  /// failure is counted, not reported, since the object is still usable.
  void put(const std::string& key, std::string object);

  /// Path of the disk entry for `key` (empty for memory-only caches).
  std::string pathFor(const std::string& key) const;
  /// Empties the memory layer (the disk stays), e.g. to test disk hits.
  void clearMemory();
  CacheStats stats() const;

  /// Use inMemory() or onDisk(); public only for std::make_shared.
  ObjectCache(std::string directory, std::size_t maxMemoryBytes);

 private:
  std::optional<std::shared_ptr<const std::string>> readDisk(const std::string& key);
  void writeDisk(const std::string& key, const std::string& object);
  void remember(const std::string& key, std::shared_ptr<const std::string> object);

  const std::string directory_;
  const std::size_t maxMemoryBytes_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> memory_;
  std::deque<std::string> order_;  ///< insertion order, for eviction
  std::size_t memoryBytes_ = 0;
  CacheStats stats_;
};

}  // namespace memjit::jit
