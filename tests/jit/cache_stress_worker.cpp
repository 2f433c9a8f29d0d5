// One process of the cache stress test (cache_stress_test.cpp): `count`
// compiles of kernels drawn from `kernels` distinct ones, through a cache
// whose local layer is `directory` (bounded, so entries are evicted and
// rewritten all along) and whose remote layer is Redis on `port`. Each kernel
// returns a value derived from its id; a wrong value exits 2, a failed add 3.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <unistd.h>

#include "memjit/jit/directory_cache.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/jit/redis_cache.h"
#include "support/ir_snippets.h"

using namespace memjit;
using namespace memjit::jit;

namespace {

// Far apart, above 2^53 for most ids, and negative for some: a mixed-up object is never a near miss.
long expected(int id) { return (static_cast<long>(id) * 0x9E3779B97F4A7C15L) ^ 0x5DEECE66DL; }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s <directory> <redis-port> <count> <kernels> <seed>\n", argv[0]);
    return 64;
  }
  const int count = std::atoi(argv[3]), kernels = std::atoi(argv[4]);
  auto local = DirectoryCache::open(argv[1], {.maxBytes = 256u << 10});
  auto remote = createRedisCache({.port = std::atoi(argv[2]), .timeout = std::chrono::milliseconds(2000)});
  if (!local.ok() || !remote.ok()) return 4;
  // No memory layer: every add goes to the shared stores.
  auto cache = ObjectCache::create({.maxMemoryBytes = 0, .local = *local, .remote = *remote});
  auto jit = Jit::create({.cache = cache});
  if (!jit.ok()) return 4;
  std::mt19937 random(static_cast<unsigned>(std::atoi(argv[5])) ^ static_cast<unsigned>(::getpid()));
  for (int i = 0; i < count; ++i) {
    const int id = static_cast<int>(random() % static_cast<unsigned>(kernels));
    auto mod = jit->addIR(test::constantIR("k", expected(id)), "stress");
    if (!mod.ok()) {
      std::fprintf(stderr, "add of kernel %d failed: %s\n", id, mod.error().message().c_str());
      return 3;
    }
    auto k = mod->function("k");
    const long got = k.ok() ? k->cInterfaceAs<std::int64_t()>()() : 0;
    if (got != expected(id)) {
      std::fprintf(stderr, "kernel %d returned %ld, expected %ld\n", id, got, expected(id));
      return 2;
    }
    if (jit->remove(*mod)) return 3;
  }
  const CacheStats stats = cache->stats();
  std::printf("hits %llu (local %llu, remote %llu) misses %llu corrupt %llu remote errors %llu\n",
              static_cast<unsigned long long>(stats.hits), static_cast<unsigned long long>(stats.localHits),
              static_cast<unsigned long long>(stats.remoteHits), static_cast<unsigned long long>(stats.misses),
              static_cast<unsigned long long>(stats.corrupt), static_cast<unsigned long long>(stats.remoteErrors));
  return 0;
}
