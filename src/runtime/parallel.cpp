// The parallel-loop scheduler: memjit_parallel_for and its default, the
// OpenMP runtime's pool (see parallel.h and docs/parallel-loops.md).
//
// The pool is entered through GOMP_parallel, the GNU OpenMP ABI that libgomp
// defines and LLVM's libomp also implements, rather than through `#pragma omp`:
// that needs no OpenMP support from the compiler building memjit (clang
// without libomp-dev builds it too) and is the very entry point g++ -fopenmp
// code uses, so such an application and memjit share libgomp's one pool.
#include "memjit/runtime/parallel.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "check_record.h"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned numThreads, unsigned flags);
int omp_get_thread_num();
int omp_get_num_threads();
int omp_in_parallel();
int omp_get_max_threads();
}

namespace memjit::runtime {

namespace {

// Runs f() on `threads` threads of the OpenMP pool (the calling thread is one).
template <typename F>
void ompParallel(int threads, F&& f) {
  using G = std::remove_reference_t<F>;
  GOMP_parallel([](void* p) { (*static_cast<G*>(p))(); }, &f, static_cast<unsigned>(threads), 0);
}

std::atomic<Scheduler> customScheduler{nullptr};
std::atomic<void*> customUser{nullptr};
std::atomic<int> requestedThreads{0};

// How many memjit parallel chunks this thread is running (nesting depth).
thread_local int activeDepth = 0;

int environmentThreads() noexcept {
  static const int n = [] {
    const char* s = std::getenv("MEMJIT_NUM_THREADS");
    if (!s) return 0;
    int v = 0;
    auto [end, ec] = std::from_chars(s, s + std::strlen(s), v);
    return ec == std::errc() && *end == '\0' && v > 0 ? v : 0;
  }();
  return n;
}

// The chunk body every scheduler runs: marks the thread as inside a memjit
// loop, so a loop nested in the body runs serially, and sends failed checks
// (checked mode) to the record of the thread that started the loop; after a
// failure in this loop, chunks not yet started are skipped (one recorded
// before it, never cleared, changes nothing).
struct Nested {
  ParallelBody body;
  void* context;
  detail::CheckRecord* checks;
  bool failedBefore;
};
void runNested(void* p, std::int64_t b, std::int64_t e) {
  auto* n = static_cast<Nested*>(p);
  if (!n->failedBefore && detail::hasFailure(n->checks)) return;
  detail::ReportTo report(n->checks);
  ++activeDepth;
  n->body(n->context, b, e);
  --activeDepth;
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

}  // namespace

void setScheduler(Scheduler scheduler, void* user) noexcept {
  customUser.store(user, std::memory_order_relaxed);
  customScheduler.store(scheduler, std::memory_order_release);
}

void resetScheduler() noexcept { setScheduler(nullptr, nullptr); }

void setNumThreads(int n) noexcept { requestedThreads.store(n > 0 ? n : 0, std::memory_order_relaxed); }

int numThreads() noexcept {
  if (int n = requestedThreads.load(std::memory_order_relaxed); n > 0) return n;
  if (int n = environmentThreads(); n > 0) return n;
  return std::max(1, omp_get_max_threads());
}

void defaultScheduler(const ParallelLoop& L, void*) noexcept {
  const std::int64_t n = L.end - L.begin;
  const int threads = std::max(1, L.threads);
  if (L.schedule == ParallelSchedule::Dynamic) {
    const std::int64_t chunk = L.chunk > 0 ? L.chunk : std::max<std::int64_t>(1, n / (8 * threads));
    std::atomic<std::int64_t> next{L.begin};
    ompParallel(threads, [&] {
      for (;;) {
        const std::int64_t b = next.fetch_add(chunk, std::memory_order_relaxed);
        if (b >= L.end) break;
        L.run(b, b + std::min(chunk, L.end - b));
      }
    });
    return;
  }
  if (L.chunk <= 0) {
    // One contiguous block per thread, sizes differing by at most one.
    ompParallel(threads, [&] {
      const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      const std::int64_t q = n / nt, r = n % nt;
      const std::int64_t b = L.begin + t * q + std::min(t, r);
      const std::int64_t e = b + q + (t < r ? 1 : 0);
      if (b < e) L.run(b, e);
    });
    return;
  }
  const std::int64_t chunks = ceilDiv(n, L.chunk);
  ompParallel(threads, [&] {
    const std::int64_t nt = omp_get_num_threads();
    for (std::int64_t c = omp_get_thread_num(); c < chunks; c += nt) {
      const std::int64_t b = L.begin + c * L.chunk;
      L.run(b, b + std::min(L.chunk, L.end - b));
    }
  });
}

void parallelFor(ParallelBody body, void* context, std::int64_t begin, std::int64_t end, std::int64_t chunk,
                 ParallelSchedule schedule, std::int32_t maxThreads) noexcept {
  if (end <= begin) return;
  const std::int64_t n = end - begin;
  // Nested in a memjit loop or in the application's own OpenMP region: the
  // cores are already busy, so run here rather than oversubscribe.
  if (activeDepth > 0 || omp_in_parallel()) {
    body(context, begin, end);
    return;
  }
  std::int64_t threads = numThreads();
  if (maxThreads > 0) threads = std::min<std::int64_t>(threads, maxThreads);
  threads = std::min(threads, chunk > 0 ? ceilDiv(n, chunk) : n);
  if (threads <= 1) {
    ++activeDepth;
    body(context, begin, end);
    --activeDepth;
    return;
  }
  detail::CheckRecord* checks = detail::currentCheckRecord();
  Nested nested{body, context, checks, detail::hasFailure(checks)};
  ParallelLoop loop;
  loop.body = runNested;
  loop.context = &nested;
  loop.begin = begin;
  loop.end = end;
  loop.chunk = chunk > 0 ? chunk : 0;
  loop.schedule = schedule;
  loop.maxThreads = maxThreads > 0 ? maxThreads : 0;
  loop.threads = static_cast<std::int32_t>(threads);
  if (Scheduler s = customScheduler.load(std::memory_order_acquire))
    s(loop, customUser.load(std::memory_order_relaxed));
  else
    defaultScheduler(loop, nullptr);
}

}  // namespace memjit::runtime

extern "C" void memjit_parallel_for(memjit::runtime::ParallelBody body, void* context, std::int64_t begin,
                                    std::int64_t end, std::int64_t chunk, std::int32_t schedule,
                                    std::int32_t maxThreads) {
  memjit::runtime::parallelFor(body, context, begin, end, chunk,
                               schedule == 1 ? memjit::runtime::ParallelSchedule::Dynamic
                                             : memjit::runtime::ParallelSchedule::Static,
                               maxThreads);
}
