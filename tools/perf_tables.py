#!/usr/bin/python3
"""The timing tables of docs/PERFORMANCE.md and README.md, made from the benchmark results in
bench/results/ (Google Benchmark JSON; the machine is the file name's prefix).

A table stands in a document between two markers, and only this script writes what lies between:

    <!-- perf-table: NAME -->
    ... (generated: the source file, its machine and date, then the table)
    <!-- end perf-table -->

TABLES below says, per NAME, which JSON file and which of its benchmarks fill which cells.

    tools/perf_tables.py           rewrites every block from the JSON now in the tree
    tools/perf_tables.py --check   changes nothing; exit 1 naming each block that differs from
                                   what the JSON gives (the test perf_tables runs this)
    tools/perf_tables.py --print NAME   prints one block
    --root DIR: the tree whose documents and bench/results are read (default: this script's)
Python 3 standard library only.
"""
import json
import pathlib
import re
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCUMENTS = ["docs/PERFORMANCE.md", "README.md"]

# The machines, by the prefix of a result file's name (the longest prefix that matches wins).
MACHINES = {
    "cpu-2core": "the 2-core development machine, AMD EPYC",
    "cpu-2core-1thread": "the 2-core development machine, AMD EPYC, one OpenMP thread",
    "cpu2": "the 2-core development machine, AMD EPYC",
    "h100": "one NVIDIA H100 80GB HBM3, sm_90",
    "h100x4": "four NVIDIA H100 80GB HBM3 of one host, NCCL",
    "h100host16": "the 16-core host of the H100 machine",
}

# What a cell shows, from one benchmark b (its median over repetitions where it has several):
#   {ms} {us} {s}: real time in that unit; {time}: in ms below a second, else in s; {GBs}: bytes/s in GB/s; {TBs}; {Gpts}, {Mpts}: points/s;
#   {copy}: bytes/s as a fraction of the table's copy benchmark's; any other counter by its name
#   (factor_s: the counter factor_s; factor_ms: the same in ms; NAME_2f: two decimals); three
#   significant digits each. "blank_zero": a cell of 0 (a counter the benchmark did not measure)
#   shows "–". "ratio": [i, j] adds a column,
#   the time of cell i over that of cell j. "speedup": [counter, f] gives the field {speedup}: the
#   counter of the cell's benchmark over that of benchmark f(name). {Munknowns}: unknowns/s in M. "difference": [label, i, j] adds a row, the time of row
#   i's (first) benchmark less row j's, and its share of row i's.
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
        "rows": [("the deck (`inputs/turing2d.yaml`)", ["rd_step/turing2d/cpu/double/real_time"]),
                 ("its reactions set to 0", ["rd_step/turing2d-no-reactions/cpu/double/real_time"])],
        "difference": ["the reactions (the difference)", 0, 1],
    },
    "reaction-diffusion-h100": {
        "json": "h100-reaction-diffusion.json",
        "header": ["deck (one step)", "double", "float"],
        "cell": "{ms} ms",
        "rows": [(deck, [f"rd_step/{deck}/cuda/{p}/real_time" for p in ("double", "float")])
                 for deck in ("turing2d", "cross_diffusion2d", "brusselator3d")],
    },
}

BEGIN = re.compile(r"^<!-- perf-table: ([A-Za-z0-9_.-]+) -->$")
END = "<!-- end perf-table -->"


def significant(v):
    """Three significant digits (more left of the point): 0.0562, 16.0, 141, 1673; below 1e-4 two,
    with an exponent (8.3e-12)."""
    if v == 0 or abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) < 1e-4:
        return f"{v:.1e}"
    return f"{v:.{2 - int(f'{abs(v):e}'.split('e')[1])}f}"


def machine_of(file_name):
    prefix = max((p for p in MACHINES if file_name.startswith(p + "-")), key=len, default=None)
    if prefix is None:
        raise SystemExit(f"perf_tables: {file_name}: no machine in MACHINES for its name")
    return MACHINES[prefix]


class Results:
    """One JSON file of Google Benchmark results: a benchmark's median (or its one run)."""

    def __init__(self, name):
        self.name = name
        path = ROOT / "bench" / "results" / name
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise SystemExit(f"perf_tables: bench/results/{name}: {e}")
        self.context = data.get("context", {})
        self.runs = {}
        self.medians = {}
        for b in data.get("benchmarks", []):
            run = b.get("run_name", b["name"])
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    self.medians[run] = b
            else:
                self.runs.setdefault(run, []).append(b)

    def repetitions(self, run):
        return len(self.runs.get(run, [])) or (self.medians[run].get("repetitions", 1) if run in self.medians else 0)

    def get(self, run):
        if run in self.medians:
            return self.medians[run]
        runs = self.runs.get(run)
        if not runs:
            raise SystemExit(f"perf_tables: bench/results/{self.name} has no benchmark {run}")
        if len(runs) == 1:
            return runs[0]
        middle = statistics.median_low(r["real_time"] for r in runs)  # a run that happened
        return next(r for r in runs if r["real_time"] == middle)


SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def fields(b, copy, reference=None, counter=None):
    seconds = b["real_time"] * SCALE[b.get("time_unit", "ns")]
    out = {"ms": significant(seconds * 1e3), "us": significant(seconds * 1e6), "s": significant(seconds),
           "time": f"{significant(seconds * 1e3)} ms" if seconds < 1 else f"{significant(seconds)} s"}
    if "bytes/s" in b:
        out["GBs"] = significant(b["bytes/s"] / 1e9)
        out["TBs"] = significant(b["bytes/s"] / 1e12)
        if copy is not None:
            out["copy"] = f"{b['bytes/s'] / copy['bytes/s']:.2f}"
    if "points/s" in b:
        out["Gpts"] = significant(b["points/s"] / 1e9)
        out["Mpts"] = significant(b["points/s"] / 1e6)
    if "flops" in b:
        out["GFLOP"] = significant(b["flops"] / 1e9)
    if "unknowns/s" in b:
        out["Munknowns"] = significant(b["unknowns/s"] / 1e6)
    if reference is not None:
        out["speedup"] = f"{b[counter] / reference[counter]:.1f}"
    for key, value in b.items():
        if re.fullmatch(r"[A-Za-z_]\w*", key) and key not in out and isinstance(value, (int, float)):
            out[key] = significant(value)
            out[key + "_2f"] = f"{value:.2f}"
            if key.endswith("_s"):
                out[key[:-2] + "_ms"] = significant(value * 1e3)
    if "GFLOP/s" in b:
        out["GFLOP_s"] = significant(b["GFLOP/s"])
    return out


def render(name):
    spec = TABLES[name]
    res = Results(spec["json"])
    copy = res.get(spec["copy"]) if "copy" in spec else None
    c = res.context
    runs = [run for _, cells in spec["rows"] for run in cells]
    reps = sorted({res.repetitions(run) for run in runs})
    stat = "one result each" if reps == [1] else f"medians of {'/'.join(map(str, reps))} repetitions"
    date = c.get("date", "?")[:10]
    load = c.get("load_avg", [None])[0]
    source = (f"_`bench/results/{spec['json']}` ({c.get('executable', '?').split('/')[-1]}): "
              f"{machine_of(spec['json'])} (host of {c.get('num_cpus', '?')} CPUs); {date}"
              + (f", load {load:.1f}" if load is not None else "") + f"; {stat}.")
    source += (" " + spec["note"] + "._") if "note" in spec else "_"
    lines = [f"<!-- perf-table: {name} -->", source, "", "| " + " | ".join(spec["header"]) + " |",
             "| " + " | ".join("---" for _ in spec["header"]) + " |"]
    for label, cells in spec["rows"]:
        if "cell_columns" in spec:
            counter, ref = spec.get("speedup", (None, None))
            f = fields(res.get(cells[0]), copy, res.get(ref(cells[0])) if ref else None, counter)
            values = [t.format(**f) for t in spec["cell_columns"]]
            if spec.get("blank_zero"):
                values = ["–" if v == "0" else v for v in values]
        else:
            values = [spec["cell"].format(**fields(res.get(run), copy)) for run in cells]
        if "ratio" in spec:
            i, j = spec["ratio"]
            values.append(f"{res.get(cells[i])['real_time'] / res.get(cells[j])['real_time']:.2f}")
        lines.append("| " + " | ".join([label] + values) + " |")
    if "difference" in spec:
        label, i, j = spec["difference"]
        a, b = (res.get(spec["rows"][k][1][0]) for k in (i, j))
        seconds = (a["real_time"] - b["real_time"]) * SCALE[a.get("time_unit", "ns")]
        values = [f"{significant(seconds * 1e3)} ms ({100 * (1 - b['real_time'] / a['real_time']):.0f} % of the step)"]
        lines.append("| " + " | ".join([label] + values + [""] * (len(spec["header"]) - 2)) + " |")
    lines += ["", END]  # (a blank line ends the table for every Markdown reader)
    return "\n".join(lines)


def blocks(text):
    """(name, start, end) of each generated block: the lines from its begin marker to its end marker."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j] != END:
                if BEGIN.match(lines[j]):
                    raise SystemExit(f"perf_tables: block {m.group(1)} has no end marker before the next block")
                j += 1
            if j == len(lines):
                raise SystemExit(f"perf_tables: block {m.group(1)} has no end marker")
            out.append((m.group(1), i, j))
            i = j
        i += 1
    return out


def main(argv):
    global ROOT
    if "--root" in argv:
        ROOT = pathlib.Path(argv[argv.index("--root") + 1]).resolve()
    check = "--check" in argv
    if "--print" in argv:
        print(render(argv[argv.index("--print") + 1]))
        return 0
    seen, stale = set(), []
    for doc in DOCUMENTS:
        path = ROOT / doc
        text = path.read_text()
        lines = text.split("\n")
        for name, start, end in reversed(blocks(text)):
            if name not in TABLES:
                raise SystemExit(f"perf_tables: {doc}:{start + 1}: no table named {name} in tools/perf_tables.py")
            seen.add(name)
            new = render(name).split("\n")
            if lines[start:end + 1] != new:
                stale.append(f"{doc}:{start + 1}: {name}")
                lines[start:end + 1] = new
        if not check and "\n".join(lines) != text:
            path.write_text("\n".join(lines))
    unused = sorted(set(TABLES) - seen)
    if unused:
        print("perf_tables: tables no document shows: " + ", ".join(unused), file=sys.stderr)
        return 1
    if check and stale:
        print("perf_tables: these blocks differ from what bench/results gives (run tools/perf_tables.py):",
              file=sys.stderr)
        for s in sorted(stale):
            print("  " + s, file=sys.stderr)
        return 1
    if not check:
        print(f"perf_tables: {len(stale)} block(s) rewritten" if stale else "perf_tables: every block is current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
