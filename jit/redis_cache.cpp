// The Redis backend (hiredis). Compiled only with MEMJIT_REDIS; without it,
// redis_cache_disabled.cpp answers Unsupported.
#include "memjit/jit/redis_cache.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include <sys/time.h>

#include <hiredis/hiredis.h>

#include "cache_entry.h"

namespace memjit::jit {
namespace {

using Clock = std::chrono::steady_clock;

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

timeval toTimeval(std::chrono::milliseconds ms) {
  return {static_cast<time_t>(ms.count() / 1000), static_cast<suseconds_t>(ms.count() % 1000 * 1000)};
}

class RedisCache final : public CacheBackend {
 public:
  explicit RedisCache(RedisCacheOptions options) : options_(std::move(options)) {}
  ~RedisCache() override {
    if (context_) redisFree(context_);
  }

  std::string location() const override {
    return "redis://" + options_.host + ":" + std::to_string(options_.port) + "/" + options_.prefix;
  }

  Expected<std::optional<std::string>> get(const std::string& key) override {
    const std::string name = options_.prefix + key;
    const std::string ttl = std::to_string(options_.ttl.count());
    MEMJIT_ASSIGN_OR_RETURN(Reply reply, command(getArgs(name, ttl)));
    auto object = decode(key, *reply);
    if (!object.ok()) return object.error();
    if (damaged(*reply, *object)) MEMJIT_TRY(remove(key));
    return object;
  }

  // The GETs pipelined: written together, then their replies read in order,
  // so the batch costs one round trip instead of one per key.
  Expected<std::vector<std::optional<std::string>>> getMany(const std::vector<std::string>& keys) override {
    const std::string ttl = std::to_string(options_.ttl.count());
    std::vector<Reply> replies;
    {
      MEMJIT_ASSIGN_OR_RETURN(Connection connection, connect());
      for (const std::string& key : keys) {
        const std::string name = options_.prefix + key;
        const auto args = getArgs(name, ttl);
        std::vector<const char*> argv;
        std::vector<std::size_t> lengths;
        for (std::string_view arg : args) {
          argv.push_back(arg.data());
          lengths.push_back(arg.size());
        }
        if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()) != REDIS_OK)
          return drop("cannot queue a pipelined GET");
      }
      for (std::size_t i = 0; i < keys.size(); ++i) {
        void* reply = nullptr;
        if (redisGetReply(context_, &reply) != REDIS_OK || !reply)
          return drop("pipelined GET " + std::to_string(i + 1) + " of " + std::to_string(keys.size()) + " failed");
        replies.emplace_back(static_cast<redisReply*>(reply));
      }
    }
    std::vector<std::optional<std::string>> found;
    found.reserve(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      auto object = decode(keys[i], *replies[i]);
      if (!object.ok()) return object.error();
      if (damaged(*replies[i], *object)) MEMJIT_TRY(remove(keys[i]));
      found.push_back(std::move(*object));
    }
    return found;
  }

  Error put(const std::string& key, std::string_view object) override {
    const std::string entry = detail::encodeCacheEntry(key, object);
    const std::string name = options_.prefix + key;
    const std::string ttl = std::to_string(options_.ttl.count());
    std::vector<std::string_view> args{"SET", name, entry};
    if (options_.ttl.count() > 0) args = {"SET", name, entry, "EX", ttl};
    MEMJIT_ASSIGN_OR_RETURN(Reply reply, command(args));
    if (reply->type != REDIS_REPLY_STATUS) return unexpected(*reply, "SET");
    return Error::success();
  }

  Error remove(const std::string& key) override {
    MEMJIT_ASSIGN_OR_RETURN(Reply reply, command({"DEL", options_.prefix + key}));
    return Error::success();
  }

  Expected<std::vector<CacheEntryInfo>> list(bool verify) override {
    MEMJIT_ASSIGN_OR_RETURN(std::vector<std::string> keys, scanKeys());
    std::vector<CacheEntryInfo> entries;
    // MEMORY USAGE and OBJECT IDLETIME do not touch the key, so listing keeps the LRU order.
    for (const std::string& name : keys) {
      CacheEntryInfo info;
      info.key = name.substr(options_.prefix.size());
      MEMJIT_ASSIGN_OR_RETURN(Reply idle, command({"OBJECT", "IDLETIME", name}));
      if (idle->type != REDIS_REPLY_INTEGER) continue;  // expired or removed meanwhile
      info.idle = std::chrono::seconds(idle->integer);
      MEMJIT_ASSIGN_OR_RETURN(Reply usage, command({"MEMORY", "USAGE", name}));
      if (usage->type == REDIS_REPLY_INTEGER) info.bytes = static_cast<std::uint64_t>(usage->integer);
      MEMJIT_ASSIGN_OR_RETURN(Reply ttl, command({"TTL", name}));
      if (ttl->type == REDIS_REPLY_INTEGER && ttl->integer >= 0) info.expiresIn = std::chrono::seconds(ttl->integer);
      if (verify) {
        MEMJIT_ASSIGN_OR_RETURN(Reply value, command({"GET", name}));
        info.valid = value->type == REDIS_REPLY_STRING &&
                     detail::decodeCacheEntry(info.key, std::string_view(value->str, value->len)).has_value();
      }
      entries.push_back(std::move(info));
    }
    return entries;
  }

