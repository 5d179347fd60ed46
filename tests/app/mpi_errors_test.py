"""Errors and signals under mpirun on 2 ranks (issue 34 item 4).

- A deck error, which every rank meets, or one rank meets in its box during setup (shared with the
  others): exit 1, one 'error:' line (rank 0's), no MPI_ABORT report.
- An error one rank meets alone during the time loop (rank 0's writes into an output directory
  deleted under the run): every rank learns it at the ranks' next agreement and ends with exit 1;
  one 'error:' line naming rank 0, no MPI_ABORT. A NaN that enters through one rank's box at a
  late step: the same, naming the step and a node of the whole grid.
- A full disk while the ranks write a parallel HDF5 file together (the fault injection library's
  disk of a few hundred kB per file, on every rank or on rank 1 alone; and one of a few hundred kB
  in all, which the checkpoint meets): exit 1 within seconds, one 'error:' line naming the file
  (the user's path, not its temporary name) and the disk's error, no crash and no hang (HDF5's
  collective flush and close after a failed write), no checkpoint left of the one refused, and
  the .xmf left names only groups that h5py reads back finite.
- SIGINT to the ranks (a batch system's signal to the job's processes): every rank stops at the
  same step and writes its part of a checkpoint; mpirun exits with 130, as one process does; the
  printed restart command, run under mpirun, completes the run.
- SIGINT or SIGTERM to mpirun: Open MPI 4.1's mpirun sends SIGTERM to the ranks and exits 1 itself,
  whatever the ranks return (docs/running.md); the ranks still stop with a checkpoint that restarts.
Usage: mpi_errors_test.py TRIDSIM MPIEXEC SOURCE_DIR WORK_DIR [FAULT_INJECTION_LIBRARY]
"""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import h5py
import numpy as np

from mpi_cases import ENV

tridsim, mpiexec, source, work = sys.argv[1:5]
fault_library = sys.argv[5] if len(sys.argv) > 5 else None
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
MPIRUN = [mpiexec, "--oversubscribe", "-np", "2"]

# 1. A deck error on every rank.
for name, sets, want in [
    ("unknown key", ["heat.colour=1"], "heat.colour: unknown key"),
    ("non-finite initial", ["heat.initial=0/0"], "heat.initial: is NaN"),
    # (the node by its index in the whole grid, not in the rank's box)
    ("in one rank's box", ['heat.initial="z > 0.9 ? 0/0 : 0"'], "heat.initial: is NaN at node (0, 0, 8) (x = 0, y = 0, z = 1)"),
    # (2 ranks split z, the last axis)
    ("periodic axis split", ["heat.boundary.z-={type: periodic}", "heat.boundary.z+={type: periodic}"],
     "heat.boundary.z-.type: periodic faces of z: axis z is split over ranks"),
]:
    cmd = MPIRUN + [tridsim, "run", f"{source}/inputs/heat3d.yaml", "-o", f"{work}/refused", "--set", "grid.n=[9,9,9]"]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=60)
    lines = [l for l in (r.stdout + r.stderr).splitlines() if l.startswith("error:")]
    if r.returncode != 1 or len(lines) != 1 or want not in lines[0] or "MPI_ABORT" in r.stdout + r.stderr:
        failures.append(f"deck error ({name}) on 2 ranks: exit {r.returncode}, error lines {lines}, "
                        f"output {(r.stdout + r.stderr)[-1500:]!r} (wanted exit 1, one line with {want!r})")
    else:
        print(f"deck error ({name}): exit 1, one error line, no MPI_ABORT")



def one_error_line(label, r, want):
    """Exit 1 from mpirun, one 'error:' line containing every text of `want`, no MPI_ABORT report."""
    text = r.stdout + r.stderr
    lines = [l for l in text.splitlines() if l.startswith("error:")]
    if r.returncode != 1 or len(lines) != 1 or any(w not in lines[0] for w in want) or "MPI_ABORT" in text:
        failures.append(f"{label}: exit {r.returncode}, error lines {lines}, output {text[-1500:]!r} "
                        f"(wanted exit 1, one line with {want!r}, no MPI_ABORT)")
    else:
        print(f"{label}: exit 1, one error line, no MPI_ABORT: {lines[0][:150]}")


