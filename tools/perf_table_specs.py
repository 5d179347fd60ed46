"""The tables tools/perf_tables.py writes: per NAME, which bench/results JSON file and which of its
benchmarks fill which cells; and the machines, by the prefix of a result file's name."""
import re

# The machines, by the prefix of a result file's name (the longest prefix that matches wins).
MACHINES = {
    "cpu-2core": "the 2-core development machine, AMD EPYC",
    "cpu-2core-1thread": "the 2-core development machine, AMD EPYC, one OpenMP thread",
    "cpu2": "the 2-core development machine, AMD EPYC",
    "h100": "one NVIDIA H100 80GB HBM3, sm_90",
    "h100x4": "four NVIDIA H100 80GB HBM3 of one host, NCCL",
    "h100host16": "the 16-core host of the H100 machine",
}

# What a cell shows, from one benchmark b (its median over repetitions where it has several);
# three significant digits each:
#   {ms} {us} {s}: real time in that unit; {time}: in ms below a second, else in s;
#   {GBs} {TBs}: bytes/s; {Gpts} {Mpts}: points/s; {Munknowns}: unknowns/s in M; {GFLOP}: flops;
#   {GFLOP_s}: the counter GFLOP/s;
#   {copy}: bytes/s as a fraction of the table's "copy" benchmark's;
#   any other counter by its name (factor_s), in ms (factor_ms), with two decimals (factor_s_2f).
# A table has one "cell" template per benchmark of a row, or "cell_columns" (several templates
# over the row's one benchmark). Options:
#   "ratio": [i, j]          a column: the time of cell i over that of cell j;
#   "speedup": [counter, f]  the field {speedup}: the counter over that of benchmark f(name);
#   "difference": [(label, i, j), ...]  rows: the time of row i's benchmark less row j's, and its
#                            share of row i's;
#   "blank_zero"             a cell of 0 (a counter the benchmark does not measure) shows "-";
#   "missing"                a cell whose benchmark the JSON lacks shows "-" (else an error);
#   "missing_rows"           a row whose benchmark the JSON lacks is left out;
#   "versus": [[label, r, rows], ...]  rows: per column, the time of row r over the least of rows';
#   "note"                   words after the source line.
GPU_LINE_SOLVERS = ("thomas", "thomas-shuffle", "thomas-naive", "thomas-pcr", "pcr", "cusparse")
BATCH_LENGTHS = (64, 128, 256, 512, 1024)

