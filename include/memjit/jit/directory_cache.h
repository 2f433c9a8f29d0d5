// The local cache backend: one file per entry, `<dir>/<key>.mjo`, shared by
// every process on the machine that opens the same directory.
//
// A writer writes `<key>.mjo.tmp.<pid>.<random>` and renames it over the entry,
// so readers see no entry or a whole one even when the writer is killed
// half-way; its temporary file is then an orphan that `prune` removes once its
// process is gone. A read sets the file's modification time, which is the LRU
// order: past `maxBytes`, the least recently used entries are deleted.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "memjit/jit/cache_backend.h"

namespace memjit::jit {

struct DirectoryCacheOptions {
  /// Evict least-recently-used entries when the directory holds more than
  /// this (0: unbounded). Eviction brings it down to 90% of the bound, so a
  /// directory at its limit is not scanned on every store.
  std::uint64_t maxBytes = 0;
};

class DirectoryCache final : public CacheBackend {
 public:
  /// Opens (creating if missing) `directory`. Fails when it cannot be created.
  [[nodiscard]] static Expected<std::shared_ptr<DirectoryCache>> open(std::string directory,
                                                                      DirectoryCacheOptions options = {});

  std::string location() const override;
  [[nodiscard]] Expected<std::optional<std::string>> get(const std::string& key) override;
  [[nodiscard]] Error put(const std::string& key, std::string_view object) override;
  [[nodiscard]] Error remove(const std::string& key) override;
  [[nodiscard]] Expected<std::vector<CacheEntryInfo>> list(bool verify = false) override;
  [[nodiscard]] Expected<PruneResult> prune(std::uint64_t maxBytes) override;
  [[nodiscard]] Error clear() override;
  std::uint64_t corruptEntries() const override { return corrupt_.load(); }

  /// The file that holds `key`'s entry.
  std::string pathFor(const std::string& key) const;
  const std::string& directory() const { return directory_; }

  /// Use open(); public only for std::make_shared.
  DirectoryCache(std::string directory, DirectoryCacheOptions options, std::uint64_t bytes);

 private:
  const std::string directory_;
  const DirectoryCacheOptions options_;
  /// This process's estimate of the directory's size (re-measured by every prune).
  std::atomic<std::uint64_t> bytes_;
  std::atomic<std::uint64_t> corrupt_{0};
  std::mutex pruning_;
};

}  // namespace memjit::jit
