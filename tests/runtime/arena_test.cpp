// The temporaries' arena (memjit/runtime/arena.h) through its C ABI, as
// generated code calls it: alignment, LIFO frees, nested marks, growth and
// reuse, threads, foreign pointers, and (in ASan builds) poisoned space.
#include "memjit/runtime/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "support/leaks.h"  // MEMJIT_TEST_ASAN

namespace memjit::runtime {
namespace {

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// Each test runs on a thread of its own: a fresh arena.
template <typename F>
void onFreshThread(F f) {
  std::thread(f).join();
}

TEST(Arena, BlocksAreAlignedDisjointAndWritable) {
  onFreshThread([] {
    void* mark = memjit_arena_mark();
    char* previousEnd = nullptr;
    for (std::size_t align : {1u, 8u, 16u, 64u, 4096u}) {
      auto* p = static_cast<char*>(memjit_arena_alloc(100, align));
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(address(p) % align, 0u) << align;
      EXPECT_GE(p, previousEnd);
      std::memset(p, 0xab, 100);
      previousEnd = p + 100;
    }
    void* empty = memjit_arena_alloc(0, 64);
    EXPECT_NE(empty, nullptr);
    memjit_arena_release(mark);
    EXPECT_EQ(arenaStats().bytesInUse, 0u);
  });
}

TEST(Arena, FreeingTheNewestBlockReusesItsSpace) {
  onFreshThread([] {
    void* mark = memjit_arena_mark();
    void* a = memjit_arena_alloc(64, 64);
    void* b = memjit_arena_alloc(64, 64);
    memjit_arena_free(b);
    EXPECT_EQ(memjit_arena_alloc(64, 64), b);
    memjit_arena_free(a);  // not the newest: kept until the release
    void* c = memjit_arena_alloc(64, 64);
    EXPECT_NE(c, a);
    memjit_arena_free(c);
    memjit_arena_free(b);
    memjit_arena_free(a);  // now the newest again
    EXPECT_EQ(memjit_arena_alloc(64, 64), a);
    memjit_arena_release(mark);
  });
}

TEST(Arena, NestedMarksReleaseOnlyTheirOwnBlocks) {
  onFreshThread([] {
    void* outer = memjit_arena_mark();
    auto* kept = static_cast<std::uint32_t*>(memjit_arena_alloc(4 * sizeof(std::uint32_t), 16));
    for (std::uint32_t i = 0; i < 4; ++i) kept[i] = i + 100;
    void* inner = memjit_arena_mark();
    // More than the first chunk holds: the inner level spans new chunks.
    for (int i = 0; i < 40; ++i) std::memset(memjit_arena_alloc(16 * 1024, 64), i, 16 * 1024);
    EXPECT_GT(arenaStats().bytesInUse, 640u * 1024);
    memjit_arena_release(inner);
    for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(kept[i], i + 100);
    void* again = memjit_arena_alloc(16, 16);
    EXPECT_EQ(address(again), address(kept) + 16 + 16) << "the space after `kept` is free again";
    memjit_arena_release(outer);
    EXPECT_EQ(arenaStats().bytesInUse, 0u);
  });
}

TEST(Arena, AnOutermostCallsSpaceIsKeptSoTheNextCallsAllocateNothing) {
  onFreshThread([] {
    auto call = [] {
      void* mark = memjit_arena_mark();
      void* first = memjit_arena_alloc(200 * 1024, 64);
      for (int i = 0; i < 10; ++i) memjit_arena_alloc(100 * 1024, 64);
      memjit_arena_release(mark);
      return first;
    };
    call();
    call();  // one chunk as large as the first call used
    const ArenaStats settled = arenaStats();
    void* first = call();
    for (int i = 0; i < 5; ++i) EXPECT_EQ(call(), first);
    EXPECT_EQ(arenaStats().chunkAllocations, settled.chunkAllocations);
    EXPECT_GE(arenaStats().bytesKept, 1200u * 1024);
    memjit_arena_trim();
    EXPECT_EQ(arenaStats().bytesKept, 0u);
  });
}

TEST(Arena, TrimDuringACallKeepsTheBlocks) {
  onFreshThread([] {
    void* mark = memjit_arena_mark();
    auto* p = static_cast<int*>(memjit_arena_alloc(sizeof(int), alignof(int)));
    *p = 42;
    memjit_arena_trim();
    EXPECT_EQ(*p, 42);
    memjit_arena_release(mark);
  });
}

TEST(Arena, EachThreadHasItsOwn) {
  void* mine = nullptr;
  onFreshThread([&] {
    void* mark = memjit_arena_mark();
    mine = memjit_arena_alloc(64, 64);
    std::thread([&] {
      EXPECT_EQ(arenaStats().blocks, 0u);
      void* theirs = memjit_arena_alloc(64, 64);
      EXPECT_NE(theirs, mine);
      memjit_arena_release(nullptr);
    }).join();
    EXPECT_EQ(arenaStats().blocks, 1u);
    memjit_arena_release(mark);
  });
}

TEST(Arena, FreeOfAPointerItDidNotHandOutCallsFree) {
  onFreshThread([] {
    void* mark = memjit_arena_mark();
    memjit_arena_alloc(64, 64);
    memjit_arena_free(std::malloc(100));  // LeakSanitizer would report it otherwise
    memjit_arena_free(nullptr);
    memjit_arena_release(mark);
  });
}

TEST(Arena, ImpossibleSizesGiveNull) {
  onFreshThread([] {
    void* mark = memjit_arena_mark();
    EXPECT_EQ(memjit_arena_alloc(SIZE_MAX - 8, 64), nullptr);
    EXPECT_EQ(memjit_arena_alloc(SIZE_MAX / 2, 64), nullptr);
    memjit_arena_release(mark);
  });
}

#ifdef MEMJIT_TEST_ASAN
TEST(ArenaDeathTest, AddressSanitizerReportsAnAccessPastABlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        memjit_arena_mark();
        auto* p = static_cast<volatile char*>(memjit_arena_alloc(40, 64));
        p[40] = 1;
      },
      "use-after-poison");
}

TEST(ArenaDeathTest, AddressSanitizerReportsAnAccessToAReleasedBlock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        void* mark = memjit_arena_mark();
        auto* p = static_cast<volatile char*>(memjit_arena_alloc(40, 64));
        memjit_arena_release(mark);
        p[0] = 1;
      },
      "use-after-poison");
}
#endif

}  // namespace
}  // namespace memjit::runtime
