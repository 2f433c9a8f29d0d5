// memjit-difftest: random kernel-language programs run through every oracle
// (O0..O3, invokers, checked mode, debug info, AOT) and compared with the
// reference interpreter. Program k of a run has seed `--seed` + k, so
// `memjit-difftest --seed <printed seed> --count 1` reproduces one program.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "generator.h"
#include "isolate.h"
#include "oracles.h"
#include "reduce.h"

using namespace memjit::difftest;

namespace {

struct Args {
  std::uint64_t seed = 0;
  bool seedGiven = false;
  std::uint64_t count = 0;
  double seconds = 0;
  std::size_t batch = 16;
  bool reduce = true;
  bool traps = true;
  bool allOracles = false;
  int statements = 0;  // 0: the generator's default
  bool print = false;
  bool stopAtFailure = false;
  bool progress = false;
  bool isolate = false;
};

int usage() {
  std::fprintf(stderr,
               "usage: memjit-difftest [--seed S] (--count N | --seconds T) [--batch B] [--all-oracles] [--no-reduce]\n"
               "  --seed S     first program's seed (default: from the clock, printed first)\n"
               "  --count N    run N programs;  --seconds T  run for T seconds\n"
               "  --all-oracles  every oracle on every batch (default: O0, O3 and two others in turn)\n"
               "  --no-reduce  print failing programs unreduced\n"
               "  --stop-at-failure  stop after the first batch with a failure;  --progress  print each batch's\n"
               "               first seed before running it (both for the mutation score's runner, mutants.py)\n"
               "  --statements N  top-level statements per program;  --print  print every program as a test\n"
               "  --isolate    each program in a child process: finds and reduces programs that crash the process\n");
  return 2;
}

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (s == "--seed") {
      const char* v = next();
      if (!v) return false;
      a.seed = std::strtoull(v, nullptr, 0);
      a.seedGiven = true;
    } else if (s == "--count") {
      const char* v = next();
      if (!v) return false;
      a.count = std::strtoull(v, nullptr, 0);
    } else if (s == "--seconds") {
      const char* v = next();
      if (!v) return false;
      a.seconds = std::strtod(v, nullptr);
    } else if (s == "--batch") {
      const char* v = next();
      if (!v) return false;
      a.batch = std::strtoull(v, nullptr, 0);
    } else if (s == "--statements") {
      const char* v = next();
      if (!v) return false;
      a.statements = std::atoi(v);
    } else if (s == "--print") {
      a.print = true;
    } else if (s == "--all-oracles") {
      a.allOracles = true;
    } else if (s == "--isolate") {
      a.isolate = true;
    } else if (s == "--no-reduce") {
      a.reduce = false;
    } else if (s == "--stop-at-failure") {
      a.stopAtFailure = true;
    } else if (s == "--progress") {
      a.progress = true;
    } else {
      return false;
    }
  }
  return (a.count > 0 || a.seconds > 0) && a.batch > 0;
}

GeneratorOptions generatorOptions(const Args& args, std::uint64_t seed) {
  GeneratorOptions g;
  // One program in 16 traps on purpose, for the checked oracles.
  static const char* const traps[] = {"out of bounds", "by zero", "overflow"};
  if (args.traps && seed % 16 == 7) g.trap = traps[(seed / 16) % 3];
  if (args.statements > 0) g.statements = args.statements;
  return g;
}

