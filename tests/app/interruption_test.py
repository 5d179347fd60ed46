"""A run into a directory that holds a previous result, stopped in every way we can think of:
killed (SIGKILL) at random moments, killed at each of its renames, and given a full disk
(ENOSPC) at each of its writes. After each, the directory must hold one valid result, either the
previous one complete or the new one with the outputs it completed, never files of both; and the
next run must clean up what the stopped one left.

Run A (17x17 grid, dt 1/128) is the previous result; run B (21x21, dt 1/160) the one stopped.
Every file says which run wrote it (its grid, or its times).
Usage: interruption_test.py TRIDSIM DECK FAULT_INJECTION_SO WORK_DIR  (run with a Python that has h5py)
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import h5py
import numpy as np

tridsim, deck, shim, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
out = os.path.join(work, "out")

COMMON = ["--set", "name=r", "--set", "output.formats=[hdf5,vtk,csv]", "-q", "--no-progress"]
RUNS = {
    "A": ["--set", "grid.n=[17,17]", "--set", "time.dt=0.0078125", "--set", "output.every=16",
          "--set", "output.checkpoint.every=32"],
    "B": ["--set", "grid.n=[21,21]", "--set", "time.dt=0.00625", "--set", "output.every=8",
          "--set", "output.checkpoint.every=40"],
}
N = {"A": 17, "B": 21}
DT = {"A": 0.0078125, "B": 0.00625}
LAST_STEP = {"A": 128, "B": 160}
failures = []
# The OpenMP wait policy tridsim would set by restarting itself: given here, each of the few hundred
# runs below starts once, not twice.
os.environ.setdefault("GOMP_SPINCOUNT", "1000")


def command(run):
    return [tridsim, "run", deck, "-o", out] + COMMON + RUNS[run]


def run_a():
    subprocess.run(command("A"), check=True, stdout=subprocess.DEVNULL)


def restore_a():
    """The directory as run A leaves it, copied from its one run (a run per trial doubled the test's
    time); what a stopped run left beside it goes too, as the next run would remove it."""
    shutil.rmtree(out, ignore_errors=True)
    for e in os.listdir(work):
        if "tridsim-new" in e:
            shutil.rmtree(os.path.join(work, e))
    shutil.copytree(a_result, out, symlinks=True)


def check_cleanup(after):
    """A run after stopped ones removes what they left (staging directories, .part files)."""
    run_a()
    left = [e for e in os.listdir(out) if e.endswith(".part")] + [e for e in os.listdir(work) if "tridsim-new" in e]
    if left:
        failures.append(f"left behind by {after} after a complete run: {left}")


def which_run_by_n(n):
    return {17: "A", 21: "B"}.get(int(n), "?")


def which_run_by_times(times, steps):
    """The run whose dt gives these (step, time) pairs (None: step 0 only, either run)."""
    labels = {r for r in DT if all(abs(t - s * DT[r]) <= 1e-12 for s, t in zip(steps, times) if s > 0)}
    return None if len(labels) == 2 else labels.pop() if labels else "?"


def check_result(where):
    """The labels of the runs whose files are in `out`, after checking every file is valid."""
    seen = {}
    entries = sorted(os.listdir(out))
    xmf_steps = None
    for e in entries:
        p = os.path.join(out, e)
        if e.startswith("."):
            assert e in (".tridsim.lock", ".tridsim.manifest") or e.endswith(".part"), f"stray hidden {e}"
            continue
        if e == "r.h5":
            with h5py.File(p, "r") as f:
                seen[e] = which_run_by_n(f["grid"].attrs["n"][0])
                h5_groups = {k for k in f if k.startswith("step_")}
        elif e == "r.xmf":
            root = ET.parse(p).getroot()
            grids = root.findall(".//Grid[@GridType='Uniform']")
            dims = {g.find("Topology").get("Dimensions") for g in grids}
            assert len(dims) == 1, f"xmf with grids {dims}"
            seen[e] = which_run_by_n(dims.pop().split()[-1])
            xmf_steps = [int(g.get("Name")[5:]) for g in grids]
            times = [float(g.find("Time").get("Value")) for g in grids]
            assert which_run_by_times(times, xmf_steps) in (seen[e], None), f"xmf times {times}"
            with h5py.File(os.path.join(out, "r.h5"), "r") as f:  # every dataset it names is whole
                for item in root.iter("DataItem"):
                    if item.get("Format") == "HDF":
                        name = item.text.split(":", 1)[1]
                        data = f[name][()]
                        assert data.size == N[seen[e]] ** 2 and np.all(np.isfinite(data)), f"bad {name}"
        elif e == "r.pvd":
            sets = ET.parse(p).getroot().findall(".//DataSet")
            for s in sets:
                assert os.path.exists(os.path.join(out, s.get("file"))), f"pvd names missing {s.get('file')}"
            steps = [int(re.search(r"_(\d+)\.vti", s.get("file")).group(1)) for s in sets]
            seen[e] = which_run_by_times([float(s.get("timestep")) for s in sets], steps)
        elif e.endswith(".vti"):
            text = open(p, "rb").read()
            assert text.rstrip().endswith(b"</VTKFile>"), f"{e} is cut short"
            extent = re.search(rb'WholeExtent="0 (\d+) ', text).group(1)
            seen[e] = which_run_by_n(int(extent) + 1)
        elif e == "r_diagnostics.csv":
            lines = open(p).read().split("\n")
            assert lines[-1] == "", "the CSV ends inside a row"
            header = lines[0].split(",")
            rows = [[float(x) for x in l.split(",")] for l in lines[1:-1]]
            assert all(len(r) == len(header) for r in rows), "a CSV row of another width"
            steps = [int(r[0]) for r in rows]
            assert steps == sorted(set(steps)), "CSV steps not increasing"
            seen[e] = which_run_by_times([r[1] for r in rows], steps)
        elif e.startswith("r_checkpoint_"):
            with h5py.File(p, "r") as f:
                seen[e] = which_run_by_n(f.attrs["n"][0])
        elif e == "summary.json":
            s = json.load(open(p))
            seen[e] = which_run_by_n(s["grid"]["n"][0])
        else:
            raise AssertionError(f"unexpected file {e}")
    labels = set(seen.values()) - {None}
    assert labels and "?" not in labels, f"files not recognised: {seen}"
    assert len(labels) == 1, f"a mix of runs: {seen}"
    label = labels.pop()
    if label == "A":  # the previous result must still be whole
        s = json.load(open(os.path.join(out, "summary.json")))
        assert s["status"] == "complete" and xmf_steps == list(range(0, 129, 16)), "previous result not whole"
    return label


def trial(what, env_fault=None, kill_after=None):
    """Run B over a complete A, stop it as asked, check the directory; returns B's exit code."""
    restore_a()
    env = dict(os.environ)
    if env_fault:
        env["LD_PRELOAD"] = shim
        env["TRIDSIM_FAULT"] = env_fault
    p = subprocess.Popen(command("B"), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if kill_after is not None:
        time.sleep(kill_after)
        p.send_signal(signal.SIGKILL)
    err = p.communicate()[1]
    try:
        label = check_result(what)
        if p.returncode == 0:
            assert label == "B", "B completed but its result is not there"
        if p.returncode not in (0, -signal.SIGKILL):
            lines = err.strip().split("\n")
            assert p.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: "), \
                f"exit {p.returncode}, stderr {err!r}"
        return p.returncode, label, err
    except AssertionError as e:
        failures.append(f"{what}: {e}")
        return p.returncode, "?", err


# 0. Run A's result, kept to be copied before each trial; how long B takes, and how many writes and
# renames it makes.
run_a()
a_result = os.path.join(work, "a_result")
shutil.copytree(out, a_result, symlinks=True)
env = dict(os.environ, LD_PRELOAD=shim, TRIDSIM_FAULT="count")
t0 = time.time()
counted = subprocess.run(command("B"), env=env, capture_output=True, text=True)
duration = time.time() - t0
m = re.search(r"fault-injection: (\d+) writes, (\d+) renames", counted.stderr)
assert counted.returncode == 0 and m, counted.stderr
writes, renames = int(m.group(1)), int(m.group(2))
assert check_result("B complete") == "B"
print(f"run B: {duration:.2f} s, {writes} writes, {renames} renames")

# 1. SIGKILL at random moments.
rng = random.Random(7)
outcomes = {}
for i in range(12):
    rc, label, _ = trial(f"kill at random moment {i}", kill_after=rng.uniform(0, duration))
    outcomes[label] = outcomes.get(label, 0) + 1
print(f"random kills: 12 tried, results found {outcomes}")
check_cleanup("random kills")

# 2. SIGKILL at each rename.
for k in range(1, renames + 1):
    trial(f"kill at rename {k}", env_fault=f"kill-rename:{k}")
print(f"kills at renames: {renames} tried")
check_cleanup("kills at renames")

# 3. ENOSPC at writes: the first 60 (set-up and the first output, before and while it is
# published), the last 30 (the final outputs, checkpoint and summary) and 40 spread between.
ks = list(range(1, writes + 1))
if len(ks) > 130:
    ks = sorted(set(ks[:60] + ks[-30:] + ks[60:-30:max(1, (len(ks) - 90) // 40)]))
errors = 0
for k in ks:
    rc, label, err = trial(f"ENOSPC at write {k}", env_fault=f"enospc-write:{k}")
    if rc == 1:
        errors += 1
        if "No space left on device" not in err:
            failures.append(f"ENOSPC at write {k}: the error does not give the reason: {err!r}")
        if "tridsim-new" in err:  # the staging directory is internal: errors name the output directory
            failures.append(f"ENOSPC at write {k}: the error names the staging directory: {err!r}")
print(f"full disk: {len(ks)} writes tried, {errors} clean errors")

check_cleanup("full disks")

for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
