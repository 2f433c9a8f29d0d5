// Internal: where failed checks are recorded, for the invokers (which clear
// the record before a call and test it after) and the parallel-loop scheduler
// (parallel.cpp), which routes a chunk's reports to the thread that started
// the loop.
//
// The invokers' part is inline: the dynamic invoker's quick way costs about
// 15 ns in all, and three out-of-line calls into this file were 2-3 ns of it.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace memjit::runtime::detail {

struct CheckRecord {
  std::atomic<bool> failed{false};
  std::mutex mutex;  // parallel chunks on other threads may report concurrently
  std::string message;
};

/// The record the calling thread reports to: null until the thread first
/// needs one (then its own), another thread's while it runs a parallel chunk.
/// A pointer with no constructor, so that reading it needs no TLS guard.
extern constinit thread_local CheckRecord* activeCheckRecord;

/// Points activeCheckRecord at the calling thread's own record and returns it.
CheckRecord* adoptOwnCheckRecord() noexcept;
/// Clears a failed record (under its lock).
void clearFailedRecord(CheckRecord* record) noexcept;

/// The record the calling thread reports to.
inline CheckRecord* currentCheckRecord() noexcept {
  CheckRecord* r = activeCheckRecord;
  return r ? r : adoptOwnCheckRecord();
}
/// True when `record` holds a failure.
inline bool hasFailure(const CheckRecord* record) noexcept { return record->failed.load(std::memory_order_acquire); }
/// currentCheckRecord(), cleared: what an invoker reads once before a call
/// and checks with hasFailure after it (the calling thread's record is the
/// same after the call).
inline CheckRecord* clearedCheckRecord() noexcept {
  CheckRecord* r = currentCheckRecord();
  if (hasFailure(r)) [[unlikely]]
    clearFailedRecord(r);
  return r;
}

/// While alive, the calling thread reports to `record`.
class ReportTo {
 public:
  explicit ReportTo(CheckRecord* record) noexcept;
  ~ReportTo();
  ReportTo(const ReportTo&) = delete;
  ReportTo& operator=(const ReportTo&) = delete;

 private:
  CheckRecord* saved_;
};

}  // namespace memjit::runtime::detail
