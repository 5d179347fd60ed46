#!/usr/bin/python3
"""Plot a glioma run's diagnostics: visible tumour volumes, equivalent radii and burden over time.

Usage: tools/plot_glioma.py RUN_diagnostics.csv [-o plot.png]

Reads the CSV the glioma module writes (columns time, volume_t1, volume_flair, radius_t1,
radius_flair, burden) and writes a PNG (default: beside the CSV, same name with .png):
  - volume above the T1-contrast (c >= 0.8) and FLAIR (c >= 0.16) visibility thresholds,
  - the radius of the ball (disc in 2D) of the same volume,
  - the total tumour burden, the integral of c.
Lengths are in the deck's units (mm), times in days.
"""
import argparse
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

COLUMNS = ["time", "volume_t1", "volume_flair", "radius_t1", "radius_flair", "burden"]


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no data rows")
    missing = [c for c in COLUMNS if c not in rows[0]]
    if missing:
        sys.exit(f"{path}: not a glioma diagnostics file (missing columns: {', '.join(missing)})")
    return {c: [float(r[c]) for r in rows] for c in COLUMNS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", type=Path)
    ap.add_argument("-o", "--output", type=Path, help="PNG to write (default: CSV name with .png)")
    args = ap.parse_args()
    d = read(args.csv)
    out = args.output or args.csv.with_suffix(".png")

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2), constrained_layout=True)
    t = d["time"]
    ax[0].plot(t, d["volume_flair"], label="FLAIR (c ≥ 0.16)")
    ax[0].plot(t, d["volume_t1"], label="T1 contrast (c ≥ 0.8)")
    ax[0].set(title="visible tumour volume", xlabel="time (days)", ylabel="volume")
    ax[1].plot(t, d["radius_flair"], label="FLAIR (c ≥ 0.16)")
    ax[1].plot(t, d["radius_t1"], label="T1 contrast (c ≥ 0.8)")
    ax[1].set(title="equivalent radius", xlabel="time (days)", ylabel="radius (mm)")
    ax[2].plot(t, d["burden"], color="C2")
    ax[2].set(title="tumour burden ∫c", xlabel="time (days)", ylabel="∫c")
    for a in ax[:2]:
        a.legend()
    for a in ax:
        a.grid(alpha=0.3)
    fig.suptitle(args.csv.name)
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