# 2. A late NaN from a source that is finite at every time check evaluates it (start, middle, end),
# in the box of the rank that holds z = 1 (the step's z lines carry it into the other's box too).
r = subprocess.run(MPIRUN + [tridsim, "run", f"{source}/inputs/heat3d.yaml", "-o", f"{work}/nan", "--no-progress",
                             "--set", "grid.n=[9,9,9]", "--set", "parallel.ranks=[1,1,2]",
                             "--set", 'heat.source="t > 0.02 && t < 0.03 && z > 0.9 ? 0/0 : 0"'],
                   env=ENV, capture_output=True, text=True, timeout=60)
one_error_line("NaN from rank 1's box at step 9", r, ["u_min is NaN at step 9,", "the run diverged", "first at node ("])

# 3. Rank 0's writes fail alone: the output directory is deleted while the run writes in it.


def long_deck(name, n, every, formats):
    """A heat run of 100000 short steps on an n^3 grid (it is stopped, or fails, long before its end)."""
    path = os.path.join(work, name + ".yaml")
    with open(path, "w") as f:
        f.write(f"""name: {name}
module: heat
grid: {{n: [{n}, {n}, {n}]}}
time: {{dt: 0.00001, steps: 100000}}
output: {{every: {every}, formats: [{formats}]}}
heat:
  diffusivity: 1
  initial: "x*y*z"
  boundary: {{all: {{type: dirichlet, value: "x*y*z"}}}}
""")
    return path


