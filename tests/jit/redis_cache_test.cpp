// Tests of the Redis backend against a real redis-server on the loopback
// address (tests/support/redis_server.h): verified reads, TTLs, list/prune/
// clear, and a server that is down or never answers, which must cost at most
// the configured timeout and leave the Jit compiling locally.
#include "memjit/jit/redis_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include <hiredis/hiredis.h>

#include "memjit/jit/directory_cache.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "support/expected.h"
#include "support/ir_snippets.h"
#include "support/jit.h"
#include "support/redis_server.h"

using namespace memjit;
using namespace memjit::jit;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<CacheBackend> connect(const test::RedisServer& server, RedisCacheOptions options = {}) {
  options.port = server.port();
  return test::valueOrFail(createRedisCache(options), "redis");
}

// Writes `value` under `name` directly, as a damaged or foreign writer would.
void rawSet(const test::RedisServer& server, const std::string& name, const std::string& value) {
  redisContext* context = redisConnect("127.0.0.1", server.port());
  ASSERT_TRUE(context && !context->err);
  auto* reply = static_cast<redisReply*>(redisCommand(context, "SET %b %b", name.data(), name.size(),
                                                      value.data(), value.size()));
  ASSERT_TRUE(reply);
  freeReplyObject(reply);
  redisFree(context);
}

std::string rawGet(const test::RedisServer& server, const std::string& name) {
  redisContext* context = redisConnect("127.0.0.1", server.port());
  auto* reply = static_cast<redisReply*>(redisCommand(context, "GET %b", name.data(), name.size()));
  std::string value = reply && reply->type == REDIS_REPLY_STRING ? std::string(reply->str, reply->len) : "";
  if (reply) freeReplyObject(reply);
  redisFree(context);
  return value;
}

}  // namespace

TEST(RedisCache, IsBuiltIn) { EXPECT_TRUE(redisCacheAvailable()); }

TEST(RedisCache, PutGetRemoveWithBinaryObjects) {
  MEMJIT_START_REDIS(server);
  auto cache = connect(*server);
  EXPECT_EQ(cache->location(), "redis://127.0.0.1:" + std::to_string(server->port()) + "/memjit:");
  EXPECT_FALSE(test::valueOrFail(cache->get("k"), "get").has_value());
  const std::string object("\0\r\n$3\r\nGET\xff", 12);  // NUL and the protocol's own bytes
  ASSERT_FALSE(cache->put("k", object));
  EXPECT_EQ(test::valueOrFail(cache->get("k"), "get"), object);
  ASSERT_FALSE(cache->remove("k"));
  EXPECT_FALSE(test::valueOrFail(cache->get("k"), "get").has_value());
}

TEST(RedisCache, DamagedOrForeignEntriesAreMissesAndRemoved) {
  MEMJIT_START_REDIS(server);
  auto cache = connect(*server);
  ASSERT_FALSE(cache->put("k", std::string(500, 'o')));
  const std::string whole = rawGet(*server, "memjit:k");
  ASSERT_FALSE(whole.empty());
  for (const std::string& bad : {whole.substr(0, whole.size() - 1), whole.substr(0, 20), std::string("garbage"),
                                 whole.substr(0, whole.size() - 1) + "x"}) {
    rawSet(*server, "memjit:k", bad);
    EXPECT_FALSE(test::valueOrFail(cache->get("k"), "get").has_value());
    EXPECT_EQ(rawGet(*server, "memjit:k"), "");  // removed
  }
  rawSet(*server, "memjit:j", whole);  // k's entry under j's name
  EXPECT_FALSE(test::valueOrFail(cache->get("j"), "get").has_value());
  EXPECT_EQ(cache->corruptEntries(), 5u);
}

TEST(RedisCache, ATtlIsSetOnWriteAndRenewedOnRead) {
  MEMJIT_START_REDIS(server);
  auto cache = connect(*server, {.ttl = 1000s});
  auto forever = connect(*server, {.prefix = "other:"});
  ASSERT_FALSE(cache->put("k", "object"));
  ASSERT_FALSE(forever->put("k", "object"));
  auto listed = test::valueOrFail(cache->list(), "list");
  ASSERT_EQ(listed.size(), 1u);  // only its own prefix
  ASSERT_TRUE(listed[0].expiresIn.has_value());
  EXPECT_GT(*listed[0].expiresIn, 900s);
  EXPECT_LE(*listed[0].expiresIn, 1000s);
  EXPECT_FALSE(test::valueOrFail(forever->list(), "list")[0].expiresIn.has_value());
  // An entry that would expire in 1 s is renewed by a hit (GETEX).
  rawSet(*server, "memjit:k", rawGet(*server, "memjit:k"));  // no TTL now
  ASSERT_TRUE(test::valueOrFail(cache->get("k"), "get").has_value());
  EXPECT_GT(*test::valueOrFail(cache->list(), "list")[0].expiresIn, 900s);
}

