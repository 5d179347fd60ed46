"""tridsim.solve_block_lines on NumPy arrays, against a dense NumPy solve of each line."""
import numpy as np
import pytest

import tridsim


def dense_reference(a, b, c, d, axis):
    """Each line along grid axis `axis` assembled as one dense (n m) x (n m) matrix and solved."""
    m = d.shape[-1]
    grid = d.shape[:-1]
    a, b, c = (np.broadcast_to(np.asarray(x, dtype=np.float64), grid + (m, m)) for x in (a, b, c))
    moved = [np.moveaxis(x, axis, len(grid) - 1) for x in (a, b, c, np.asarray(d, np.float64))]
    out = np.empty(moved[3].shape)
    n = grid[axis]
    for idx in np.ndindex(out.shape[:len(grid) - 1]):
        A, B, C, D = (x[idx] for x in moved)
        K = np.zeros((n * m, n * m))
        for r in range(n):
            K[r * m:(r + 1) * m, r * m:(r + 1) * m] = B[r]
            if r > 0:
                K[r * m:(r + 1) * m, (r - 1) * m:r * m] = A[r]
            if r + 1 < n:
                K[r * m:(r + 1) * m, (r + 1) * m:(r + 2) * m] = C[r]
        out[idx] = np.linalg.solve(K, D.reshape(-1)).reshape(n, m)
    return np.moveaxis(out, len(grid) - 1, axis)


def dominant_blocks(rng, shape, m, dtype):
    a, c = (rng.uniform(-0.5, 0.5, shape + (m, m)) for _ in range(2))
    b = rng.uniform(-0.5, 0.5, shape + (m, m)) + (m + 2) * np.eye(m)
    return [x.astype(dtype) for x in (a, b, c)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 11])
@pytest.mark.parametrize("grid", [(9,), (5, 7), (3, 4, 6)])
def test_stored_blocks_every_axis(rng, dtype, m, grid):
    a, b, c = dominant_blocks(rng, grid, m, dtype)
    d0 = rng.uniform(-1, 1, grid + (m,)).astype(dtype)
    tol = 1e-12 if dtype == np.float64 else 1e-4
    for axis in range(len(grid)):
        expected = dense_reference(a, b, c, d0, axis)
        for pivoting in ("partial", "none"):
            d = d0.copy()
            assert tridsim.solve_block_lines(a, b, c, d, axis=axis, pivoting=pivoting, overwrite_d=True) is d
            assert np.abs(d - expected).max() < tol
            x = tridsim.solve_block_lines(a, b, c, d0, axis=axis, pivoting=pivoting)
            assert x is not d0 and x.dtype == dtype and np.array_equal(x, d)
        f = np.asfortranarray(d0)  # not C-contiguous: solved through a copy, copied back
        tridsim.solve_block_lines(a, b, c, f, axis=axis, overwrite_d=True)
        assert np.abs(f - expected).max() < tol


@pytest.mark.parametrize("m", [2, 4])
def test_shared_blocks_are_factored_once(rng, m):
    grid, axis = (6, 10, 4), 1
    a, b, c = dominant_blocks(rng, (10,), m, np.float64)  # one block per row, every line
    shared = [x[:, None, :, :] for x in (a, b, c)]      # broadcasts along axis 1 only
    d0 = rng.uniform(-1, 1, grid + (m,))
    x = tridsim.solve_block_lines(*shared, d0, axis=axis)
    assert np.abs(x - dense_reference(*shared, d0, axis)).max() < 1e-12
    x = tridsim.solve_block_lines(a[0], b[0], c[0], d0, axis=2)  # (m, m): the same block on every row
    assert np.abs(x - dense_reference(a[0], b[0], c[0], d0, 2)).max() < 1e-12