  Expected<PruneResult> prune(std::uint64_t maxBytes) override {
    MEMJIT_ASSIGN_OR_RETURN(std::vector<CacheEntryInfo> entries, list(false));
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.idle > b.idle; });
    PruneResult result;
    std::uint64_t bytes = 0;
    for (const auto& entry : entries) bytes += entry.bytes;
    for (const auto& entry : entries) {
      if (bytes <= maxBytes) break;
      MEMJIT_TRY(remove(entry.key));
      ++result.removedEntries;
      result.removedBytes += entry.bytes;
      bytes -= entry.bytes;
    }
    result.remainingBytes = bytes;
    return result;
  }

  Error clear() override {
    MEMJIT_ASSIGN_OR_RETURN(std::vector<std::string> keys, scanKeys());
    for (const std::string& name : keys) {
      MEMJIT_ASSIGN_OR_RETURN(Reply reply, command({"DEL", name}));
    }
    return Error::success();
  }

  std::uint64_t corruptEntries() const override { return corrupt_.load(); }

 private:
  Error failure(const std::string& what) const {
    return Error(ErrorCode::IoError, "redis cache " + location() + ": " + what);
  }
  Error unexpected(const redisReply& reply, const char* command) const {
    const std::string text = reply.type == REDIS_REPLY_ERROR ? std::string(reply.str, reply.len) : "an unexpected reply";
    return failure(std::string(command) + " answered " + text);
  }

  using Connection = std::unique_lock<std::timed_mutex>;

  // The connection, held until the returned lock goes, with a bound on the
  // wait for it (another thread's command) and for connecting.
  Expected<Connection> connect() {
    Connection lock(mutex_, options_.timeout);
    if (!lock.owns_lock()) return failure("busy for longer than the timeout (" + std::to_string(options_.timeout.count()) + " ms)");
    if (!context_) {
      if (Clock::now() < retryAt_) return failure("skipped after a recent failure: " + lastFailure_);
      context_ = redisConnectWithTimeout(options_.host.c_str(), options_.port, toTimeval(options_.timeout));
      if (!context_ || context_->err) return drop("cannot connect");
      if (redisSetTimeout(context_, toTimeval(options_.timeout)) != REDIS_OK) return drop("cannot set the timeout");
    }
    return lock;
  }

  // GETEX renews a hit's TTL: an entry in use does not expire.
  std::vector<std::string_view> getArgs(const std::string& name, const std::string& ttl) const {
    if (options_.ttl.count() > 0) return {"GETEX", name, "EX", ttl};
    return {"GET", name};
  }

  // A GET's reply as get() answers it: nullopt for no entry or a damaged one.
  Expected<std::optional<std::string>> decode(const std::string& key, const redisReply& reply) const {
    if (reply.type == REDIS_REPLY_NIL) return std::optional<std::string>();
    if (reply.type != REDIS_REPLY_STRING) return unexpected(reply, "GET");
    return detail::decodeCacheEntry(key, std::string_view(reply.str, reply.len));
  }

  // An entry that was there but did not decode: counted, and the caller
  // removes it (a concurrent writer's whole one may go with it: a recompile,
  // never a wrong load).
  bool damaged(const redisReply& reply, const std::optional<std::string>& object) {
    if (reply.type != REDIS_REPLY_STRING || object) return false;
    ++corrupt_;
    return true;
  }

  // One command with a bound on the whole wait: for the connection (another
  // thread's command), connecting, and the reply.
  Expected<Reply> command(const std::vector<std::string_view>& args) {
    MEMJIT_ASSIGN_OR_RETURN(Connection connection, connect());
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (std::string_view arg : args) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()));
    if (!reply) return drop(std::string(args.front()) + " failed");
    Reply owned(reply);
    if (reply->type == REDIS_REPLY_ERROR) return unexpected(*reply, std::string(args.front()).c_str());
    return owned;
  }

  // A failed connection is dropped (its protocol state is unknown after a
  // timeout) and the server is not asked again for retryAfter.
  Error drop(const std::string& what) {
    std::string detail = what;
    if (context_ && context_->err) detail += std::string(": ") + context_->errstr;
    if (context_) redisFree(context_);
    context_ = nullptr;
    lastFailure_ = detail;
    retryAt_ = Clock::now() + options_.retryAfter;
    return failure(detail);
  }

  Expected<std::vector<std::string>> scanKeys() {
    std::vector<std::string> keys;
    std::string cursor = "0";
    const std::string pattern = options_.prefix + "*";
    do {
      MEMJIT_ASSIGN_OR_RETURN(Reply reply, command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"}));
      if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2) return unexpected(*reply, "SCAN");
      cursor.assign(reply->element[0]->str, reply->element[0]->len);
      const redisReply* batch = reply->element[1];
      for (std::size_t i = 0; i < batch->elements; ++i)
        keys.emplace_back(batch->element[i]->str, batch->element[i]->len);
    } while (cursor != "0");
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());  // SCAN may repeat a key
    return keys;
  }

  const RedisCacheOptions options_;
  std::timed_mutex mutex_;
  redisContext* context_ = nullptr;
  Clock::time_point retryAt_{};
  std::string lastFailure_;
  std::atomic<std::uint64_t> corrupt_{0};
};

}  // namespace

bool redisCacheAvailable() noexcept { return true; }

Expected<std::shared_ptr<CacheBackend>> createRedisCache(RedisCacheOptions options) {
  if (options.host.empty()) return Error(ErrorCode::InvalidArgument, "redis cache: the host is empty");
  if (options.port <= 0 || options.port > 65535)
    return Error(ErrorCode::InvalidArgument, "redis cache: port " + std::to_string(options.port) + " is out of range");
  if (options.timeout.count() <= 0)
    return Error(ErrorCode::InvalidArgument, "redis cache: the timeout must be positive");
  return std::shared_ptr<CacheBackend>(std::make_shared<RedisCache>(std::move(options)));
}

}  // namespace memjit::jit
