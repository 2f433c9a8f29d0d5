#include "memjit/jit/object_cache.h"

#include <algorithm>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BLAKE3.h>

#include "memjit/jit/directory_cache.h"

namespace memjit::jit {
namespace {

void appendPart(llvm::BLAKE3& hash, std::string_view part) {
  const std::uint64_t size = part.size();
  std::uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::uint8_t>(size >> (8 * i));
  hash.update(llvm::ArrayRef<std::uint8_t>(bytes, 8));
  hash.update(llvm::StringRef(part.data(), part.size()));
}

}  // namespace

std::string cacheKey(const CacheKeyParts& parts) {
  // BLAKE3, not SHA-256: as strong, and several times faster on the module's
  // bitcode, which a warm hit hashes every time (v1 keys were SHA-256).
  // v3: LLVM's version, vector math, code and relocation models and the ABI version are parts of their own.
  llvm::BLAKE3 hash;
  appendPart(hash, "memjit-object-cache-key-v3");
  appendPart(hash, parts.moduleBitcode);
  appendPart(hash, parts.triple);
  appendPart(hash, parts.cpu);
  appendPart(hash, parts.features);
  appendPart(hash, std::to_string(parts.optLevel));
  appendPart(hash, parts.memjitVersion);
  appendPart(hash, parts.pipeline);
  appendPart(hash, parts.llvmVersion);
  appendPart(hash, parts.vectorMath ? "vector-math" : "no-vector-math");
  appendPart(hash, parts.codeModel);
  appendPart(hash, parts.relocationModel);
  appendPart(hash, std::to_string(parts.abiVersion));
  auto digest = hash.final();
  return llvm::toHex(llvm::ArrayRef<std::uint8_t>(digest.data(), digest.size()), true);
}

Expected<std::vector<std::optional<std::string>>> CacheBackend::getMany(const std::vector<std::string>& keys) {
  std::vector<std::optional<std::string>> found;
  found.reserve(keys.size());
  for (const std::string& key : keys) {
    MEMJIT_ASSIGN_OR_RETURN(std::optional<std::string> object, get(key));
    found.push_back(std::move(object));
  }
  return found;
}

ObjectCache::ObjectCache(ObjectCacheOptions options) : options_(std::move(options)) {}

std::shared_ptr<ObjectCache> ObjectCache::create(ObjectCacheOptions options) {
  return std::make_shared<ObjectCache>(std::move(options));
}

std::shared_ptr<ObjectCache> ObjectCache::inMemory(std::size_t maxMemoryBytes) {
  return create({.maxMemoryBytes = maxMemoryBytes});
}

Expected<std::shared_ptr<ObjectCache>> ObjectCache::onDisk(std::string directory, std::size_t maxMemoryBytes) {
  MEMJIT_ASSIGN_OR_RETURN(auto local, DirectoryCache::open(std::move(directory)));
  return create({.maxMemoryBytes = maxMemoryBytes, .local = std::move(local)});
}

std::string ObjectCache::pathFor(const std::string& key) const {
  auto* directory = dynamic_cast<DirectoryCache*>(options_.local.get());
  return directory ? directory->pathFor(key) : std::string();
}

std::string ObjectCache::localDirectory() const {
  auto* directory = dynamic_cast<DirectoryCache*>(options_.local.get());
  return directory ? directory->directory() : std::string();
}

std::optional<std::shared_ptr<const std::string>> ObjectCache::get(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = memory_.find(key);
    if (it != memory_.end()) {
      ++stats_.hits;
      ++stats_.memoryHits;
      return it->second;
    }
  }
  std::optional<std::string> found;
  bool local = false;
  if (options_.local) {
    auto got = options_.local->get(key);
    if (got.ok()) {
      found = std::move(*got);
      local = found.has_value();
    } else {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.diskWriteErrors;
    }
  }
  if (!found && options_.remote) {
    found = fetchRemote(key);
    if (found) fillLocal(key, *found);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!found) {
    ++stats_.misses;
    return std::nullopt;
  }
  ++stats_.hits;
  ++(local ? stats_.localHits : stats_.remoteHits);
  stats_.bytesRead += found->size();
  auto object = std::make_shared<const std::string>(std::move(*found));
  remember(key, object);
  return object;
}

