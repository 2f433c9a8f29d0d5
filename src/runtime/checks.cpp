// Checked mode's failure record (see memjit/runtime/checks.h): one per thread,
// written by generated code through memjit_check_report, read and cleared by
// the invokers and by C callers.
#include "memjit/runtime/checks.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "check_record.h"

namespace memjit::runtime::detail {

constinit thread_local CheckRecord* activeCheckRecord = nullptr;

namespace {

thread_local CheckRecord ownRecord;

std::string list(const std::int64_t* v, std::int32_t n) {
  std::string s = "[";
  for (std::int32_t i = 0; v && i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string text(const char* s) { return s ? s : "?"; }

std::string value(const std::int64_t* v, std::int32_t n, std::int32_t i) {
  return v && i < n ? std::to_string(v[i]) : "?";
}

// reinterpret_cast: "reaches elements [lo, hi] outside ..." from the operands
// (computed wide, as the kernel's own computation may have overflowed).
std::string reinterpretCastMessage(const std::int64_t* v, std::int32_t n, const std::int64_t* b, std::int32_t nb) {
  if (!v || n < 1 || n % 2 != 1) return "is out of bounds";
  const std::int32_t rank = (n - 1) / 2;
  std::string s = "with offset " + std::to_string(v[0]) + ", sizes " + list(v + 1, rank) + ", strides " +
                  list(v + 1 + rank, rank);
  __int128 lo = v[0], hi = v[0];
  for (std::int32_t i = 0; i < rank; ++i) {
    if (v[1 + i] < 0) return s + " has a negative size";
    const __int128 reach = static_cast<__int128>(v[1 + i] - 1) * v[1 + rank + i];
    (reach < 0 ? lo : hi) += reach;
  }
  auto wide = [](__int128 x) {
    if (x >= INT64_MIN && x <= INT64_MAX) return std::to_string(static_cast<std::int64_t>(x));
    return std::string(x < 0 ? "below " : "beyond ") + "the index range";
  };
  s += " reaches elements [" + wide(lo) + ", " + wide(hi) + "]";
  if (!b || nb < 2 || b[1] < b[0]) return s + " of an empty source";
  return s + ", outside [" + std::to_string(b[0]) + ", " + std::to_string(b[1]) + "] of the source";
}

// "has offset 3, sizes [5], strides [1]; the type needs offset 0, sizes [4],
// strides [1]": MEMJIT_CHECK_MEMREF_CAST's arrays (checks.h).
std::string memrefCastMessage(const std::int64_t* v, std::int32_t n, const std::int64_t* b, std::int32_t nb) {
  const std::int32_t rank = (n - 1) / 2;
  if (!v || n != 2 * rank + 1 || !b || nb != n + 1) return "does not fit the type";
  auto needed = [](const std::int64_t* x, std::int32_t count) {
    std::string s = "[";
    for (std::int32_t i = 0; i < count; ++i) s += (i ? ", " : "") + (x[i] == INT64_MIN ? "?" : std::to_string(x[i]));
    return s + "]";
  };
  const bool identity = b[n] != 0;
  return "has offset " + std::to_string(v[0]) + ", sizes " + list(v + 1, rank) + ", strides " +
         list(v + 1 + rank, rank) + "; the type needs offset " + (b[0] == INT64_MIN ? "?" : std::to_string(b[0])) +
         ", sizes " + needed(b + 1, rank) + ", strides " +
         (identity ? std::string("row-major") : needed(b + 1 + rank, rank));
}

// "A is 2x3, B is 4x3": the operands named one per line in `names`, their
// sizes in `v`, `b` sizes each.
std::string shapesMessage(const char* names, const std::int64_t* v, std::int32_t n, const std::int64_t* b,
                          std::int32_t nb) {
  std::string s, all = text(names);
  std::size_t start = 0;
  std::int32_t next = 0;
  for (std::int32_t i = 0; i < nb; ++i) {
    const std::size_t end = all.find('\n', start);
    s += (i ? ", " : "") + all.substr(start, end == std::string::npos ? std::string::npos : end - start) + " is ";
    start = end == std::string::npos ? all.size() : end + 1;
    for (std::int64_t k = 0; k < b[i]; ++k, ++next) s += (k ? "x" : "") + value(v, n, next);
  }
  return s;
}

std::string describe(const char* function, std::int32_t kind, const char* operation, const char* type,
                     const std::int64_t* v, std::int32_t n, const std::int64_t* b, std::int32_t nb) {
  std::string s = "kernel '" + text(function) + "': " + text(operation);
  switch (kind) {
    case MEMJIT_CHECK_INDEX:
      return s + " of " + text(type) + " at " + list(v, n) + " is out of bounds " + list(b, nb);
    case MEMJIT_CHECK_DIVISION_BY_ZERO: return s + " by zero";
    case MEMJIT_CHECK_DIVISION_OVERFLOW: return s + " overflow (" + value(v, n, 0) + " / " + value(v, n, 1) + ")";
    case MEMJIT_CHECK_REMAINDER_OVERFLOW: return s + " overflow (" + value(v, n, 0) + " % " + value(v, n, 1) + ")";
    case MEMJIT_CHECK_ALLOC_NEGATIVE: return s + " of " + text(type) + " with sizes " + list(v, n) + ": negative size";
    case MEMJIT_CHECK_ALLOC_OVERFLOW:
      return s + " of " + text(type) + " with sizes " + list(v, n) + ": the size in bytes (elements of " +
             value(b, nb, 0) + " bytes) overflows the index type";
    case MEMJIT_CHECK_SUBVIEW: {
      if (!v || n != 3 * nb) return s + " of " + text(type) + " is out of bounds " + list(b, nb);
      return s + " of " + text(type) + " with offsets " + list(v, nb) + ", sizes " + list(v + nb, nb) +
             ", strides " + list(v + 2 * nb, nb) + " is out of bounds " + list(b, nb);
    }
    case MEMJIT_CHECK_REINTERPRET_CAST:
      return s + " of " + text(type) + " " + reinterpretCastMessage(v, n, b, nb);
    case MEMJIT_CHECK_SHAPE: return s + ": mismatched shapes: " + shapesMessage(type, v, n, b, nb);
    case MEMJIT_CHECK_MEMREF_CAST: return s + " of " + text(type) + " " + memrefCastMessage(v, n, b, nb);
    default: return s + ": check #" + std::to_string(kind) + " failed";
  }
}

}  // namespace

CheckRecord* adoptOwnCheckRecord() noexcept { return activeCheckRecord = &ownRecord; }

void clearFailedRecord(CheckRecord* r) noexcept {
  std::lock_guard lock(r->mutex);
  r->message.clear();
  r->failed.store(false, std::memory_order_release);
}

// Saves what the thread reported to (its own record, or null before its first
// report) and restores it after the chunk.
ReportTo::ReportTo(CheckRecord* record) noexcept : saved_(activeCheckRecord) { activeCheckRecord = record; }
ReportTo::~ReportTo() { activeCheckRecord = saved_; }

}  // namespace memjit::runtime::detail

namespace memjit::runtime {

using detail::CheckRecord;
using detail::currentCheckRecord;

bool checkFailed() noexcept { return detail::hasFailure(currentCheckRecord()); }

void clearCheckFailure() noexcept { detail::clearedCheckRecord(); }

Error takeCheckFailure() {
  CheckRecord& r = *currentCheckRecord();
  if (!r.failed.load(std::memory_order_acquire)) return Error::success();
  std::lock_guard lock(r.mutex);
  Error e(ErrorCode::RuntimeCheckFailed, std::move(r.message));
  r.message.clear();
  r.failed.store(false, std::memory_order_release);
  return e;
}

}  // namespace memjit::runtime

extern "C" void memjit_check_report(const char* function, std::int32_t kind, const char* operation,
                                    const char* type, const std::int64_t* values, std::int32_t numValues,
                                    const std::int64_t* bounds, std::int32_t numBounds) {
  memjit::runtime::detail::CheckRecord& r = *memjit::runtime::detail::currentCheckRecord();
  std::lock_guard lock(r.mutex);
  if (r.failed.load(std::memory_order_relaxed)) return;
  try {
    r.message = memjit::runtime::detail::describe(function, kind, operation, type, values, numValues, bounds,
                                                  numBounds);
  } catch (...) {  // no unwinding into generated code: a shorter message will do
    r.message = "a runtime check failed";
  }
  r.failed.store(true, std::memory_order_release);
}

extern "C" std::int64_t* memjit_check_scratch(std::int32_t count) {
  // Enough for every check on memrefs of rank 16; more takes the heap.
  thread_local std::int64_t small[64];
  thread_local std::vector<std::int64_t> large;
  if (count <= 64) return small;
  try {
    if (large.size() < static_cast<std::size_t>(count)) large.resize(static_cast<std::size_t>(count));
  } catch (...) {  // generated code cannot take an error here
    std::fputs("memjit: out of memory reporting a failed check\n", stderr);
    std::abort();
  }
  return large.data();
}

extern "C" std::int32_t memjit_check_pending(void) { return memjit::runtime::checkFailed() ? 1 : 0; }

extern "C" const char* memjit_check_message(void) {
  memjit::runtime::detail::CheckRecord& r = *memjit::runtime::detail::currentCheckRecord();
  if (!r.failed.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard lock(r.mutex);
  return r.message.c_str();
}

extern "C" void memjit_check_clear(void) { memjit::runtime::clearCheckFailure(); }
