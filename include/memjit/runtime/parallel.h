// The parallel-loop scheduler that generated code calls (FunctionBuilder::
// parallelFor and parallelReduce lower to a call of memjit_parallel_for).
//
// The default scheduler runs loops on the OpenMP runtime's thread pool (GCC's
// libgomp when memjit is built with g++), so an application built with
// -fopenmp shares one pool with memjit kernels instead of two competing ones.
//
// Thread count: setNumThreads(n), else the environment variable
// MEMJIT_NUM_THREADS (read once, at the first parallel loop), else the OpenMP
// runtime's default (OMP_NUM_THREADS or the number of cores). A loop's maxThreads (ParallelOptions) lowers it per loop.
//
// Nesting never oversubscribes: a parallel loop started inside a memjit
// parallel loop, or inside the application's own OpenMP parallel region, runs
// serially on the thread that reaches it.
//
// An application may install its own scheduler (its own pool, a task system,
// a tracing wrapper) with setScheduler; it gets each loop as a ParallelLoop
// and must run loop.body over chunks that cover [begin, end) exactly once.
#pragma once

#include <cstdint>

namespace memjit::runtime {

/// What generated code passes for each chunk: runs iterations [begin, end).
using ParallelBody = void (*)(void* context, std::int64_t begin, std::int64_t end);

enum class ParallelSchedule : std::int32_t {
  Static = 0,   ///< chunks dealt to threads round-robin in advance
  Dynamic = 1,  ///< threads take the next chunk when they finish one
};

/// One parallel loop as handed to a scheduler.
struct ParallelLoop {
  ParallelBody body = nullptr;
  void* context = nullptr;
  std::int64_t begin = 0;
  std::int64_t end = 0;        ///< begin < end (empty loops never reach a scheduler)
  std::int64_t chunk = 0;      ///< iterations per chunk; 0: the scheduler chooses
  ParallelSchedule schedule = ParallelSchedule::Static;
  std::int32_t maxThreads = 0; ///< the loop's cap (0: none); threads() already applies it
  std::int32_t threads = 1;    ///< how many threads the loop may use (>= 2 when scheduled)

  /// Runs iterations [b, e) (a sub-range of [begin, end)).
  void run(std::int64_t b, std::int64_t e) const { body(context, b, e); }
};

/// A scheduler: runs every iteration of `loop` once, in any chunks, on any
/// threads, and returns when all have finished. `user` is what was installed
/// with it.
using Scheduler = void (*)(const ParallelLoop& loop, void* user);

/// Installs `scheduler` for every later parallel loop in the process
/// (nullptr restores the default). Not to be called while loops run.
void setScheduler(Scheduler scheduler, void* user = nullptr) noexcept;
/// Restores the default (OpenMP) scheduler.
void resetScheduler() noexcept;
/// The default scheduler, for a custom one that delegates.
void defaultScheduler(const ParallelLoop& loop, void* user) noexcept;

/// Sets the process's thread count for parallel loops; n <= 0 restores the
/// default (MEMJIT_NUM_THREADS, else the OpenMP runtime's).
void setNumThreads(int n) noexcept;
/// The thread count parallel loops use (>= 1).
int numThreads() noexcept;

/// Runs a parallel loop as generated code does (the C++ face of memjit_parallel_for).
void parallelFor(ParallelBody body, void* context, std::int64_t begin, std::int64_t end, std::int64_t chunk = 0,
                 ParallelSchedule schedule = ParallelSchedule::Static, std::int32_t maxThreads = 0) noexcept;

}  // namespace memjit::runtime

extern "C" {
/// The entry point generated code calls by name (JIT and AOT alike).
void memjit_parallel_for(memjit::runtime::ParallelBody body, void* context, std::int64_t begin, std::int64_t end,
                         std::int64_t chunk, std::int32_t schedule, std::int32_t maxThreads);
}
