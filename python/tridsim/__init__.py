"""tridsim from Python: fast batched tridiagonal and block-tridiagonal line solves on NumPy
(CPU) and CuPy (GPU) arrays, and tridsim's PDE decks run as function calls.

    import numpy as np, tridsim
    d = np.random.rand(1000, 256)
    x = tridsim.solve_lines(-1.0, 4.0, -1.0, d)          # 1000 systems of 256 rows (the last axis)
    tridsim.solve_lines(-1.0, 4.0, -1.0, d, overwrite_d=True)  # the same, solved in place

Solvers: solve_lines, UniformMatrix (one matrix for every line, factored once),
solve_block_lines (M x M blocks). Decks: run (fields as NumPy arrays, the summary as a dict),
check. Errors: TridsimError, DeckError, SingularMatrixError."""
import os as _os

from ._version import __version__  # noqa: F401 (the build's version: what `tridsim --version` prints)

# As the CLI does: idle OpenMP threads spin briefly, then sleep (libgomp reads this when _core loads).
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "1000"
# Everything loads on first use: the extension module (and the libraries it links) with the first
# error class or solver asked for, NumPy with the solvers and runs; `import tridsim` alone is cheap.
_SUBMODULE_OF = {"solve_lines": "_lines", "UniformMatrix": "_lines", "solve_block_lines": "_block_lines",
                 "run": "_runs", "check": "_runs", "RunResult": "_runs", "RunGrid": "_runs",
                 "TridsimError": "_core", "DeckError": "_core"}

__all__ = ["solve_lines", "UniformMatrix", "solve_block_lines", "run", "check", "RunResult", "RunGrid", "TridsimError", "DeckError", "SingularMatrixError"]


def __getattr__(name):
    import importlib
    if name == "SingularMatrixError":
        value = importlib.import_module("._core", __name__).singular_matrix_error()
    elif name == "_have_cuda":
        value = importlib.import_module("._core", __name__).have_cuda
    elif name in _SUBMODULE_OF:
        value = getattr(importlib.import_module("." + _SUBMODULE_OF[name], __name__), name)
    else:
        raise AttributeError(f"module 'tridsim' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
