// `memjit cache stats|list|prune|clear` on a directory and on a real Redis.
#include <gtest/gtest.h>

#include <filesystem>

#include "memjit/jit/directory_cache.h"
#include "memjit/jit/redis_cache.h"
#include "support/cli_runner.h"
#include "support/expected.h"
#include "support/files.h"
#include "support/redis_server.h"

using namespace memjit;
using memjit::test::runCli;

namespace {

// Fills `backend` with `count` entries of 1000 bytes.
void fill(jit::CacheBackend& backend, int count) {
  for (int i = 0; i < count; ++i) ASSERT_FALSE(backend.put("key" + std::to_string(i), std::string(1000, 'x')));
}

// The commands against one location holding 5 entries.
void exercise(const std::string& location) {
  auto stats = runCli({"cache", "stats", location});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.out.find("entries: 5\n"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("read time (median of 5): "), std::string::npos) << stats.out;
  auto list = runCli({"cache", "list", "--verify", location});
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("key3  "), std::string::npos) << list.out;
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 5);
  EXPECT_EQ(list.out.find("DAMAGED"), std::string::npos);
  auto prune = runCli({"cache", "prune", "--max-bytes", "0", location});
  ASSERT_EQ(prune.status, 0) << prune.err;
  EXPECT_NE(prune.out.find("removed 5 entries"), std::string::npos) << prune.out;
  EXPECT_NE(runCli({"cache", "stats", location}).out.find("entries: 0\n"), std::string::npos);
}

}  // namespace

TEST(CacheCli, DirectoryStatsListPruneClear) {
  const auto dir = test::freshDir("tools/cache_cli/dir");
  auto backend = test::valueOrFail(jit::DirectoryCache::open(dir.string()), "open");
  fill(*backend, 5);
  exercise(dir.string());
  fill(*backend, 2);
  std::filesystem::resize_file(backend->pathFor("key1"), 100);
  auto list = runCli({"cache", "list", "--verify", dir.string()});
  EXPECT_EQ(list.status, 1);
  EXPECT_NE(list.out.find("key1  100 bytes  idle 0 s  DAMAGED"), std::string::npos) << list.out;
  EXPECT_EQ(list.err, "memjit cache: I/O error: 1 damaged entries in dir:" + dir.string() + "\n");
  auto clear = runCli({"cache", "clear", dir.string()});
  ASSERT_EQ(clear.status, 0) << clear.err;
  EXPECT_NE(runCli({"cache", "stats", dir.string()}).out.find("entries: 0\n"), std::string::npos);
}

TEST(CacheCli, RedisStatsListPruneClear) {
  if (!jit::redisCacheAvailable()) GTEST_SKIP() << "memjit was built without Redis (MEMJIT_REDIS=OFF)";
  MEMJIT_START_REDIS(server);
  auto backend = test::valueOrFail(jit::createRedisCache({.port = server->port()}), "redis");
  fill(*backend, 5);
  exercise(server->url());
  fill(*backend, 3);
  ASSERT_EQ(runCli({"cache", "clear", server->url()}).status, 0);
  EXPECT_TRUE(test::valueOrFail(backend->list(), "list").empty());
}

TEST(CacheCli, UsageAndBadArguments) {
  auto none = runCli({"cache"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("memjit cache: expects memjit cache stats|list"), std::string::npos) << none.err;
  auto verb = runCli({"cache", "shrink", test::freshDir("tools/cache_cli/verb").string()});
  EXPECT_EQ(verb.status, 2);
  auto size = runCli({"cache", "prune", "--max-bytes", "12X", test::freshDir("tools/cache_cli/size").string()});
  EXPECT_EQ(size.status, 1);
  EXPECT_EQ(size.err, "memjit cache: parse error: --max-bytes '12X' is not a size (a number, optionally K, M or G)\n");
  auto url = runCli({"cache", "stats", "redis://host:x"});
  EXPECT_EQ(url.status, 1);
  EXPECT_EQ(url.err, "memjit cache: parse error: redis URL 'redis://host:x': port 'x' is not a non-negative number\n");
  if (!jit::redisCacheAvailable()) return;
  auto down = runCli({"cache", "stats", "redis://127.0.0.1:1?timeout=50"});
  EXPECT_EQ(down.status, 1);
  EXPECT_NE(down.err.find("memjit cache: I/O error: redis cache redis://127.0.0.1:1/memjit:: cannot connect"),
            std::string::npos)
      << down.err;
}
