#!/usr/bin/python3
"""The timing tables of docs/performance.md and docs/modules/poisson.md, made from the benchmark results
in bench/results/: Google Benchmark JSON, lists of `tridsim bench` runs ("runs") and
bench/python/bench_solve_lines.py's results ("cases"); the machine is the file name's prefix.

A table stands in a document between two markers, and only this script writes what lies between:

    <!-- perf-table: NAME -->
    ... (generated: the source file, its machine and date, then the table)
    <!-- end perf-table -->

TABLES (tools/perf_table_specs.py) says, per NAME, which JSON files and which of their benchmarks
fill which cells; the block's first line names each file, its program, machine, date and load.

    tools/perf_tables.py           rewrites every block from the JSON now in the tree
    tools/perf_tables.py --check   changes nothing; exit 1 naming each block that differs from
                                   what the JSON gives (the test perf_tables runs this)
    tools/perf_tables.py --print NAME   prints one block
    --root DIR: the tree whose documents and bench/results are read (default: this script's)
Python 3 standard library only.
"""
import json
import pathlib
import posixpath
import re
import statistics
import sys

from perf_table_specs import MACHINES, TABLES  # (beside this script)

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCUMENTS = ["docs/performance.md", "docs/modules/poisson.md"]

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
    """One JSON file of results: a benchmark's median (or its one run). Three formats:
    Google Benchmark's ("benchmarks"); a list of `tridsim bench` runs ("runs": grid, ranks,
    transport, ms_per_step, points_per_s, optional deck, series, note, tree), each named
    DECK/NXxNYxNZ/npRANKS/TRANSPORT[/weak][/TREE]; and bench/python's ("cases": name, ms, ...)."""

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
        if "runs" in data:  # tridsim bench runs, copied from its output
            self.context = {"date": data.get("date", "?"), "executable": "tridsim bench",
                            "machine_line": data.get("machine", "")}
            for r in data["runs"]:
                run = (f"{r.get('deck', 'adi-benchmark')}/{'x'.join(map(str, r['grid']))}/np{r['ranks']}/{r['transport']}"
                       + ("/weak" if r.get("series") == "weak" or "weak" in r.get("note", "") else "")
                       + (f"/{r['tree']}" if "tree" in r else ""))
                b = {"name": run, "real_time": r["ms_per_step"], "time_unit": "ms", "points/s": r["points_per_s"],
                     "ranks": r["ranks"], "steps": r["steps"]}
                if "steps_s" in r:
                    b["run_s"] = r["steps_s"]
                self.runs.setdefault(run, []).append(b)
            return
        if "cases" in data:  # bench/python/bench_solve_lines.py
            self.context = {"date": data.get("date", "?"), "executable": "bench/python/bench_solve_lines.py"}
            copy = data.get("copy", {}).get("bytes_per_second")
            for c in data["cases"]:
                b = {"name": c["name"], "real_time": c["ms"], "time_unit": "ms", "points/s": c["points_per_second"],
                     "bytes/s": c.get("bytes_per_second", 0)}
                if "copy_fraction" in c:
                    b["copy_fraction"] = c["copy_fraction"]
                self.runs.setdefault(c["name"], []).append(b)
            if copy:
                self.runs["copy"] = [{"name": "copy", "real_time": 1.0, "time_unit": "s", "bytes/s": copy}]
            return
        for b in data.get("benchmarks", []):
            run = b.get("run_name", b["name"])
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    self.medians[run] = b
            else:
                self.runs.setdefault(run, []).append(b)

    def repetitions(self, run):
        return len(self.runs.get(run, [])) or (self.medians[run].get("repetitions", 1) if run in self.medians else 0)

    def has(self, run):
        return run in self.medians or run in self.runs

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


_LOADED = {}


def results(name):
    if name not in _LOADED:
        _LOADED[name] = Results(name)
    return _LOADED[name]


class Table:
    """A table's benchmarks: a run is a benchmark of the table's "json", or FILE::RUN, a benchmark
    of another file of bench/results. Remembers the files used, for the source line."""

    def __init__(self, spec):
        self.default = spec["json"]
        self.used = [self.default]

    def split(self, run):
        name, _, r = run.rpartition("::")
        name = name or self.default
        if name not in self.used:
            self.used.append(name)
        return results(name), r

    def has(self, run):
        res, r = self.split(run)
        return res.has(r)

    def get(self, run):
        res, r = self.split(run)
        return res.get(r)

    def repetitions(self, run):
        res, r = self.split(run)
        return res.repetitions(r)


SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def seconds_of(b):
    return b["real_time"] * SCALE[b.get("time_unit", "ns")]


