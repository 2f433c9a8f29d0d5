// The process bench_fleet_cache's FleetStart/<n>/{compile,redis} spawns: a new
// replica that loads <n> distinct kernels (addSum's, each its own module
// "sum<i>", so each its own key) and calls each once. Usage:
//   memjit_fleet_start_process compile <n>         compiles every kernel (no cache)
//   memjit_fleet_start_process redis <n> <port>    through a cache whose only backend is Redis
// (a fresh machine: no directory, an empty memory layer). Both modes build the
// kernels kBatch at a time and add each batch with Jit::addAll, which asks the
// cache for the whole batch in one round trip (without a cache it adds them
// one by one, as add() would). Prints the number of kernels that came from the
// cache; exits 1 on an error or a wrong result.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/jit/redis_cache.h"
#include "memjit/runtime/memref.h"

using namespace memjit;

int main(int argc, char** argv) {
  const std::string mode = argc > 2 ? argv[1] : "";
  if (!((mode == "compile" && argc == 3) || (mode == "redis" && argc == 4))) {
    std::fprintf(stderr, "usage: %s compile <n> | redis <n> <port>\n", argv[0]);
    return 64;
  }
  const int n = std::atoi(argv[2]);
  jit::JitOptions options;
  if (mode == "redis") {
    auto remote = jit::createRedisCache({.port = std::atoi(argv[3])});
    if (!remote.ok()) return 1;
    options.cache = jit::ObjectCache::create({.remote = *remote});
  }
  auto created = jit::Jit::create(options);
  if (!created.ok()) return 1;
  jit::Jit& jit = *created;
  std::vector<float> values{1.5f, 2.25f, -0.75f};
  runtime::StridedMemRef<float, 1> view{values.data(), values.data(), 0, {3}, {1}};
  // Bounds the modules held at once (each has its own LLVMContext until added).
  constexpr int kBatch = 200;
  std::vector<jit::LoadedModule> loaded;
  int fromCache = 0;
  for (int first = 0; first < n; first += kBatch) {
    std::vector<codegen::Module> batch;
    for (int i = first; i < std::min(n, first + kBatch); ++i) {
      codegen::Module module("sum" + std::to_string(i));
      if (codegen::addSum(module, "total")) return 1;
      batch.push_back(std::move(module));
    }
    auto added = jit.addAll(std::move(batch));
    if (!added.ok()) {
      std::fprintf(stderr, "%s\n", added.error().str().c_str());
      return 1;
    }
    for (jit::LoadedModule& mod : *added) {
      auto total = mod.function("total");
      if (!total.ok() || total->cInterfaceAs<float(runtime::StridedMemRef<float, 1>*)>()(&view) != 3.0f) return 1;
      fromCache += mod.fromCache();
      loaded.push_back(std::move(mod));
    }
  }
  std::printf("%d\n", fromCache);
  return 0;
}
