#include "memjit/jit/object_cache.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BLAKE3.h>

namespace memjit::jit {
namespace {

constexpr char kMagic[8] = {'M', 'E', 'M', 'J', 'I', 'T', 'O', '\0'};
// 2: the payload's checksum is BLAKE3 (1: SHA-256, which cost a disk hit more
// than the rest of reading the entry).
constexpr std::uint32_t kFormatVersion = 2;
// magic, version, key length, payload size, payload BLAKE3, then key and payload.
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 8 + 32;

void appendPart(llvm::BLAKE3& hash, std::string_view part) {
  const std::uint64_t size = part.size();
  std::uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::uint8_t>(size >> (8 * i));
  hash.update(llvm::ArrayRef<std::uint8_t>(bytes, 8));
  hash.update(llvm::StringRef(part.data(), part.size()));
}

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

std::string cacheKey(const CacheKeyParts& parts) {
  // BLAKE3, not SHA-256: as strong, and several times faster on the module's
  // bitcode, which a warm hit hashes every time (v1 keys were SHA-256).
  llvm::BLAKE3 hash;
  appendPart(hash, "memjit-object-cache-key-v2");
  appendPart(hash, parts.moduleBitcode);
  appendPart(hash, parts.triple);
  appendPart(hash, parts.cpu);
  appendPart(hash, parts.features);
  appendPart(hash, std::to_string(parts.optLevel));
  appendPart(hash, parts.memjitVersion);
  appendPart(hash, parts.pipeline);
  auto digest = hash.final();
  return llvm::toHex(llvm::ArrayRef<std::uint8_t>(digest.data(), digest.size()), true);
}

ObjectCache::ObjectCache(std::string directory, std::size_t maxMemoryBytes)
    : directory_(std::move(directory)), maxMemoryBytes_(maxMemoryBytes) {}

std::shared_ptr<ObjectCache> ObjectCache::inMemory(std::size_t maxMemoryBytes) {
  return std::make_shared<ObjectCache>(std::string(), maxMemoryBytes);
}

Expected<std::shared_ptr<ObjectCache>> ObjectCache::onDisk(std::string directory,
                                                           std::size_t maxMemoryBytes) {
  if (directory.empty())
    return Error(ErrorCode::InvalidArgument, "object cache directory is empty");
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec || !std::filesystem::is_directory(directory, ec))
    return Error(ErrorCode::IoError, "cannot create object cache directory '" + directory +
                                         "': " + (ec ? ec.message() : "not a directory"));
  return std::make_shared<ObjectCache>(std::move(directory), maxMemoryBytes);
}

std::string ObjectCache::pathFor(const std::string& key) const {
  if (directory_.empty()) return std::string();
  return directory_ + "/" + key + ".mjo";
}

std::optional<std::shared_ptr<const std::string>> ObjectCache::get(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = memory_.find(key);
    if (it != memory_.end()) {
      ++stats_.hits;
      return it->second;
    }
  }
  if (!directory_.empty()) {
    if (auto object = readDisk(key)) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.hits;
      remember(key, *object);
      return object;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.misses;
  return std::nullopt;
}

void ObjectCache::put(const std::string& key, std::string object) {
  auto shared = std::make_shared<const std::string>(std::move(object));
  if (!directory_.empty()) writeDisk(key, *shared);
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.stores;
  remember(key, std::move(shared));
}

void ObjectCache::remember(const std::string& key, std::shared_ptr<const std::string> object) {
  // Caller holds mutex_.
  if (object->size() > maxMemoryBytes_) return;
  auto [it, inserted] = memory_.try_emplace(key, object);
  if (!inserted) {
    memoryBytes_ -= it->second->size();
    it->second = object;
  } else {
    order_.push_back(key);
  }
  memoryBytes_ += object->size();
  while (memoryBytes_ > maxMemoryBytes_ && !order_.empty()) {
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
  return stats_;
}

std::optional<std::shared_ptr<const std::string>> ObjectCache::readDisk(const std::string& key) {
  const std::string path = pathFor(key);
  std::string file;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return std::nullopt;  // a plain miss
    // One read of the whole entry (a character-wise read cost more than the checksum).
    file.resize(static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0)));
    in.seekg(0);
    if (!in.read(file.data(), static_cast<std::streamsize>(file.size()))) file.clear();
  }
  auto reject = [&]() -> std::optional<std::shared_ptr<const std::string>> {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.corrupt;
    return std::nullopt;
  };
  if (file.size() < kHeaderSize || std::memcmp(file.data(), kMagic, 8) != 0) return reject();
  const char* p = file.data() + 8;
  if (getLE<std::uint32_t>(p) != kFormatVersion) return reject();
  const auto keySize = getLE<std::uint32_t>(p + 4);
  const auto payloadSize = getLE<std::uint64_t>(p + 8);
  const char* stored = p + 16;
  if (file.size() != kHeaderSize + keySize + payloadSize) return reject();
  if (std::string_view(file.data() + kHeaderSize, keySize) != key) return reject();
  std::string payload = file.substr(kHeaderSize + keySize);
  const auto digest = checksum(payload);
  if (std::memcmp(digest.data(), stored, 32) != 0) return reject();
  return std::make_shared<const std::string>(std::move(payload));
}

void ObjectCache::writeDisk(const std::string& key, const std::string& object) {
  std::string file(kMagic, 8);
  putLE<std::uint32_t>(file, kFormatVersion);
  putLE<std::uint32_t>(file, static_cast<std::uint32_t>(key.size()));
  putLE<std::uint64_t>(file, object.size());
  const auto digest = checksum(object);
  file.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  file += key;
  file += object;

  // A unique temporary name per writer, then an atomic rename: readers see
  // either no entry or a complete one.
  std::ostringstream tmpName;
  tmpName << pathFor(key) << ".tmp." << std::hash<std::thread::id>()(std::this_thread::get_id())
          << "." << std::random_device()();
  const std::string tmp = tmpName.str();
  bool ok = false;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    ok = static_cast<bool>(out);
  }
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, pathFor(key), ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.diskWriteErrors;
  }
}

}  // namespace memjit::jit