def test_pivoting_needed(rng):
    # pivot blocks close to [[0, 1], [1, 0]]: no pivot without a row exchange
    b = np.array([[0.0, 4.0], [4.0, 0.0]]) + np.zeros((3, 6, 2, 2))
    a = rng.uniform(-0.25, 0.25, (3, 6, 2, 2))
    c = rng.uniform(-0.25, 0.25, (3, 6, 2, 2))
    a[:, 1:, 0, :] = c[:, :, 0, :] = 0  # the first row of each block row: B's (0, 1) entry only
    d0 = rng.uniform(-1, 1, (3, 6, 2))
    x = tridsim.solve_block_lines(a, b, c, d0, axis=1, pivoting="partial")
    assert np.abs(x - dense_reference(a, b, c, d0, 1)).max() < 1e-12
    with pytest.raises(tridsim.SingularMatrixError, match="singular pivot block"):
        tridsim.solve_block_lines(a, b, c, d0.copy(), axis=1, pivoting="none")


def test_bad_block_arguments():
    d = np.zeros((4, 5, 2))
    with pytest.raises(ValueError, match="does not broadcast"):
        tridsim.solve_block_lines(np.eye(3), np.eye(2), np.eye(2), d)
    with pytest.raises(ValueError, match="pivoting 'full' is not known"):
        tridsim.solve_block_lines(np.eye(2), 4 * np.eye(2), np.eye(2), d + 0 * np.ones((4, 5, 1)), pivoting="full")
    with pytest.raises(ValueError, match="dimensions"):
        tridsim.solve_block_lines(1, 2, 1, np.zeros(5))
    with pytest.raises(ValueError, match="CUDA arrays only"):
        tridsim.solve_block_lines(np.eye(2) + np.zeros((4, 5, 2, 2)), 4 * np.eye(2), np.eye(2), d, algorithm="work-sharing")


def test_axis_convention_is_solve_lines_one(rng):
    """axis counts the grid's axes as solve_lines counts d's: -1 (the default) is the last grid
    axis (d's last axis holds the m-vectors)."""
    a, b, c = dominant_blocks(rng, (4, 7), 2, np.float64)
    d0 = rng.uniform(-1, 1, (4, 7, 2))
    x = tridsim.solve_block_lines(a, b, c, d0)
    assert np.array_equal(x, tridsim.solve_block_lines(a, b, c, d0, axis=1))
    assert np.abs(x - dense_reference(a, b, c, d0, 1)).max() < 1e-12
    assert np.array_equal(tridsim.solve_block_lines(a, b, c, d0, axis=-2), tridsim.solve_block_lines(a, b, c, d0, axis=0))


def test_array_likes_and_types():
    eye = [[1, 0], [0, 1]]
    x = tridsim.solve_block_lines(0, [[2, 0], [0, 4]], 0, [[2, 4], [6, 8]])  # lists and integers: float64
    assert x.dtype == np.float64 and x.tolist() == [[1.0, 1.0], [3.0, 2.0]]
    with pytest.raises(TypeError, match=r"d is complex \(complex128\)"):
        tridsim.solve_block_lines(0, eye, 0, np.ones((3, 2), complex))
    with pytest.raises(TypeError, match="b is complex"):
        tridsim.solve_block_lines(0, np.eye(2) * 1j, 0, np.ones((3, 2)))
    with pytest.raises(TypeError, match="overwrite_d=True"):
        tridsim.solve_block_lines(0, eye, 0, [[2, 4], [6, 8]], overwrite_d=True)


def test_non_finite_blocks_raise_value_error(rng):
    a, b, c = dominant_blocks(rng, (3, 5), 2, np.float64)
    d = rng.uniform(-1, 1, (3, 5, 2))
    b[1, 3, 0, 1] = np.inf
    with pytest.raises(ValueError, match=r"b\[1, 3, 0, 1\] is inf: the coefficients must be finite"):
        tridsim.solve_block_lines(a, b, c, d)
    b[1, 3, 0, 1] = 0
    a[:, 0], c[:, -1] = np.nan, np.inf  # A[0] and C[n-1] of each line are never read
    x = tridsim.solve_block_lines(a, b, c, d, axis=1)
    with pytest.raises(ValueError, match=r"a\[1, 0, 0, 0\] is nan"):
        tridsim.solve_block_lines(a, b, c, d, axis=0)
    shared = np.full((5, 2, 2), 0.1)
    shared[2, 1, 1] = np.nan
    with pytest.raises(ValueError, match=r"c\[2, 1, 1\] is nan"):
        tridsim.solve_block_lines(0.1, 4 * np.eye(2), shared, d)  # shared blocks, factored once
    assert np.isfinite(x).all()
