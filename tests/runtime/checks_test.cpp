// The checked-mode failure record (memjit/runtime/checks.h) driven as
// generated code drives it: the message built for each kind, first failure
// wins, per-thread records, parallel chunks reporting to the loop's caller.
#include "memjit/runtime/checks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "memjit/runtime/parallel.h"

namespace memjit::runtime {
namespace {

// Reports like generated code: the values and bounds in the scratch array.
void report(int kind, const char* op, const char* type, const std::vector<std::int64_t>& values,
            const std::vector<std::int64_t>& bounds) {
  const auto nv = static_cast<std::int32_t>(values.size()), nb = static_cast<std::int32_t>(bounds.size());
  std::int64_t* scratch = memjit_check_scratch(nv + nb);
  for (std::int32_t i = 0; i < nv; ++i) scratch[i] = values[i];
  for (std::int32_t i = 0; i < nb; ++i) scratch[nv + i] = bounds[i];
  memjit_check_report("k", kind, op, type, nv ? scratch : nullptr, nv, nb ? scratch + nv : nullptr, nb);
}

std::string take() {
  Error e = takeCheckFailure();
  EXPECT_TRUE(e.ok() || e.code() == ErrorCode::RuntimeCheckFailed) << e.str();
  return e.message();
}

TEST(Checks, NothingRecordedByDefault) {
  clearCheckFailure();
  EXPECT_FALSE(checkFailed());
  EXPECT_EQ(memjit_check_pending(), 0);
  EXPECT_EQ(memjit_check_message(), nullptr);
  EXPECT_TRUE(takeCheckFailure().ok());
}

TEST(Checks, MessagePerKind) {
  clearCheckFailure();
  report(MEMJIT_CHECK_INDEX, "load", "memref<?x?xf32>", {1024, 3}, {1024, 1024});
  EXPECT_EQ(take(), "kernel 'k': load of memref<?x?xf32> at [1024, 3] is out of bounds [1024, 1024]");
  report(MEMJIT_CHECK_DIVISION_BY_ZERO, "divui", "", {}, {});
  EXPECT_EQ(take(), "kernel 'k': divui by zero");
  report(MEMJIT_CHECK_DIVISION_OVERFLOW, "divsi", "", {INT64_MIN, -1}, {});
  EXPECT_EQ(take(), "kernel 'k': divsi overflow (-9223372036854775808 / -1)");
  report(MEMJIT_CHECK_REMAINDER_OVERFLOW, "remsi", "", {-128, -1}, {});
  EXPECT_EQ(take(), "kernel 'k': remsi overflow (-128 % -1)");
  report(MEMJIT_CHECK_ALLOC_NEGATIVE, "alloc", "memref<?x4xf32>", {-2, 4}, {});
  EXPECT_EQ(take(), "kernel 'k': alloc of memref<?x4xf32> with sizes [-2, 4]: negative size");
  report(MEMJIT_CHECK_ALLOC_OVERFLOW, "alloc", "memref<?xf64>", {INT64_MAX}, {8});
  EXPECT_EQ(take(), "kernel 'k': alloc of memref<?xf64> with sizes [9223372036854775807]: the size in bytes "
                    "(elements of 8 bytes) overflows the index type");
  report(MEMJIT_CHECK_SUBVIEW, "subview", "memref<8xf32>", {6, 3, 1}, {8});
  EXPECT_EQ(take(), "kernel 'k': subview of memref<8xf32> with offsets [6], sizes [3], strides [1] is out of bounds [8]");
  report(MEMJIT_CHECK_SHAPE, "matmul (A: M x K, B: K x N)", "A\nB", {2, 3, 4, 5}, {2, 2});
  EXPECT_EQ(take(), "kernel 'k': matmul (A: M x K, B: K x N): mismatched shapes: A is 2x3, B is 4x5");
  report(MEMJIT_CHECK_SHAPE, "dot", "x\ny", {7, 8}, {1, 1});
  EXPECT_EQ(take(), "kernel 'k': dot: mismatched shapes: x is 7, y is 8");
}

TEST(Checks, MemrefCastMessages) {
  clearCheckFailure();
  const char* types = "memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<4x?xf32, strided<[?, 1], offset: ?>>";
  report(MEMJIT_CHECK_MEMREF_CAST, "memref.cast", types, {3, 5, 2, 8, 2}, {INT64_MIN, 4, INT64_MIN, INT64_MIN, 1, 0});
  EXPECT_EQ(take(), std::string("kernel 'k': memref.cast of ") + types +
                        " has offset 3, sizes [5, 2], strides [8, 2]; the type needs offset ?, sizes [4, ?], strides [?, 1]");
  report(MEMJIT_CHECK_MEMREF_CAST, "memref.cast", "A to B", {1, 2, 2, 3, 1}, {0, INT64_MIN, INT64_MIN, INT64_MIN, 1, 1});
  EXPECT_EQ(take(), "kernel 'k': memref.cast of A to B has offset 1, sizes [2, 2], strides [3, 1]; the type needs "
                    "offset 0, sizes [?, ?], strides row-major");
  // Arrays of another length (not what memjit emits) still give a message.
  report(MEMJIT_CHECK_MEMREF_CAST, "memref.cast", "A to B", {1, 2}, {0});
  EXPECT_EQ(take(), "kernel 'k': memref.cast of A to B does not fit the type");
}

TEST(Checks, ReinterpretCastMessages) {
  clearCheckFailure();
  const char* types = "memref<?xf32> to memref<?x?xf32>";
  report(MEMJIT_CHECK_REINTERPRET_CAST, "reinterpret_cast", types, {2, 3, 4, 4, 1}, {0, 9});
  EXPECT_EQ(take(), "kernel 'k': reinterpret_cast of memref<?xf32> to memref<?x?xf32> with offset 2, sizes [3, 4], "
                    "strides [4, 1] reaches elements [2, 13], outside [0, 9] of the source");
  report(MEMJIT_CHECK_REINTERPRET_CAST, "reinterpret_cast", types, {0, 2, -1, 1, 1}, {0, 9});
  EXPECT_EQ(take(), "kernel 'k': reinterpret_cast of memref<?xf32> to memref<?x?xf32> with offset 0, sizes [2, -1], "
                    "strides [1, 1] has a negative size");
  // A negative stride reaches below the offset; a huge one beyond the index range.
  report(MEMJIT_CHECK_REINTERPRET_CAST, "reinterpret_cast", types, {1, 3, 1, -1, 1}, {0, 9});
  EXPECT_EQ(take(), "kernel 'k': reinterpret_cast of memref<?xf32> to memref<?x?xf32> with offset 1, sizes [3, 1], "
                    "strides [-1, 1] reaches elements [-1, 1], outside [0, 9] of the source");
  report(MEMJIT_CHECK_REINTERPRET_CAST, "reinterpret_cast", types, {0, 3, 1, INT64_MAX, 1}, {0, 9});
  EXPECT_EQ(take(), "kernel 'k': reinterpret_cast of memref<?xf32> to memref<?x?xf32> with offset 0, sizes [3, 1], "
                    "strides [9223372036854775807, 1] reaches elements [0, beyond the index range], outside [0, 9] "
                    "of the source");
  report(MEMJIT_CHECK_REINTERPRET_CAST, "reinterpret_cast", types, {0, 1, 1, 1, 1}, {0, -1});
  EXPECT_EQ(take(), "kernel 'k': reinterpret_cast of memref<?xf32> to memref<?x?xf32> with offset 0, sizes [1, 1], "
                    "strides [1, 1] reaches elements [0, 0] of an empty source");
}

TEST(Checks, FirstFailureWinsUntilCleared) {
  clearCheckFailure();
  report(MEMJIT_CHECK_DIVISION_BY_ZERO, "divsi", "", {}, {});
  report(MEMJIT_CHECK_DIVISION_BY_ZERO, "remsi", "", {}, {});
  EXPECT_TRUE(checkFailed());
  EXPECT_EQ(memjit_check_pending(), 1);
  EXPECT_EQ(std::string(memjit_check_message()), "kernel 'k': divsi by zero");
  memjit_check_clear();
  EXPECT_EQ(memjit_check_message(), nullptr);
  report(MEMJIT_CHECK_DIVISION_BY_ZERO, "remsi", "", {}, {});
  EXPECT_EQ(take(), "kernel 'k': remsi by zero");
  EXPECT_FALSE(checkFailed());  // taking clears
}

TEST(Checks, RecordsArePerThread) {
  clearCheckFailure();
  std::thread other([] { report(MEMJIT_CHECK_DIVISION_BY_ZERO, "divsi", "", {}, {}); });
  other.join();
  EXPECT_FALSE(checkFailed());
}

TEST(Checks, ScratchGrowsBeyondTheInlineArray) {
  std::int64_t* p = memjit_check_scratch(1000);
  ASSERT_NE(p, nullptr);
  p[999] = 7;  // ASan would flag an array too small
  EXPECT_EQ(memjit_check_scratch(1000)[999], 7);
}

// A scheduler that runs the chunks one after another on the calling thread.
void sequential(const ParallelLoop& loop, void*) {
  for (std::int64_t b = loop.begin; b < loop.end; ++b) loop.run(b, b + 1);
}

TEST(Checks, AFailedChunkSkipsTheChunksNotYetStarted) {
  clearCheckFailure();
  setScheduler(sequential);
  static std::atomic<int> ran{0};
  ran = 0;
  parallelFor([](void*, std::int64_t b, std::int64_t) {
    ran.fetch_add(1);
    if (b == 3) report(MEMJIT_CHECK_INDEX, "store", "memref<3xf32>", {3}, {3});
  }, nullptr, 0, 10, 1, ParallelSchedule::Static, 2);
  resetScheduler();
  EXPECT_EQ(ran.load(), 4);
  EXPECT_EQ(take(), "kernel 'k': store of memref<3xf32> at [3] is out of bounds [3]");
}

TEST(Checks, AFailureLeftFromBeforeTheLoopSkipsNothing) {
  clearCheckFailure();
  report(MEMJIT_CHECK_DIVISION_BY_ZERO, "divsi", "", {}, {});  // never cleared by its caller
  setScheduler(sequential);
  static std::atomic<int> ran{0};
  ran = 0;
  parallelFor([](void*, std::int64_t, std::int64_t) { ran.fetch_add(1); }, nullptr, 0, 10, 1, ParallelSchedule::Static, 2);
  resetScheduler();
  EXPECT_EQ(ran.load(), 10);
  EXPECT_EQ(take(), "kernel 'k': divsi by zero");
}

TEST(Checks, ChunksOnPoolThreadsReportToTheCaller) {
  clearCheckFailure();
  setNumThreads(4);
  // Iteration 41 reports on whichever pool thread runs it; the record is the
  // calling thread's.
  parallelFor([](void*, std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      if (i == 41) report(MEMJIT_CHECK_INDEX, "load", "memref<41xf32>", {i}, {41});
  }, nullptr, 0, 64, 1, ParallelSchedule::Dynamic, 0);
  setNumThreads(0);
  EXPECT_EQ(take(), "kernel 'k': load of memref<41xf32> at [41] is out of bounds [41]");
  // The pool threads' own records stay empty: another loop without failures reports nothing.
  parallelFor([](void*, std::int64_t, std::int64_t) {}, nullptr, 0, 64, 1, ParallelSchedule::Dynamic, 0);
  EXPECT_FALSE(checkFailed());
}

}  // namespace
}  // namespace memjit::runtime
