// Tests of memjit::jit::DirectoryCache: verified reads, atomic publication,
// orphaned temporary files, LRU eviction past a size bound, list and clear.
#include "memjit/jit/directory_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/expected.h"

using namespace memjit;
using namespace memjit::jit;

namespace {

std::filesystem::path freshDir(const std::string& name) {
  auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / "jit" / "directory_cache" / name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::shared_ptr<DirectoryCache> open(const std::string& name, DirectoryCacheOptions options = {}) {
  return test::valueOrFail(DirectoryCache::open(freshDir(name).string(), options), name);
}

// Sets `path`'s modification time `secondsAgo` in the past (the LRU order).
void age(const std::string& path, int secondsAgo) {
  timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= secondsAgo;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

}  // namespace

TEST(DirectoryCache, PutGetRemove) {
  auto cache = open("basic");
  EXPECT_EQ(cache->location(), "dir:" + cache->directory());
  EXPECT_FALSE(test::valueOrFail(cache->get("k"), "get").has_value());
  ASSERT_FALSE(cache->put("k", std::string("obj\0ect", 7)));
  EXPECT_EQ(test::valueOrFail(cache->get("k"), "get"), std::string("obj\0ect", 7));
  ASSERT_FALSE(cache->put("k", ""));  // an empty object is an object
  EXPECT_EQ(test::valueOrFail(cache->get("k"), "get"), "");
  ASSERT_FALSE(cache->remove("k"));
  ASSERT_FALSE(cache->remove("k"));  // removing what is gone is no error
  EXPECT_FALSE(test::valueOrFail(cache->get("k"), "get").has_value());
  EXPECT_EQ(cache->corruptEntries(), 0u);
}

TEST(DirectoryCache, DamagedEntriesAreMissesAndRemoved) {
  auto cache = open("damaged");
  const std::string object(1000, 'x');
  auto damage = [&](auto how) {
    ASSERT_FALSE(cache->put("k", object));
    how(cache->pathFor("k"));
    EXPECT_FALSE(test::valueOrFail(cache->get("k"), "get").has_value());
    EXPECT_FALSE(std::filesystem::exists(cache->pathFor("k")));
  };
  damage([](const std::string& path) { std::filesystem::resize_file(path, 30); });  // inside the header
  damage([](const std::string& path) { std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1); });
  damage([](const std::string& path) { std::filesystem::resize_file(path, 0); });
  damage([](const std::string& path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('y');
  });
  damage([](const std::string& path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(16);  // the payload size field: claims 2^56 + ... bytes
    f.put('\xff');
    f.seekp(23);
    f.put('\x7f');
  });
  damage([&](const std::string& path) {
    ASSERT_FALSE(cache->put("other", object));
    std::filesystem::copy_file(cache->pathFor("other"), path, std::filesystem::copy_options::overwrite_existing);
  });
  EXPECT_EQ(cache->corruptEntries(), 6u);
}

TEST(DirectoryCache, AnotherKeysEntryIsRejected) {
  auto cache = open("other-key");
  ASSERT_FALSE(cache->put("k1", "payload"));
  std::filesystem::copy_file(cache->pathFor("k1"), cache->pathFor("k2"));
  EXPECT_FALSE(test::valueOrFail(cache->get("k2"), "get").has_value());
  EXPECT_EQ(cache->corruptEntries(), 1u);
}

TEST(DirectoryCache, AKilledWritersTemporaryFileIsNeitherAnEntryNorKeptByPrune) {
  auto cache = open("orphans");
  ASSERT_FALSE(cache->put("k", "whole"));
  // A writer that died between writing and renaming: its pid is gone.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const std::string orphan = cache->pathFor("k") + ".tmp." + std::to_string(dead) + ".1";
  const std::string live = cache->pathFor("j") + ".tmp." + std::to_string(::getpid()) + ".2";
  std::ofstream(orphan) << "half an entry";
  std::ofstream(live) << "being written";
  auto listed = test::valueOrFail(cache->list(true), "list");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].key, "k");
  EXPECT_EQ(listed[0].valid, true);
  EXPECT_EQ(test::valueOrFail(cache->get("k"), "get"), "whole");
  PruneResult pruned = test::valueOrFail(cache->prune(1u << 30), "prune");
  EXPECT_EQ(pruned.removedOrphans, 1u);
  EXPECT_EQ(pruned.removedEntries, 0u);
  EXPECT_FALSE(std::filesystem::exists(orphan));
  EXPECT_TRUE(std::filesystem::exists(live));  // its writer (this process) still runs
}

