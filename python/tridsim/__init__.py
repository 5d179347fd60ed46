"""tridsim from Python: fast batched tridiagonal and block-tridiagonal line solves on NumPy
(CPU) and CuPy (GPU) arrays, and tridsim's PDE decks run as function calls.

    import numpy as np, tridsim
    d = np.random.rand(1000, 256)
    tridsim.solve_lines(-1.0, 4.0, -1.0, d, axis=1)      # 1000 systems of 256 rows, in place

Solvers: solve_lines, UniformMatrix (one matrix for every line, factored once),
solve_block_lines (M x M blocks). Decks: run (fields as NumPy arrays, the summary as a dict),
check. Errors: TridsimError, DeckError, SingularMatrixError."""
import os as _os

# As the CLI does: idle OpenMP threads spin briefly, then sleep (libgomp reads this when _core loads).
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "1000"
from ._core import DeckError, SingularMatrixError, TridsimError
from ._core import have_cuda as _have_cuda
from ._block_lines import solve_block_lines
from ._lines import UniformMatrix, solve_lines
from ._runs import RunGrid, RunResult, check, run

__all__ = ["solve_lines", "UniformMatrix", "solve_block_lines", "run", "check", "RunResult", "RunGrid", "TridsimError", "DeckError", "SingularMatrixError"]
