#!/usr/bin/env bash
# memjit's one entry point for developers and CI. On a fresh Debian 12 machine:
#   ./dev.sh demo            install what is missing, build, run the quickstart example
#   ./dev.sh test [--fast]   install, build, run every test; then the same suite under
#                            AddressSanitizer+UndefinedBehaviorSanitizer and each fuzzer
#                            briefly (--fast skips the sanitizer build and the fuzzers)
#   ./dev.sh bench           build and run every benchmark; JSON in build/bench/results.json
#   ./dev.sh fuzz [seconds]  run every fuzzer (default 60 s each)
#   ./dev.sh build           install and build only
# A second run with nothing changed takes seconds: builds are incremental and cached.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
JOBS=$(nproc)
LLVM_MAJOR=19
PACKAGES=(cmake ninja-build g++ ccache pkg-config
  "llvm-$LLVM_MAJOR-dev" "clang-$LLVM_MAJOR" "libclang-rt-$LLVM_MAJOR-dev"
  googletest libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libdlpack-dev libffi-dev
  "mlir-$LLVM_MAJOR-tools" "libmlir-$LLVM_MAJOR-dev" valgrind
  libtbb-dev)  # oneTBB: the pool candidate bench_parallel compares libgomp with

# ccache keys on relative paths below the checkout, so a fresh clone elsewhere
# (CI) reuses what an earlier build on this machine compiled.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1

log() { printf '\033[1m[dev.sh]\033[0m %s\n' "$*" >&2; }

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # A fresh machine has no package lists; an old list may name versions no longer served.
  if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

# configure <dir> [cmake args...]: configures once; later runs only rebuild.
configure() {
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  fi
}

build_main() {
  configure build -DLLVM_DIR="/usr/lib/llvm-$LLVM_MAJOR/lib/cmake/llvm"
  log "building (Release, $JOBS jobs)"
  cmake --build build -j "$JOBS"
}

run_ctest() {
  local dir=$1; shift
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS" "$@"
}

sanitizer_pass() {
  log "sanitizer build: AddressSanitizer + UndefinedBehaviorSanitizer (clang-$LLVM_MAJOR)"
  configure build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="clang-$LLVM_MAJOR" -DCMAKE_CXX_COMPILER="clang++-$LLVM_MAJOR" \
    -DLLVM_DIR="/usr/lib/llvm-$LLVM_MAJOR/lib/cmake/llvm" \
    -DMEMJIT_SANITIZE=address,undefined -DMEMJIT_BUILD_BENCH=OFF
  cmake --build build-sanitize -j "$JOBS"
  # LLVM keeps some process-lifetime allocations; memjit's own suppressions live in tests/.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
  LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  MEMJIT_SANITIZER_BUILD=1 \
    run_ctest build-sanitize -LE no_sanitizer
}

# AddressSanitizer cannot see data races, so the tests that compile and call
# from many threads at once also run under ThreadSanitizer, built on their own.
thread_sanitizer_pass() {
  log "ThreadSanitizer build of the concurrency tests (clang-$LLVM_MAJOR)"
  configure build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="clang-$LLVM_MAJOR" -DCMAKE_CXX_COMPILER="clang++-$LLVM_MAJOR" \
    -DLLVM_DIR="/usr/lib/llvm-$LLVM_MAJOR/lib/cmake/llvm" \
    -DMEMJIT_SANITIZE=thread -DMEMJIT_BUILD_BENCH=OFF -DMEMJIT_BUILD_EXAMPLES=OFF
  cmake --build build-tsan -j "$JOBS" --target jit_concurrency_test
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp" \
    ./build-tsan/tests/jit/jit_concurrency_test
  # Parallel loops: 8 host threads calling parallel kernels, and nested loops.
  # libgomp is not TSan-instrumented (its barriers look like races), so these
  # cases run on a scheduler of plain std::threads that the tests install;
  # memjit's generated code and runtime are what is checked, not libgomp.
  cmake --build build-tsan -j "$JOBS" --target codegen_parallel_for_test runtime_parallel_test
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp" \
    ./build-tsan/tests/codegen/codegen_parallel_for_test --gtest_filter='*StdThreadScheduler*'
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp" \
    ./build-tsan/tests/runtime/runtime_parallel_test --gtest_filter='Parallel.NestedLoop*'
}

build_fuzzers() {
  configure build-fuzz -DCMAKE_C_COMPILER="clang-$LLVM_MAJOR" -DCMAKE_CXX_COMPILER="clang++-$LLVM_MAJOR" \
    -DMEMJIT_FUZZ=ON -DMEMJIT_SANITIZE=address,undefined
  cmake --build build-fuzz -j "$JOBS"
}

run_fuzzers() {
  local seconds=$1
  build_fuzzers
  local failed=0
  for fuzzer in build-fuzz/tests/fuzz/fuzz_*; do
    [ -x "$fuzzer" ] || continue
    local name corpus work
    name=$(basename "$fuzzer")
    corpus="$ROOT/tests/fuzz/corpus/${name#fuzz_}"
    work="build-fuzz/corpus/${name#fuzz_}"
    mkdir -p "$work" "build-fuzz/artifacts"
    log "fuzzing $name for ${seconds}s"
    # New inputs go to the scratch corpus; the committed seeds stay as they are.
    if ! "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
        -artifact_prefix="build-fuzz/artifacts/$name-" -print_final_stats=0 \
        "$work" "$corpus" 2> "build-fuzz/$name.log"; then
      tail -40 "build-fuzz/$name.log" >&2
      log "FAILED: $name (crash input in build-fuzz/artifacts/)"
      failed=1
    fi
  done
  return $failed
}

cmd=${1:-help}
shift || true
case "$cmd" in
  build)
    install_packages
    build_main
    ;;
  demo)
    install_packages
    build_main
    log "running examples/quickstart"
    ./build/examples/quickstart
    ;;
  test)
    fast=0
    [ "${1:-}" = "--fast" ] && fast=1
    install_packages
    build_main
    run_ctest build
    if [ $fast -eq 0 ]; then
      sanitizer_pass
      thread_sanitizer_pass
      run_fuzzers "${MEMJIT_FUZZ_SECONDS:-20}"
    fi
    log "all tests passed"
    ;;
  bench)
    install_packages
    build_main
    mkdir -p build/bench
    first=1
    for b in build/bench/bench_*; do
      [ -x "$b" ] || continue
      log "running $(basename "$b")"
      "$b" --benchmark_out="build/bench/$(basename "$b").json" --benchmark_out_format=json
    done
    # One results file for every benchmark binary.
    python3 - <<'PY'
import glob, json
merged = None
for path in sorted(glob.glob("build/bench/bench_*.json")):
    with open(path) as f:
        data = json.load(f)
    if merged is None:
        merged = data
    else:
        merged["benchmarks"].extend(data["benchmarks"])
with open("build/bench/results.json", "w") as f:
    json.dump(merged or {"benchmarks": []}, f, indent=1)
print("wrote build/bench/results.json")
PY
    ;;
  fuzz)
    install_packages
    run_fuzzers "${1:-60}"
    ;;
  *)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    [ "$cmd" = help ] || exit 2
    ;;
esac
