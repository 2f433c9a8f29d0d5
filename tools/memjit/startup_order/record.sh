#!/usr/bin/env bash
# Regenerates functions.llvm<MAJOR>.txt: every function of the memjit CLI that
# `memjit run` executes on bench_run's programs, in mangled form, for the
# linker to place side by side (see ../CMakeLists.txt). Runs each program
# under callgrind, which lists every function called, and maps the names
# back to the binary's mangled symbols.
#   tools/memjit/startup_order/record.sh build/tools/memjit/memjit DIR_WITH_LOWERED_LL [MAJOR]
# DIR_WITH_LOWERED_LL: the .ll files bench_run lowers (its temp directory,
# memjit_bench_run_<pid>). Takes a minute or two.
set -euo pipefail
memjit=$1 programs=$2 major=${3:-19}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ll in "$programs"/*.ll; do
  valgrind --tool=callgrind --callgrind-out-file="$work/$(basename "$ll").cg" \
    "$memjit" run "$ll" -e main --entry-point-result=void > /dev/null 2>&1
done
nm --defined-only "$memjit" | awk '$2 ~ /[tTwW]/ {print $3}' > "$work/mangled"
c++filt < "$work/mangled" > "$work/demangled"
cat "$work"/*.cg | sed -nE 's/^c?fn=\([0-9]+\) //p' | sort -u > "$work/executed"
python3 - "$work" > "$here/functions.llvm$major.txt" <<'PY'
import collections, re, sys
work = sys.argv[1]
by_name = collections.defaultdict(list)
for demangled, mangled in zip(open(f"{work}/demangled"), open(f"{work}/mangled")):
    by_name[demangled.rstrip("\n")].append(mangled.rstrip("\n"))
seen = set()
for line in open(f"{work}/executed"):
    for mangled in by_name.get(re.sub(r"'\d+$", "", line.rstrip("\n")), []):
        if mangled not in seen:
            seen.add(mangled)
            print(mangled)
PY
wc -l "$here/functions.llvm$major.txt"
