"""tridsim from Python: fast batched tridiagonal and block-tridiagonal line solves on NumPy
(CPU) and CuPy (GPU) arrays, and tridsim's PDE decks run as function calls.

    import numpy as np, tridsim
    d = np.random.rand(1000, 256)
    tridsim.solve_lines(-1.0, 4.0, -1.0, d, axis=1)      # 1000 systems of 256 rows, in place

Solvers: solve_lines, UniformMatrix (one matrix for every line, factored once),
solve_block_lines (M x M blocks). Errors: TridsimError, DeckError, SingularMatrixError."""
from ._core import DeckError, SingularMatrixError, TridsimError
from ._core import have_cuda as _have_cuda
from ._block_lines import solve_block_lines
from ._lines import UniformMatrix, solve_lines

__all__ = ["solve_lines", "UniformMatrix", "solve_block_lines", "TridsimError", "DeckError", "SingularMatrixError"]
