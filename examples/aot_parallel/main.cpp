// Runs parallel kernels compiled ahead of time, linking only the generated
// library and memjit::runtime: the loops run on several threads (a custom
// scheduler counts them), a checked kernel's failure is read back as a C
// caller would, and no LLVM is loaded (checked below).
#include <atomic>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "aot_parallel_kernels.h"  // generated
#include "memjit/runtime/checks.h"
#include "memjit/runtime/parallel.h"

static std::atomic<int> loops{0};
static void counting(const memjit::runtime::ParallelLoop& loop, void* user) {
  loops.fetch_add(1);
  memjit::runtime::defaultScheduler(loop, user);
}

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) std::fprintf(stderr, "FAILED: %s\n", what), ++failures;
  };
  memjit::runtime::setNumThreads(2);
  memjit::runtime::setScheduler(counting);

  std::vector<float> x(100000);
  std::iota(x.begin(), x.end(), 0.0f);
  aot_parallel_kernels::scale(3.0f, x);  // the wrapper takes the vector as a view
  bool scaled = true;
  for (std::size_t i = 0; i < x.size(); ++i) scaled &= x[i] == 3.0f * static_cast<float>(i);
  check(scaled, "scale");

  std::vector<std::int64_t> v(1000003);
  std::int64_t want = 0;
  for (std::size_t i = 0; i < v.size(); ++i) want += v[i] = (std::int64_t{1} << 40) + std::int64_t(i);
  check(aot_parallel_kernels::sum(v) == want, "sum");
  check(loops.load() == 2, "both kernels went through the scheduler");
  memjit::runtime::resetScheduler();

  // A checked kernel reports a failed check to the calling thread, also from
  // the pool's threads; a C caller reads it with memjit_check_message.
  memjit::runtime::StridedMemRef<float, 1> dx = memjit::runtime::makeView(x);
  memjit_check_clear();
  _mlir_ciface_scale_first(2.0f, &dx, 1000);
  check(memjit_check_message() == nullptr && x[999] == 6.0f * 999.0f, "scale_first in bounds");
  _mlir_ciface_scale_first(2.0f, &dx, std::int64_t(x.size()) + 1);
  const char* failure = memjit_check_message();
  check(failure && std::string(failure) ==
                       "kernel 'scale_first': load of argument #1 (memref<?xf32>) at [100000] is out of bounds [100000]",
        failure ? failure : "scale_first out of bounds: no failure recorded");
  memjit_check_clear();

  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) check(line.find("libLLVM") == std::string::npos, line.c_str());
  if (failures == 0) std::printf("aot parallel example: kernels correct on 2 threads, no LLVM loaded\n");
  return failures == 0 ? 0 : 1;
}