std::vector<std::shared_ptr<const std::string>> ObjectCache::getMany(const std::vector<std::string>& keys) {
  std::vector<std::shared_ptr<const std::string>> answers(keys.size());
  std::vector<std::size_t> missed;  // indices no layer has answered yet
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto it = memory_.find(keys[i]);
      if (it == memory_.end()) {
        missed.push_back(i);
        continue;
      }
      ++stats_.hits;
      ++stats_.memoryHits;
      answers[i] = it->second;
    }
  }
  std::vector<std::optional<std::string>> found(keys.size());
  std::vector<bool> local(keys.size(), false);
  if (options_.local)
    for (std::size_t i : missed) {
      auto got = options_.local->get(keys[i]);
      if (!got.ok()) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_.diskWriteErrors;
        continue;
      }
      found[i] = std::move(*got);
      local[i] = found[i].has_value();
    }
  if (options_.remote) {
    std::vector<std::size_t> remoteIndices;
    std::vector<std::string> remoteKeys;
    for (std::size_t i : missed)
      if (!found[i]) {
        remoteIndices.push_back(i);
        remoteKeys.push_back(keys[i]);
      }
    if (!remoteKeys.empty()) {
      std::vector<std::optional<std::string>> fetched = fetchRemoteMany(remoteKeys);
      for (std::size_t j = 0; j < remoteIndices.size(); ++j) {
        if (!fetched[j]) continue;
        fillLocal(keys[remoteIndices[j]], *fetched[j]);
        found[remoteIndices[j]] = std::move(fetched[j]);
      }
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i : missed) {
    if (!found[i]) {
      ++stats_.misses;
      continue;
    }
    ++stats_.hits;
    ++(local[i] ? stats_.localHits : stats_.remoteHits);
    stats_.bytesRead += found[i]->size();
    answers[i] = std::make_shared<const std::string>(std::move(*found[i]));
    remember(keys[i], answers[i]);
  }
  return answers;
}

void ObjectCache::fillLocal(const std::string& key, const std::string& object) {
  if (!options_.local || options_.local->put(key, object).ok()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.diskWriteErrors;
}

std::vector<std::optional<std::string>> ObjectCache::fetchRemoteMany(const std::vector<std::string>& keys) {
  const auto start = std::chrono::steady_clock::now();
  auto got = options_.remote->getMany(keys);
  // A backend answering another number of keys is as untrustworthy as one that failed.
  const bool failed = !got.ok() || got->size() != keys.size();
  countRemoteCall(std::chrono::steady_clock::now() - start, failed);
  if (failed) return std::vector<std::optional<std::string>>(keys.size());
  return std::move(*got);
}

std::optional<std::string> ObjectCache::fetchRemote(const std::string& key) {
  const auto start = std::chrono::steady_clock::now();
  auto got = options_.remote->get(key);
  countRemoteCall(std::chrono::steady_clock::now() - start, !got.ok());
  if (!got.ok()) return std::nullopt;
  return std::move(*got);
}

void ObjectCache::countRemoteCall(std::chrono::nanoseconds took, bool failed) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.remoteCalls;
  stats_.remoteErrors += failed;
  stats_.remoteTime += took;
  stats_.remoteMaxTime = std::max(stats_.remoteMaxTime, took);
}

void ObjectCache::put(const std::string& key, std::string object) {
  auto shared = std::make_shared<const std::string>(std::move(object));
  bool localFailed = false, remoteFailed = false;
  std::chrono::nanoseconds took{0};
  if (options_.local) localFailed = !options_.local->put(key, *shared).ok();
  if (options_.remote) {
    const auto start = std::chrono::steady_clock::now();
    remoteFailed = !options_.remote->put(key, *shared).ok();
    took = std::chrono::steady_clock::now() - start;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.stores;
  stats_.diskWriteErrors += localFailed;
  if (options_.remote) {
    ++stats_.remoteCalls;
    stats_.remoteErrors += remoteFailed;
    stats_.remoteTime += took;
    stats_.remoteMaxTime = std::max(stats_.remoteMaxTime, took);
  }
  const std::uint64_t published = (options_.local && !localFailed) + (options_.remote && !remoteFailed);
  stats_.bytesWritten += published * shared->size();
  remember(key, std::move(shared));
}

void ObjectCache::remember(const std::string& key, std::shared_ptr<const std::string> object) {
  // Caller holds mutex_.
  if (object->size() > options_.maxMemoryBytes) return;
  auto [it, inserted] = memory_.try_emplace(key, object);
  if (!inserted) {
    memoryBytes_ -= it->second->size();
    it->second = object;
  } else {
    order_.push_back(key);
  }
  memoryBytes_ += object->size();
  while (memoryBytes_ > options_.maxMemoryBytes && !order_.empty()) {
    auto old = memory_.find(order_.front());
    if (old != memory_.end()) {
      memoryBytes_ -= old->second->size();
      memory_.erase(old);
    }
    order_.pop_front();
  }
}

void ObjectCache::clearMemory() {
  std::lock_guard<std::mutex> lock(mutex_);
  memory_.clear();
  order_.clear();
  memoryBytes_ = 0;
}

CacheStats ObjectCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  CacheStats stats = stats_;
  if (options_.local) stats.corrupt += options_.local->corruptEntries();
  if (options_.remote) stats.corrupt += options_.remote->corruptEntries();
  return stats;
}

}  // namespace memjit::jit
