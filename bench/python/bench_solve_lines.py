#!/usr/bin/python3
"""A 65536 x 256 batch solved from Python (tridsim.solve_lines, UniformMatrix.solve), beside
SciPy's solve_banded looped over the lines, read against the copy bandwidth measured in the same
run. The cases match the C++ benchmarks' (bench_line_solvers: solve/<T>/<source>/256x65536/x and
65536x256/y; bench_gpu_line_solvers: batch/<T>/<source>/<algorithm>/{x,y}/65536x256), so the
two can be compared figure for figure.

  bench_solve_lines.py [--backend cpu|cuda] [--out results.json]

Counters as the C++ benchmarks': points/s, and bytes/s = minimal traffic / time (uniform: d read
and written, 2 words a point; arrays: a, b, c, d read and d written, 5 words a point).
Repeated in-place solves of I - w d2/dx2 with Neumann ends (rows summing to 1) keep the values
bounded and normal."""
import argparse
import json
import statistics
import time

import numpy as np
import scipy.linalg

import tridsim

N, BATCH, W = 256, 65536, 0.5


def rows(n, dtype):
    a = np.full(n, -W)
    c = np.full(n, -W)
    b = np.full(n, 1 + 2 * W)
    b[0] = b[-1] = 1 + W
    return [x.astype(dtype) for x in (a, b, c)]


def timed(fn, sync, repeats):
    fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def copy_bandwidth(xp, nbytes, sync):
    src = xp.ones(nbytes // 8)
    dst = xp.empty_like(src)
    seconds = timed(lambda: xp.copyto(dst, src), sync, 10)
    return 2 * nbytes / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--scipy-lines", type=int, default=2048, help="lines SciPy solves (its time is scaled)")
    args = parser.parse_args()
    if args.backend == "cuda":
        import cupy as xp
        sync = xp.cuda.get_current_stream().synchronize
        copy_name, copy_bytes = "copy/d2d/134MB", 1 << 27
    else:
        xp, sync = np, (lambda: None)
        copy_name, copy_bytes = "copy/numpy/1074MB", 1 << 30
    copy = copy_bandwidth(xp, copy_bytes, sync)
    results = {"backend": args.backend, "copy": {"name": copy_name, "bytes_per_second": copy}, "cases": []}
    print("%s: %.1f GB/s" % (copy_name, copy / 1e9))
    shapes = [("256x65536/x", (BATCH, N), 1), ("65536x256/y", (N, BATCH), 0)]
    if args.backend == "cuda":
        shapes = [("x/65536x256", (BATCH, N), 1), ("y/65536x256", (N, N, N), 1)]
    algorithms = ["auto", "thomas"] if args.backend == "cuda" else ["auto"]
    for dtype, tname in [(np.float64, "double"), (np.float32, "float")]:
        a, b, c = rows(N, dtype)
        M = tridsim.UniformMatrix(a, b, c)
        for shape_name, shape, axis in shapes:
            line = [N if k == axis else 1 for k in range(len(shape))]
            full = [xp.array(np.broadcast_to(x.reshape(line), shape), dtype=dtype) for x in (a, b, c)]  # stored
            vectors = [xp.asarray(x.reshape(line)) for x in (a, b, c)]
            d = xp.asarray(np.random.default_rng(0).uniform(-1, 1, shape).astype(dtype))
            cases = {
                "uniform": (2, lambda alg, chk: M.solve(d, axis=axis, algorithm=alg, check=chk, overwrite_d=True)),
                "uniform-vectors": (2, lambda alg, chk: tridsim.solve_lines(*vectors, d, axis=axis, algorithm=alg,
                                                                            check=chk, overwrite_d=True)),
                "arrays": (5, lambda alg, chk: tridsim.solve_lines(*full, d, axis=axis, algorithm=alg, check=chk,
                                                                overwrite_d=True)),
            }
            for source, (words, solve) in cases.items():
                for alg in algorithms:
                    for chk in (True, False):
                        seconds = timed(lambda: solve(alg, chk), sync, args.repeats)
                        points = float(np.prod(shape))
                        name = "python/%s/%s/%s/%s%s" % (tname, source, alg, shape_name, "" if chk else "/nocheck")
                        bps = points * words * np.dtype(dtype).itemsize / seconds
                        results["cases"].append({"name": name, "ms": seconds * 1e3, "points_per_second": points / seconds,
                                                 "bytes_per_second": bps, "copy_fraction": bps / copy})
                        print("%-58s %9.3f ms %8.2f Gpt/s %6.1f GB/s %.2f of copy"
                              % (name, seconds * 1e3, points / seconds / 1e9, bps / 1e9, bps / copy))
    if args.backend == "cpu":  # SciPy, one line at a time (its banded LU with pivoting)
        a, b, c = rows(N, np.float64)
        ab = np.zeros((3, N))
        ab[0, 1:], ab[1], ab[2, :-1] = c[:-1], b, a[1:]
        d = np.random.default_rng(0).uniform(-1, 1, (args.scipy_lines, N))
        seconds = timed(lambda: [scipy.linalg.solve_banded((1, 1), ab, line) for line in d], sync, 3)
        seconds *= BATCH / args.scipy_lines
        results["cases"].append({"name": "scipy/solve_banded/double/256x65536/x", "ms": seconds * 1e3,
                                 "points_per_second": BATCH * N / seconds, "lines_timed": args.scipy_lines})
        print("%-58s %9.1f ms (%d lines timed, scaled)" % ("scipy/solve_banded/double/256x65536/x", seconds * 1e3,
                                                           args.scipy_lines))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
