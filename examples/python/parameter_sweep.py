#!/usr/bin/python3
"""A parameter study as function calls: the bundled heat2d deck, turned by `set` overrides into
u_t = kappa (u_xx + u_yy) with u = sin(pi x) sin(pi y) at t = 0 and u = 0 on the boundary, run for
several diffusivities (tridsim.run, no files written). The centre value is plotted against time
beside the exact exp(-2 pi^2 kappa t), saved as a PNG, and checked against it.

    examples/python/parameter_sweep.py [--out sweep.png]"""
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import tridsim  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--out", default="sweep.png")
args = parser.parse_args()
deck = pathlib.Path(__file__).resolve().parents[2] / "inputs" / "heat2d.yaml"

errors = []
fig, ax = plt.subplots()
for kappa in (0.5, 1.0, 2.0):
    mode = "sin(%r*x)*sin(%r*y)" % (np.pi, np.pi)
    overrides = {"grid.n": [65, 65], "time.end": 0.1, "time.dt": 0.0025, "output.every": 4,
                 "heat.diffusivity": kappa, "heat.source": "0", "heat.initial": mode,
                 "heat.exact": "exp(-2*%r*%g*t)*%s" % (np.pi ** 2, kappa, mode), "heat.boundary.all.value": "0"}
    result = tridsim.run(deck, set=overrides, times="all", quiet=True)
    times = np.array([t for _, t, _ in result.outputs])
    centre = np.array([fields["u"][32, 32] for _, _, fields in result.outputs])
    exact = np.exp(-2 * np.pi ** 2 * kappa * times)
    ax.plot(times, centre, marker="o", label="kappa = %g" % kappa)
    ax.plot(times, exact, color="gray", linewidth=0.8)
    errors.append(np.abs(centre - exact).max())
    print("kappa = %-4g centre u at t = %.3g: %.6f (exact %.6f)" % (kappa, times[-1], centre[-1], exact[-1]))
ax.set_xlabel("t")
ax.set_ylabel("u at the centre")
ax.legend()
fig.savefig(args.out, dpi=100)
print("wrote", args.out)
raise SystemExit(0 if max(errors) < 2e-3 else 1)
