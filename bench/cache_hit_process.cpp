// The process bench_compile's CacheHit/<kernel>/fresh_process spawns: a new
// process that makes a Jit over an on-disk object cache, builds the kernel,
// adds it (a cache hit once the cache is filled), looks it up and calls it
// once. Usage: memjit_cache_hit_process <cache-dir> <add|matmul> [<adds>].
// With <adds>, it then adds the same module that many times more (each
// looked up and removed again, the first staying loaded): a harness for
// counting the instructions of warm hits (callgrind cannot run bench_compile,
// which is built for the host's AVX-512).
// Prints "<in-process ns> <create ns> <build ns> <add ns> <lookup+call ns>
// <page faults>" (minor faults in main: first touches of code and heap)
// and exits 0 on a cache hit, 2 on a miss (the object is compiled and
// stored), 1 on an error or a wrong result.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/runtime/memref.h"

namespace {

using Clock = std::chrono::steady_clock;
using memjit::runtime::StridedMemRef;

long long nanos(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count();
}

long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

int fail(const memjit::Error& error) {
  std::fprintf(stderr, "%s\n", error.str().c_str());
  return 1;
}

// Calls the kernel once on small inputs; false on a wrong result.
bool callOnce(const memjit::jit::Function& fn, bool matmul) {
  if (!matmul) {
    std::vector<float> a{1, 2, 3}, b{10, 20, 30}, out(3);
    StridedMemRef<float, 1> da{a.data(), a.data(), 0, {3}, {1}}, db{b.data(), b.data(), 0, {3}, {1}},
        dout{out.data(), out.data(), 0, {3}, {1}};
    fn.cInterfaceAs<void(StridedMemRef<float, 1>*, StridedMemRef<float, 1>*, StridedMemRef<float, 1>*)>()(
        &da, &db, &dout);
    return out == std::vector<float>{11, 22, 33};
  }
  std::vector<float> A{1, 2, 3, 4, 5, 6}, B{7, 8, 9, 10, 11, 12}, C(4);
  StridedMemRef<float, 2> dA{A.data(), A.data(), 0, {2, 3}, {3, 1}}, dB{B.data(), B.data(), 0, {3, 2}, {2, 1}},
      dC{C.data(), C.data(), 0, {2, 2}, {2, 1}};
  fn.cInterfaceAs<void(StridedMemRef<float, 2>*, StridedMemRef<float, 2>*, StridedMemRef<float, 2>*)>()(&dA, &dB,
                                                                                                       &dC);
  return C == std::vector<float>{58, 64, 139, 154};
}

}  // namespace

int main(int argc, char** argv) {
  const auto started = Clock::now();
  const long faultsAtStart = minorFaults();
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s <cache-dir> <add|matmul> [<adds>]\n", argv[0]);
    return 1;
  }
  const bool matmul = std::string_view(argv[2]) == "matmul";
  auto cache = memjit::jit::ObjectCache::onDisk(argv[1]);
  if (!cache) return fail(cache.error());
  auto jit = memjit::jit::Jit::create({.cache = *cache});
  if (!jit) return fail(jit.error());
  const auto created = Clock::now();
  memjit::codegen::Module module("bench");
  if (auto e = matmul ? memjit::codegen::addMatmul(module, "kernel")
                      : memjit::codegen::addElementwiseAdd(module, "kernel"))
    return fail(e);
  const auto built = Clock::now();
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error());
  const auto added = Clock::now();
  auto fn = loaded->function("kernel");
  if (!fn) return fail(fn.error());
  if (!callOnce(*fn, matmul)) {
    std::fprintf(stderr, "wrong result\n");
    return 1;
  }
  const auto called = Clock::now();
  const long faults = minorFaults() - faultsAtStart;
  std::printf("%lld %lld %lld %lld %lld %ld\n", nanos(started, called), nanos(started, created),
              nanos(created, built), nanos(built, added), nanos(added, called), faults);
  for (int i = 0, adds = argc == 4 ? std::atoi(argv[3]) : 0; i < adds; ++i) {
    memjit::codegen::Module again("bench");
    if (auto e = matmul ? memjit::codegen::addMatmul(again, "kernel")
                        : memjit::codegen::addElementwiseAdd(again, "kernel"))
      return fail(e);
    auto twin = jit->add(std::move(again));
    if (!twin) return fail(twin.error());
    auto twinFn = twin->function("kernel");
    if (!twinFn) return fail(twinFn.error());
    if (auto e = jit->remove(*twin)) return fail(e);
  }
  return loaded->fromCache() ? 0 : 2;
}
