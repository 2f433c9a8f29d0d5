#include "memjit/jit/directory_cache.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_entry.h"

namespace memjit::jit {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kSuffix = ".mjo";
constexpr std::string_view kTempMarker = ".mjo.tmp.";

Error ioError(const std::string& what, const std::string& path, int error) {
  return Error(ErrorCode::IoError, "object cache: cannot " + what + " '" + path + "': " + std::strerror(error));
}

// Reads the whole file; nullopt when it does not exist, an Error when it cannot be read.
Expected<std::optional<std::string>> readFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return ioError("open", path, errno);
  }
  struct stat st {};
  std::string data;
  int error = 0;
  if (::fstat(fd, &st) != 0) {
    error = errno;
  } else {
    data.resize(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::read(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) { error = errno; break; }
      if (n == 0) break;  // shorter than fstat said: the decoder rejects it
      done += static_cast<std::size_t>(n);
    }
    data.resize(done);
  }
  ::close(fd);
  if (error) return ioError("read", path, error);
  return std::optional<std::string>(std::move(data));
}

Error writeFile(const std::string& path, std::string_view data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ioError("create", path, errno);
  std::size_t done = 0;
  int error = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { error = errno; break; }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && !error) error = errno;
  if (error) return ioError("write", path, error);
  return Error::success();
}

bool isEntry(const std::string& name) {
  return name.size() > kSuffix.size() && name.ends_with(kSuffix);
}

// A temporary file's writer, from `<key>.mjo.tmp.<pid>.<random>`; 0 when not one.
pid_t tempWriter(const std::string& name) {
  const auto at = name.find(kTempMarker);
  if (at == std::string::npos) return 0;
  return static_cast<pid_t>(std::atoll(name.c_str() + at + kTempMarker.size()));
}

struct Scanned {
  std::vector<CacheEntryInfo> entries;
  std::vector<fs::path> orphans;  // temporary files whose writer is gone
  std::vector<std::chrono::system_clock::time_point> lastUse;  // parallel to entries
  std::uint64_t bytes = 0;
};

Scanned scan(const std::string& directory) {
  Scanned out;
  const auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (const auto& file : fs::directory_iterator(directory, ec)) {
    const std::string name = file.path().filename().string();
    struct stat st {};
    if (::stat(file.path().c_str(), &st) != 0) continue;  // removed meanwhile
    if (const pid_t writer = tempWriter(name)) {
      if (::kill(writer, 0) != 0 && errno == ESRCH) out.orphans.push_back(file.path());
      continue;
    }
    if (!isEntry(name)) continue;
    const auto modified = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
    CacheEntryInfo info;
    info.key = name.substr(0, name.size() - kSuffix.size());
    info.bytes = static_cast<std::uint64_t>(st.st_size);
    info.idle = std::max(std::chrono::seconds(0), std::chrono::duration_cast<std::chrono::seconds>(now - modified));
    out.bytes += info.bytes;
    out.entries.push_back(std::move(info));
    out.lastUse.push_back(modified);
  }
  return out;
}

}  // namespace

DirectoryCache::DirectoryCache(std::string directory, DirectoryCacheOptions options, std::uint64_t bytes)
    : directory_(std::move(directory)), options_(options), bytes_(bytes) {}

Expected<std::shared_ptr<DirectoryCache>> DirectoryCache::open(std::string directory,
                                                               DirectoryCacheOptions options) {
  if (directory.empty()) return Error(ErrorCode::InvalidArgument, "object cache directory is empty");
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec || !fs::is_directory(directory, ec))
    return Error(ErrorCode::IoError, "cannot create object cache directory '" + directory +
                                         "': " + (ec ? ec.message() : "not a directory"));
  const std::uint64_t bytes = options.maxBytes ? scan(directory).bytes : 0;
  return std::make_shared<DirectoryCache>(std::move(directory), options, bytes);
}

std::string DirectoryCache::location() const { return "dir:" + directory_; }

std::string DirectoryCache::pathFor(const std::string& key) const {
  return directory_ + "/" + key + std::string(kSuffix);
}

