"""The heat, glioma, reaction_diffusion and bvp modules on 2, 3 and 4 ranks (mpirun) against the same
decks on one process: every field at every output time and every diagnostic within 1e-12
(relative to the field's largest value; an error field u - exact and error diagnostics relative to
u's), for each scheme in 1D, 2D and 3D (glioma: strang-adi and explicit; reaction_diffusion:
douglas and linearly-implicit, 2 and 3 species; bvp: each pair of end conditions), process grids
that split every axis (x too) and grids that the ranks do not divide evenly; a checkpoint written
on 2 ranks continued on 3 gives the one-process result; a module that does not distribute refuses several ranks with one clear error.
With BACKEND cuda (a CUDA build on a machine with a GPU) every case runs with --backend cuda, every rank on the one
GPU or the host's GPUs round-robin, against the one-process cuda run (skipped, exit 77, without a CUDA device);
the exchanges go through NCCL where each rank has a GPU of its own, else through MPI (summary.json says).
Usage: mpi_runs_test.py TRIDSIM MPIEXEC SOURCE_DIR WORK_DIR [BACKEND]  (run with a Python that has h5py)
"""
import csv
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

from mpi_cases import Runs

tridsim, mpiexec, source, work = sys.argv[1:5]
backend = sys.argv[5] if len(sys.argv) > 5 else "cpu"
if backend == "cuda" and subprocess.run(
        [tridsim, "check", os.path.join(source, "inputs", "heat1d.yaml"), "--backend", "cuda", "-q"],
        capture_output=True).returncode != 0:
    print("SKIPPED: no CUDA device")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
TOL = 1e-12

# A 3D Douglas run with everything that crosses an interface: variable kappa, a moving source,
# moving Dirichlet and Neumann data on faces the ranks share.
MOVING3D = """
name: moving3d
module: heat
grid: {n: [14, 13, 11], lo: [0, 0, 0], hi: [1, 1.2, 0.9]}
time: {end: 0.04, dt: 0.005}
output: {every: 4, formats: [hdf5, csv]}
heat:
  scheme: douglas
  diffusivity: "1 + 0.5*x*y + 0.2*z"
  source: "exp(-t)*(x + y*z)"
  initial: "sin(x + 2*y)*cos(z)"
  exact: "sin(x + 2*y)*cos(z)"
  boundary:
    all: {type: neumann, value: "t*(x - y) + z"}
    x-: {type: dirichlet, value: "sin(2*y)*cos(z) + t"}
    z+: {type: dirichlet, value: "sin(x + 2*y)*cos(0.9)*(1 + t)"}
"""
deck3d = os.path.join(work, "moving3d.yaml")
with open(deck3d, "w") as f:
    f.write(MOVING3D)

# Reaction-diffusion with three species, a diffusion matrix that varies in space and couples them
# (not symmetric), Dirichlet, Neumann and no-flux faces, reactions that couple them too.
MIXED_RD = """
name: mixed_rd
module: reaction_diffusion
grid: {n: [13, 12, 11], lo: [0, 0, 0], hi: [1, 1.1, 0.9]}
time: {end: 0.02, dt: 0.002}
output: {every: 5, formats: [hdf5, csv]}
reaction_diffusion:
  species: [p, q, r]
  diffusion: [["1 + 0.3*x", "0.2*y", 0], [0.1, "0.8 + 0.2*z", 0], [0, "0.1*x", 0.5]]
  reactions: {p: "-p*q", q: "p - q", r: "0.5*p*r"}
  initial: {p: "1 + x*y", q: "cos(z) + y", r: "0.5 + x*z"}
  perturbation: {amplitude: 0.01, seed: 5}
  boundary:
    all: {type: neumann, value: {p: "x", q: "y*z", r: "0.1"}}
    x-: {type: dirichlet, value: {p: "1 + x*y", q: "cos(z) + y", r: "0.5"}}
    z+: {type: dirichlet, value: {p: "1", q: "y", r: "0.5 + x*z"}}
    y+: {type: no-flux}
"""
deck_rd = os.path.join(work, "mixed_rd.yaml")
with open(deck_rd, "w") as f:
    f.write(MIXED_RD)

# Glioma seeds across the ranks' interfaces (wide enough to cover several nodes of the small grids).
SEED2 = "glioma.seed={center: [1, 2], width: 10, peak: 0.5}"

