"""The tables tools/perf_tables.py writes: per NAME, which bench/results JSON file and which of its
benchmarks fill which cells; and the machines, by the prefix of a result file's name."""
import re

from solver_tables import gpu_algorithms  # (beside this script)

# The machines, by the prefix of a result file's name (the longest prefix that matches wins).
MACHINES = {
    "cpu-2core": "the 2-core development machine, AMD EPYC",
    "cpu-2core-1thread": "the 2-core development machine, AMD EPYC, one OpenMP thread",
    "cpu2": "the 2-core development machine, AMD EPYC",
    "h100": "one NVIDIA H100 80GB HBM3, sm_90",
    "h100x4": "four NVIDIA H100 80GB HBM3 of one host, NCCL",
    "h100host16": "the 16-core host of the H100 machine",
    "h100-host-cpu": "the 16-core host of the H100 machine",
    "h200": "one NVIDIA H200, sm_90",
    "h200x2": "two NVIDIA H200 of one host (NVLink), NCCL",
    "h200x4": "four NVIDIA H200 of one host (NVLink), NCCL",
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
#   "note"                   words after the source line;
#   "base": f                fields from two rows: {vs_base} the time of benchmark f(name) over this
#                            one's (a speed-up), {per_rank} that over the counter ranks (an
#                            efficiency), {rate_vs_base} points/s over f(name)'s.
# A run is a benchmark of the table's "json", or FILE::RUN, one of another file of bench/results
# (tridsim bench run lists are named DECK/NXxNYxNZ/npRANKS/TRANSPORT[/weak][/TREE]).
GPU_LINE_SOLVERS = tuple(gpu_algorithms())  # the rows of solvers/tridiagonal/line_solvers.hpp
BATCH_LENGTHS = (64, 128, 256, 512, 1024)

SPLIT_GPU = "split_gpu/{kind}/{transport}/b{b}/{grid}/iterations:20/manual_time"
LONG_SHAPES = (("256³", "256x256x256", "x"), ("256³", "256x256x256", "y"), ("256³", "256x256x256", "z"),
               ("1024² × 128", "1024x1024x128", "x"), ("1024² × 128", "1024x1024x128", "y"),
               ("256² × 1024", "256x256x1024", "z"), ("256² × 4096", "256x256x4096", "z"),
               ("4096 × 256²", "4096x256x256", "x"), ("256 × 4096 × 256", "256x4096x256", "y"),
               ("8192 × 128²", "8192x128x128", "x"), ("128² × 8192", "128x128x8192", "z"),
               ("65536 × 256", "65536x256x1", "x"), ("256 × 65536", "256x65536x1", "y"))


def _scaling(json, deck, rows, weak=False):
    """A table of tridsim bench runs: per row its time per step, points/s, and against the one-GPU
    run of the same grid (strong: speed-up and efficiency) or of the same size per GPU (weak)."""
    def base(run):
        parts = run.split("/")
        if weak:
            return "/".join([parts[0], "512x512x512", "np1", "none", "weak"] + parts[5:])
        return "/".join([parts[0], parts[1], "np1", "none"] + parts[4:])
    return {
        "json": json,
        "header": ["grid", "GPUs", "transport", "ms per step", "points/s"]
                  + (["efficiency (1 GPU's time over this)"] if weak else ["speed-up over 1 GPU", "efficiency"]),
        "cell_columns": ["{ms}", "{Gpts} G"] + (["{vs_base}"] if weak else ["{vs_base}", "{per_rank}"]),
        "base": base,
        "rows": [(f"{label} | {np} | {transport}", [f"{deck}/{grid}/np{np}/{transport}" + ("/weak" if weak else "") + tree])
                 for label, grid, np, transport, tree in rows],
    }


def _split(prefix):
    """The split solve of bench_gpu_distributed on 1 and 2 GPUs, from PREFIX-np1.json and PREFIX-np2.json."""
    return {
        "json": f"{prefix}-np1.json",
        "header": ["256² × 4096, z lines split, double", "transport", "1 GPU", "2 GPUs", "G unknowns/s per GPU (2 GPUs)",
                   "speed-up (2 GPUs)"],
        "base": lambda run: run.replace("-np2.json::", "-np1.json::"),
        "rows": [(f"{label} | {transport}",
                  [(f"{prefix}-np{np}.json::" + SPLIT_GPU.format(kind=kind, transport=transport, b=0, grid="256x256x4096"), cell)
                   for np, cell in ((1, "{ms} ms"), (2, "{ms} ms"), (2, "{Gpts_per_rank}"), (2, "{vs_base}"))])
                 for label, kind in (("rows shared (factored)", "shared"), ("coefficient arrays a, b, c", "arrays"))
                 for transport in ("gather", "alltoall")],
        "note": "One rank per GPU, NCCL; 20 iterations, an iteration's time the slowest rank's",
    }


TABLES_MORE = {
    **{f"{machine}-douglas-long": {
        "json": f"{machine}-adi-long-lines.json",
        "header": ["Douglas step (`auto`, Dirichlet faces)", "double", "float"],
        "cell": "{ms} ms ({Gpts} Gpts/s, {rate_vs_base} of 256³)",
        "base": lambda run: re.sub(r"/[0-9x]+/real_time$", "/256x256x256/real_time", run),
        "rows": [(label, [f"adi_douglas_long/cuda/{p}/{shape}/real_time" for p in ("double", "float")])
                 for label, shape in (("256³", "256x256x256"), ("512³", "512x512x512"), ("1024³", "1024x1024x1024"),
                                      ("2048² × 64", "2048x2048x64"), ("4096 × 256²", "4096x256x256"),
                                      ("256 × 4096 × 256", "256x4096x256"), ("256² × 4096", "256x256x4096"),
                                      ("8192 × 128²", "8192x128x128"), ("128² × 8192", "128x128x8192"))],
        "note": "In brackets, points/s as a fraction of the 256³ step's in the same precision",
    } for machine in ("h100", "h200")},
    **{f"{machine}-gpu-line-solvers-long": {
        "json": f"{machine}-gpu-line-solvers-long.json",
        "header": ["line solve (`auto`, in place)", "axis", "double, uniform (factored)", "double, arrays",
                   "float, uniform (factored)", "float, arrays"],
        "cell": "{Gpts} G ({rate_vs_base})",
        "base": lambda run: re.sub(r"/[0-9x]+/([xyz])/min", r"/256x256x256/\1/min", run),
        "rows": [(f"{label} | {axis}", [f"long/{p}/{src}/auto/{shape}/{axis}/min_time:0.100/manual_time"
                                         for p in ("double", "float") for src in ("uniform", "arrays")])
                 for label, shape, axis in LONG_SHAPES],
        "note": "Points/s; in brackets, as a fraction of the same precision and source's 256³ rate on that axis",
    } for machine in ("h100", "h200")},
    "h200-glioma-step": {
        "json": "h200-glioma-step.json",
        "header": ["glioma step (`strang-adi`, dt 0.5 d)", "double", "float"],
        "cell": "{ms} ms ({Gpts} Gpts/s)",
        "rows": [(f"{n}³", [f"glioma_step/cuda/{p}/{n}/real_time" for p in ("double", "float")]) for n in (256, 512)],
    },
    "h200-rows-lines": {
        "json": "h200-gpu-line-solvers-rows-lines.json",
        "header": ["coefficient arrays, double", "axis", "`auto`", "`thomas-naive`"],
        "cell": "{ms} ms ({copy_fraction_2f})",
        "missing": True,
        "rows": [(f"{label} | {axis}", [f"long/double/arrays/{alg}/{shape}/{axis}/min_time:0.100/manual_time"
                                         for alg in ("auto", "thomas-naive")])
                 for label, shape, axis in (("256³", "256x256x256", "y"), ("256³", "256x256x256", "z"),
                                            ("512³", "512x512x512", "y"), ("512³", "512x512x512", "z"),
                                            ("1024² × 128", "1024x1024x128", "y"), ("256² × 1024", "256x256x1024", "z"))],
        "note": "In brackets, the fraction of the run's device copy on the minimal traffic",
    },
    "h100-glioma-accuracy": {
        "json": "h100-glioma.json",
        "header": ["glioma 256³, one year", "explicit dt (limit)", "explicit max error", "strang-adi dt",
                   "strang-adi max error", "explicit wall", "strang-adi wall", "speed-up"],
        "cell_columns": ["{dt_explicit}", "{error_explicit}", "{dt_implicit}", "{error_implicit}", "{wall_explicit_s} s",
                         "{wall_implicit_s} s", "{speedup_2f}"],
        "rows": [("double", ["glioma_accuracy/cuda/256/iterations:1/real_time"])],
    },
    "h100-gpu-split-batches": {
        "json": "h100-gpu-distributed-np1.json",
        "header": ["z lines split, double", "rows", "transport", "ranks", "1 batch", "2 batches", "4 batches", "default"],
        "cell": "{ms} ms",
        "rows": [(f"{grid_label} | {kind} | {transport} | {np}",
                  [f"h100-gpu-distributed-np{np}.json::" + SPLIT_GPU.format(kind=kind, transport=transport, b=b, grid=grid)
                   for b in (1, 2, 4, 0)])
                 for grid_label, grid in (("256³", "256x256x256"), ("512² × 256", "512x512x256"))
                 for kind in ("shared", "arrays") for transport in ("gather", "alltoall") for np in (1, 2)],
        "note": "The np = 2 rows: two ranks on the one GPU (time-sliced), a correctness setting with a rough timing",
    },
    "h100-gpu-split-rows-ahead": {
        "json": "h100-gpu-distributed-rows-ahead-np1.json",
        "header": ["z lines, one rank, shared rows, gather, rows loaded ahead", "1 batch", "2 batches", "4 batches",
                   "default"],
        "cell": "{ms} ms ({copy})",
        "copy": "copy/d2d/134MB/min_time:0.100/manual_time",
        "rows": [(grid_label, [SPLIT_GPU.format(kind="shared", transport="gather", b=b, grid=grid) for b in (1, 2, 4, 0)])
                 for grid_label, grid in (("256³", "256x256x256"), ("512² × 256", "512x512x256"))],
        "note": "In brackets, the fraction of the run's device copy on the bytes counted",
    },
    "h100host16-split-transports": {
        "json": "h100-host-cpu-split-transports-np2.json",
        "header": ["z lines split, one thread per rank", "ranks", "gather", "all-to-all", "reduced solve: gather",
                   "all-to-all", "exchange wait: gather", "all-to-all", "MB sent per rank: gather", "all-to-all"],
        "rows": [(f"{label} | {np}", [(f"h100-host-cpu-split-transports-np{np}.json::split_lines/z/{t}{grid}/iterations:10/manual_time", cell)
                                      for cell in ("{ms} ms", "{reduced_solve_ms} ms", "{exchange_ms} ms", "{sent_MB}")
                                      for t in ("", "alltoall/")])
                 for label, grid, np in (("256³", "256x256x256", 2), ("256³", "256x256x256", 4), ("256³", "256x256x256", 8),
                                         ("256² × 512", "256x256x512", 4), ("256² × 1024", "256x256x1024", 8))],
        "note": "Medians of 3 × 10 iterations, an iteration's time the slowest rank's",
    },
    "h100host16-line-solvers": {
        "json": "h100host16-line-solvers-65536x256.json",
        "copy": "copy/omp/1074MB/real_time",
        "header": ["65536 lines of 256, 16 threads", "double", "float"],
        "cell": "{ms} ms ({copy})",
        "rows": [(f"{kind}, {axis}", [f"solve/{p}/{kind}/{shape}/{axis}/real_time" for p in ("double", "float")])
                 for kind in ("uniform", "arrays") for shape, axis in (("256x65536", "x"), ("65536x256", "y"))],
        "note": "In brackets, the fraction of the run's 1 GiB copy on the minimal traffic",
    },
    "h100-python-solve-lines": {
        "json": "h100-python-solve-lines.json",
        "header": ["65536 × 256 from Python, ms", "C++ `thomas` (CUDA events)", "Python `thomas`", "Python `thomas`, check=False",
                   "Python `auto`", "Python `auto`, check=False"],
        "cell": "{ms}",
        "rows": [(f"{p}, {kind}, {axis}",
                  [f"h100-gpu-line-solvers-65536x256.json::batch/{p}/{kind}/thomas/{axis}/65536x256/min_time:0.100/manual_time"]
                  + [f"python/{p}/{kind}/{alg}/{axis}/65536x256{nc}" for alg in ("thomas", "auto") for nc in ("", "/nocheck")])
                 for p in ("double", "float") for kind in ("uniform", "arrays") for axis in ("x", "y")],
        "note": "Python: the median wall time of 20 synchronized calls, launch and argument handling included",
    },
    "h100host16-python-solve-lines": {
        "json": "h100host16-python-solve-lines-cpu.json",
        "header": ["65536 × 256 from Python, 16 threads, ms", "C++", "Python `auto`", "Python `auto`, check=False"],
        "cell": "{ms}",
        "rows": [(f"{p}, {kind}, {axis}",
                  [f"h100host16-line-solvers-65536x256.json::solve/{p}/{kind}/{shape}/{axis}/real_time"]
                  + [f"python/{p}/{kind}/auto/{shape}/{axis}{nc}" for nc in ("", "/nocheck")])
                 for p in ("double", "float") for kind in ("uniform", "arrays")
                 for shape, axis in (("256x65536", "x"), ("65536x256", "y"))]
                + [("SciPy `solve_banded`, one call per line: double, arrays, x", ["-", "scipy/solve_banded/double/256x65536/x", "-"])],
        "missing": True,
    },
    "h100x4-douglas-strong": _scaling("h100x4-douglas-scaling.json", "adi-benchmark", [
        (label, grid, np, tr, "") for label, grid in (("512³", "512x512x512"), ("1024³", "1024x1024x1024"))
        for np, tr in ((1, "none"), (2, "nccl"), (4, "nccl"), (2, "staged"), (4, "staged"))]),
    "h100x4-douglas-weak": _scaling("h100x4-douglas-scaling.json", "adi-benchmark", [
        ("512³", "512x512x512", 1, "none", ""), ("512² × 1024", "512x512x1024", 2, "nccl", ""),
        ("512 × 1024²", "512x1024x1024", 4, "nccl", "")], weak=True),
    "h100x4-glioma": {**_scaling("h100x4-douglas-scaling.json", "glioma3d", [
        ("512³", "512x512x512", 1, "none", ""), ("512³", "512x512x512", 4, "nccl", "")]),
        "note": "One simulated year, 730 steps"},
    "h100x4-split": _split("h100x4-gpu-distributed-nccl"),
    "h200x2-split": _split("h200x2-gpu-distributed-split"),
    "h200x4-split": _split("h200x4-gpu-distributed-split"),
    "h200x2-douglas-strong": _scaling("h200x2-douglas-scaling.json", "adi-benchmark", [
        ("512³", "512x512x512", 1, "none", ""), ("512³", "512x512x512", 2, "nccl", ""),
        ("1024³", "1024x1024x1024", 1, "none", ""), ("1024³", "1024x1024x1024", 2, "nccl", "")]),
    # Weak: the tree "bordered" (segments over 256 rows on a cluster, the path the landed tree takes
    # for these segments of 512 rows), against its own one-GPU run.
    "h200x2-douglas-weak": {
        **_scaling("h200x2-douglas-scaling.json", "adi-benchmark", [], weak=True),
        "base": lambda run: "adi-benchmark/512x512x512/np1/none/bordered",
        "rows": [("512³ | 1 | none", ["adi-benchmark/512x512x512/np1/none/bordered"]),
                 ("512² × 1024 | 2 | nccl", ["adi-benchmark/512x512x1024/np2/nccl/bordered"])],
        "note": "The runs of tree \"bordered\": split segments over 256 rows solved on a thread-block cluster",
    },
    "h200x2-glioma": {**_scaling("h200x2-douglas-scaling.json", "glioma3d", [
        ("512³", "512x512x512", 1, "none", ""), ("512³", "512x512x512", 2, "nccl", "")]),
        "note": "Strang-ADI steps, 200 of a year's 730"},
    "h200x4-douglas-strong": _scaling("h200x4-douglas-scaling.json", "adi-benchmark", [
        (label, grid, np, "none" if np == 1 else "nccl", "") for label, grid in (("512³", "512x512x512"), ("1024³", "1024x1024x1024"))
        for np in (1, 2, 4)]),
    "h200x4-douglas-weak": _scaling("h200x4-douglas-scaling.json", "adi-benchmark", [
        ("512³", "512x512x512", 1, "none", ""), ("512 × 1024²", "512x1024x1024", 4, "nccl", "")], weak=True),
    "h200x4-glioma": {**_scaling("h200x4-douglas-scaling.json", "glioma3d", [
        ("512³", "512x512x512", 1, "none", ""), ("512³", "512x512x512", 4, "nccl", "")]),
        "note": "Strang-ADI steps: one simulated year (730) on 4 GPUs, 200 of them on one"},

}

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
        "json": "h100-adi-contract.json",
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
        "rows": [(label, [("h100-glioma-contract.json::" if backend == "cuda" and kind == "glioma_year" else "")
                          + f"{kind}/{backend}/{p}/{n}/{suffix}real_time"])
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
    "cpu-2core-heat-moving-data": {
        "json": "cpu-2core-1thread-heat.json",
        "header": ["heat, one step, double, 1 thread", "time"],
        "cell": "{ms} ms",
        "rows": [(f"{label}, {variant}", [f"heat_step/{case}/cpu/double{suffix}/real_time"])
                 for case, label in (("heat2d/513x513", "`heat2d.yaml` at 513², peaceman-rachford"),
                                     ("heat_cn2d/257x257", "`heat_cn2d.yaml` at 257², unsplit crank-nicolson"),
                                     ("heat2d-douglas/129x129x129", "`heat2d.yaml` in 3D at 129³, douglas"))
                 for variant, suffix in (("data compiled", ""), ("interpreted (`TRIDSIM_CXX=none`)", "/interpreted"),
                                         ("source and faces constant", "/no-data"))],
        "difference": [(f"{deck}: the moving data {how} (the difference)", 3 * k + i, 3 * k + 2)
                       for k, deck in enumerate(("heat2d 513²", "heat_cn2d 257²", "heat2d 129³"))
                       for i, how in enumerate(("compiled", "interpreted"))],
    },
    "reaction-diffusion-h100": {
        "json": "h100-reaction-diffusion.json",
        "header": ["deck (one step)", "double", "float"],
        "cell": "{ms} ms",
        "rows": [(deck, [f"rd_step/{deck}/cuda/{p}/real_time" for p in ("double", "float")])
                 for deck in ("turing2d", "cross_diffusion2d", "brusselator3d")],
    },
}
TABLES.update(TABLES_MORE)
