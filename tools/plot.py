#!/usr/bin/python3
"""Plot a tridsim run: its diagnostics over time and a slice of each field, as PNG.

Usage: tools/plot.py RUN_DIR [-o OUT_DIR] [--field NAME ...] [--step STEP] [--slice AXIS=INDEX]

RUN_DIR is a run's output directory (summary.json, NAME_diagnostics.csv, NAME.h5). Writes, into
OUT_DIR (default RUN_DIR):
  NAME_diagnostics.png   every diagnostic of the CSV against time, one panel each, with the units
                         summary.json gives (a steady run: its values, one bar each);
  NAME_FIELD.png         each field of the HDF5 file at the last written step (or --step): a curve
                         in 1D, a map in 2D, in 3D the plane through the middle of z (or
                         --slice x=I, y=J, z=K); vector fields as their magnitude.
Coordinates are the deck's grid (lo to hi on each axis). Prints one line per PNG with the range
of what it shows. Needs python3-matplotlib and python3-h5py (Debian); no display.
"""
import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

plt = None  # matplotlib.pyplot, imported once the arguments are known good (a slow import)


def load_matplotlib():
    global plt
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot

    plt = matplotlib.pyplot

NOT_DIAGNOSTICS = {"step", "time", "step_wall_s"}
AXES = "xyz"


def fail(message):
    sys.exit(f"error: {message}")


def load_run(run_dir):
    summary_path = run_dir / "summary.json"
    if not run_dir.is_dir():
        fail(f"{run_dir}: not a directory (give a run's output directory, the deck's output.dir or run -o)")
    if not summary_path.is_file():
        fail(f"{run_dir}: no summary.json (not a tridsim run directory, or the run has not started)")
    try:
        summary = json.loads(summary_path.read_text())
    except (OSError, ValueError) as e:
        fail(f"{summary_path}: unreadable ({e})")
    if "name" not in summary or "grid" not in summary:
        fail(f"{summary_path}: not a tridsim summary (no name or grid)")
    return summary


