// The statistics and table of `memjit call --benchmark` (fixed inputs: no clock).
#include "call_benchmark.h"

#include <gtest/gtest.h>

namespace memjit::cli {
namespace {

TEST(RunBenchmark, SummarizesOddAndEvenCounts) {
  auto odd = summarize({3e-3, 1e-3, 2e-3, 9e-3, 4e-3});
  EXPECT_EQ(odd.count, 5u);
  EXPECT_EQ(odd.min, 1e-3);
  EXPECT_EQ(odd.median, 3e-3);
  EXPECT_EQ(odd.max, 9e-3);
  auto even = summarize({4.0, 1.0, 2.0, 8.0});
  EXPECT_EQ(even.median, 3.0);  // the mean of the middle two
  auto one = summarize({5.0});
  EXPECT_EQ(one.min, 5.0);
  EXPECT_EQ(one.median, 5.0);
  EXPECT_EQ(one.max, 5.0);
  auto none = summarize({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.median, 0.0);
}

TEST(RunBenchmark, GigabytesPerSecond) {
  EXPECT_DOUBLE_EQ(gigabytesPerSecond(8'000'000, 1e-3), 8.0);
  EXPECT_EQ(gigabytesPerSecond(100, 0), 0.0);
  EXPECT_EQ(gigabytesPerSecond(100, -1), 0.0);
}

TEST(RunBenchmark, FormatsThreeSignificantDigits) {
  EXPECT_EQ(formatSeconds(812e-9), "812 ns");
  EXPECT_EQ(formatSeconds(1.5e-9), "1.50 ns");
  EXPECT_EQ(formatSeconds(12.34e-6), "12.3 us");
  EXPECT_EQ(formatSeconds(1.234e-3), "1.23 ms");
  EXPECT_EQ(formatSeconds(2.5), "2.50 s");
  EXPECT_EQ(formatSeconds(999.7e-9), "1.00 us");  // not "1000 ns"
  EXPECT_EQ(formatSeconds(9.996e-6), "10.0 us");  // not "10.00 us"
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1500), "1.50 kB");
  EXPECT_EQ(formatBytes(3'200'000), "3.20 MB");
  EXPECT_EQ(formatBytes(999'600), "1.00 MB");
  EXPECT_EQ(formatBytes(1'070'000'000), "1.07 GB");
}

TEST(RunBenchmark, Table) {
  TimingSummary s{10, 1e-6, 2e-6, 4e-6};
  EXPECT_EQ(formatBenchmark("f", s, 8000, 1),
            "benchmark 'f': 10 timed calls after 1 warm-up, 8.00 kB of memrefs per call\n"
            "          min        median     max\n"
            "  time    1.00 us    2.00 us    4.00 us\n"
            "  GB/s    8.00       4.00       2.00\n");
  EXPECT_NE(formatBenchmark("f", {1, 1, 1, 1}, 0, 0).find("1 timed call after 0 warm-ups, 0 B"), std::string::npos);
}

}  // namespace
}  // namespace memjit::cli
