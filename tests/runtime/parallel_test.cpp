// The parallel-loop scheduler (memjit/runtime/parallel.h) without generated
// code: every iteration runs exactly once for every range shape, schedule and
// chunk, on an idle and on a busy machine; thread count from the API and
// MEMJIT_NUM_THREADS; custom schedulers; nesting runs serially.
#include "memjit/runtime/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace memjit::runtime {
namespace {

// Read once by the runtime, so set before any test asks for the thread count.
const bool envSet = [] { return setenv("MEMJIT_NUM_THREADS", "3", 1) == 0; }();

struct Counts {
  std::int64_t lb;
  std::vector<std::atomic<int>> hits;
  std::atomic<int> chunks{0};
  Counts(std::int64_t lb, std::int64_t ub) : lb(lb), hits(static_cast<std::size_t>(std::max<std::int64_t>(0, ub - lb))) {}
};

void countBody(void* p, std::int64_t b, std::int64_t e) {
  auto* c = static_cast<Counts*>(p);
  c->chunks.fetch_add(1);
  for (std::int64_t i = b; i < e; ++i) c->hits[static_cast<std::size_t>(i - c->lb)].fetch_add(1);
}

void expectEachOnce(std::int64_t lb, std::int64_t ub, std::int64_t chunk, ParallelSchedule s, int maxThreads = 0) {
  Counts c(lb, ub);
  memjit_parallel_for(countBody, &c, lb, ub, chunk, static_cast<std::int32_t>(s), maxThreads);
  for (std::size_t i = 0; i < c.hits.size(); ++i)
    ASSERT_EQ(c.hits[i].load(), 1) << "iteration " << lb + static_cast<std::int64_t>(i) << " of [" << lb << ", "
                                   << ub << ") chunk " << chunk;
  if (ub <= lb) {
    EXPECT_EQ(c.chunks.load(), 0);
  }
}

TEST(Parallel, EveryRangeShapeScheduleAndChunk) {
  setNumThreads(4);
  const std::int64_t ranges[][2] = {{0, 0}, {5, 3}, {0, 1}, {0, 3}, {-7, 10}, {-20, -3}, {0, 1001}, {1, 100000}};
  for (auto [lb, ub] : ranges)
    for (std::int64_t chunk : {0, 1, 3, 7, 64, 1000000})
      for (ParallelSchedule s : {ParallelSchedule::Static, ParallelSchedule::Dynamic}) {
        expectEachOnce(lb, ub, chunk, s);
        expectEachOnce(lb, ub, chunk, s, 2);
      }
  setNumThreads(0);
}

// Busy threads beside the loops (two per core): workers come late, the
// caller takes over their shares, and the scheduler switches to a team with
// a ballast thread; every iteration still runs exactly once.
TEST(Parallel, EveryIterationOnceBesideBusyThreads) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int i = 0; i < 2 * cores; ++i)
    busy.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  for (int threads : {cores, cores + 1, 2}) {
    setNumThreads(threads);
    for (int round = 0; round < 5; ++round)
      for (std::int64_t chunk : {0, 5})
        for (ParallelSchedule s : {ParallelSchedule::Static, ParallelSchedule::Dynamic}) {
          expectEachOnce(0, 200000, chunk, s);
          expectEachOnce(3, 11, chunk, s);
        }
  }
  stop = true;
  for (auto& t : busy) t.join();
  setNumThreads(0);
}

TEST(Parallel, ThreadCountFromApiAndEnvironment) {
  ASSERT_TRUE(envSet);
  EXPECT_EQ(numThreads(), 3);  // MEMJIT_NUM_THREADS
  setNumThreads(5);
  EXPECT_EQ(numThreads(), 5);
  setNumThreads(0);
  EXPECT_EQ(numThreads(), 3);
}

struct Recorder {
  std::atomic<int> loops{0};
  std::int32_t threads = 0, maxThreads = 0;
  std::int64_t chunk = -1;
};

void recordingScheduler(const ParallelLoop& loop, void* user) {
  auto* r = static_cast<Recorder*>(user);
  r->loops.fetch_add(1);
  r->threads = loop.threads;
  r->maxThreads = loop.maxThreads;
  r->chunk = loop.chunk;
  // Two std::threads, halves of the range.
  const std::int64_t mid = loop.begin + (loop.end - loop.begin) / 2;
  std::thread t([&] { loop.run(loop.begin, mid); });
  loop.run(mid, loop.end);
  t.join();
}

TEST(Parallel, CustomSchedulerRunsTheLoops) {
  Recorder r;
  setNumThreads(4);
  setScheduler(recordingScheduler, &r);
  expectEachOnce(-5, 1000, 16, ParallelSchedule::Dynamic, 3);
  EXPECT_EQ(r.loops.load(), 1);
  EXPECT_EQ(r.threads, 3);
  EXPECT_EQ(r.maxThreads, 3);
  EXPECT_EQ(r.chunk, 16);
  expectEachOnce(0, 0, 0, ParallelSchedule::Static);  // empty: never scheduled
  expectEachOnce(0, 1, 0, ParallelSchedule::Static);  // one iteration: runs in place
  EXPECT_EQ(r.loops.load(), 1);
  resetScheduler();
  expectEachOnce(0, 100, 0, ParallelSchedule::Static);
  EXPECT_EQ(r.loops.load(), 1);
  setNumThreads(0);
}

struct NestedCtx {
  std::atomic<int> inner{0};
  std::atomic<int> innerChunks{0};
};
void innerBody(void* p, std::int64_t b, std::int64_t e) {
  auto* n = static_cast<NestedCtx*>(p);
  n->innerChunks.fetch_add(1);
  n->inner.fetch_add(static_cast<int>(e - b));
}
void outerBody(void* p, std::int64_t b, std::int64_t e) {
  for (std::int64_t i = b; i < e; ++i) memjit_parallel_for(innerBody, p, 0, 100, 1, 1, 0);
}

TEST(Parallel, NestedLoopRunsSeriallyInsideTheOuterChunk) {
  setNumThreads(4);
  Recorder r;
  setScheduler(recordingScheduler, &r);
  NestedCtx n;
  memjit_parallel_for(outerBody, &n, 0, 10, 1, 0, 0);
  resetScheduler();
  EXPECT_EQ(r.loops.load(), 1);         // only the outer loop reached the scheduler
  EXPECT_EQ(n.inner.load(), 1000);
  EXPECT_EQ(n.innerChunks.load(), 10);  // each inner loop ran as one serial chunk
  setNumThreads(0);
}

}  // namespace
}  // namespace memjit::runtime
