// The object cache shared by a fleet (docs/fleet-cache.md), all against one
// private redis-server on 127.0.0.1 (started here; tests/support/redis_server.h):
//   CacheHit/<kernel>/local             ObjectCache::get answered by a DirectoryCache (read, verify)
//   CacheHit/<kernel>/redis             ... by Redis over the loopback (GET, verify); the memory layer is off in both
//   CacheMiss/<kernel>/compile          Jit::add of a module no cache holds, without a cache
//   CacheMiss/<kernel>/compile_and_publish  the same with a directory + Redis cache: lookups miss, the object is
//                                       published to both
//   FleetStart/<n>/compile              a new process (bench/fleet_start_process.cpp) compiling n distinct kernels
//   FleetStart/<n>/redis                a new process loading them from a warm Redis
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include <unistd.h>

#include "child_process.h"
#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/directory_cache.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/jit/redis_cache.h"
#include "support/redis_server.h"

namespace {

using namespace memjit;
using Clock = std::chrono::steady_clock;

memjit::test::RedisServer* server() {
  static std::unique_ptr<memjit::test::RedisServer> instance = [] {
    std::string why;
    auto started = memjit::test::RedisServer::start(why);
    if (!started) std::fprintf(stderr, "bench_fleet_cache: %s\n", why.c_str());
    return started;
  }();
  return instance.get();
}

std::string scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("memjit-bench-fleet-" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

enum class Kernel { Sum, Matmul };

codegen::Module build(Kernel kernel, const std::string& moduleName) {
  codegen::Module module(moduleName);
  Error error = kernel == Kernel::Sum ? codegen::addSum(module, "k") : codegen::addMatmul(module, "k");
  if (error) std::abort();
  return module;
}

void cacheHit(benchmark::State& state, Kernel kernel, bool redis) {
  if (redis && !server()) return state.SkipWithError("no redis-server");
  std::shared_ptr<jit::CacheBackend> backend;
  if (redis) {
    auto created = jit::createRedisCache({.port = server()->port()});
    if (!created.ok()) return state.SkipWithError(created.error().str().c_str());
    backend = *created;
  } else {
    backend = *jit::DirectoryCache::open(scratch("hit"));
  }
  // The object a Jit stores for this kernel, published the way a Jit publishes it.
  auto cache = jit::ObjectCache::create({.maxMemoryBytes = 0, .local = backend});
  auto created = jit::Jit::create({.cache = cache});
  if (!created.ok()) return state.SkipWithError("Jit::create failed");
  auto loaded = created->add(build(kernel, "hit"));
  if (!loaded.ok()) return state.SkipWithError(loaded.error().str().c_str());
  const std::string key = loaded->cacheKey();
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto object = cache->get(key);
    if (!object) return state.SkipWithError("missed");
    bytes = (*object)->size();
  }
  state.counters["object_bytes"] = static_cast<double>(bytes);
}

void cacheMiss(benchmark::State& state, Kernel kernel, bool publish) {
  if (publish && !server()) return state.SkipWithError("no redis-server");
  jit::JitOptions options;
  if (publish) {
    auto remote = jit::createRedisCache({.port = server()->port()});
    if (!remote.ok()) return state.SkipWithError(remote.error().str().c_str());
    options.cache = jit::ObjectCache::create(
        {.maxMemoryBytes = 0, .local = *jit::DirectoryCache::open(scratch("miss")), .remote = *remote});
  }
  auto created = jit::Jit::create(options);
  if (!created.ok()) return state.SkipWithError("Jit::create failed");
  static int unique = 0;  // a new module name is a new key: every add misses
  for (auto _ : state) {
    auto loaded = created->add(build(kernel, "miss" + std::to_string(++unique)));
    if (!loaded.ok() || loaded->fromCache()) return state.SkipWithError("the add hit or failed");
    (void)created->remove(*loaded);
  }
}

void fleetStart(benchmark::State& state, bool redis) {
  const std::string n = std::to_string(state.range(0));
  std::vector<std::string> args{MEMJIT_FLEET_START_PROCESS, "compile", n};
  std::string printed;
  if (redis) {
    if (!server()) return state.SkipWithError("no redis-server");
    args = {MEMJIT_FLEET_START_PROCESS, "redis", n, std::to_string(server()->port())};
    if (memjit::bench::runChild(args, printed) != 0) return state.SkipWithError("the warming replica failed");
  }
  double cpu = 0;
  for (auto _ : state) {
    const auto start = Clock::now();
    double seconds = 0;
    const int status = memjit::bench::runChild(args, printed, &seconds);
    cpu += seconds;
    state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
    if (status != 0) return state.SkipWithError("the replica failed");
    if (redis && std::stol(printed) != state.range(0)) return state.SkipWithError("the replica missed Redis");
  }
  // The replica's own CPU time: what a loaded machine inflates least.
  state.counters["replica_cpu_ms"] = benchmark::Counter(cpu * 1e3, benchmark::Counter::kAvgIterations);
}

void registerAll() {
  for (auto [kernel, name] : {std::pair{Kernel::Sum, "sum"}, std::pair{Kernel::Matmul, "matmul"}}) {
    const std::string k = name;
    benchmark::RegisterBenchmark(("CacheHit/" + k + "/local").c_str(), cacheHit, kernel, false)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("CacheHit/" + k + "/redis").c_str(), cacheHit, kernel, true)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("CacheMiss/" + k + "/compile").c_str(), cacheMiss, kernel, false)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("CacheMiss/" + k + "/compile_and_publish").c_str(), cacheMiss, kernel, true)
        ->Unit(benchmark::kMillisecond);
  }
  for (bool redis : {false, true})
    benchmark::RegisterBenchmark(redis ? "FleetStart/redis" : "FleetStart/compile", fleetStart, redis)
        ->Arg(1000)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                              ("memjit-bench-fleet-" + std::to_string(getpid())));
  return 0;
}
