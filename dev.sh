#!/usr/bin/env bash
# memjit's one entry point for developers and CI. On a fresh Debian 12 machine:
#   ./dev.sh demo            install what is missing, build, run the quickstart example
#   ./dev.sh test [--fast]   install, build, run every test (LLVM 19 + MLIR 19); the suite
#                            again against LLVM 22 (build-llvm22, tests needing MLIR skip);
#                            then under AddressSanitizer+UndefinedBehaviorSanitizer, and
#                            each fuzzer briefly, eight codegen mutants the difftest must
#                            catch (--fast skips the sanitizers, fuzzers and mutants)
#   ./dev.sh test --llvm 22  swap the machine's MLIR 19 for MLIR 22, run the whole suite,
#                            conformance included, against LLVM+MLIR 22; swap MLIR 19 back
#   ./dev.sh test --llvm 22 --private-mlir
#                            the same, with MLIR 22's packages unpacked into build-llvm22
#                            instead of installed: the system's MLIR 19 is left alone
#   ./dev.sh bench           build and run every benchmark; JSON in build/bench/results.json
#   ./dev.sh fuzz [seconds]  run every fuzzer (default 60 s each), then the differential
#                            tester (tests/difftest) for as long
#   ./dev.sh mutants [seconds]  the difftest's mutation score: a build with codegen
#                            bugs compiled in (build-mutants, -DMEMJIT_MUTANTS=ON); each
#                            mutant runs until caught or for [seconds] (default 300)
#   ./dev.sh build           install and build only
# A second run with nothing changed takes seconds: builds are incremental and cached.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
JOBS=$(nproc)
LLVM_MAJOR=19   # the main build, sanitizers, fuzzers, benchmarks: LLVM and MLIR 19
LLVM_NEXT=22    # also built and tested (build-llvm22); see docs/jit-and-aot.md, "Supported LLVM versions"
BASE_PACKAGES=(cmake ninja-build g++ ccache pkg-config python3
  "llvm-$LLVM_MAJOR-dev" "clang-$LLVM_MAJOR" "libclang-rt-$LLVM_MAJOR-dev"
  googletest libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libdlpack-dev libffi-dev
  valgrind
  gdb  # jit.gdb_debug_info: gdb stops on a generator line inside a JIT'd kernel
  linux-perf  # jit.perf_debug_info: perf attributes a JIT'd kernel's samples to its generator line
  libzstd-dev  # the CMake target LLVM's static libraries (which the memjit CLI links) name
  libtbb-dev  # oneTBB: the pool candidate bench_parallel compares libgomp with
  libopenblas-dev  # OpenBLAS: bench_sgemm's anchor (only that benchmark links it)
  libhiredis-dev redis-server)  # the object cache's Redis backend, and the real server its tests start
# Debian's libmlir-19 and libmlir-22 conflict: one MLIR per machine (MLIR 19 normally).
mlir_packages() { echo "mlir-$1-tools" "libmlir-$1-dev"; }
# shellcheck disable=SC2207
PACKAGES=("${BASE_PACKAGES[@]}" $(mlir_packages "$LLVM_MAJOR"))

# ccache keys on relative paths below the checkout, so a fresh clone elsewhere
# (CI) reuses what an earlier build on this machine compiled.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1

log() { printf '\033[1m[dev.sh]\033[0m %s\n' "$*" >&2; }

