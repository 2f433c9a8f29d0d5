// `memjit call --benchmark`: the statistics of timed calls and the table that
// shows them. Pure functions of the measured times (no clock here).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memjit::cli {

/// Seconds per call.
struct TimingSummary {
  std::size_t count = 0;
  double min = 0, median = 0, max = 0;  ///< the median of an even count is the mean of the middle two
};

/// The summary of `seconds` (all zero when it is empty).
TimingSummary summarize(std::vector<double> seconds);

/// bytes / seconds / 1e9; 0 when `seconds` is not positive.
double gigabytesPerSecond(std::uint64_t bytes, double seconds) noexcept;

/// "812 ns", "12.3 us", "1.23 ms", "2.50 s": three significant digits.
std::string formatSeconds(double seconds);
/// "512 B", "1.50 kB", "3.20 MB", "1.07 GB" (powers of 1000).
std::string formatBytes(std::uint64_t bytes);

/// The table `memjit call --benchmark` prints:
///   benchmark 'f': 10 timed calls after 1 warm-up, 8.19 kB of memrefs per call
///             min        median     max
///     time    1.23 us    1.30 us    1.50 us
///     GB/s    6.66       6.30       5.46
std::string formatBenchmark(std::string_view name, const TimingSummary& summary, std::uint64_t bytes, int warmups);

}  // namespace memjit::cli