TEST(RedisCache, ListVerifyPruneAndClearStayInTheirPrefix) {
  MEMJIT_START_REDIS(server);
  auto cache = connect(*server);
  auto other = connect(*server, {.prefix = "someone-else:"});
  for (int i = 0; i < 30; ++i) ASSERT_FALSE(cache->put("k" + std::to_string(i), std::string(2000, 'x')));
  ASSERT_FALSE(other->put("theirs", "object"));
  rawSet(*server, "memjit:broken", "garbage");
  auto listed = test::valueOrFail(cache->list(true), "list");
  ASSERT_EQ(listed.size(), 31u);
  int invalid = 0;
  for (const auto& entry : listed) {
    EXPECT_GT(entry.bytes, 0u);
    invalid += entry.valid == false;
  }
  EXPECT_EQ(invalid, 1);
  std::uint64_t total = 0;
  for (const auto& entry : listed) total += entry.bytes;
  PruneResult pruned = test::valueOrFail(cache->prune(total / 2), "prune");
  EXPECT_GT(pruned.removedEntries, 0u);
  EXPECT_LE(pruned.remainingBytes, total / 2);
  EXPECT_EQ(test::valueOrFail(cache->list(), "list").size(), 31u - pruned.removedEntries);
  ASSERT_FALSE(cache->clear());
  EXPECT_TRUE(test::valueOrFail(cache->list(), "list").empty());
  EXPECT_EQ(test::valueOrFail(other->get("theirs"), "get"), "object");
}

TEST(RedisCache, AServerThatIsDownFailsAndTheJitCompilesLocally) {
  MEMJIT_START_REDIS(server);
  const int port = server->port();
  server->stop();
  auto remote = test::valueOrFail(createRedisCache({.port = port, .retryAfter = 60s}), "redis");
  auto got = remote->get("k");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code(), ErrorCode::IoError);
  EXPECT_NE(got.error().message().find("redis cache redis://127.0.0.1:" + std::to_string(port) +
                                       "/memjit:: cannot connect"),
            std::string::npos)
      << got.error().message();
  // Within retryAfter the server is not asked again.
  auto again = remote->put("k", "x");
  ASSERT_TRUE(again);
  EXPECT_NE(again.message().find("skipped after a recent failure: cannot connect"), std::string::npos)
      << again.message();

  auto cache = ObjectCache::create({.remote = remote});
  Jit jit = test::makeJit({.cache = cache});
  LoadedModule mod = test::valueOrFail(jit.addIR(test::constantIR("k", 9), "m"), "add");
  EXPECT_FALSE(mod.fromCache());
  EXPECT_EQ(test::valueOrFail(mod.function("k"), "k").cInterfaceAs<std::int64_t()>()(), 9);
  const CacheStats stats = cache->stats();
  EXPECT_EQ(stats.remoteErrors, 2u);  // the lookup and the publication
  EXPECT_EQ(stats.misses, 1u);
}

// A server that accepts connections and never answers (stopped with SIGSTOP):
// each call ends with a timeout error, bounded by the configured timeout
// (checked against 20x that bound, so a loaded machine cannot fail it).
TEST(RedisCache, AServerThatNeverAnswersTimesOut) {
  MEMJIT_START_REDIS(server);
  auto remote = connect(*server, {.timeout = 50ms, .retryAfter = 0ms});
  ASSERT_FALSE(remote->put("k", "object"));  // connected
  server->pause();
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto got = remote->get("k");
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().code(), ErrorCode::IoError);
    EXPECT_LT(took, 1s);
  }
  // A Jit over it compiles locally; the lookup and the publication each cost one timeout at most.
  auto cache = ObjectCache::create({.remote = remote});
  Jit jit = test::makeJit({.cache = cache});
  LoadedModule mod = test::valueOrFail(jit.addIR(test::constantIR("k", -7), "m"), "add");
  EXPECT_FALSE(mod.fromCache());
  EXPECT_EQ(test::valueOrFail(mod.function("k"), "k").cInterfaceAs<std::int64_t()>()(), -7);
  EXPECT_EQ(cache->stats().remoteErrors, 2u);
  EXPECT_LT(cache->stats().remoteMaxTime, std::chrono::nanoseconds(1s));
  server->resume();
  EXPECT_EQ(test::valueOrFail(remote->get("k"), "get"), "object");  // reconnects
}

