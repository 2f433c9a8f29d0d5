// A cache of compiled objects: a memory layer in front of a local backend (a
// directory, memjit/jit/directory_cache.h) and a remote one shared by a fleet
// (Redis, memjit/jit/redis_cache.h). Lookups go memory, local, remote; a remote
// hit fills the local backend and the memory layer. A backend that fails (down,
// slow past its timeout, a full disk) is a miss: the module is compiled locally.
//
// Keys are cryptographic hashes of everything that determines the object (see
// CacheKeyParts), so a hit is always safe to load and any change of a part
// misses. Unlike MLIR's ExecutionEngine cache (one object per engine), one
// cache serves any number of modules, Jits, threads and processes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "memjit/error.h"
#include "memjit/jit/cache_backend.h"

namespace memjit::jit {

/// The version of the contract between generated objects and memjit's
/// runtime (the runtime entry points generated code calls, the metadata
/// globals, descriptor layouts). Bumped when that contract changes, so objects
/// cached by an older memjit never load into a newer one. Also bumped when a
/// fix changes what the pipeline makes of the same IR (a wrong-code fix after
/// the IR is built is invisible to the module's digest). 2: the arena's entry
/// points, and the shift-amount and half-register fixes of issue 24. 3: half
/// compares in f32 (a compare sunk past an atomic's loop, issue 24). 4: splats of a
/// loaded f32 bitcast as scalars (a broadcast load moved past a store, issue 24).
/// 5: halves used after a scalar division or zero count cross it as bits
/// (CodeGenPrepare's branch to a 32-bit division), and identity lanes of half
/// vector arithmetic take their operand (LLVM 22's SLP vectoriser), half
/// fences dropped, and half phis' bits frozen (optimizePhiType), issue 24.
/// 6: every use but a store of a narrowed bf16's bits goes through the asm
/// that hides their sign from the back end (difftest seed 5000000008719).
/// 7: identity lanes of f32/f64 vector arithmetic take their operand (LLVM
/// 22's SLP vectoriser quieted a moved signalling NaN, seed 137766914070758).
/// 8: bf16 arithmetic in f32 on operands widened from their bits (an O1
/// argument narrowed by vcvtneps2bf16 on its way in, seed 3300000001358).
/// 9: a scalar load's uses after a write in its block read a freeze of it
/// (x86 read an element again after a compare-exchange, seed 179466727052886).
inline constexpr std::uint32_t kObjectAbiVersion = 9;

/// What was hashed into a key, in a fixed order. Fast-math, checked mode and
/// debug info are chosen per function when the kernel is built
/// (codegen::FunctionOptions) and live in the IR (instruction flags, check
/// branches, debug metadata), so the module's digest carries them.
struct CacheKeyParts {
  /// The module's contents: its structural digest, or its bitcode.
  std::string_view moduleBitcode;
  std::string_view triple;
  std::string_view cpu;
  std::string_view features;
  int optLevel = 2;
  std::string_view memjitVersion;
  /// Other options that change the generated code for the same module (the
  /// code generator's level, IR passes on or off, deferred expanded entries).
  std::string_view pipeline;
  /// The LLVM that generates the code (LLVM_VERSION_STRING).
  std::string_view llvmVersion;
  bool vectorMath = true;
  /// Code and relocation models of the generated object ("default", "small", ...; "pic", "static").
  std::string_view codeModel;
  std::string_view relocationModel;
  std::uint32_t abiVersion = kObjectAbiVersion;
};

/// 64 hex digits of BLAKE3 (256 bits) over the parts (each length-prefixed, so moving
/// bytes from one part to the next changes the key).
std::string cacheKey(const CacheKeyParts& parts);

/// Counters, for tests, tuning and `memjit cache stats`.
struct CacheStats {
  std::uint64_t hits = 0;        ///< lookups answered (by any layer)
  std::uint64_t memoryHits = 0;  ///< ... by the memory layer
  std::uint64_t localHits = 0;   ///< ... by the local backend
  std::uint64_t remoteHits = 0;  ///< ... by the remote backend (then copied to the local one)
  std::uint64_t misses = 0;      ///< lookups not answered
  std::uint64_t corrupt = 0;     ///< entries rejected by a checksum, size or key check (and removed)
  std::uint64_t stores = 0;      ///< objects stored
  std::uint64_t diskWriteErrors = 0;  ///< local reads or writes that failed (the cache stays usable)
  std::uint64_t remoteErrors = 0;     ///< remote calls that failed or timed out (each then a miss)
  std::uint64_t bytesRead = 0;        ///< object bytes answered by the backends
  std::uint64_t bytesWritten = 0;     ///< object bytes published to the backends
  std::uint64_t remoteCalls = 0;      ///< remote gets and puts, failed ones included
  std::chrono::nanoseconds remoteTime{0};     ///< their total wall time
  std::chrono::nanoseconds remoteMaxTime{0};  ///< the slowest of them
};

/// The layers of an ObjectCache.
struct ObjectCacheOptions {
  /// The memory layer's bound (oldest dropped first); 0 turns it off.
  std::size_t maxMemoryBytes = 256u << 20;
  /// Consulted after memory (e.g. DirectoryCache); may be null.
  std::shared_ptr<CacheBackend> local{};
  /// Consulted after the local backend (e.g. a Redis cache); may be null.
  std::shared_ptr<CacheBackend> remote{};
};

class ObjectCache {
 public:
  /// An in-memory cache holding at most `maxMemoryBytes` of objects (oldest
  /// dropped first).
  static std::shared_ptr<ObjectCache> inMemory(std::size_t maxMemoryBytes = 256u << 20);
  /// A cache backed by `directory` (created if missing), with an in-memory
  /// layer in front of it. Fails when the directory cannot be created.
  [[nodiscard]] static Expected<std::shared_ptr<ObjectCache>> onDisk(std::string directory,
                                                                     std::size_t maxMemoryBytes = 256u << 20);
  /// A cache of the given layers.
  static std::shared_ptr<ObjectCache> create(ObjectCacheOptions options);

