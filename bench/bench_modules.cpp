// Many modules in one Jit, each defining the same function name in its own
// namespace (a JITDylib per module): what a DSL that specialises one kernel
// per shape or dtype pays per specialisation.
//
//   Modules/compile_and_add   jit.add of a fresh codegen module defining
//                             `kernel(x) = 3x + i` at O2: optimise, generate
//                             code, make its JITDylib, link (building the IR is
//                             not timed)
//   Modules/add_cached        the same modules into a second Jit sharing the
//                             object cache: no optimisation or code generation,
//                             so the JITDylib and linking cost alone
//   Modules/first_lookup      LoadedModule::function("kernel") the first time
//                             (reads the metadata, makes the invoker)
//   Modules/cached_lookup     LoadedModule::function("kernel") again
//   Modules/call              one call of each module's kernel through its C
//                             interface, its distinct result checked
//
// Each benchmark runs exactly one iteration per module, over 1,000 modules
// (the last three over those compile_and_add loaded), so the time per
// iteration is the cost per module with 1,000 modules in the Jit. Repeat by
// running the binary again: with --benchmark_repetitions, Modules/first_lookup
// after its first repetition finds the records cached.
#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/type_syntax.h"

namespace {

using memjit::jit::Jit;
using memjit::jit::LoadedModule;

constexpr int kModules = 1000;

memjit::Expected<memjit::codegen::Module> kernelModule(int i) {
  memjit::codegen::Module m("m" + std::to_string(i));
  MEMJIT_ASSIGN_OR_RETURN(auto type, memjit::parseFunctionType("(i64) -> i64"));
  memjit::codegen::FunctionBuilder b(m, "kernel", type);
  b.ret({b.arg(0) * b.i64(3) + b.i64(i)});
  MEMJIT_TRY(b.finish());
  return m;
}

struct Loaded {
  std::shared_ptr<memjit::jit::ObjectCache> cache;
  std::optional<Jit> jit;
  std::vector<LoadedModule> modules;
};

Loaded& loaded() {
  static Loaded state;
  return state;
}

// Adds module #i to `jit`, timing only the add; false (with the error on `state`) on failure.
bool addTimed(benchmark::State& state, Jit& jit, int i, std::vector<LoadedModule>& out, bool expectCached) {
  state.PauseTiming();
  auto module = kernelModule(i);
  if (!module) {
    state.SkipWithError(module.error().str().c_str());
    return false;
  }
  state.ResumeTiming();
  auto mod = jit.add(std::move(*module));
  if (!mod || mod->fromCache() != expectCached) {
    state.SkipWithError(mod ? "unexpected object cache result" : mod.error().str().c_str());
    return false;
  }
  out.push_back(std::move(*mod));
  return true;
}

void compileAndAdd(benchmark::State& state) {
  Loaded& l = loaded();
  l.modules.clear();
  l.jit.reset();
  l.cache = memjit::jit::ObjectCache::inMemory();  // every repetition compiles
  auto jit = Jit::create({.optLevel = memjit::jit::OptLevel::O2, .cache = l.cache});
  if (!jit) {
    state.SkipWithError(jit.error().str().c_str());
    return;
  }
  l.jit.emplace(std::move(*jit));
  int i = 0;
  for (auto _ : state)
    if (!addTimed(state, *l.jit, i++, l.modules, false)) return;
  state.counters["modules"] = static_cast<double>(l.jit->moduleCount());
}

// The modules compile_and_add loaded, or an error on `state`.
bool haveModules(benchmark::State& state) {
  if (loaded().modules.size() == static_cast<std::size_t>(kModules)) return true;
  state.SkipWithError("run Modules/compile_and_add first (it loads the modules)");
  return false;
}

void addCached(benchmark::State& state) {
  if (!haveModules(state)) return;  // and their objects in the cache
  Loaded& l = loaded();
  auto jit = Jit::create({.optLevel = memjit::jit::OptLevel::O2, .cache = l.cache});
  if (!jit) {
    state.SkipWithError(jit.error().str().c_str());
    return;
  }
  std::vector<LoadedModule> modules;
  int i = 0;
  for (auto _ : state)
    if (!addTimed(state, *jit, i++, modules, true)) return;
}

void lookup(benchmark::State& state) {
  if (!haveModules(state)) return;
  std::size_t i = 0;
  for (auto _ : state) {
    auto kernel = loaded().modules[i++].function("kernel");
    if (!kernel) {
      state.SkipWithError(kernel.error().str().c_str());
      return;
    }
    benchmark::DoNotOptimize(kernel->cInterface());
  }
}

void call(benchmark::State& state) {
  if (!haveModules(state)) return;
  std::size_t i = 0;
  for (auto _ : state) {
    auto kernel = loaded().modules[i].function("kernel");
    const std::int64_t expected = 3 * 1000 + static_cast<std::int64_t>(i);
    if (!kernel || kernel->cInterfaceAs<std::int64_t(std::int64_t)>()(1000) != expected) {
      state.SkipWithError(("module m" + std::to_string(i) + "'s kernel gave a wrong result").c_str());
      return;
    }
    ++i;
  }
}

BENCHMARK(compileAndAdd)->Name("Modules/compile_and_add")->Iterations(kModules)->Unit(benchmark::kMicrosecond);
BENCHMARK(addCached)->Name("Modules/add_cached")->Iterations(kModules)->Unit(benchmark::kMicrosecond);
BENCHMARK(lookup)->Name("Modules/first_lookup")->Iterations(kModules)->Unit(benchmark::kMicrosecond);
BENCHMARK(lookup)->Name("Modules/cached_lookup")->Iterations(kModules)->Unit(benchmark::kMicrosecond);
BENCHMARK(call)->Name("Modules/call")->Iterations(kModules)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