CASES = [  # (name, deck, extra --set, [(np, process grid or None)])
    ("heat1d", f"{source}/inputs/heat1d.yaml", ["grid.n=[101]", "time.end=0.125"], [(2, None), (3, None), (4, None)]),
    ("heat2d-pr", f"{source}/inputs/heat2d.yaml", ["grid.n=[37,29]", "time.end=0.125", "output.formats=[hdf5,csv]"],
     [(2, [2, 1]), (2, [1, 2]), (3, None), (4, [2, 2])]),
    ("heat2d-douglas", f"{source}/inputs/heat2d.yaml",
     ["grid.n=[37,29]", "time.end=0.125", "heat.scheme=douglas", "output.formats=[hdf5,csv]"], [(3, [3, 1]), (3, [1, 3])]),
    ("heat3d", f"{source}/inputs/heat3d.yaml", ["grid.n=[25,22,19]", "time.end=0.02", "output.formats=[hdf5,csv]"],
     [(2, None), (4, [1, 2, 2]), (3, [3, 1, 1])]),
    # Constant kappa: the sweep before a split axis sums its reduced right-hand sides.
    ("heat3d-constant", f"{source}/inputs/heat3d.yaml",
     ["grid.n=[25,22,19]", "time.end=0.02", "heat.diffusivity=1", "output.formats=[hdf5,csv]"],
     [(2, [1, 1, 2]), (4, [1, 2, 2])]),
    ("moving3d", deck3d, [], [(2, [1, 1, 2]), (4, [2, 1, 2]), (3, [1, 3, 1])]),
    ("glioma2d", f"{source}/inputs/glioma2d.yaml",
     ["grid.n=[61,57]", "time.end=20", "output.every=10", "output.formats=[hdf5,csv]", SEED2],
     [(2, [2, 1]), (3, None), (4, [2, 2])]),
    ("glioma2d-explicit", f"{source}/inputs/glioma2d.yaml",
     ["grid.n=[61,57]", "time.end=5", "time.dt=0.25", "glioma.scheme=explicit", "output.every=5",
      "output.formats=[hdf5,csv]", SEED2], [(3, [1, 3])]),
    ("glioma3d", f"{source}/inputs/glioma3d.yaml",
     ["grid.n=[21,23,19]", "time.end=10", "output.every=5", "output.formats=[hdf5,csv]",
      "glioma.seed={center: [2, 3, 1], width: 12, peak: 0.5}"], [(4, [1, 2, 2]), (3, [3, 1, 1])]),
    ("cross-diffusion2d", f"{source}/inputs/cross_diffusion2d.yaml",
     ["grid.n=[41,37]", "time.end=2", "output.every=10", "output.formats=[hdf5,csv]"],
     [(2, [2, 1]), (3, None), (4, [2, 2])]),
    ("brusselator3d", f"{source}/inputs/brusselator3d.yaml",
     ["grid.n=[17,15,13]", "time.end=0.01", "output.every=5", "output.formats=[hdf5,csv]"],
     [(2, [2, 1, 1]), (3, [1, 1, 3]), (4, [1, 2, 2])]),
    ("mixed-rd", deck_rd, [], [(2, [1, 1, 2]), (3, [3, 1, 1]), (4, [2, 2, 1])]),
    # BVP: the line split over the ranks, the divide-and-conquer carries crossing them; prefix sums
    # first (Neumann at x-), suffix sums first (Neumann at x+), two Dirichlet ends (rank-one term).
    ("bvp", f"{source}/inputs/bvp.yaml", ["grid.n=[20011]", "bvp.column_length=64"], [(2, None), (3, None), (4, None)]),
    ("bvp-neumann-right", f"{source}/inputs/bvp.yaml",
     ["grid.n=[4099]", "bvp.column_length=7", "bvp.exact=cos(pi*x/2) + 1",  # (u_min 1, not about 0)
      "bvp.boundary={x-: {type: dirichlet, value: 2}, x+: {type: neumann, value: -pi/2}}"], [(3, None)]),
    ("bvp-dirichlet", f"{source}/inputs/bvp.yaml",
     ["grid.n=[5003]", "bvp.exact=cos(pi*x/2) + 2 - 3*x",
      "bvp.boundary={x-: {type: dirichlet, value: 3}, x+: {type: dirichlet, value: -1}}"], [(2, None), (4, None)]),
]

runs = Runs(tridsim, mpiexec, work, failures, backend)
run = runs.run


def h5_fields(folder):
    (name,) = [f for f in os.listdir(folder) if f.endswith(".h5") and "checkpoint" not in f]
    out = {}
    with h5py.File(os.path.join(folder, name)) as h:
        h.visititems(lambda k, v: out.__setitem__(k, np.asarray(v[()])) if isinstance(v, h5py.Dataset) else None)
    return out


def csv_rows(folder):
    (name,) = [f for f in os.listdir(folder) if f.endswith(".csv")]
    with open(os.path.join(folder, name)) as f:
        return [{k: v for k, v in r.items() if k not in ("step_wall_s", "solve_s")} for r in csv.DictReader(f)]