  /// The object stored under `key`, or nullopt. Thread-safe.
  std::optional<std::shared_ptr<const std::string>> get(const std::string& key);
  /// get() of several keys, answered in order (null for a miss): each layer
  /// is asked for the keys the layers before it missed, the remote backend in
  /// one call (CacheBackend::getMany: one Redis round trip for all of them,
  /// counted as one remote call). Thread-safe.
  std::vector<std::shared_ptr<const std::string>> getMany(const std::vector<std::string>& keys);
  /// Stores an object under `key` (replacing any) in every layer. Thread-safe;
  /// a backend's failure is counted, not reported, since the object is still usable.
  void put(const std::string& key, std::string object);

  /// Path of the disk entry for `key` (empty unless the local backend is a DirectoryCache).
  std::string pathFor(const std::string& key) const;
  /// The local backend's directory (empty unless it is a DirectoryCache).
  std::string localDirectory() const;
  const std::shared_ptr<CacheBackend>& local() const { return options_.local; }
  const std::shared_ptr<CacheBackend>& remote() const { return options_.remote; }
  /// Empties the memory layer (the disk stays), e.g. to test disk hits.
  void clearMemory();
  CacheStats stats() const;

  /// Use inMemory(), onDisk() or create(); public only for std::make_shared.
  explicit ObjectCache(ObjectCacheOptions options);

 private:
  std::optional<std::string> fetchRemote(const std::string& key);
  std::vector<std::optional<std::string>> fetchRemoteMany(const std::vector<std::string>& keys);
  void countRemoteCall(std::chrono::nanoseconds took, bool failed);
  // Copies a remote hit to the local backend, so the next process on this machine finds it there.
  void fillLocal(const std::string& key, const std::string& object);
  void remember(const std::string& key, std::shared_ptr<const std::string> object);

  const ObjectCacheOptions options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> memory_;
  std::deque<std::string> order_;  ///< insertion order, for eviction
  std::size_t memoryBytes_ = 0;
  CacheStats stats_;
};

}  // namespace memjit::jit