TABLES = {
    "cpu-2core-line-solvers": {
        "json": "cpu-2core-line-solvers.json",
        "copy": "copy/omp/1074MB/real_time",
        "header": ["256³, one solve per line", "x", "y", "z"],
        "cell": "{ms} ms, {GBs} GB/s ({copy})",
        "rows": [
            (f"{precision}, {kind}", [f"solve/{precision}/{key}/256^3/{axis}/real_time" for axis in "xyz"])
            for precision in ("double", "float")
            for kind, key in (("uniform matrix", "uniform"), ("diffusion (kappa array)", "diffusion"),
                              ("arrays a, b, c", "arrays"))
        ],
        "note": "GB/s: the minimal bytes over the time (table at the top); in brackets, as a fraction of "
                "the 1 GiB copy of the same run",
    },
    "cpu-2core-copy": {
        "json": "cpu-2core-adi.json",
        "header": ["copy baseline (read + write, 2 threads)", "time", "GB/s"],
        "cell_columns": ["{ms} ms", "{GBs}"],
        "rows": [("134 MB", ["copy/omp/134MB/real_time"]), ("1 GiB", ["copy/omp/1074MB/real_time"]),
                 ("134 MB, memcpy on 1 thread", ["copy/memcpy_1thread/134MB/real_time"])],
    },
    "cpu-2core-douglas": {
        "json": "cpu-2core-adi.json",
        "copy": "copy/omp/1074MB/real_time",
        "header": ["Douglas step, 256³", "time", "points/s", "GB/s (7 passes)", "of the 1 GiB copy"],
        "cell_columns": ["{ms} ms", "{Mpts} M", "{GBs}", "{copy}"],
        "rows": [("double", ["adi_douglas_step/cpu/double/256/real_time"]),
                 ("float", ["adi_douglas_step/cpu/float/256/real_time"])],
    },
    "h100-douglas": {
        "json": "h100-adi.json",
        "header": ["solver", "double", "float"],
        "cell": "{ms} ms ({Gpts} Gpts/s)",
        "rows": [(label, [f"adi_douglas_step/cuda/{key}/{p}/256/real_time" for p in ("double", "float")])
                 for label, key in (("`thomas` on every axis", "thomas"), ("`thomas-pcr` along x", "thomas-pcr-x"),
                                    ("`thomas-pcr` on every axis", "thomas-pcr"), ("`auto`", "auto"))],
    },
    "h100-poisson": {
        "json": "h100-poisson.json",
        "header": ["one solve, double", "bcr", "bcr4", "cuFFT"],
        "cell": "{ms} ms",
        "rows": [(label, [f"gpu_poisson{d}/{m}/double/{n}/manual_time" for m in ("bcr", "bcr4", "fft")])
                 for label, d, n in (("4095²", "2d", 4095), ("8191²", "2d", 8191), ("255³", "3d", 255))],
    },
    **{f"h100-poisson-{p}": {
        "json": "h100-poisson.json",
        "header": [p, "bcr", "bcr4", "fft (cuFFT)", "fft / bcr4"],
        "cell": "{ms} ms ({Gpts} Gpts/s)",
        "ratio": [2, 1],
        "rows": [(f"{d.upper()} {n}{'²' if d == '2d' else '³'}",
                  [f"gpu_poisson{d}/{m}/{p}/{n}/manual_time" for m in ("bcr", "bcr4", "fft")])
                 for d, sizes in (("2d", (127, 255, 511, 1023, 2047, 4095, 8191)), ("3d", (31, 63, 127, 255, 511)))
                 for n in sizes],
    } for p in ("double", "float")},
    "cpu-2core-block-tridiagonal": {
        "json": "cpu-2core-block-tridiagonal.json",
        "copy": "copy/omp/1074MB/real_time",
        "header": ["M", "precision", "variant", "time", "unknowns/s", "GB/s (minimal traffic)", "fraction of copy",
                   "speedup over LAPACK gbsv"],
        "cell_columns": ["{ms} ms", "{Munknowns} M", "{GBs}", "{copy}", "{speedup}x"],
        "speedup": ["unknowns/s", lambda run: re.sub(r"/M(\d)/.*", r"/M\1/lapack_gbsv/y/1024of16384/iterations:1/real_time", run)],
        "rows": [(f"{m} | {p} | {label}", [f"block/{p}/M{m}/{key}/real_time"])
                 for p in ("double", "float") for m in range(2, 9)
                 for label, key in (("stored/y", "stored/y"), ("stored/x", "stored/x"), ("generated/y", "generated/y"),
                                    ("uniform/y", "uniform/y"),
                                    ("LAPACK gbsv (1024 of the systems)", "lapack_gbsv/y/1024of16384/iterations:1"))],
    },
    **{f"h100-gpu-line-solvers-256-{p}": {
        "json": "h100-gpu-line-solvers.json",
        "copy": "copy/d2d/134MB/min_time:0.100/manual_time",
        "header": [f"256³, {p}", "x", "y", "z"],
        "cell": "{us} µs ({copy})",
        "missing": True,
        "rows": [(f"{kind}, {alg}", [f"solve/{p}/{kind}/{alg}/256^3/{axis}/min_time:0.100/manual_time" for axis in "xyz"])
                 for kind in ("uniform", "arrays") for alg in GPU_LINE_SOLVERS],
        "note": "In brackets, the fraction of the device copy of the same run on the minimal traffic",
    } for p in ("double", "float")},
    **{f"h100-gpu-line-batches-{p}": {
        "json": "h100-gpu-line-solvers.json",
        "copy": "copy/d2d/134MB/min_time:0.100/manual_time",
        "header": [f"65536 systems of length N along x, {p}, µs"] + [f"N = {n}" for n in BATCH_LENGTHS],
        "cell": "{us} ({copy})",
        "missing": True,
        "rows": [(f"{kind}, {alg}", [f"batch/{p}/{kind}/{alg}/x/65536x{n}/min_time:0.100/manual_time" for n in BATCH_LENGTHS])
                 for kind in ("uniform", "arrays") for alg in GPU_LINE_SOLVERS],
        "versus": [[f"{kind}: cuSPARSE / best of ours", 6 * k + 5, list(range(6 * k, 6 * k + 5))]
                   for k, kind in enumerate(("uniform", "arrays"))],
    } for p in ("double", "float")},
    "cpu-2core-poisson-thesis": {
        "json": "cpu-2core-poisson.json",
        "header": ["N x Q, double, ms", "bcr", "bcr4", "fft"],
        "cell": "{ms}",
        "rows": [(f"{n} x {q}", [f"thesis/{m}/double/{n}/{q}/real_time" for m in ("bcr", "bcr4", "fft")])
                 for n in (3, 15, 63, 127) for q in (127, 1023, 4095)],
    },
    "h100-poisson-thesis": {
        "json": "h100-poisson.json",
        "header": ["N x Q, ms"] + [f"{m} {p}" for p in ("double", "float") for m in ("bcr", "bcr4", "fft")],
        "cell": "{ms}",
        "rows": [(f"{n} x {q}", [f"gpu_thesis/{m}/{p}/{n}/{q}/manual_time"
                                 for p in ("double", "float") for m in ("bcr", "bcr4", "fft")])
                 for n in (3, 15, 63, 127) for q in (127, 1023, 4095)],
    },
    "cpu-2core-bvp": {
        "json": "cpu-2core-bvp.json",
        "header": ["n", "A1D", "A2D", "A2SD (mixed)", "A2D speedup over A1D"],
        "cell": "{ms} ms",
        "ratio": [0, 1],
        "rows": [(f"2^{k}", [f"A1D/sequential/double/n:{2 ** k}/real_time", f"A2D/divide-and-conquer/double/n:{2 ** k}/real_time",
                             f"A2SD/divide-and-conquer/mixed/n:{2 ** k}/real_time"])
                 for k in (20, 22, 24, 26)],
    },
    "h100-bvp": {
        "json": "h100-bvp.json",
        "header": ["n", "A2D device scan", "A2SD device scan", "compensated device scan", "A2S (float) device scan",
                   "A2D host carries (paper's hybrid)", "A2SD host carries"],
        "cell": "{ms} ms ({copy_fraction_2f})",
        "rows": [(f"2^{k}", [f"{v}/n:{2 ** k}/manual_time" for v in (
                     "A2D/double/device-scan", "A2SD/mixed/device-scan", "A2SC/compensated/device-scan",
                     "A2S/float/device-scan", "A2D/double/host-carries", "A2SD/mixed/host-carries")])
                 for k in (20, 22, 24, 26, 28)],
        "note": "In brackets, the fraction of the run's copy (copy/d2d/2GiB) on the minimal 2 words per unknown",
    },
    "h100-block-tridiagonal": {
        "json": "h100-block-tridiagonal.json",
        "header": ["M", "T", "stored: work-sharing", "stored: thread-per-system", "generated: interleaved",
                   "generated: planar", "uniform (factored): interleaved", "uniform (factored): planar"],
        "cell": "{ms} ms ({copy_fraction_2f})",
        "missing": True,
        "rows": [(f"{m} | {p}", [f"{v}/{p}/M{m}/{a}/min_time:0.050/manual_time" for v, a in (
                     ("stored", "work-sharing"), ("stored", "thread-per-system"), ("generated", "auto/interleaved"),
                     ("generated", "auto/planar"), ("uniform", "auto/interleaved"), ("uniform", "auto/planar"))])
                 for p in ("double", "float") for m in range(2, 9)],
        "note": "In brackets, the fraction of the run's device copy on the minimal traffic",
    },
    **{f"cpu-2core-distributed-np{np}": {
        "json": f"cpu-2core-distributed-np{np}.json",
        "copy": "copy/memcpy_1thread/134MB/real_time" if np == 1 else None,
        "header": ["case", "time (ms)", "points/s (G)", "GB/s" + (" (of the 1-thread copy)" if np == 1 else ""),
                   "reduce (ms)", "exchange wait (ms)", "reduced solve (ms)", "recover (ms)", "communication (ms)"],
        "cell_columns": ["{ms}", "{Gpts}", "{GBs}" + (" ({copy})" if np == 1 else ""), "{reduce_ms}", "{exchange_ms}",
                         "{reduced_solve_ms}", "{recover_ms}", "{comm_ms}"],
        "rows": [(label, [run]) for label, run in (
            ("z lines 256³, single-process Thomas (`lines/z`)", "lines/z/256x256x256/iterations:10/manual_time"),
            ("z lines 256³, split solve (`split_lines/z`)", "split_lines/z/256x256x256/iterations:10/manual_time"),
            ("z lines 256³, split solve, all-to-all", "split_lines/z/alltoall/256x256x256/iterations:10/manual_time"),
            ("z lines 256²×128, split (weak-scaling base)", "split_lines/z/256x256x128/iterations:10/manual_time"),
            ("Douglas step 256³", "douglas_step/256x256x256/iterations:10/manual_time"),
            ("Douglas step 256²×128 (weak-scaling base)", "douglas_step/256x256x128/iterations:10/manual_time"))
],
        "missing_rows": True,
        "note": ("OMP_NUM_THREADS=2, one process" if np == 1 else "mpirun -np 2, OMP_NUM_THREADS=1, z split over the "
                 "ranks") + "; an iteration's time is the slowest rank's",
    } for np in (1, 2)},
    "cpu-2core-poisson-quiet": {
        "json": "cpu-2core-poisson-quiet.json",
        "header": ["double, wall time", "bcr", "bcr4", "fft (FFTW)"],
        "cell": "{ms} ms",
        "rows": [(label, [f"poisson{d}/{m}/double/{n}/real_time" for m in ("bcr", "bcr4", "fft")])
                 for label, d, n in (("2D 4095² (bcr/bcr4 refined)", "2d", 4095), ("3D 255³", "3d", 255))],
    },
    "cpu-2core-poisson": {
        "json": "cpu-2core-poisson.json",
        "header": ["double, wall time", "bcr", "bcr4", "fft (FFTW, MEASURE)"],
        "cell": "{ms} ms",
        "rows": [(f"{d.upper()} {n}{'²' if d == '2d' else '³'}",
                  [f"poisson{d}/{m}/double/{n}/real_time" for m in ("bcr", "bcr4", "fft")])
                 for d, sizes in (("2d", (127, 255, 511, 1023, 2047, 4095, 8191)), ("3d", (31, 63, 127, 255)))
                 for n in sizes],
    },
    **{f"{machine}-glioma": {
        "json": f"{machine}-glioma.json",
        "header": [f"glioma, {n}³", "time", "GB/s (minimal traffic)"],
        "cell_columns": ["{time}", "{GBs}"],
        "rows": [(label, [f"{kind}/{backend}/{p}/{n}/{suffix}real_time"])
                 for label, kind, p, suffix in (("Strang step, double", "glioma_step", "double", ""),
                                                ("Strang step, float", "glioma_step", "float", ""),
                                                ("one year (730 steps), double", "glioma_year", "double", "iterations:1/"),
                                                ("one year (730 steps), float", "glioma_year", "float", "iterations:1/"))]
                + ([("explicit step, double", [f"glioma_explicit_step/{backend}/double/{n}/real_time"])]
                   if backend == "cuda" else []),
    } for machine, backend, n in (("cpu-2core", "cpu", 128), ("h100", "cuda", 256))},
    "cpu2-sparse-direct": {
        "json": "cpu2-sparse-direct.json",
        "header": ["size (unknowns)", "solver", "analysis s", "factorization s", "refactorization s", "solve s",
                   "factor MB", "peak MB", "GFLOP (own count)", "GFLOP/s", "residual", "others' cores"],
        "cell_columns": ["{analysis_s}", "{factor_s}", "{refactor_s}", "{solve_s}", "{factor_MB}", "{peak_MB}",
                         "{GFLOP}", "{GFLOP_s}", "{residual}", "{others_cores_2f}"],
        "rows": [(f"{size if k == 0 else ''} | {label}", [f"sparse_direct/{stencil}/{n}/{key}/iterations:{it}/manual_time"])
                 for size, stencil, n, it in (("5pt 511² (263,169)", "5pt", 511, 3), ("5pt 1023² (1,050,625)", "5pt", 1023, 2),
                                              ("5pt 2047² (4,198,401)", "5pt", 2047, 1), ("7pt 63³ (274,625)", "7pt", 63, 1))
                 for k, (label, key) in enumerate((("ours", "ours"), ("CHOLMOD", "cholmod"),
                                                   ("CHOLMOD, 1 BLAS thread", "cholmod_blas1"), ("MUMPS", "mumps")))],
    },
    "h100-sparse-direct": {
        "json": "h100-sparse-direct.json",
        "header": ["size", "solver", "analysis ms", "factorization ms", "refactorization ms", "solve (device) ms",
                   "solve (host) ms", "GFLOP/s", "factor MB", "peak MB"],
        "cell_columns": ["{analysis_ms}", "{factor_ms}", "{refactor_ms}", "{solve_device_ms}", "{solve_ms}", "{GFLOP_s}",
                         "{factor_MB}", "{peak_MB}"],
        "blank_zero": True,
        "rows": [(f"{size if k == 0 else ''} | {label}", [f"gpu_sparse_direct/{stencil}/{n}/{key}/iterations:{it}/manual_time"])
                 for size, stencil, n, it, solvers in (
                     ("5pt 255²", "5pt", 255, 3, 3), ("5pt 511²", "5pt", 511, 3, 3), ("5pt 1023²", "5pt", 1023, 3, 1),
                     ("7pt 63³", "7pt", 63, 3, 3), ("7pt 127³", "7pt", 127, 2, 1))
                 for k, (label, key) in enumerate((("ours", "ours"), ("cuSOLVER (device API)", "cusolver"),
                                                   ("cuSOLVER `csrlsvchol` (factorization: all phases)",
                                                    "cusolver_lsvchol"))[:solvers])],
    },
    "cpu2-sparse-direct-1023": {
        "json": "cpu2-sparse-direct.json",
        "header": ["1023² Poisson (5-point), 1.05 M unknowns", "factorization", "solve", "analysis"],
        "cell_columns": ["{factor_s} s", "{solve_s} s", "{analysis_s} s"],
        "rows": [(label, [f"sparse_direct/5pt/1023/{key}/iterations:{it}/manual_time"])
                 for label, key, it in (("tridsim multifrontal", "ours", 2), ("CHOLMOD", "cholmod", 2),
                                        ("CHOLMOD, 1 BLAS thread", "cholmod_blas1", 2), ("MUMPS", "mumps", 2))],
    },
    "h100-sparse-direct-1023": {
        "json": "h100-sparse-direct.json",
        "header": ["1023² Poisson (5-point), 1.05 M unknowns", "factorization", "solve", "analysis"],
        "cell_columns": ["{factor_s} s", "{solve_s} s", "{analysis_s} s"],
        "rows": [("tridsim multifrontal", ["gpu_sparse_direct/5pt/1023/ours/iterations:3/manual_time"])],
    },
    "reaction-diffusion-cpu": {
        "json": "cpu-2core-1thread-reaction-diffusion.json",
        "header": ["deck (one step, double, 1 thread)", "time"],
        "cell": "{ms} ms",
        "rows": [(deck, [f"rd_step/{deck}/cpu/double/real_time"])
                 for deck in ("turing2d", "cross_diffusion2d", "brusselator3d")],
    },
    "cpu-2core-turing-reactions": {
        "json": "cpu-2core-1thread-reaction-diffusion.json",
        "header": ["Turing 256², one step, double, 1 thread", "time"],
        "cell": "{ms} ms",
        "rows": [("the deck (`inputs/turing2d.yaml`), reactions compiled", ["rd_step/turing2d/cpu/double/real_time"]),
                 ("the deck, reactions interpreted (`TRIDSIM_CXX=none`)",
                  ["rd_step/turing2d-interpreted/cpu/double/real_time"]),
                 ("its reactions set to 0", ["rd_step/turing2d-no-reactions/cpu/double/real_time"])],
        "difference": [("the reactions compiled (the difference)", 0, 2),
                       ("the reactions interpreted (the difference)", 1, 2)],
    },
    "reaction-diffusion-h100": {
        "json": "h100-reaction-diffusion.json",
        "header": ["deck (one step)", "double", "float"],
        "cell": "{ms} ms",
        "rows": [(deck, [f"rd_step/{deck}/cuda/{p}/real_time" for p in ("double", "float")])
                 for deck in ("turing2d", "cross_diffusion2d", "brusselator3d")],
    },
}