# install_packages [package...]: installs those missing (default: PACKAGES).
install_packages() {
  local missing=() wanted=("$@")
  [ $# -gt 0 ] || wanted=("${PACKAGES[@]}")
  for p in "${wanted[@]}"; do
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

# configure <dir> [cmake args...]: configures once, and again when the arguments
# change (they are kept in <dir>/.dev-args); otherwise later runs only rebuild.
# Changed arguments configure with --fresh: a flag dropped from the list must
# not linger in CMakeCache.txt. CMake's output goes to <dir>/configure.log and
# is shown when configuring fails.
configure() {
  local dir=$1; shift
  local args="-G Ninja -DCMAKE_BUILD_TYPE=Release $*"
  if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$dir/.dev-args" 2>/dev/null)" != "$args" ]; then
    local fresh=()
    [ -f "$dir/CMakeCache.txt" ] && fresh=(--fresh)
    mkdir -p "$dir"
    rm -f "$dir/.dev-args"
    if ! cmake "${fresh[@]}" -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >"$dir/configure.log" 2>&1; then
      cat "$dir/configure.log" >&2
      log "configuring $dir failed (output above, also in $dir/configure.log)"
      return 1
    fi
    echo "$args" > "$dir/.dev-args"
  fi
}

# Every pass names its LLVM: with several installed, CMake alone would prefer
# the lowest supported one (cmake/MemjitFindLLVM.cmake).
llvm_dir() { echo "/usr/lib/llvm-$1/lib/cmake/llvm"; }

build_main() {
  # MLIR 19 is installed with everything else: its tests must run, not skip.
  # -Werror on memjit's own code: the g++ builds are warning-free and stay so.
  configure build -DLLVM_DIR="$(llvm_dir "$LLVM_MAJOR")" -DMEMJIT_REQUIRE_MLIR=ON -DMEMJIT_WERROR=ON
  log "building (Release, $JOBS jobs)"
  cmake --build build -j "$JOBS"
}

# run_ctest <dir> [ctest args...]: runs the tests, then says which were skipped and why.
run_ctest() {
  local dir=$1; shift
  local status=0
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS" --output-junit junit.xml "$@" || status=$?
  report_skips "$dir/junit.xml"
  return $status
}

# Skipped tests, counted and grouped by the reason each printed (GTEST_SKIP's message).
report_skips() {
  python3 - "$1" <<'PY'
import collections, sys, xml.etree.ElementTree as ET
try:
    cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
except (OSError, ET.ParseError):
    sys.exit(0)
reasons = collections.OrderedDict()
for case in cases:
    if case.find("skipped") is None:
        continue
    out = (case.findtext("system-out") or "").splitlines()
    why = next((out[i + 1].strip() for i, line in enumerate(out[:-1]) if line.endswith(": Skipped")),
               "no reason printed")
    reasons.setdefault(why, []).append(case.get("name"))
total = sum(len(v) for v in reasons.values())
print(f"\033[1m[dev.sh]\033[0m {total} test(s) skipped" + (":" if total else ""), file=sys.stderr)
for why, names in reasons.items():
    print(f"  {len(names):3d} x {why}\n        ({', '.join(names)})", file=sys.stderr)
PY
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
  cmake --build build-tsan -j "$JOBS" --target jit_concurrency_test jit_tiering_test
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp" \
    ./build-tsan/tests/jit/jit_concurrency_test
  # Tier-ups swapped in while several threads call, modules unloaded mid-tier-up.
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp" \
    ./build-tsan/tests/jit/jit_tiering_test
  # Large modules compiled in parts on several threads at once (module_parts.h).
  cmake --build build-tsan -j "$JOBS" --target jit_module_parts_test
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp" \
    ./build-tsan/tests/jit/jit_module_parts_test --gtest_filter='CompileInParts.*'
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

# The library and its tests against LLVM 22 (g++, so what does not include LLVM
# shares ccache entries with the main build). MLIR 22 cannot be installed beside
# MLIR 19, so the tests that compare with MLIR skip here, and say so; `--llvm 22`
# runs them. No benchmarks or examples: they add build time, not LLVM coverage.
llvm_next_pass() {
  install_packages "llvm-$LLVM_NEXT-dev"
  log "LLVM $LLVM_NEXT build (build-llvm$LLVM_NEXT): library and tests; MLIR $LLVM_NEXT is not installed"
  configure "build-llvm$LLVM_NEXT" -DLLVM_DIR="$(llvm_dir "$LLVM_NEXT")" \
    -DMEMJIT_BUILD_BENCH=OFF -DMEMJIT_BUILD_EXAMPLES=OFF -DMEMJIT_REQUIRE_MLIR=OFF -DMEMJIT_WERROR=ON \
    "${FORGET_PRIVATE_MLIR[@]}"
  cmake --build "build-llvm$LLVM_NEXT" -j "$JOBS"
  run_ctest "build-llvm$LLVM_NEXT"
}

# swap_mlir <from> <to>: replaces one MLIR version's packages with another's.
swap_mlir() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "replacing MLIR $1 with MLIR $2"
  # shellcheck disable=SC2046
  DEBIAN_FRONTEND=noninteractive $sudo apt-get remove -y -q $(mlir_packages "$1") "libmlir-$1"
  # shellcheck disable=SC2046
  install_packages $(mlir_packages "$2")
}

# A build folder that once used a private MLIR (below) forgets it when configured
# otherwise, so only --private-mlir runs compare with it.
FORGET_PRIVATE_MLIR=(-UMLIR_DIR -UMEMJIT_MLIR_OPT -UMEMJIT_MLIR_TRANSLATE -UMEMJIT_MLIR_RUNNER_UTILS_INCLUDE_DIR
  -UMEMJIT_MLIR_C_RUNNER_UTILS_LIB -UMEMJIT_MLIR_RUNNER_UTILS_LIB)

# private_mlir <dir>: prints the prefix of MLIR $LLVM_NEXT's Debian packages,
# downloaded and unpacked (not installed) into <dir>/mlir-<version>, the version
# of the installed libLLVM, which the unpacked libMLIR links. No root needed; the
# tools find their libMLIR through their RUNPATH ($ORIGIN/../lib).
private_mlir() {
  local version dir
  version=$(dpkg-query -W -f='${Version}' "libllvm$LLVM_NEXT")
  dir="$ROOT/$1/mlir-${version#*:}"
  local prefix="$dir/root/usr/lib/llvm-$LLVM_NEXT"
  if [ ! -x "$prefix/bin/mlir-opt" ] || [ ! -f "$prefix/include/mlir/ExecutionEngine/CRunnerUtils.h" ]; then
    log "unpacking MLIR $version into $dir (not installed)"
    rm -rf "$dir"
    mkdir -p "$dir/debs"
    local debs=()
    for p in $(mlir_packages "$LLVM_NEXT") "libmlir-$LLVM_NEXT"; do debs+=("$p=$version"); done
    # (set -e does not reach into the $(...) this runs in: each step says if it failed)
    (cd "$dir/debs" && apt-get download -q "${debs[@]}") >&2 || return 1
    for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root" || return 1; done
  fi
  echo "$prefix"
}

# `test --llvm 22 [--private-mlir]`: the whole suite, conformance included,
# against LLVM and MLIR 22. Without --private-mlir the packages are swapped and
# MLIR 19 is put back however this ends.
llvm_next_full_pass() {
  local private=$1 mlir=("${FORGET_PRIVATE_MLIR[@]}")
  install_packages "${BASE_PACKAGES[@]}" "llvm-$LLVM_NEXT-dev"
  if [ "$private" -eq 1 ]; then
    local prefix
    prefix=$(private_mlir "build-llvm$LLVM_NEXT")
    mlir=(-DMLIR_DIR="$prefix/lib/cmake/mlir" -DMEMJIT_MLIR_OPT="$prefix/bin/mlir-opt"
      -DMEMJIT_MLIR_TRANSLATE="$prefix/bin/mlir-translate" -DMEMJIT_MLIR_RUNNER_UTILS_INCLUDE_DIR="$prefix/include")
  else
    trap 'swap_mlir "$LLVM_NEXT" "$LLVM_MAJOR"' EXIT
    swap_mlir "$LLVM_MAJOR" "$LLVM_NEXT"
  fi
  configure "build-llvm$LLVM_NEXT" -DLLVM_DIR="$(llvm_dir "$LLVM_NEXT")" \
    -DMEMJIT_BUILD_BENCH=OFF -DMEMJIT_BUILD_EXAMPLES=ON -DMEMJIT_REQUIRE_MLIR=ON "${mlir[@]}"
  log "building against LLVM and MLIR $LLVM_NEXT (build-llvm$LLVM_NEXT)"
  cmake --build "build-llvm$LLVM_NEXT" -j "$JOBS"
  run_ctest "build-llvm$LLVM_NEXT"
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
        -artifact_prefix="build-fuzz/artifacts/$name-" -print_final_stats=1 \
        "$work" "$corpus" 2> "build-fuzz/$name.log"; then
      tail -40 "build-fuzz/$name.log" >&2
      log "FAILED: $name (crash input in build-fuzz/artifacts/)"
      failed=1
    else
      # libFuzzer's final stats: how much this run exercised (the machine's load shows here too).
      log "$name: $(awk '/^stat::number_of_executed_units:/ {n = $2} /^stat::average_exec_per_sec:/ {r = $2}
        END {printf "%d executions, %d exec/s", n, r}' "build-fuzz/$name.log")"
    fi
  done
  return $failed
}

# The differential tester: random kernel-language programs against its reference
# interpreter (tests/difftest). It prints its seed first; a failure prints the
# reduced program as a regression test.
run_difftest() {
  local seconds=$1
  build_main
  log "differential testing for ${seconds}s"
  ./build/tests/difftest/memjit-difftest --seconds "$seconds"
}

# The mutation score (tests/difftest/mutants.py): the tester against each
# deliberate codegen bug of a build configured with -DMEMJIT_MUTANTS=ON. Only
# the sources holding a mutant differ from build/'s, so the rest hits ccache.
build_mutants() {
  configure build-mutants -DLLVM_DIR="$(llvm_dir "$LLVM_MAJOR")" -DMEMJIT_REQUIRE_MLIR=ON -DMEMJIT_WERROR=ON \
    -DMEMJIT_MUTANTS=ON
  cmake --build build-mutants -j "$JOBS" --target memjit-difftest
}
run_mutants() {
  local seconds=$1
  build_mutants
  log "mutation score: every mutant for up to ${seconds}s"
  python3 tests/difftest/mutants.py --tester build-mutants/tests/difftest/memjit-difftest --budget "$seconds"
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
    fast=0 llvm="" private_mlir=0
    while [ $# -gt 0 ]; do
      case "$1" in
        --fast) fast=1 ;;
        --llvm) llvm=${2:-}; shift ;;
        --private-mlir) private_mlir=1 ;;
        *) log "unknown option $1"; exit 2 ;;
      esac
      shift
    done
    if [ -n "$llvm" ]; then
      [ "$llvm" = "$LLVM_NEXT" ] || { log "--llvm takes $LLVM_NEXT"; exit 2; }
      llvm_next_full_pass "$private_mlir"
      log "all tests passed against LLVM and MLIR $LLVM_NEXT"
      exit 0
    fi
    [ $private_mlir -eq 0 ] || { log "--private-mlir goes with --llvm $LLVM_NEXT"; exit 2; }
    install_packages
    build_main
    run_ctest build
    llvm_next_pass
    if [ $fast -eq 0 ]; then
      sanitizer_pass
      thread_sanitizer_pass
      log "mutation score, briefly: eight mutants, each caught within 60 s (./dev.sh mutants: all)"
      build_mutants
      run_ctest build-mutants -R difftest_mutants
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
    status=0
    run_fuzzers "${1:-60}" || status=1
    run_difftest "${1:-60}" || status=1
    exit $status
    ;;
  mutants)
    install_packages
    run_mutants "${1:-300}"
    ;;
  *)
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    [ "$cmd" = help ] || exit 2
    ;;
esac
