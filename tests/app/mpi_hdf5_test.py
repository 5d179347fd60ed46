"""Parallel HDF5 output (label mpi): runs on 2 and 3 ranks, where every rank writes its owned nodes
into the one file (MPI-IO, collective transfers), against the same decks on one process. The
NAME.h5 file and the last checkpoint must hold the same datasets with the same shapes and types,
values within 1e-12 (relative to each dataset's largest value; integers and text exactly) and the
same attributes, and the .xmf text must be identical. Heat 3D (Douglas) and glioma 2D (Strang-ADI),
with process grids that split x (the contiguous axis) and grids the ranks do not divide evenly.
Each run's summary.json must say that it wrote collectively (parallel.hdf5 = "collective").
Exits 77 (ctest: skipped) when this build has a serial HDF5 (tridsim info: "HDF5 output: serial"):
several ranks then gather the fields to rank 0, which mpi_runs_test.py covers.
Usage: mpi_hdf5_test.py TRIDSIM MPIEXEC SOURCE_DIR WORK_DIR  (run with a Python that has h5py)
"""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

from mpi_cases import ENV, Runs

tridsim, mpiexec, source, work = sys.argv[1:5]
info = subprocess.run([tridsim, "info"], env=ENV, capture_output=True, text=True, timeout=60).stdout
hdf5_line = next((line for line in info.splitlines() if line.startswith("HDF5 output:")), "")
if not hdf5_line.startswith("HDF5 output: parallel"):
    print(f"SKIPPED: this build has no parallel HDF5 ({hdf5_line or 'tridsim info names no HDF5 output'})")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
TOL = 1e-12

CASES = [  # (name, deck, --set overrides, [(np, process grid or None: balanced)])
    ("heat3d", f"{source}/inputs/heat3d.yaml",
     ["grid.n=[25,22,19]", "time.end=0.02", "output.every=2", "output.formats=[hdf5,csv]", "output.checkpoint.every=4"],
     [(2, None), (3, None), (3, [3, 1, 1])]),  # z split 10/9 and 7/6/6; x split 9/8/8
    ("glioma2d", f"{source}/inputs/glioma2d.yaml",
     ["grid.n=[61,57]", "time.end=20", "output.every=10", "output.formats=[hdf5,csv]", "output.checkpoint.every=20",
      "glioma.seed={center: [1, 2], width: 10, peak: 0.5}"],
     [(2, [2, 1]), (3, None)]),  # x split 31/30; y split 19/19/19
]


def text(value):
    """A text dataset or attribute, without the process grid the command line gave (parallel.ranks)."""
    t = bytes(np.asarray(value)).decode() if not isinstance(value, str) else value
    return "\n".join(l for l in t.splitlines() if not l.lstrip().startswith(("parallel", "ranks")))


def contents(path):
    """Every dataset (as an array) and every object's attributes of an HDF5 file."""
    sets, attrs = {}, {}
    with h5py.File(path) as h:
        attrs["/"] = dict(h.attrs)

        def visit(name, obj):
            attrs[name] = dict(obj.attrs)
            if isinstance(obj, h5py.Dataset):
                sets[name] = np.asarray(obj[()])
        h.visititems(visit)
    return sets, attrs


def compare(label, ref, got):
    """Differences between two HDF5 files (appended to failures); returns the worst relative difference."""
    (a, a_attrs), (b, b_attrs) = contents(ref), contents(got)
    if sorted(a) != sorted(b):
        failures.append(f"{label}: datasets differ: {sorted(set(a) ^ set(b))}")
        return 0.0
    worst = 0.0
    for k in a:
        x, y = a[k], b[k]
        if x.dtype == np.int8 and y.dtype == np.int8:  # text (a checkpoint's deck, module, ...)
            if text(x) != text(y):
                failures.append(f"{label}: /{k} differs from the one-process file's")
        elif x.shape != y.shape or x.dtype != y.dtype:
            failures.append(f"{label}: /{k} is {y.dtype}{y.shape}, on one process {x.dtype}{x.shape}")
        elif x.dtype.kind == "f":
            if x.size:
                worst = max(worst, float(np.max(np.abs(x - y))) / max(float(np.max(np.abs(x))), 1e-300))
        elif not np.array_equal(x, y):
            failures.append(f"{label}: /{k} differs from the one-process file's")
    for obj in a_attrs:
        u, v = a_attrs[obj], b_attrs.get(obj, {})
        if sorted(u) != sorted(v):
            failures.append(f"{label}: attributes of {obj} differ: {sorted(set(u) ^ set(v))}")
            continue
        for key in u:
            same = text(u[key]) == text(v[key]) if isinstance(u[key], (str, bytes)) else np.array_equal(u[key], v[key])
            if not same:
                failures.append(f"{label}: attribute {key} of {obj}: {v[key]!r}, on one process {u[key]!r}")
    return worst


runs = Runs(tridsim, mpiexec, work, failures)
for name, label, ref, out, np_ in runs.each(CASES):
    checkpoints = sorted(f for f in os.listdir(ref) if "_checkpoint_" in f)
    parallel = json.load(open(os.path.join(out, "summary.json"))).get("parallel", {})
    if parallel.get("ranks") != np_ or parallel.get("hdf5") != "collective":
        failures.append(f"{label}: summary.json does not say {np_} ranks wrote HDF5 collectively: {parallel}")
    mine = sorted(f for f in os.listdir(out) if "_checkpoint_" in f)
    if mine != checkpoints or not checkpoints:
        failures.append(f"{label}: checkpoints {mine}, on one process {checkpoints}")
        continue
    with open(os.path.join(ref, name + ".xmf")) as f, open(os.path.join(out, name + ".xmf")) as g:
        if f.read() != g.read():
            failures.append(f"{label}: {name}.xmf differs from the one-process run's")
    worst = max(compare(f"{label} {f}", os.path.join(ref, f), os.path.join(out, f))
                for f in [name + ".h5", checkpoints[-1]])
    print(f"{label}: {name}.h5 and {checkpoints[-1]}: max relative difference {worst:.2e}; .xmf identical")
    if not worst <= TOL:
        failures.append(f"{label}: differs from the one-process run by {worst:.3e} (> {TOL})")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
