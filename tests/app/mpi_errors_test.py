"""Errors and signals under mpirun on 2 ranks (issue 34 item 4).

- A deck error, which every rank meets, or one rank meets in its box during setup (shared with the
  others): exit 1, one 'error:' line (rank 0's), no MPI_ABORT report.
- SIGINT to the ranks (a batch system's signal to the job's processes): every rank stops at the
  same step and writes its part of a checkpoint; mpirun exits with 130, as one process does; the
  printed restart command, run under mpirun, completes the run.
- SIGINT to mpirun: Open MPI's mpirun sends SIGTERM to the ranks and exits 1 itself, whatever the
  ranks return; the ranks still stop with a checkpoint that restarts.
Usage: mpi_errors_test.py TRIDSIM MPIEXEC SOURCE_DIR WORK_DIR
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

from mpi_cases import ENV

tridsim, mpiexec, source, work = sys.argv[1:5]
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

# 2. Signals during a run that checkpoints on stopping.
DECK = f"""name: sig
module: heat
grid: {{n: [24, 24, 24]}}
time: {{dt: 0.00001, steps: 100000}}
output: {{every: 100000, formats: [hdf5]}}
heat:
  diffusivity: 1
  initial: "x*y*z"
  boundary: {{all: {{type: dirichlet, value: "x*y*z"}}}}
"""
deck = os.path.join(work, "sig.yaml")
with open(deck, "w") as f:
    f.write(DECK)


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

rc, text, command, out = stopped_run("to-mpirun", False)
if rc == 0 or not command or "stopped by Terminated" not in text:
    failures.append(f"SIGINT to mpirun: exit {rc}, restart hint {command!r} (wanted the ranks stopped by SIGTERM): "
                    f"{text[-1500:]}")
else:
    print(f"SIGINT to mpirun: the ranks stopped by SIGTERM with a checkpoint; mpirun exits {rc}")
    restarts("SIGINT to mpirun", command, text, out)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
