#!/usr/bin/python3
"""65536 tridiagonal systems of 256 unknowns: tridsim.solve_lines on the whole batch at once,
against SciPy's solve_banded called once per system. Prints both times and the largest
difference of the solutions; exits non-zero if they disagree.

    examples/python/batched_vs_scipy.py [--lines 65536] [--scipy-lines 2048]"""
import argparse
import time

import numpy as np
import scipy.linalg

import tridsim

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--lines", type=int, default=65536)
parser.add_argument("--n", type=int, default=256)
parser.add_argument("--scipy-lines", type=int, default=2048, help="systems SciPy solves (its time is scaled)")
args = parser.parse_args()

rng = np.random.default_rng(0)
shape = (args.lines, args.n)  # one system per row: the lines run along axis 1
a, c = rng.uniform(-1, 0, shape), rng.uniform(-1, 0, shape)
b = 2.5 + rng.uniform(0, 1, shape)
d = rng.uniform(-1, 1, shape)

x = d.copy()
t0 = time.perf_counter()
tridsim.solve_lines(a, b, c, x, axis=1, overwrite_d=True)  # in place: x becomes the solution
ours = time.perf_counter() - t0

k = min(args.scipy_lines, args.lines)
banded = np.zeros((3, args.n))
t0 = time.perf_counter()
worst = 0.0
for q in range(k):
    banded[0, 1:], banded[1], banded[2, :-1] = c[q, :-1], b[q], a[q, 1:]
    worst = max(worst, np.abs(scipy.linalg.solve_banded((1, 1), banded, d[q]) - x[q]).max())
theirs = (time.perf_counter() - t0) * args.lines / k

print("tridsim.solve_lines: %8.1f ms for %d systems of %d" % (ours * 1e3, args.lines, args.n))
print("scipy solve_banded:  %8.1f ms (%d systems timed, scaled)  -> tridsim is %.0fx faster" % (theirs * 1e3, k, theirs / ours))
print("largest difference:  %.2e" % worst)
raise SystemExit(0 if worst < 1e-12 else 1)