gone_deck = long_deck("gone", 16, 20, "hdf5, csv")
gone = os.path.join(work, "gone")
p = subprocess.Popen(MPIRUN + [tridsim, "run", gone_deck, "-o", gone, "--no-progress"], env=ENV,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
deadline = time.time() + 60
while not os.path.exists(os.path.join(gone, "gone.h5")) and time.time() < deadline and p.poll() is None:
    time.sleep(0.05)
shutil.rmtree(gone, ignore_errors=True)
try:
    out, err = p.communicate(timeout=60)
    one_error_line("output directory deleted under 2 ranks", subprocess.CompletedProcess(p.args, p.returncode, out, err),
                   ["error: rank 0 of 2: ", gone])
except subprocess.TimeoutExpired:
    p.kill()
    failures.append("output directory deleted under 2 ranks: the run did not end within 60 s")

# 4. A full disk under parallel HDF5: a disk of `limit` bytes per file, on every rank or on rank 1
# alone (Open MPI's app contexts: rank 0 without the fault). Outputs every 5 steps, checkpoints every 7.


def readable_results(out, name):
    """Problems with what the .xmf names: each dataset read back from the .h5, finite."""
    xmf = os.path.join(out, name + ".xmf")
    if not os.path.exists(xmf):
        return []
    try:
        items = [d.text for d in ET.parse(xmf).getroot().iter("DataItem") if d.get("Format") == "HDF"]
        with h5py.File(os.path.join(out, name + ".h5"), "r") as f:
            return [f"{i} not finite" for i in items if not np.isfinite(f[i.split(":", 1)[1]][...]).all()]
    except (OSError, KeyError, ET.ParseError) as e:
        return [f"{xmf} or its .h5 unreadable: {e}"]


if fault_library:
    disk_deck = long_deck("disk", 16, 5, "hdf5")
    with open(disk_deck) as f:
        text = f.read().replace("formats: [hdf5]}", "formats: [hdf5], checkpoint: {every: 7}}")
    with open(disk_deck, "w") as f:
        f.write(text)
    fault = ["-x", f"LD_PRELOAD={fault_library}"]
    # (disk-bytes: each file alone holds that many bytes, so the results file fills first; disk-total:
    # the files together, the results file and the checkpoint at step 7, which meets the full disk)
    for label, fault_spec, ranks, want in [
        ("before the first output", "disk-bytes:60000", "every", ["cannot write the run's attributes: No space left on device"]),
        ("in the results", "disk-bytes:200000", "every", ["disk.h5': cannot write step 15: No space left on device"]),
        ("on rank 1 alone", "disk-bytes:200000", "rank 1", ["error: rank 1 of 2: HDF5 output"]),
        ("in a checkpoint", "disk-total:175000", "every",
         ["checkpoint '", "disk_checkpoint_000007.h5': cannot write it: No space left on device"]),
    ]:
        out = os.path.join(work, f"disk-{fault_spec.replace(':', '')}-{ranks.replace(' ', '')}")
        run = [tridsim, "run", disk_deck, "-o", out, "--no-progress"]
        limited = fault + ["-x", f"TRIDSIM_FAULT={fault_spec}"]
        cmd = ([mpiexec, "--oversubscribe", "-np", "2"] + limited + run if ranks == "every" else
               [mpiexec, "--oversubscribe", "-np", "1"] + run + [":", "-np", "1"] + limited + run)
        label = f"a full disk {label} ({ranks})"
        t0 = time.time()
        try:
            r = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            failures.append(f"{label}: the run did not end within 60 s")
            continue
        seconds = time.time() - t0
        text = r.stdout + r.stderr
        one_error_line(label, r, want)
        for crash in ("Segmentation", "core dumped", "terminate called", "internal error", ".part"):
            if crash in text:
                failures.append(f"{label}: {crash!r} in the output: {text[-1500:]!r}")
        if seconds > 30:
            failures.append(f"{label}: took {seconds:.0f} s (wanted seconds)")
        # (no checkpoint that looks valid: the one the disk refused is neither there nor half there)
        left = [e for e in os.listdir(out) if "checkpoint" in e] if "checkpoint" in label else []
        if left:
            failures.append(f"{label}: checkpoint files left: {left}")
        failures += [f"{label}: {p}" for p in readable_results(out, "disk")]
else:
    print("a full disk under parallel HDF5: skipped (no fault injection library: a sanitizer build)")

# 5. Signals during a run that checkpoints on stopping.
deck = long_deck("sig", 24, 100000, "hdf5")


def children(pid):
    """The processes whose parent is pid (mpirun's ranks)."""
    out = []
    for p in os.listdir("/proc"):
        try:
            with open(f"/proc/{p}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(p))
        except (OSError, ValueError, IndexError):
            pass
    return out


def stopped_run(label, to_ranks):
    """Starts the run under mpirun, waits for its first output, sends SIGINT (to the ranks or to
    mpirun); returns (exit code, output, checkpoint)."""
    out = os.path.join(work, label)
    p = subprocess.Popen(MPIRUN + [tridsim, "run", deck, "-o", out, "--no-progress"], env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(out, "sig.h5")) and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    time.sleep(0.3)
    targets = children(p.pid) if to_ranks else [p.pid]
    for pid in targets:
        os.kill(pid, signal.SIGINT)
    text = p.communicate(timeout=120)[0]
    m = re.search(r"continue with: (.*)", text)
    return p.returncode, text, m.group(1) if m else None, out


def restarts(label, command, text, out):
    """Runs the printed restart command on 2 ranks, to 20 steps past the stop."""
    step = int(re.search(r"after step ([0-9]+)", text).group(1))
    args = shlex.split(command)
    r = subprocess.run(MPIRUN + [tridsim] + args[1:] + ["--no-progress", "--set", f"time.steps={step + 20}"], env=ENV,
                       capture_output=True, text=True, timeout=120)
    summary = json.load(open(os.path.join(out, "summary.json"))) if os.path.exists(os.path.join(out, "summary.json")) else {}
    if r.returncode != 0 or summary.get("status") != "complete" or summary["time"]["steps"] != 20:
        failures.append(f"{label}: the restart '{command}' on 2 ranks: exit {r.returncode}, summary {summary.get('status')}: "
                        f"{r.stderr[-1500:]}")
    else:
        print(f"{label}: restarted from step {summary['restarted_from']['step']} and completed")


rc, text, command, out = stopped_run("to-ranks", True)
if rc != 130 or not command:
    failures.append(f"SIGINT to the ranks: mpirun exit {rc} (wanted 130), restart hint {command!r}: {text[-1500:]}")
else:
    print("SIGINT to the ranks: mpirun exits 130 with a restart hint")
    restarts("SIGINT to the ranks", command, text, out)

# (mpirun's own exit status: 1, not 128 + N; a later Open MPI that passed the ranks' 143 on fails
# this line, and docs/running.md is to be updated with it)
rc, text, command, out = stopped_run("to-mpirun", False)
if rc != 1 or not command or "stopped by Terminated" not in text:
    failures.append(f"SIGINT to mpirun: exit {rc} (Open MPI 4.1: 1), restart hint {command!r} (wanted the ranks "
                    f"stopped by SIGTERM): {text[-1500:]}")
else:
    print(f"SIGINT to mpirun: the ranks stopped by SIGTERM with a checkpoint; mpirun exits {rc}")
    restarts("SIGINT to mpirun", command, text, out)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