Expected<std::optional<std::string>> DirectoryCache::get(const std::string& key) {
  const std::string path = pathFor(key);
  MEMJIT_ASSIGN_OR_RETURN(auto file, readFile(path));
  if (!file) return std::optional<std::string>();
  auto object = detail::decodeCacheEntry(key, *file);
  if (!object) {
    // A writer may have renamed a whole entry over it since it was read;
    // unlinking that one costs a recompile, never a wrong load.
    ::unlink(path.c_str());
    ++corrupt_;
    return std::optional<std::string>();
  }
  // The modification time is the LRU order (atime is often not kept).
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  return object;
}

namespace {

// A test-only fault (tests/jit/cache_stress_test.cpp): with
// MEMJIT_TEST_KILL_BEFORE_RENAME=<n> in its environment, a process kills
// itself with SIGKILL after writing the temporary file of its n-th entry and
// before publishing it, the window random kills rarely land in.
void killBeforeRenameIfAsked() {
  static const long at = [] {
    const char* value = std::getenv("MEMJIT_TEST_KILL_BEFORE_RENAME");
    return value ? std::atol(value) : 0L;
  }();
  static std::atomic<long> puts{0};
  if (at > 0 && ++puts == at) ::raise(SIGKILL);
}

}  // namespace

Error DirectoryCache::put(const std::string& key, std::string_view object) {
  const std::string entry = detail::encodeCacheEntry(key, object);
  thread_local std::mt19937_64 random{std::random_device()()};
  const std::string path = pathFor(key);
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(random());
  if (Error error = writeFile(temp, entry)) {
    ::unlink(temp.c_str());
    return error;
  }
  killBeforeRenameIfAsked();
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return ioError("publish", path, error);
  }
  if (options_.maxBytes && (bytes_ += entry.size()) > options_.maxBytes) {
    // One pruner at a time per process; others keep going (the bound is soft by one scan).
    std::unique_lock<std::mutex> lock(pruning_, std::try_to_lock);
    if (lock.owns_lock()) {
      MEMJIT_ASSIGN_OR_RETURN(PruneResult pruned, prune(options_.maxBytes / 10 * 9));
      bytes_ = pruned.remainingBytes;
    }
  }
  return Error::success();
}

Error DirectoryCache::remove(const std::string& key) {
  const std::string path = pathFor(key);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ioError("remove", path, errno);
  return Error::success();
}

Expected<std::vector<CacheEntryInfo>> DirectoryCache::list(bool verify) {
  Scanned scanned = scan(directory_);
  if (verify) {
    for (CacheEntryInfo& info : scanned.entries) {
      MEMJIT_ASSIGN_OR_RETURN(auto file, readFile(pathFor(info.key)));
      info.valid = file && detail::decodeCacheEntry(info.key, *file).has_value();
    }
  }
  return std::move(scanned.entries);
}

Expected<PruneResult> DirectoryCache::prune(std::uint64_t maxBytes) {
  Scanned scanned = scan(directory_);
  PruneResult result;
  for (const fs::path& orphan : scanned.orphans) {
    std::error_code ec;
    if (fs::remove(orphan, ec)) ++result.removedOrphans;
  }
  std::vector<std::size_t> order(scanned.entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return scanned.lastUse[a] < scanned.lastUse[b]; });
  std::uint64_t bytes = scanned.bytes;
  for (std::size_t i : order) {
    if (bytes <= maxBytes) break;
    const CacheEntryInfo& info = scanned.entries[i];
    if (::unlink(pathFor(info.key).c_str()) == 0) {
      ++result.removedEntries;
      result.removedBytes += info.bytes;
    }
    bytes -= info.bytes;  // gone either way (another process may have pruned it)
  }
  result.remainingBytes = bytes;
  return result;
}

Error DirectoryCache::clear() {
  Scanned scanned = scan(directory_);
  for (const CacheEntryInfo& info : scanned.entries) MEMJIT_TRY(remove(info.key));
  for (const fs::path& orphan : scanned.orphans) {
    std::error_code ec;
    fs::remove(orphan, ec);
  }
  bytes_ = 0;
  return Error::success();
}

}  // namespace memjit::jit
