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
#include <chrono>
#include <memory>
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
int omp_get_num_procs();
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

namespace {

// --- Surviving a loaded machine -------------------------------------------
// libgomp's workers spin between regions (300000 pauses by default, several
// milliseconds of a core). When other processes keep the cores busy, a
// spinning worker is descheduled and reaches the next region a time slice
// late, the thread that started the region waits for it, and its spinning
// takes CPU time from the threads doing work: a 0.3 ms loop took several ms.
// OMP_WAIT_POLICY=passive cures that, but it is read once at start-up and is
// the application's setting. libgomp itself spins only 100 times when it
// manages more threads than there are CPUs, so under load memjit makes it so:
//  - Work is claimed, not dealt: each thread owns a contiguous share in a few
//    pieces and, when done, takes pieces of shares not yet started, so when a
//    worker is late the others run its share instead of waiting for it.
//  - Each region measures how late its workers arrived. Later than a quarter
//    of the region (and than kLateFloor) shows a loaded machine: for a while
//    (kMinLoaded, doubling up to kMaxLoaded while later regions are late too,
//    forgotten after kOnTimeToForget regions on time in a row) loops run with
//    one thread more than the CPUs, a ballast thread that takes no work, so
//    libgomp's workers wait passively. Then loops run as before and measure
//    again.

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kLateFloorNs = 100'000;
constexpr std::int64_t kMinLoadedNs = 64'000'000;
constexpr std::int64_t kMaxLoadedNs = 2'000'000'000;
constexpr std::int64_t kPiecesPerShare = 4;
constexpr int kOnTimeToForget = 4;

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

std::atomic<std::int64_t> loadedUntilNs{0};
std::atomic<std::int64_t> loadedForNs{0};
std::atomic<int> onTimeRegions{0};

// The team for a loop of `threads` working threads: one more than the CPUs
// while the machine is loaded (the extra ones are ballast, see above).
int teamSize(int threads, std::int64_t now) {
  if (now >= loadedUntilNs.load(std::memory_order_relaxed)) return threads;
  static const int cpus = std::max(1, omp_get_num_procs());
  return threads >= cpus ? threads + 1 : threads;
}

// A region's verdict. The first regions after a loaded spell find the
// workers asleep, and woken workers come quickly even under load: only
// kOnTimeToForget on-time regions in a row end the spell's memory.
void noteRegion(std::int64_t regionNs, std::int64_t lateNs) {
  if (lateNs < 0) return;
  if (lateNs <= kLateFloorNs || lateNs * 4 <= regionNs) {
    if (onTimeRegions.fetch_add(1, std::memory_order_relaxed) + 1 >= kOnTimeToForget)
      loadedForNs.store(0, std::memory_order_relaxed);
    return;
  }
  onTimeRegions.store(0, std::memory_order_relaxed);
  const std::int64_t next = std::clamp(2 * loadedForNs.load(std::memory_order_relaxed), kMinLoadedNs, kMaxLoadedNs);
  loadedForNs.store(next, std::memory_order_relaxed);
  loadedUntilNs.store(nowNs() + next, std::memory_order_relaxed);
}

// A worker's arrival, as the latest so far (ns after `start`).
void noteArrival(std::atomic<std::int64_t>& late, std::int64_t start) {
  const std::int64_t arrived = nowNs() - start;
  std::int64_t seen = late.load(std::memory_order_relaxed);
  while (arrived > seen && !late.compare_exchange_weak(seen, arrived, std::memory_order_relaxed)) {
  }
}

// Runs f() on the threads of a team of `team`; threads numbered `threads` and
// up are ballast and return at once. Returns how late (ns after `start`) the
// latest working thread arrived; -1 for a team with ballast (it waits
// passively, so its arrivals say nothing about the load).
template <typename F>
std::int64_t team(int threads, int team, std::int64_t start, F&& f) {
  std::atomic<std::int64_t> late{0};
  ompParallel(team, [&] {
    const int t = omp_get_thread_num();
    if (t >= threads) return;
    if (t != 0 && team == threads) noteArrival(late, start);
    f(t);
  });
  return team == threads ? late.load(std::memory_order_relaxed) : -1;
}

// One thread's share of a region: pieces [0, count) claimed through `next`
// by the owner first and by any thread that finished its own.
struct alignas(64) Share {
  std::atomic<std::int64_t> next{0};
  std::int64_t count = 0;
};

// Runs piece(share, p) for every piece of every share, thread t starting
// with share t (there are `threads` shares, even if the pool gave fewer
// threads than asked).
template <typename F>
void claimShares(int t, int threads, Share* shares, F&& piece) {
  for (int k = 0; k < threads; ++k) {
    const int s = (t + k) % threads;
    for (std::int64_t p; (p = shares[s].next.fetch_add(1, std::memory_order_relaxed)) < shares[s].count;)
      piece(s, p);
  }
}

}  // namespace

void defaultScheduler(const ParallelLoop& L, void*) noexcept {
  const std::int64_t n = L.end - L.begin;
  const std::int64_t start = nowNs();
  const int threads = static_cast<int>(std::max(1, L.threads));
  const int size = teamSize(threads, start);
  if (L.schedule == ParallelSchedule::Dynamic) {
    const std::int64_t chunk = L.chunk > 0 ? L.chunk : std::max<std::int64_t>(1, n / (8 * threads));
    std::atomic<std::int64_t> next{L.begin};
    const std::int64_t late = team(threads, size, start, [&](int) {
      for (;;) {
        const std::int64_t b = next.fetch_add(chunk, std::memory_order_relaxed);
        if (b >= L.end) break;
        L.run(b, b + std::min(chunk, L.end - b));
      }
    });
    noteRegion(nowNs() - start, late);
    return;
  }
  constexpr int kOnStack = 16;
  Share stackShares[kOnStack];
  std::unique_ptr<Share[]> heapShares;
  Share* shares = stackShares;
  if (threads > kOnStack) heapShares.reset(shares = new Share[static_cast<std::size_t>(threads)]);
  std::int64_t late;
  if (L.chunk <= 0) {
    // Share t: one contiguous block (sizes differing by at most one), in up
    // to kPiecesPerShare pieces.
    const std::int64_t q = n / threads, r = n % threads;
    const std::int64_t pieces = std::clamp<std::int64_t>(q, 1, kPiecesPerShare);
    auto block = [&](std::int64_t t) { return L.begin + t * q + std::min(t, r); };
    for (int t = 0; t < threads; ++t) shares[t].count = block(t + 1) > block(t) ? pieces : 0;
    late = team(threads, size, start, [&](int t) {
      claimShares(t, threads, shares, [&](int s, std::int64_t p) {
        const std::int64_t b = block(s), len = block(s + 1) - b;
        const std::int64_t pb = b + len * p / pieces, pe = b + len * (p + 1) / pieces;
        if (pb < pe) L.run(pb, pe);
      });
    });
  } else {
    // Share t: chunks t, t + threads, ... (dealt round-robin).
    const std::int64_t chunks = ceilDiv(n, L.chunk);
    for (int t = 0; t < threads; ++t) shares[t].count = t < chunks ? ceilDiv(chunks - t, threads) : 0;
    late = team(threads, size, start, [&](int t) {
      claimShares(t, threads, shares, [&](int s, std::int64_t p) {
        const std::int64_t b = L.begin + (s + p * threads) * L.chunk;
        L.run(b, b + std::min(L.chunk, L.end - b));
      });
    });
  }
  noteRegion(nowNs() - start, late);
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
