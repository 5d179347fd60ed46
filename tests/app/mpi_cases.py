"""What the mpi tests share: tridsim runs on one process or under mpiexec, and the loop that runs
each case's deck on one process (the reference) and then on each of its process grids."""
import os
import subprocess

# (NCCL: point-to-point and all-gathers only; NVLink multicast stays off.)
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", NCCL_NVLS_ENABLE="0")


class Runs:
    def __init__(self, tridsim, mpiexec, work, failures, backend="cpu"):
        self.tridsim, self.mpiexec, self.work, self.failures, self.backend = tridsim, mpiexec, work, failures, backend

    def run(self, np_, deck, out, sets, ranks=None, extra=()):
        """tridsim run DECK on np_ ranks (process grid `ranks`, or balanced) with --set `sets`."""
        cmd = [self.tridsim, "run", deck, "-o", out, "-q", "--no-progress", "--backend", self.backend]
        for s in sets + (["parallel.ranks=[" + ",".join(map(str, ranks)) + "]"] if ranks else []):
            cmd += ["--set", s]
        cmd += list(extra)
        if np_ > 1:
            cmd = [self.mpiexec, "--oversubscribe", "-np", str(np_)] + cmd
        return subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=300)

    def each(self, cases):
        """Per case (name, deck, sets, [(np, ranks)]): the one-process run into WORK/NAME-np1, then
        yields (name, label, reference folder, folder, np) for each multi-rank run that succeeded;
        failed runs are added to the failures."""
        for name, deck, sets, runs in cases:
            ref = os.path.join(self.work, name + "-np1")
            r = self.run(1, deck, ref, sets)
            if r.returncode != 0:
                self.failures.append(f"{name} on one process failed: {r.stderr}")
                continue
            for np_, ranks in runs:
                label = f"{name} np={np_} ranks={ranks or 'balanced'}"
                out = os.path.join(self.work, f"{name}-np{np_}-{'x'.join(map(str, ranks or []))}")
                r = self.run(np_, deck, out, sets, ranks)
                if r.returncode != 0:
                    self.failures.append(f"{label}: exit {r.returncode}: {r.stderr.strip()}")
                    continue
                yield name, label, ref, out, np_
