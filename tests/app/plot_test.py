#!/usr/bin/python3
"""tools/plot.py on small runs of each kind (1D, 2D, 3D, time-dependent and steady, scalar and
vector fields): every PNG it names exists and is a PNG; the range it reports for a field equals the
run's own u_min/u_max at the last step (the CSV, written by tridsim, not by the plot); bad
arguments end with one error line and exit 1.

Usage: plot_test.py TRIDSIM SOURCE_DIR WORK_DIR
"""
import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

tridsim, src, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
plot = [sys.executable, str(src / "tools" / "plot.py")]
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run_deck(deck, *sets):
    out = work / deck
    args = [tridsim, "run", str(src / "inputs" / f"{deck}.yaml"), "-o", str(out), "-q",
            "--set", "output.formats=[hdf5,csv]"] + [a for s in sets for a in ("--set", s)]
    subprocess.run(args, check=True)
    return out


def last_row(run_dir, name):
    with open(run_dir / f"{name}_diagnostics.csv", newline="") as f:
        return list(csv.DictReader(f))[-1]


def plot_run(run_dir, *extra):
    r = subprocess.run(plot + [str(run_dir)] + list(extra), capture_output=True, text=True)
    check(r.returncode == 0, f"plot.py {run_dir.name} {' '.join(extra)}: exit {r.returncode}: {r.stderr.strip()}")
    pngs = {}
    for line in r.stdout.splitlines():
        path = Path(line.split(": ", 1)[0])
        check(path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 2000,
              f"{path}: not a PNG with content")
        pngs[path.name] = line
    return pngs


def reported_range(line):
    m = re.search(r"min (\S+) max (\S+)$", line)
    return (float(m.group(1)), float(m.group(2))) if m else None


# 2D, time-dependent: the map of u at the last step spans exactly the CSV's u_min .. u_max there.
heat2d = run_deck("heat2d", "grid.n=[33,33]", "time.dt=0.03125", "time.end=0.25", "output.every=8")
pngs = plot_run(heat2d)
check(set(pngs) == {"heat2d_diagnostics.png", "heat2d_u.png"}, f"heat2d PNGs: {sorted(pngs)}")
row = last_row(heat2d, "heat2d")
check(reported_range(pngs.get("heat2d_u.png", "")) == (float(row["u_min"]), float(row["u_max"])),
      f"heat2d u range {pngs.get('heat2d_u.png')} against the CSV's {row['u_min']} .. {row['u_max']}")

# 1D, and a step chosen by --step: the first step's field is the initial data's range.
heat1d = run_deck("heat1d", "grid.n=[65]", "time.dt=0.0625", "time.end=0.25", "output.every=2")
pngs = plot_run(heat1d, "--step", "0", "--field", "u")
with open(heat1d / "heat1d_diagnostics.csv", newline="") as f:
    first = list(csv.DictReader(f))[0]
check(reported_range(pngs.get("heat1d_u.png", "")) == (float(first["u_min"]), float(first["u_max"])),
      f"heat1d u at step 0 {pngs.get('heat1d_u.png')} against the CSV's {first['u_min']} .. {first['u_max']}")

# 3D: the middle z plane by default, another by --slice; its range lies within the field's.
heat3d = run_deck("heat3d", "grid.n=[9,10,11]", "time.end=0.005")
pngs = plot_run(heat3d, "--field", "u")
check("z index 5" in pngs.get("heat3d_u.png", ""), f"heat3d default plane: {pngs.get('heat3d_u.png')}")
pngs = plot_run(heat3d, "--field", "u", "--slice", "x=0")
row = last_row(heat3d, "heat3d")
lo_hi = reported_range(pngs.get("heat3d_u.png", ""))
check("x index 0" in pngs.get("heat3d_u.png", "") and lo_hi is not None
      and float(row["u_min"]) <= lo_hi[0] <= lo_hi[1] <= float(row["u_max"]),
      f"heat3d x=0 plane {pngs.get('heat3d_u.png')} within {row['u_min']} .. {row['u_max']}")

# Steady, vector fields: the plate's displacement magnitude peaks at the CSV's max displacement.
plate = run_deck("plate2d", "grid.n=[21,21]")
pngs = plot_run(plate)
check("plate2d_diagnostics.png" in pngs and "plate2d_displacement_shear.png" in pngs, f"plate2d PNGs: {sorted(pngs)}")
row = last_row(plate, "plate2d")
got = reported_range(pngs.get("plate2d_displacement_shear.png", ""))
check(got is not None and abs(got[1] - float(row["shear_max_displacement"])) <= 1e-12 * float(row["shear_max_displacement"]),
      f"plate2d |displacement_shear| max {got} against the CSV's {row['shear_max_displacement']}")


# Bad arguments: exit 1, one error line naming what is wrong and what would do.
def refused(args, words):
    r = subprocess.run(plot + args, capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 1 and len(lines) == 1 and lines[0].startswith("error:") and all(w in lines[0] for w in words),
          f"plot.py {' '.join(args)}: exit {r.returncode}, stderr {r.stderr.strip()!r}")


refused([str(work / "nowhere")], ["not a directory"])
refused([str(work)], ["no summary.json"])
refused([str(heat2d), "--field", "w"], ["--field w", "fields: u"])
refused([str(heat2d), "--step", "3"], ["--step 3", "written: 0, 8"])
refused([str(heat3d), "--slice", "w=1"], ["AXIS=INDEX"])
refused([str(heat3d), "--slice", "z=11"], ["0 to 10"])

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("plot tool OK")