def fields(b, copy, reference=None, counter=None, base=None):
    seconds = seconds_of(b)
    out = {"ms": significant(seconds * 1e3), "us": significant(seconds * 1e6), "s": significant(seconds),
           "time": f"{significant(seconds * 1e3)} ms" if seconds < 1 else f"{significant(seconds)} s"}
    if "bytes/s" in b:
        out["GBs"] = significant(b["bytes/s"] / 1e9)
        out["TBs"] = significant(b["bytes/s"] / 1e12)
        if copy is not None:
            out["copy"] = f"{b['bytes/s'] / copy['bytes/s']:.2f}"
    if "points/s" in b and "ranks" in b:
        out["Gpts_per_rank"] = significant(b["points/s"] / b["ranks"] / 1e9)
    if "sent_bytes_per_rank" in b:
        out["sent_MB"] = significant(b["sent_bytes_per_rank"] / 1e6)
    if "points/s" in b:
        out["Gpts"] = significant(b["points/s"] / 1e9)
        out["Mpts"] = significant(b["points/s"] / 1e6)
    if "flops" in b:
        out["GFLOP"] = significant(b["flops"] / 1e9)
    if "unknowns/s" in b:
        out["Munknowns"] = significant(b["unknowns/s"] / 1e6)
    if reference is not None:
        out["speedup"] = f"{b[counter] / reference[counter]:.1f}"
        out["speedup_2f"] = f"{b[counter] / reference[counter]:.2f}"
    if base is not None:  # a column from two rows: the base's time over this one's
        out["vs_base"] = f"{seconds_of(base) / seconds:.2f}"
        if "points/s" in b and "points/s" in base:
            out["rate_vs_base"] = f"{b['points/s'] / base['points/s']:.2f}"
        if "ranks" in b:
            out["per_rank"] = f"{seconds_of(base) / seconds / b['ranks']:.2f}"
    for key, value in b.items():
        if re.fullmatch(r"[A-Za-z_]\w*", key) and key not in out and isinstance(value, (int, float)):
            out[key] = significant(value)
            out[key + "_2f"] = f"{value:.2f}"
            if key.endswith("_s"):
                out[key[:-2] + "_ms"] = significant(value * 1e3)
    if "GFLOP/s" in b:
        out["GFLOP_s"] = significant(b["GFLOP/s"])
    return out


class Blank(dict):
    """Fields for cell_columns: a counter the benchmark lacks is an empty cell."""

    def __missing__(self, key):
        return ""


def source_line(table, runs, doc):
    """The table's first line: each JSON file it reads (a link from the document doc), with its program,
    machine, date and load."""
    parts = []
    for name in table.used:
        res = results(name)
        c = res.context
        mine = [r for r in runs if table.split(r)[0] is res and table.has(r)]
        reps = sorted({table.repetitions(r) for r in mine})
        stat = "one result each" if reps in ([1], []) else f"medians of {'/'.join(map(str, reps))} repetitions"
        date = c.get("date", "?")[:10]
        load = c.get("load_avg", [None])[0]
        host = f" (host of {c['num_cpus']} CPUs)" if "num_cpus" in c else ""
        link = posixpath.relpath(f"bench/results/{name}", posixpath.dirname(doc))
        parts.append(f"[`bench/results/{name}`]({link}) ({c.get('executable', '?').split('/')[-1]}): {machine_of(name)}{host}; "
                     + (f"{date}" if date != "?" else "undated") + (f", load {load:.1f}" if load is not None else "")
                     + f"; {stat}.")
    return " ".join(parts)


def render(name, doc="docs/performance.md"):
    spec = TABLES[name]
    table = Table(spec)
    copy = table.get(spec["copy"]) if spec.get("copy") else None
    base_of = spec.get("base")
    runs = [cell[0] if isinstance(cell, tuple) else cell for _, cells in spec["rows"] for cell in cells]
    lines = ["| " + " | ".join(spec["header"]) + " |", "| " + " | ".join("---" for _ in spec["header"]) + " |"]
    for label, cells in spec["rows"]:
        if spec.get("missing_rows") and not table.has(cells[0]):
            continue
        if "cell_columns" in spec:
            counter, ref = spec.get("speedup", (None, None))
            base = table.get(base_of(cells[0])) if base_of else None
            f = fields(table.get(cells[0]), copy, table.get(ref(cells[0])) if ref else None, counter, base)
            values = [t.format_map(Blank(f)) for t in spec["cell_columns"]]
            if spec.get("blank_zero"):
                values = ["-" if v == "0" else v for v in values]
        else:
            values = []
            for cell in cells:  # a run, or (run, its own template)
                run, template = cell if isinstance(cell, tuple) else (cell, spec["cell"])
                if spec.get("missing") and not table.has(run):
                    values.append("-")
                    continue
                base = table.get(base_of(run)) if base_of else None
                values.append(template.format_map(Blank(fields(table.get(run), copy, base=base))))
        if "ratio" in spec:
            i, j = spec["ratio"]
            values.append(f"{seconds_of(table.get(cells[i])) / seconds_of(table.get(cells[j])):.2f}")
        lines.append("| " + " | ".join([label] + values) + " |")
    for label, r, ours in spec.get("versus", []):
        def seconds(row, col):
            run = spec["rows"][row][1][col]
            return seconds_of(table.get(run)) if table.has(run) else None
        values = []
        for col in range(len(spec["rows"][r][1])):
            best = min(t for t in (seconds(o, col) for o in ours) if t is not None)
            values.append(f"{seconds(r, col) / best:.2f}x")
        lines.append("| " + " | ".join([label] + values) + " |")
    for label, i, j in spec.get("difference", []):
        a, b = (table.get(spec["rows"][k][1][0]) for k in (i, j))
        seconds = seconds_of(a) - seconds_of(b)
        values = [f"{significant(seconds * 1e3)} ms ({100 * (1 - seconds_of(b) / seconds_of(a)):.0f} % of the step)"]
        lines.append("| " + " | ".join([label] + values + [""] * (len(spec["header"]) - 2)) + " |")
    source = "_" + source_line(table, runs, doc) + (" " + spec["note"] + "._" if "note" in spec else "_")
    lines = [f"<!-- perf-table: {name} -->", source, ""] + lines
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
            new = render(name, doc).split("\n")
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
