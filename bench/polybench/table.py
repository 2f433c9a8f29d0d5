#!/usr/bin/env python3
"""The PolyBench table of docs/benchmarks.md from bench_polybench's JSON output.

    bench_polybench --benchmark_filter=/LARGE --benchmark_out=polybench.json --benchmark_out_format=json
    bench/polybench/table.py polybench.json [more.json ...] [LARGE]

Several files (runs of parts of the suite) are merged; a later file's figure replaces an earlier one's. With
--benchmark_repetitions, a figure is the median of the repetitions.

Serial systems are compared by the benchmark thread's CPU time (on a shared machine the wall time of a one-thread
kernel also counts the time other processes held its core); parallel ones by wall time. `vs best` is the faster of
g++ and clang over memjit (above 1: memjit faster); `par` is native_omp over memjit_par; `checked` is memjit_checked
over memjit (its cost).
"""
import json
import math
import sys


# PolyBench's order (runs with --benchmark_enable_random_interleaving come out shuffled).
KERNELS = ["correlation", "covariance", "gemm", "gemver", "gesummv", "symm", "syr2k", "syrk", "trmm", "2mm", "3mm",
           "atax", "bicg", "doitgen", "mvt", "cholesky", "durbin", "gramschmidt", "lu", "ludcmp", "trisolv", "deriche",
           "floyd-warshall", "nussinov", "adi", "fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d"]


def fmt(ms):
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}"


def main():
    files = [a for a in sys.argv[1:] if a.endswith(".json")]
    rest = [a for a in sys.argv[1:] if not a.endswith(".json")]
    dataset = rest[0] if rest else "LARGE"
    benchmarks = [b for f in files for b in json.load(open(f))["benchmarks"]]
    runs = {}
    order = []
    for b in benchmarks:
        parts = b["name"].split("/")  # Kernel/polybench_<k>/<system>/<DATASET>[/real_time]
        if len(parts) < 4 or parts[3] != dataset or b.get("error_occurred"):
            continue
        # With --benchmark_repetitions the median stands for the runs (it follows them in the output).
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        kernel = parts[1][len("polybench_"):]
        if kernel not in runs:
            runs[kernel] = {}
            order.append(kernel)
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        runs[kernel][parts[2]] = (b["cpu_time"] * scale, b["real_time"] * scale)

    order.sort(key=lambda k: KERNELS.index(k) if k in KERNELS else len(KERNELS))
    print("| kernel | memjit ms | g++ ms | clang ms | vs best | memjit_par ms | native_omp ms | par | checked ms | checked |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    ratios, pars, checks = [], [], []
    for k in order:
        r = runs[k]
        cell = lambda s, i=0: fmt(r[s][i]) if s in r else "—"
        row = [k, cell("memjit"), cell("native_gcc"), cell("native_clang")]
        if all(s in r for s in ("memjit", "native_gcc", "native_clang")):
            ratio = min(r["native_gcc"][0], r["native_clang"][0]) / r["memjit"][0]
            ratios.append(ratio)
            row.append(f"{ratio:.2f}x")
        else:
            row.append("—")
        if "memjit_par" in r and "native_omp" in r:
            par = r["native_omp"][1] / r["memjit_par"][1]
            pars.append(par)
            row += [cell("memjit_par", 1), cell("native_omp", 1), f"{par:.2f}x"]
        else:
            row += ["", "", ""]
        if "memjit_checked" in r and "memjit" in r:
            cost = r["memjit_checked"][0] / r["memjit"][0]
            checks.append(cost)
            row += [cell("memjit_checked"), f"{cost:.2f}x"]
        else:
            row += ["—", "—"]
        print("| " + " | ".join(row) + " |")
    geo = lambda v: math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
    print(f"| **geomean** ({len(ratios)} serial, {len(pars)} parallel) | | | | **{geo(ratios):.2f}x** | | | "
          f"**{geo(pars):.2f}x** | | **{geo(checks):.2f}x** |")


if __name__ == "__main__":
    main()