// --isolate: one child process per program (no Jit in this process, so fork is safe); a program whose child dies
// is reduced with every candidate in a child of its own and printed.
int runIsolated(const Args& args) {
  const auto oracles = standardOracles();
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::size_t programs = 0, crashes = 0;
  for (std::uint64_t seed = args.seed;
       (args.count == 0 || seed - args.seed < args.count) && (args.seconds == 0 || elapsed() < args.seconds); ++seed) {
    const Program p = generate(seed, generatorOptions(args, seed));
    ++programs;
    const std::string crash = crashOf(p, oracles);
    if (crash.empty()) continue;
    ++crashes;
    std::printf("CRASH seed %llu (%s)\n", static_cast<unsigned long long>(seed), crash.c_str());
    std::fflush(stdout);
    const Program small =
        args.reduce ? reduceWhile(p, [&](const Program& c) { return crashOf(c, oracles) == crash; }) : p;
    std::string which;
    for (const Oracle& o : oracles)
      if (!crashOf(small, {o}).empty()) which += " " + o.name;
    std::printf("--- seed %llu, reduced to %zu statements (from %zu), crashes under%s:\n%s\n",
                static_cast<unsigned long long>(seed), countStatements(small), countStatements(p),
                which.empty() ? " the oracles together only" : which.c_str(), toBuilderSnippet(small).c_str());
  }
  std::printf("memjit-difftest --isolate: %zu programs in %.1f s, %zu crashed\n", programs, elapsed(), crashes);
  return crashes == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse(argc, argv, args)) return usage();
  if (!args.seedGiven)
    args.seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) & 0xffffffffffffULL;
  // A timed run reproduces with --count and the number of programs it ran (printed at the end).
  std::printf("memjit-difftest: seed %llu (reproduce: memjit-difftest --seed %llu %s)\n",
              static_cast<unsigned long long>(args.seed), static_cast<unsigned long long>(args.seed),
              args.count ? ("--count " + std::to_string(args.count)).c_str()
                         : ("--seconds " + std::to_string(static_cast<long long>(args.seconds))).c_str());
  std::fflush(stdout);

  if (args.isolate) return runIsolated(args);
  auto runner = Runner::create();
  if (!runner) {
    std::fprintf(stderr, "memjit-difftest: %s\n", runner.error().message().c_str());
    return 1;
  }
  const auto oracles = standardOracles();
  std::uint64_t batchNumber = 0;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  BatchStats stats;
  std::size_t failures = 0;
  std::uint64_t next = args.seed;
  while ((args.count == 0 || next - args.seed < args.count) && (args.seconds == 0 || elapsed() < args.seconds)) {
    std::vector<Program> batch;
    if (args.progress) {
      std::printf("batch from seed %llu\n", static_cast<unsigned long long>(next));
      std::fflush(stdout);
    }
    for (std::size_t i = 0; i < args.batch && (args.count == 0 || next - args.seed < args.count); ++i, ++next) {
      batch.push_back(generate(next, generatorOptions(args, next)));
      if (args.print) std::printf("%s\n", toBuilderSnippet(batch.back()).c_str());
    }
    std::vector<Mismatch> mismatches;
    runner->run(batch, args.allOracles ? oracles : oraclesForBatch(batchNumber++), mismatches, stats);
    std::size_t last = SIZE_MAX;
    for (const Mismatch& m : mismatches) {
      const Program& p = batch[m.program];
      if (m.program != last) {
        ++failures;
        // A batch is one module: a program may fail only beside its batch-mates (the instruction selector is
        // chosen per module, inlining and code layout differ), hence the second command.
        std::printf("MISMATCH seed %llu (%s): %s (reproduce: memjit-difftest --seed %llu --count 1 --all-oracles, "
                    "or with its batch: --seed %llu --count %zu --batch %zu --all-oracles)\n",
                    static_cast<unsigned long long>(p.seed), m.oracle.c_str(), m.what.c_str(),
                    static_cast<unsigned long long>(p.seed), static_cast<unsigned long long>(batch.front().seed),
                    batch.size(), batch.size());
      }
      last = m.program;
    }
    std::vector<std::size_t> failed;
    for (const Mismatch& m : mismatches)
      if (failed.empty() || failed.back() != m.program) failed.push_back(m.program);
    for (std::size_t i : failed) {
      const Program& p = batch[i];
      const Program small = args.reduce ? reduce(*runner, p, oracles) : p;
      std::printf("--- seed %llu, reduced to %zu statements (from %zu):\n%s\n",
                  static_cast<unsigned long long>(p.seed), countStatements(small), countStatements(p),
                  toBuilderSnippet(small).c_str());
      std::fflush(stdout);
    }
    if (args.stopAtFailure && failures > 0) break;
  }
  const double t = elapsed();
  std::printf("memjit-difftest: %zu programs in %.1f s (%.1f programs/s), %zu oracles each; %zu values compared, "
              "%zu unchecked; %zu programs disagreed\n",
              stats.programs, t, static_cast<double>(stats.programs) / t, args.allOracles ? oracles.size() : 4, stats.compared,
              stats.unchecked, failures);
  std::printf("seconds per oracle:");
  for (const auto& [name, s] : stats.seconds) std::printf(" %s %.1f", name.c_str(), s);
  std::printf("\n%zu passed, %zu failed (this run again: memjit-difftest --seed %llu --count %llu)\n",
              stats.programs - failures, failures, static_cast<unsigned long long>(args.seed),
              static_cast<unsigned long long>(next - args.seed));
  return failures == 0 ? 0 : 1;
}
