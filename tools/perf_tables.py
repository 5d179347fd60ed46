#!/usr/bin/python3
"""The timing tables of docs/performance.md and docs/modules/poisson.md, made from the benchmark results
in bench/results/ (Google Benchmark JSON; the machine is the file name's prefix).

A table stands in a document between two markers, and only this script writes what lies between:

    <!-- perf-table: NAME -->
    ... (generated: the source file, its machine and date, then the table)
    <!-- end perf-table -->

TABLES (tools/perf_table_specs.py) says, per NAME, which JSON file and which of its benchmarks fill
which cells.

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


class Blank(dict):
    """Fields for cell_columns: a counter the benchmark lacks is an empty cell."""

    def __missing__(self, key):
        return ""


def render(name):
    spec = TABLES[name]
    res = Results(spec["json"])
    copy = res.get(spec["copy"]) if spec.get("copy") else None
    c = res.context
    runs = [run for _, cells in spec["rows"] for run in cells if res.has(run)]
    reps = sorted({res.repetitions(run) for run in runs if res.has(run)})
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
        if spec.get("missing_rows") and not res.has(cells[0]):
            continue
        if "cell_columns" in spec:
            counter, ref = spec.get("speedup", (None, None))
            f = fields(res.get(cells[0]), copy, res.get(ref(cells[0])) if ref else None, counter)
            values = [t.format_map(Blank(f)) for t in spec["cell_columns"]]
            if spec.get("blank_zero"):
                values = ["-" if v == "0" else v for v in values]
        else:
            values = ["-" if spec.get("missing") and not res.has(run) else spec["cell"].format(**fields(res.get(run), copy))
                      for run in cells]
        if "ratio" in spec:
            i, j = spec["ratio"]
            values.append(f"{res.get(cells[i])['real_time'] / res.get(cells[j])['real_time']:.2f}")
        lines.append("| " + " | ".join([label] + values) + " |")
    for label, r, ours in spec.get("versus", []):
        def seconds(row, col):
            run = spec["rows"][row][1][col]
            return res.get(run)["real_time"] if res.has(run) else None
        values = []
        for col in range(len(spec["rows"][r][1])):
            best = min(t for t in (seconds(o, col) for o in ours) if t is not None)
            values.append(f"{seconds(r, col) / best:.2f}x")
        lines.append("| " + " | ".join([label] + values) + " |")
    for label, i, j in spec.get("difference", []):
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
