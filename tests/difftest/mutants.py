#!/usr/bin/env python3
"""The differential tester's mutation score (issue 24, item 5).

Runs memjit-difftest from a fixed seed once per codegen mutant (a deliberate
bug compiled into a -DMEMJIT_MUTANTS=ON build, src/codegen/mutants.h, chosen by
MEMJIT_MUTANT=<name>) until it reports a failure or the time budget passes, and
prints a table: mutant, detected, programs until detection, seconds. A batch of programs that
runs for --stall seconds (90) without a result counts as a hang.

A failure counts only if the same program passes every oracle without the
mutant; a program that fails either way is a bug of main, not a detection, and
the search goes on after it. A crash of the tester (a mutant that corrupts
memory) counts as detected: a user would see it too.

    ./dev.sh mutants [seconds]            # every mutant, default budget 300 s
    tests/difftest/mutants.py --tester build-mutants/tests/difftest/memjit-difftest \
        [--seed 1] [--budget 300] [--only a,b] [--jobs 2] [--markdown]
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
SITE = re.compile(r'MEMJIT_MUTANT\("([a-z0-9_]+)"\)')
BATCH = re.compile(r"^batch from seed (\d+)$", re.M)
MISMATCH = re.compile(r"^MISMATCH seed (\d+) \(([^)]*)\): (.*)$", re.M)


def mutant_names(sources):
    """Every mutant, in the order their sites appear in the codegen sources."""
    names = []
    for path in sorted(pathlib.Path(sources).glob("*.cpp")):
        for name in SITE.findall(path.read_text()):
            if name not in names:
                names.append(name)
    return names


def fails_without_mutant(tester, seed, count=1):
    """Whether programs seed.. seed + count - 1 fail with no mutant (every oracle): a bug of main."""
    env = {k: v for k, v in os.environ.items() if k != "MEMJIT_MUTANT"}
    r = subprocess.run([tester, "--seed", str(seed), "--count", str(count), "--all-oracles", "--no-reduce"],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode != 0


def run_tester(command, env, stall):
    """(return code, output) of the tester; return code None when a batch of
    programs ran `stall` seconds without finishing (the tester is then killed)."""
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    last = [time.monotonic()]

    def read():
        for line in proc.stdout:
            lines.append(line)
            last[0] = time.monotonic()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while proc.poll() is None:
        if time.monotonic() - last[0] > stall:
            proc.kill()
            proc.wait()
            reader.join()
            return None, "".join(lines)
        time.sleep(0.5)
    reader.join()
    return proc.returncode, "".join(lines)


def run_mutant(tester, name, seed, budget, stall):
    """(detected, programs, seconds, how) for one mutant."""
    env = dict(os.environ, MEMJIT_MUTANT=name)
    start = time.monotonic()
    first = seed
    ignored = []
    while True:
        left = budget - (time.monotonic() - start)
        if left <= 1:
            return False, None, time.monotonic() - start, f"survived (main fails seeds {ignored})"
        code, out = run_tester([tester, "--seed", str(first), "--seconds", f"{left:.0f}", "--stop-at-failure",
                                "--no-reduce", "--progress"], env, stall)
        if code is None or code < 0:
            # The batch that crashed or hung must pass without the mutant (16 programs, every oracle).
            batches = BATCH.findall(out)
            bad = int(batches[-1]) if batches else first
            if fails_without_mutant(tester, bad, 16):
                ignored.append(bad)
                first = bad + 16
                continue
            how = f"hang (no result in {stall:.0f} s)" if code is None else f"crash (signal {-code})"
            return True, bad - seed + 1, time.monotonic() - start, how + " in the batch from here"
        found = MISMATCH.findall(out)
        if code != 0 and not found:
            tail = out.strip().splitlines()[-1:] or ["no output"]
            return True, None, time.monotonic() - start, f"tester failed: {tail[0][:80]}"
        if not found:  # the tester used the whole budget
            return False, None, time.monotonic() - start, "survived" + (f" (main fails seeds {ignored})" if ignored else "")
        for s, oracle, what in found:
            s = int(s)
            if fails_without_mutant(tester, s):
                ignored.append(s)
                continue
            return True, s - seed + 1, time.monotonic() - start, f"{oracle}: {what[:70]}"
        first = max(int(s) for s, _, _ in found) + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tester", required=True, help="memjit-difftest of a -DMEMJIT_MUTANTS=ON build")
    ap.add_argument("--sources", default=str(HERE.parent.parent / "src" / "codegen"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=300, help="seconds per mutant")
    ap.add_argument("--only", default="", help="comma-separated mutant names")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once")
    ap.add_argument("--stall", type=float, default=90, help="seconds a batch may run before it counts as a hang")
    ap.add_argument("--min-score", type=float, default=0.95, help="fail below this fraction detected")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    a = ap.parse_args()

    names = mutant_names(a.sources)
    if a.only:
        wanted = a.only.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            sys.exit(f"mutants.py: no such mutant: {', '.join(unknown)} (known: {', '.join(names)})")
        names = wanted
    if not names:
        sys.exit(f"mutants.py: no MEMJIT_MUTANT sites in {a.sources}")
    print(f"mutants.py: {len(names)} mutants, seed {a.seed}, {a.budget:.0f} s each, {a.jobs} at once", flush=True)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {pool.submit(run_mutant, a.tester, n, a.seed, a.budget, a.stall): n for n in names}
        for f in concurrent.futures.as_completed(futures):
            n = futures[f]
            results[n] = f.result()
            det, programs, secs, how = results[n]
            print(f"  {n}: {'detected' if det else 'SURVIVED'} after {secs:.1f} s"
                  f"{f', {programs} programs' if programs else ''} ({how})", flush=True)

    rows = [(n, "yes" if results[n][0] else "no", str(results[n][1]) if results[n][1] else "-",
             f"{results[n][2]:.1f}", results[n][3]) for n in names]
    head = ("mutant", "detected", "programs", "seconds", "how")
    if a.markdown:
        print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    else:
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
        for row in [head] + rows:
            print("  ".join(c.ljust(widths[i]) if i < 4 else c for i, c in enumerate(row)))
    detected = sum(1 for n in names if results[n][0])
    score = detected / len(names)
    print(f"mutation score: {detected}/{len(names)} detected ({100 * score:.0f}%)")
    return 0 if score >= a.min_score else 1


if __name__ == "__main__":
    sys.exit(main())
