// Internal: where failed checks are recorded, for the parallel-loop scheduler
// (parallel.cpp), which routes a chunk's reports to the thread that started
// the loop.
#pragma once

namespace memjit::runtime::detail {

struct CheckRecord;

/// The record the calling thread reports to: its own, or while it runs a
/// parallel chunk, that of the thread that started the loop.
CheckRecord* currentCheckRecord() noexcept;
/// True when `record` holds a failure.
bool hasFailure(const CheckRecord* record) noexcept;
/// currentCheckRecord(), cleared: what an invoker reads once before a call
/// and checks with hasFailure after it (the calling thread's record is the
/// same after the call).
CheckRecord* clearedCheckRecord() noexcept;

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
