// Tests of memjit/jit/cache_backend.h: naming a backend by a location (a
// directory or a Redis URL), and the URL's diagnostics.
#include "memjit/jit/cache_backend.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "memjit/jit/redis_cache.h"
#include "support/expected.h"

using namespace memjit;
using namespace memjit::jit;
using namespace std::chrono_literals;

TEST(CacheLocation, APathIsADirectory) {
  const auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "cache_location";
  std::filesystem::remove_all(dir);
  auto backend = test::valueOrFail(openCacheLocation(dir.string()), "open");
  EXPECT_EQ(backend->location(), "dir:" + dir.string());
  EXPECT_TRUE(std::filesystem::is_directory(dir));
}

TEST(CacheLocation, ARedisUrlNamesHostPortPrefixAndOptions) {
  RedisCacheOptions plain = test::valueOrFail(parseRedisUrl("redis://cache.internal"), "url");
  EXPECT_EQ(plain.host, "cache.internal");
  EXPECT_EQ(plain.port, 6379);
  EXPECT_EQ(plain.prefix, "memjit:");
  EXPECT_EQ(plain.ttl, 0s);
  RedisCacheOptions full = test::valueOrFail(parseRedisUrl("redis://10.0.0.7:7000/team-a:?ttl=86400&timeout=25"), "url");
  EXPECT_EQ(full.host, "10.0.0.7");
  EXPECT_EQ(full.port, 7000);
  EXPECT_EQ(full.prefix, "team-a:");
  EXPECT_EQ(full.ttl, 86400s);
  EXPECT_EQ(full.timeout, 25ms);
  if (redisCacheAvailable()) {
    auto backend = test::valueOrFail(openCacheLocation("redis://127.0.0.1:7000/x:"), "open");
    EXPECT_EQ(backend->location(), "redis://127.0.0.1:7000/x:");  // connects on first use only
  }
}

// A memjit built with -DMEMJIT_REDIS=OFF: a Redis location is Unsupported,
// named, and the rest of the cache works (the other tests of this file).
TEST(CacheLocation, WithoutRedisSupportARedisLocationIsUnsupported) {
  if (redisCacheAvailable()) GTEST_SKIP() << "built with Redis (MEMJIT_REDIS=ON)";
  auto opened = openCacheLocation("redis://127.0.0.1:7000/x:");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code(), ErrorCode::Unsupported);
  EXPECT_NE(opened.error().message().find("redis cache redis://127.0.0.1:7000: this memjit was built without Redis "
                                          "support (MEMJIT_REDIS=OFF)"),
            std::string::npos)
      << opened.error().message();
}

TEST(CacheLocation, BadRedisUrlsAreParseErrorsNamingThePart) {
  auto expectError = [](const std::string& url, const std::string& message) {
    auto parsed = parseRedisUrl(url);
    ASSERT_FALSE(parsed.ok()) << url;
    EXPECT_EQ(parsed.error().code(), ErrorCode::ParseError);
    EXPECT_EQ(parsed.error().message(), message);
  };
  expectError("http://host", "redis URL 'http://host' does not start with redis://");
  expectError("redis://", "redis URL 'redis://' names no host");
  expectError("redis://:80", "redis URL 'redis://:80' names no host");
  expectError("redis://host:port", "redis URL 'redis://host:port': port 'port' is not a non-negative number");
  expectError("redis://host:0", "redis URL 'redis://host:0': port 0 is out of range");
  expectError("redis://host:65536", "redis URL 'redis://host:65536': port 65536 is out of range");
  expectError("redis://host?ttl=-1", "redis URL 'redis://host?ttl=-1': ttl '-1' is not a non-negative number");
  expectError("redis://host?timeout=0", "redis URL 'redis://host?timeout=0': the timeout must be positive");
  expectError("redis://host?db=2", "redis URL 'redis://host?db=2': unknown parameter 'db' (known: ttl, timeout)");
  auto bad = openCacheLocation("redis://host:x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::ParseError);
}