def compare(label, ref, got):
    a, b = h5_fields(ref), h5_fields(got)
    if sorted(a) != sorted(b):
        failures.append(f"{label}: datasets differ: {sorted(set(a) ^ set(b))}")
        return
    worst = 0.0
    for k in a:
        if a[k].dtype.kind == "f":
            # an error field (u - exact: small) differs by u's rounding, so relative to u
            scale = a.get(k[: -len("error")] + "u", a[k]) if k.endswith("error") else a[k]
            worst = max(worst, float(np.max(np.abs(a[k] - b[k]))) / max(float(np.max(np.abs(scale))), 1e-300))
    ra, rb = csv_rows(ref), csv_rows(got)
    for x, y in zip(ra, rb):
        for k in x:
            u, v = float(x[k]), float(y[k])
            absolute = k in ("step", "time") or "error" in k  # (errors: relative to u, of size 1)
            worst = max(worst, abs(u - v) if absolute else abs(u - v) / max(abs(u), 1e-300))
    if len(ra) != len(rb):
        failures.append(f"{label}: {len(ra)} diagnostics rows on one process, {len(rb)} on several")
    print(f"{label}: max relative difference {worst:.2e}")
    if not worst <= TOL:
        failures.append(f"{label}: differs from the one-process run by {worst:.3e} (> {TOL})")



def gpu_count():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ")
    except OSError:
        return 0


# With the GPU backend: NCCL carries the exchanges where every rank has its own GPU and NCCL loads
# (tridsim info says whether it does), MPI where ranks share a GPU.
nccl_loads = backend == "cuda" and "NCCL 2." in subprocess.run([tridsim, "info"], capture_output=True, text=True).stdout
gpus = gpu_count() if backend == "cuda" else 0

for name, label, ref, out, np_ in runs.each(CASES):
    compare(label, ref, out)
    summary = json.load(open(os.path.join(out, "summary.json")))
    if summary.get("parallel", {}).get("ranks") != np_:
        failures.append(f"{label}: summary.json does not record {np_} ranks: {summary.get('parallel')}")
    if backend == "cuda" and gpus > 0:
        transport = summary.get("parallel", {}).get("gpu_transport", "")
        want_nccl = nccl_loads and np_ <= gpus
        if transport.startswith("NCCL") != want_nccl:
            failures.append(f"{label}: {gpus} GPUs, transport {transport!r}, NCCL expected: {want_nccl}")

# A checkpoint written on 2 ranks, continued on 3: the one-process result.
sets3d = ["output.checkpoint.every=4"]
ref = os.path.join(work, "moving3d-np1")
two = os.path.join(work, "restart-np2")
r = run(2, deck3d, two, sets3d + ["time.end=0.02"])
cp = os.path.join(two, "moving3d_checkpoint_000004.h5")
if r.returncode != 0 or not os.path.exists(cp):
    failures.append(f"checkpoint on 2 ranks: exit {r.returncode}, {cp} written: {os.path.exists(cp)}; {r.stderr}")
else:
    three = os.path.join(work, "restart-np3")
    shutil.copytree(two, three)
    r = run(3, deck3d, three, [], extra=["--restart", cp])
    if r.returncode != 0:
        failures.append(f"restart on 3 ranks: exit {r.returncode}: {r.stderr}")
    else:
        a, b = h5_fields(ref), h5_fields(three)
        last = sorted(k for k in a if k.endswith("/u") or k.endswith("u"))
        worst = max(float(np.max(np.abs(a[k] - b[k]))) / float(np.max(np.abs(a[k]))) for k in last if k in b)
        print(f"restart 2 -> 3 ranks: max relative difference {worst:.2e} over {len(last)} outputs")
        if not worst <= TOL:
            failures.append(f"restart 2 -> 3 ranks differs from one process by {worst:.3e}")

# Refusals: one clear error, no result.
for deck, sets, want in [
    (f"{source}/inputs/poisson2d.yaml", [], "runs on one rank only"),
    (f"{source}/inputs/heat_cn2d.yaml", [], "does not run on several ranks"),
    (deck3d, ["parallel.ranks=[1,1,3]"], "the run has 2"),
    (deck3d, ["parallel.ranks=[1,1,2]", "grid.n=[14,13,3]"], "fewer than 2"),
]:
    out = os.path.join(work, "refused")
    r = run(2, deck, out, sets)
    if r.returncode == 0 or want not in r.stderr or os.path.exists(os.path.join(out, "summary.json")):
        failures.append(f"{deck} {sets} on 2 ranks: exit {r.returncode}, stderr {r.stderr.strip()!r} (wanted {want!r})")
    elif r.stderr.count("error:") != 1:
        failures.append(f"{deck} on 2 ranks: the error is printed {r.stderr.count('error:')} times: {r.stderr!r}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
