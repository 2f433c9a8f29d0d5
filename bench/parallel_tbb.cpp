// bench_parallel's oneTBB candidate (built when oneTBB is installed): the
// same empty region as Parallel/overhead/{memjit,openmp} on TBB's pool.
#include <oneapi/tbb/parallel_for.h>

namespace native {

void emptyRegionTbb(long* out, long threads) {
  oneapi::tbb::parallel_for(0L, threads, [out](long i) { out[i] = i; }, oneapi::tbb::simple_partitioner());
}

}  // namespace native
