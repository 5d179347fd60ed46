#!/usr/bin/env python3
"""Write the table behind GpuAlgorithm::automatic from a bench_gpu_line_solvers JSON.

For every batch case batch/<T>/<source>/<algorithm>/<axis>/<batch>x<N> it ranks the algorithms,
fastest first (median real time when repetitions were run), and writes one row per case to
solvers/tridiagonal/cuda/gpu_selection_table.inc, with the times as a comment. auto takes the
first of a row's ranking that can run the caller's lines (fused load/store callers cannot run
the in-place-only thomas-shuffle and cusparse). The algorithms and their enumerators are the rows of
solvers/tridiagonal/line_solvers.hpp (tools/solver_tables.py reads them); a row's width is their number.

Usage: tools/gpu_selection_table.py bench/results/h100-gpu-line-solvers.json [OUT.inc]
"""
import json
import re
import statistics
import sys
from collections import defaultdict

from solver_tables import gpu_algorithms  # (beside this script)

ENUM = gpu_algorithms()  # name -> GpuAlgorithm enumerator, from solvers/tridiagonal/line_solvers.hpp
CASE = re.compile(r"^batch/(float|double)/(uniform|arrays)/([a-z-]+)/([xy])/(\d+)x(\d+)")


def main():
    src = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "solvers/tridiagonal/cuda/gpu_selection_table.inc"
    with open(src) as f:
        data = json.load(f)
    times = defaultdict(list)
    for b in data["benchmarks"]:
        if b.get("error_occurred") or b.get("run_type") == "aggregate":
            continue
        m = CASE.match(b["name"])
        if m and m.group(3) in ENUM:
            times[m.groups()].append(b["real_time"])
    cases = defaultdict(dict)
    for (t, source, alg, axis, batch, n), ts in times.items():
        cases[(t, source, axis, int(batch), int(n))][alg] = statistics.median(ts)
    if not cases:
        sys.exit(f"{src}: no batch/... cases")
    lines = [f"// Written by tools/gpu_selection_table.py from {src.split('/')[-1]} "
             f"({data['context'].get('cuda_device', '?')}); do not edit."]
    for (t, source, axis, batch, n), algs in sorted(cases.items()):
        ranked = sorted(algs, key=algs.get)
        ranking = ", ".join([ENUM[a] for a in ranked] + ["automatic"] * (len(ENUM) - len(ranked)))
        others = ", ".join(f"{a} {us:.1f}" for a, us in sorted(algs.items(), key=lambda kv: kv[1]))
        elem = 8 if t == "double" else 4
        lines.append(f"{{{'true' if axis == 'x' else 'false'}, {elem}, {'true' if source == 'uniform' else 'false'}, "
                     f"{n}, {batch}, {{{ranking}}}}},  // us: {others}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
