// Checked mode's error channel. A function built with FunctionOptions::checked
// verifies its memref indices, integer divisions, alloc sizes and view
// bounds at run time; a failed check calls memjit_check_report, which records
// the failure, and the kernel returns at once (its results are zeros), so the
// faulty access never happens. Both invokers (runtime::Callable::invoke and
// TypedCallable::call) clear the record before the call and return it as an
// ErrorCode::RuntimeCheckFailed Error after. A C caller of `_mlir_ciface_`
// does the same by hand:
//
//   memjit_check_clear();
//   _mlir_ciface_conv(&in, &w, &out);
//   const char* failure = memjit_check_message();  // NULL when every check passed
//
// The record is per thread. Chunks of a parallel loop report to the record of
// the thread that started the loop (whichever pool thread runs them), and a
// failure there stops the chunks not yet started; chunks already running on
// other threads finish their valid iterations. The first failure wins until
// the record is cleared; clear it before each call, as the invokers do: a
// checked kernel looks for a pending failure after each parallel loop and
// call, and one left from an earlier call would stop it there. Messages read like
// `kernel 'conv': load of memref<?x?xf32> at [1024, 3] is out of bounds [1024, 1024]`.
//
// This header is also C: the C ABI below is all a C caller needs.
#ifndef MEMJIT_RUNTIME_CHECKS_H
#define MEMJIT_RUNTIME_CHECKS_H

#include <stdint.h>

#ifdef __cplusplus
#include "memjit/error.h"

extern "C" {
#endif

/// What failed; selects how memjit_check_report reads its arrays.
enum memjit_check_kind {
  /// load/store: values = the indices, bounds = the memref's sizes.
  MEMJIT_CHECK_INDEX = 0,
  /// division or remainder by zero (no values).
  MEMJIT_CHECK_DIVISION_BY_ZERO = 1,
  /// signed INT_MIN / -1: values = {dividend, divisor}.
  MEMJIT_CHECK_DIVISION_OVERFLOW = 2,
  /// signed INT_MIN % -1: values = {dividend, divisor}.
  MEMJIT_CHECK_REMAINDER_OVERFLOW = 3,
  /// alloc with a negative size: values = every dim's size.
  MEMJIT_CHECK_ALLOC_NEGATIVE = 4,
  /// alloc whose byte size overflows the index type: values = the sizes, bounds = {element bytes}.
  MEMJIT_CHECK_ALLOC_OVERFLOW = 5,
  /// subview: values = offsets, sizes, strides (rank each), bounds = the source's sizes.
  MEMJIT_CHECK_SUBVIEW = 6,
  /// reinterpret_cast: values = {offset, sizes..., strides...}, bounds = the
  /// first and last element the source reaches ({0, -1}: the source is empty).
  MEMJIT_CHECK_REINTERPRET_CAST = 7,
  /// operands whose shapes disagree: `operation` says what must agree,
  /// `type` names the operands (one per line), values = their sizes, bounds =
  /// their ranks.
  MEMJIT_CHECK_SHAPE = 8,
  /// memref.cast to a type the memref does not fit: values = the memref's
  /// {offset, sizes..., strides...}, bounds = what the type needs, in the
  /// same order (INT64_MIN where it needs nothing), then 1 for an identity
  /// layout (row-major strides) or 0.
  MEMJIT_CHECK_MEMREF_CAST = 9,
};

/// Called by generated code when a check fails: records the failure for the
/// calling thread (or the thread that started the parallel loop running
/// here) unless one is recorded already. `function`, `operation` and `type`
/// are NUL-terminated; the message is built from them and the arrays.
void memjit_check_report(const char* function, int32_t kind, const char* operation, const char* type,
                         const int64_t* values, int32_t numValues, const int64_t* bounds, int32_t numBounds);
/// A thread-local array of at least `count` int64_t, where generated code
/// puts the values and bounds it passes to memjit_check_report (no stack
/// array: a kernel's frame stays as it is unchecked, parallel chunks too).
int64_t* memjit_check_scratch(int32_t count);
/// Nonzero when the record generated code reports to has a failure; kernels
/// ask after a parallel loop or a call, to return early as well.
int32_t memjit_check_pending(void);
/// The calling thread's recorded failure, or NULL. Valid until the next
/// memjit_check_clear on this thread.
const char* memjit_check_message(void);
/// Forgets the calling thread's recorded failure.
void memjit_check_clear(void);

#ifdef __cplusplus
}  // extern "C"

namespace memjit::runtime {

/// True when the calling thread has a failed check recorded.
bool checkFailed() noexcept;
/// Forgets the calling thread's failure (cheap when there is none).
void clearCheckFailure() noexcept;
/// The calling thread's failure as an ErrorCode::RuntimeCheckFailed Error
/// (success when none), clearing it.
Error takeCheckFailure();

}  // namespace memjit::runtime
#endif

#endif  // MEMJIT_RUNTIME_CHECKS_H
