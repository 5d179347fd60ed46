"""Shared references for the tridsim Python tests: SciPy's banded solver, line by line."""
import numpy as np
import pytest
import scipy.linalg


def banded_reference(a, b, c, d, axis):
    """Every line of d along `axis` solved by scipy.linalg.solve_banded in float64 (a, b, c
    broadcast to d's shape; a[0] and c[n-1] of each line ignored)."""
    a, b, c = (np.broadcast_to(np.asarray(x, dtype=np.float64), d.shape) for x in (a, b, c))
    moved = [np.moveaxis(x, axis, -1) for x in (a, b, c, np.asarray(d, dtype=np.float64))]
    out = np.empty(moved[3].shape)
    n = out.shape[-1]
    for idx in np.ndindex(out.shape[:-1]):
        A, B, C, D = (x[idx] for x in moved)
        ab = np.zeros((3, n))
        ab[0, 1:], ab[1], ab[2, :-1] = C[:-1], B, A[1:]
        out[idx] = scipy.linalg.solve_banded((1, 1), ab, D)
    return np.moveaxis(out, -1, axis)


def tolerance(dtype):
    return 1e-12 if dtype == np.float64 else 2e-5


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
