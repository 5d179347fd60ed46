"""tridsim: fast batched tridiagonal and block-tridiagonal line solvers for NumPy and CuPy
arrays, and tridsim's PDE decks run from Python."""
from ._core import DeckError, SingularMatrixError, TridsimError