TEST(DirectoryCache, PruneRemovesTheLeastRecentlyUsedFirst) {
  auto cache = open("lru");
  for (const char* key : {"a", "b", "c"}) ASSERT_FALSE(cache->put(key, std::string(100, *key)));
  age(cache->pathFor("a"), 300);
  age(cache->pathFor("b"), 200);
  age(cache->pathFor("c"), 100);
  ASSERT_TRUE(test::valueOrFail(cache->get("a"), "get").has_value());  // a read makes "a" the newest
  const std::uint64_t entry = std::filesystem::file_size(cache->pathFor("a"));
  PruneResult pruned = test::valueOrFail(cache->prune(2 * entry), "prune");
  EXPECT_EQ(pruned.removedEntries, 1u);
  EXPECT_EQ(pruned.removedBytes, entry);
  EXPECT_EQ(pruned.remainingBytes, 2 * entry);
  EXPECT_FALSE(std::filesystem::exists(cache->pathFor("b")));
  EXPECT_TRUE(std::filesystem::exists(cache->pathFor("a")));
  EXPECT_TRUE(std::filesystem::exists(cache->pathFor("c")));
  EXPECT_EQ(test::valueOrFail(cache->prune(0), "prune").removedEntries, 2u);
  EXPECT_TRUE(test::valueOrFail(cache->list(), "list").empty());
}

TEST(DirectoryCache, StoresPastTheBoundEvictTheOldest) {
  const std::uint64_t entry = 56 + 1 + 1000;  // header, key, object
  auto cache = open("bounded", {.maxBytes = 5 * entry});
  for (char key = 'a'; key <= 'e'; ++key) {
    ASSERT_FALSE(cache->put(std::string(1, key), std::string(1000, key)));
    age(cache->pathFor(std::string(1, key)), 100 - key);  // "a" oldest
  }
  EXPECT_EQ(test::valueOrFail(cache->list(), "list").size(), 5u);
  ASSERT_FALSE(cache->put("f", std::string(1000, 'f')));  // 6 entries > 5: down to 90% (4 entries)
  auto listed = test::valueOrFail(cache->list(), "list");
  EXPECT_EQ(listed.size(), 4u);
  EXPECT_FALSE(std::filesystem::exists(cache->pathFor("a")));
  EXPECT_FALSE(std::filesystem::exists(cache->pathFor("b")));
  EXPECT_TRUE(std::filesystem::exists(cache->pathFor("f")));
}

TEST(DirectoryCache, ClearRemovesEntriesAndOrphansOnly) {
  auto cache = open("clear");
  ASSERT_FALSE(cache->put("a", "1"));
  ASSERT_FALSE(cache->put("b", "2"));
  std::ofstream(cache->directory() + "/notes.txt") << "not ours";
  ASSERT_FALSE(cache->clear());
  EXPECT_TRUE(test::valueOrFail(cache->list(), "list").empty());
  EXPECT_TRUE(std::filesystem::exists(cache->directory() + "/notes.txt"));
}

TEST(DirectoryCache, ADirectoryThatCannotBeCreatedIsAnIoError) {
  const auto file = freshDir("not-a-dir");
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << "a file";
  auto opened = DirectoryCache::open((file / "sub").string());
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code(), ErrorCode::IoError);
  EXPECT_NE(opened.error().message().find("cannot create object cache directory '" + (file / "sub").string() + "'"),
            std::string::npos);
  auto empty = DirectoryCache::open("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(empty.error().message(), "object cache directory is empty");
}
