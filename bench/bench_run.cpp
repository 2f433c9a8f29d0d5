// `memjit run` against mlir-cpu-runner: wall time of one whole run (process
// start-up, reading, compiling, linking, running the program, exit) of the
// conformance programs in tests/conformance/run/, lowered once with mlir-opt
// and mlir-translate. Run/<program>/memjit runs the .ll with memjit's own
// runner utilities; Run/<program>/mlir runs the LLVM-dialect .mlir with
// MLIR's runner utility libraries (it has no others). Both print to /dev/null.
// Skipped where the MLIR tools were not found.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace {

bool usable(const std::string& path) {
  return !path.empty() && path.find("NOTFOUND") == std::string::npos && ::access(path.c_str(), X_OK) == 0;
}

std::string missingTools() {
  for (const char* tool : {MEMJIT_MLIR_OPT, MEMJIT_MLIR_TRANSLATE, MEMJIT_MLIR_CPU_RUNNER})
    if (!usable(tool)) return std::string("MLIR tool not found: '") + tool + "'";
  return "";
}

struct Lowered {
  std::string llvmDialect;  // for mlir-cpu-runner
  std::string ir;           // for memjit run
  std::string error;
};

// Lowered once per program, into the temp directory.
const Lowered& lowered(const std::string& program) {
  static std::map<std::string, Lowered> cache;
  auto it = cache.find(program);
  if (it != cache.end()) return it->second;
  Lowered out;
  auto dir = std::filesystem::temp_directory_path() / ("memjit_bench_run_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  out.llvmDialect = (dir / (program + ".llvm.mlir")).string();
  out.ir = (dir / (program + ".ll")).string();
  const std::string source = std::string(MEMJIT_RUN_PROGRAMS) + "/" + program + ".mlir";
  const std::string lower =
      std::string(MEMJIT_MLIR_OPT) + " " + source +
      " -convert-vector-to-scf -convert-linalg-to-loops -expand-strided-metadata -lower-affine -convert-scf-to-cf"
      " -convert-vector-to-llvm -finalize-memref-to-llvm -convert-math-to-llvm -convert-math-to-libm"
      " -convert-arith-to-llvm -convert-func-to-llvm -convert-cf-to-llvm -reconcile-unrealized-casts -o " +
      out.llvmDialect + " && " + MEMJIT_MLIR_TRANSLATE + " --mlir-to-llvmir " + out.llvmDialect + " -o " + out.ir;
  if (std::system(lower.c_str()) != 0) out.error = "cannot lower " + source;
  return cache.emplace(program, std::move(out)).first->second;
}

// Runs argv with stdout and stderr on /dev/null; its exit status.
int spawn(const std::vector<std::string>& args) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int status = -1;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0) waitpid(pid, &status, 0);
  posix_spawn_file_actions_destroy(&actions);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void runTimed(benchmark::State& state, const std::vector<std::string>& args) {
  if (spawn(args) != 0) {  // also warms the page cache
    state.SkipWithError("the run failed");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(spawn(args));
}

void BM_RunMemjit(benchmark::State& state, const std::string& program) {
  if (std::string missing = missingTools(); !missing.empty()) return state.SkipWithError(missing.c_str());
  const Lowered& in = lowered(program);
  if (!in.error.empty()) return state.SkipWithError(in.error.c_str());
  runTimed(state, {MEMJIT_CLI, "run", in.ir, "-e", "main", "--entry-point-result=void"});
}

void BM_RunMlir(benchmark::State& state, const std::string& program) {
  if (std::string missing = missingTools(); !missing.empty()) return state.SkipWithError(missing.c_str());
  const Lowered& in = lowered(program);
  if (!in.error.empty()) return state.SkipWithError(in.error.c_str());
  runTimed(state, {MEMJIT_MLIR_CPU_RUNNER, in.llvmDialect, "-e", "main", "--entry-point-result=void",
                   std::string("--shared-libs=") + MEMJIT_MLIR_C_RUNNER_UTILS + "," + MEMJIT_MLIR_RUNNER_UTILS});
}

const bool registered = [] {
  for (const char* program : {"print_types", "strided_copy", "calls", "globals", "math_vector"}) {
    benchmark::RegisterBenchmark((std::string("Run/") + program + "/memjit").c_str(), BM_RunMemjit, program)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((std::string("Run/") + program + "/mlir").c_str(), BM_RunMlir, program)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