def read_diagnostics(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return None
    columns = [c for c in rows[0] if c not in NOT_DIAGNOSTICS]
    table = {c: np.array([float(r[c]) for r in rows]) for c in ["time"] + columns if c in rows[0]}
    return columns, table


def with_unit(name, units):
    unit = units.get(name)
    return f"{name} [{unit}]" if unit and unit != "1" else name


def plot_diagnostics(summary, csv_path, out_dir):
    got = read_diagnostics(csv_path)
    if got is None:
        print(f"{csv_path}: no rows, no diagnostics plot")
        return None
    columns, table = got
    units = summary.get("diagnostics_units") or {}
    name = summary["name"]
    out = out_dir / f"{name}_diagnostics.png"
    steady = len(table["time"]) == 1
    if steady:
        fig, ax = plt.subplots(figsize=(7, 0.45 * len(columns) + 1.2))
        values = [table[c][-1] for c in columns]
        ax.barh([with_unit(c, units) for c in columns], np.abs(values), color="tab:blue")
        log = all(v != 0 for v in values)  # (values spanning many decades, when none is zero)
        if log:
            ax.set_xscale("log")
        ax.invert_yaxis()
        ax.set_xlabel("|value|" + (" (log scale)" if log else ""))
        for i, v in enumerate(values):
            ax.annotate(f"{v:.4g}", (abs(v), i), xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
        ax.set_title(f"{name} ({summary.get('module', '')}): final diagnostics")
    else:
        cols = min(3, len(columns))
        rows = (len(columns) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.8 * rows), squeeze=False)
        for ax, c in zip(axes.flat, columns):
            ax.plot(table["time"], table[c], lw=1.2)
            ax.set_title(with_unit(c, units), fontsize=9)
            ax.set_xlabel("time")
            ax.grid(alpha=0.3)
        for ax in axes.flat[len(columns):]:
            ax.set_visible(False)
        fig.suptitle(f"{name} ({summary.get('module', '')}): diagnostics over time")
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    print(f"{out}: {len(columns)} diagnostics, {len(table['time'])} rows, t = {table['time'][0]:g} to {table['time'][-1]:g}")
    return out


def parse_slice(text):
    if text is None:
        return None
    try:
        axis, index = text.split("=")
        axis = AXES.index(axis.strip())
        return axis, int(index)
    except ValueError:
        fail(f"--slice {text}: expected AXIS=INDEX with AXIS one of x, y, z (e.g. --slice z=10)")


def field_slice(data, dim, n, cut):
    """The values to draw, the axes they span (x-fastest storage: shape (nz, ny, nx)) and a label."""
    if dim == 1:
        return data.reshape(-1), [0], ""
    if dim == 2:
        return data.reshape(n[1], n[0]), [0, 1], ""
    axis, index = cut if cut else (2, n[2] // 2)
    if not 0 <= index < n[axis]:
        fail(f"--slice {AXES[axis]}={index}: index out of range (0 to {n[axis] - 1})")
    cube = data.reshape(n[2], n[1], n[0])
    plane = [cube[:, :, index], cube[:, index, :], cube[index, :, :]][axis]
    return plane, [a for a in range(3) if a != axis], f", {AXES[axis]} index {index}"


def plot_fields(summary, h5_path, out_dir, fields, step, cut):
    import h5py

    grid = summary["grid"]
    dim, n, lo, hi = grid["dim"], grid["n"], grid["lo"], grid["hi"]
    name = summary["name"]
    written = []
    with h5py.File(h5_path, "r") as h5:
        steps = sorted(k for k in h5 if k.startswith("step_"))
        if not steps:
            fail(f"{h5_path}: no step groups")
        group = f"step_{step:06d}" if step is not None else steps[-1]
        if group not in h5:
            fail(f"--step {step}: not written (written: {', '.join(s[5:].lstrip('0') or '0' for s in steps)})")
        names = sorted(h5[group])
        for f in fields or []:
            if f not in names:
                fail(f"--field {f}: no such field at {group} (fields: {', '.join(names)})")
        times = dict(zip((f"step_{int(s):06d}" for s in h5["steps"][()]), h5["times"][()])) if "steps" in h5 else {}
        for field in fields or names:
            data = np.asarray(h5[group][field][()], dtype=float)
            label = field
            if data.ndim == max(dim, 1) + 1 and data.shape[-1] == 3:  # a vector field
                data = np.linalg.norm(data, axis=-1)
                label = f"|{field}|"
            values, axes, where = field_slice(data, dim, n, cut)
            t = times.get(group)
            title = f"{name}: {label} at step {int(group[5:])}" + (f", t = {t:g}" if t is not None else "") + where
            out = out_dir / f"{name}_{field}.png"
            if dim == 1:
                fig, ax = plt.subplots(figsize=(6, 3.6))
                ax.plot(np.linspace(lo[0], hi[0], n[0]), values, lw=1.2)
                ax.set_xlabel("x")
                ax.set_ylabel(label)
                ax.grid(alpha=0.3)
            else:
                h, v = axes
                aspect = (hi[v] - lo[v]) / (hi[h] - lo[h]) if hi[h] > lo[h] else 1.0
                fig, ax = plt.subplots(figsize=(5.6, max(2.5, min(9.0, 4.6 * aspect)) + 0.6))
                image = ax.imshow(values, origin="lower", extent=[lo[h], hi[h], lo[v], hi[v]], cmap="viridis",
                                  aspect="equal" if 0.2 < aspect < 5 else "auto")
                fig.colorbar(image, ax=ax, label=label)
                ax.set_xlabel(AXES[h])
                ax.set_ylabel(AXES[v])
            ax.set_title(title, fontsize=10)
            fig.tight_layout()
            fig.savefig(out, dpi=90)
            plt.close(fig)
            print(f"{out}: {label} at {group}{where}, min {np.min(values):.17g} max {np.max(values):.17g}")
            written.append(out)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    ap.add_argument("-o", "--output", type=Path, help="folder for the PNGs (default: RUN_DIR)")
    ap.add_argument("--field", action="append", help="a field to draw (repeatable; default: every field)")
    ap.add_argument("--step", type=int, help="the step to draw (default: the last written)")
    ap.add_argument("--slice", help="3D: the plane to draw, AXIS=INDEX (default z = the middle)")
    args = ap.parse_args()
    cut = parse_slice(args.slice)
    summary = load_run(args.run_dir)
    out_dir = args.output or args.run_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    name = summary["name"]
    csv_path, h5_path = args.run_dir / f"{name}_diagnostics.csv", args.run_dir / f"{name}.h5"
    made = 0
    load_matplotlib()
    if csv_path.is_file():
        made += plot_diagnostics(summary, csv_path, out_dir) is not None
    if h5_path.is_file():
        made += len(plot_fields(summary, h5_path, out_dir, args.field, args.step, cut))
    elif args.field or args.step is not None:
        fail(f"{h5_path}: no HDF5 fields in this run (add hdf5 to output.formats)")
    if not made:
        fail(f"{args.run_dir}: nothing to plot (no {csv_path.name}, no {h5_path.name})")


if __name__ == "__main__":
    main()
