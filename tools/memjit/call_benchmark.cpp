#include "call_benchmark.h"

#include <algorithm>
#include <cstdio>

namespace memjit::cli {

TimingSummary summarize(std::vector<double> seconds) {
  TimingSummary s;
  s.count = seconds.size();
  if (seconds.empty()) return s;
  std::sort(seconds.begin(), seconds.end());
  s.min = seconds.front();
  s.max = seconds.back();
  const std::size_t mid = seconds.size() / 2;
  s.median = seconds.size() % 2 ? seconds[mid] : (seconds[mid - 1] + seconds[mid]) / 2;
  return s;
}

double gigabytesPerSecond(std::uint64_t bytes, double seconds) noexcept {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

namespace {

// Three significant digits of `v` (1 <= v < 1000) and a unit.
std::string threeDigits(double v, const char* unit) {
  char text[32];
  int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;  // 9.996 prints as 10.0, not 10.00
  std::snprintf(text, sizeof text, "%.*f %s", decimals, v, unit);
  return text;
}

}  // namespace

std::string formatSeconds(double seconds) {
  // The bounds sit where three digits round up to the next unit.
  if (seconds < 999.5e-9) return threeDigits(seconds * 1e9, "ns");
  if (seconds < 999.5e-6) return threeDigits(seconds * 1e6, "us");
  if (seconds < 0.9995) return threeDigits(seconds * 1e3, "ms");
  return threeDigits(seconds, "s");
}

std::string formatBytes(std::uint64_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " B";
  const double b = static_cast<double>(bytes);
  if (b < 999.5e3) return threeDigits(b / 1e3, "kB");
  if (b < 999.5e6) return threeDigits(b / 1e6, "MB");
  return threeDigits(b / 1e9, "GB");
}

std::string formatBenchmark(std::string_view name, const TimingSummary& s, std::uint64_t bytes, int warmups) {
  auto cell = [](const std::string& text) {
    std::string c = text;
    c.resize(std::max<std::size_t>(c.size() + 1, 11), ' ');
    return c;
  };
  auto rate = [&](double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", gigabytesPerSecond(bytes, seconds));
    return std::string(text);
  };
  std::string out = "benchmark '" + std::string(name) + "': " + std::to_string(s.count) + " timed call" +
                    (s.count == 1 ? "" : "s") + " after " + std::to_string(warmups) + " warm-up" +
                    (warmups == 1 ? "" : "s") + ", " + formatBytes(bytes) + " of memrefs per call\n";
  out += "          " + cell("min") + cell("median") + "max\n";
  out += "  time    " + cell(formatSeconds(s.min)) + cell(formatSeconds(s.median)) + formatSeconds(s.max) + "\n";
  out += "  GB/s    " + cell(rate(s.min)) + cell(rate(s.median)) + rate(s.max) + "\n";
  return out;
}

}  // namespace memjit::cli