// Two machines, each with its own directory, and the fleet's Redis: what one
// compiled, the other loads from Redis, keeps in its directory, and runs.
TEST(RedisCache, ASecondMachineLoadsWhatTheFirstCompiledAndKeepsItLocally) {
  MEMJIT_START_REDIS(server);
  const auto root = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "redis_fleet";
  std::filesystem::remove_all(root);
  auto machine = [&](const std::string& name) {
    auto local = test::valueOrFail(DirectoryCache::open((root / name).string()), name);
    return std::make_pair(ObjectCache::create({.local = local, .remote = connect(*server)}), local);
  };
  auto [cacheA, dirA] = machine("a");
  Jit jitA = test::makeJit({.cache = cacheA});
  LoadedModule compiled = test::valueOrFail(jitA.addIR(test::constantIR("k", 1LL << 60), "m"), "add");
  EXPECT_FALSE(compiled.fromCache());
  auto [cacheB, dirB] = machine("b");
  Jit jitB = test::makeJit({.cache = cacheB});
  LoadedModule fetched = test::valueOrFail(jitB.addIR(test::constantIR("k", 1LL << 60), "m"), "add");
  EXPECT_TRUE(fetched.fromCache());
  EXPECT_EQ(test::valueOrFail(fetched.function("k"), "k").cInterfaceAs<std::int64_t()>()(), 1LL << 60);
  EXPECT_EQ(cacheB->stats().remoteHits, 1u);
  EXPECT_EQ(cacheB->stats().bytesRead, test::valueOrFail(dirA->get(compiled.cacheKey()), "a")->size());
  EXPECT_TRUE(std::filesystem::exists(dirB->pathFor(compiled.cacheKey())));
}

// getMany pipelines its GETs: one round trip answers every key in order, each
// entry verified like get()'s (a damaged one is a miss and removed).
TEST(RedisCache, GetManyAnswersEveryKeyInOrderAndVerifiesEach) {
  MEMJIT_START_REDIS(server);
  auto cache = connect(*server, {.ttl = 3600s});
  ASSERT_FALSE(cache->put("a", "object a"));
  ASSERT_FALSE(cache->put("b", std::string("\0\r\n", 3)));
  ASSERT_FALSE(cache->put("damaged", std::string(300, 'd')));
  const std::string whole = rawGet(*server, "memjit:damaged");
  rawSet(*server, "memjit:damaged", whole.substr(0, whole.size() - 1));
  auto answers = test::valueOrFail(cache->getMany({"b", "absent", "damaged", "a", "b"}), "getMany");
  ASSERT_EQ(answers.size(), 5u);
  EXPECT_EQ(answers[0], std::string("\0\r\n", 3));
  EXPECT_FALSE(answers[1].has_value());
  EXPECT_FALSE(answers[2].has_value());
  EXPECT_EQ(answers[3], "object a");
  EXPECT_EQ(answers[4], answers[0]);
  EXPECT_EQ(cache->corruptEntries(), 1u);
  EXPECT_EQ(rawGet(*server, "memjit:damaged"), "");  // removed
  EXPECT_TRUE(test::valueOrFail(cache->getMany({}), "getMany").empty());
  // The connection is in step after the pipeline: single commands still pair with their replies.
  EXPECT_EQ(test::valueOrFail(cache->get("a"), "get"), "object a");
}

TEST(RedisCache, GetManyOnAServerThatIsDownOrNeverAnswersFailsWithinTheTimeout) {
  MEMJIT_START_REDIS(server);
  auto remote = connect(*server, {.timeout = 50ms, .retryAfter = 0ms});
  ASSERT_FALSE(remote->put("k", "object"));
  server->pause();
  const auto start = std::chrono::steady_clock::now();
  auto got = remote->getMany({"k", "l"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code(), ErrorCode::IoError);
  EXPECT_NE(got.error().message().find("pipelined GET 1 of 2 failed"), std::string::npos) << got.error().message();
  // Through an ObjectCache: every key a miss, one remote error for the batch.
  auto cache = ObjectCache::create({.remote = remote});
  auto answers = cache->getMany({"k", "l"});
  EXPECT_EQ(answers[0], nullptr);
  EXPECT_EQ(answers[1], nullptr);
  EXPECT_EQ(cache->stats().remoteErrors, 1u);
  server->resume();
  EXPECT_EQ(*cache->getMany({"k"})[0], "object");  // reconnects
  const int port = server->port();
  server->stop();
  auto down = test::valueOrFail(createRedisCache({.port = port}), "redis");
  auto refused = down->getMany({"k"});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("cannot connect"), std::string::npos) << refused.error().message();
}

TEST(RedisCache, OptionsAreChecked) {
  auto port = createRedisCache({.port = 70000});
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(port.error().message(), "redis cache: port 70000 is out of range");
  auto host = createRedisCache({.host = ""});
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().message(), "redis cache: the host is empty");
  auto timeout = createRedisCache({.timeout = 0ms});
  ASSERT_FALSE(timeout.ok());
  EXPECT_EQ(timeout.error().message(), "redis cache: the timeout must be positive");
}
