"""Batched block-tridiagonal line solves: M-vectors at every node of a 1-, 2- or 3-D grid."""
import numpy as np

from . import _core
from ._arrays import address, normalize_axis, require_finite, right_hand_side
from ._lines import _as_array, _host, _on_device, _stream


def solve_block_lines(a, b, c, d, axis=-1, pivoting="partial", algorithm="auto", check=True, overwrite_d=False):
    """Solve the block-tridiagonal systems along grid axis `axis` of d and return the solutions:
    a new array, or d itself with overwrite_d=True.

    d has shape grid + (m,): an m-vector at every node of a 1-, 2- or 3-D grid (NumPy or CUDA
    arrays and array-likes, dtypes as for solve_lines). Every line of nodes along grid axis `axis`
    is one system; block row r reads ``A[r] @ x[r-1] + B[r] @ x[r] + C[r] @ x[r+1] = d[r]`` with
    m x m blocks, and A[0] and C[n-1] are never read.

    axis: a grid axis, counted as solve_lines counts d's axes: -1 (the default) is the grid's
       last, contiguous in C order (d's last axis holds the m-vectors and is never a grid axis).
    a, b, c: array-likes that broadcast to grid + (m, m) (entry (i, j) of a node's block at
       [..., i, j]). When none varies across lines (shapes (m, m), or (n, m, m) along the axis),
       the block matrix is factored once for all lines from its n blocks.
    pivoting: "partial" (row exchanges inside each pivot block) or "none" (block-diagonally
       dominant matrices).
    algorithm: GPU only: <ALGORITHMS>.
    check: raise ValueError for a non-finite value in a, b or c (entries that are read), and
       SingularMatrixError when a pivot block is singular or the solution is not finite (an extra
       pass over d).
    overwrite_d: solve in place: d (then a writable float32 or float64 array) holds the solution
       and is returned; a d that is not C-contiguous is solved through a dense copy."""
    xp, d = right_hand_side(d, overwrite_d, (2, 3, 4), "C")
    grid_dims, m = d.ndim - 1, d.shape[-1]
    axis = normalize_axis(axis, grid_dims)
    if d.size == 0:
        return d
    with _on_device(xp, d):
        work = d if d.flags.c_contiguous else xp.ascontiguousarray(d)
        lines = _core.LinesArg(address(xp, work), work.dtype == np.float64, *_grid_lines(d.shape[:-1], axis))
        blocks = [_blocks(xp, x, name, d, axis, check) for name, x in zip("abc", (a, b, c))]
        if all(shared is not None for _, shared in blocks):
            rows = [np.ascontiguousarray(_host(shared), dtype=np.float64) for _, shared in blocks]
            matrix = _core.UniformBlockLines(m, d.shape[axis], *rows, pivoting)
            if xp is np:
                matrix.solve_cpu(lines, m)
            else:
                matrix.solve_cuda(lines, m, algorithm, _stream(xp))
        else:
            full = [xp.ascontiguousarray(x) for x, _ in blocks]
            pointers = [address(xp, x) for x in full]
            if xp is np:
                if algorithm != "auto":
                    raise ValueError("algorithm '%s' runs on CUDA arrays only; NumPy arrays take 'auto'" % algorithm)
                _core.solve_block_lines_cpu(lines, m, *pointers, pivoting)
            else:
                _core.solve_block_lines_cuda(lines, m, *pointers, pivoting, algorithm, _stream(xp))
        if work is not d:
            d[...] = work
        if check and not bool(xp.isfinite(work).all()):
            raise _core.singular_matrix_error()(
                "the block solution is not finite: a singular pivot block%s, or a non-finite value in d"
                % (" (pivoting='partial' may solve it)" if pivoting == "none" else ""))
    return d


def _algorithm_names():
    """The names solve_block_lines takes, from the block line-solver table."""
    names = ['"%s"' % r["name"] for r in _core.block_line_solvers() if r["alias_of"] is None]
    return ", ".join(names[:-1]) + " or " + names[-1]


if solve_block_lines.__doc__:  # (python -OO drops docstrings)
    solve_block_lines.__doc__ = solve_block_lines.__doc__.replace("<ALGORITHMS>", _algorithm_names())


def _grid_lines(grid, axis):
    """(n, node strides, LineSet axis) of a C-contiguous grid: its last axis is x."""
    n = list(reversed(grid)) + [1] * (3 - len(grid))
    return n, [1, n[0], n[0] * n[1]], len(grid) - 1 - axis


def _blocks(xp, x, name, d, axis, check):
    """(x broadcast to grid + (m, m); the n blocks shared by every line, or None); with check,
    the entries of x that are read finite."""
    m, grid = d.shape[-1], d.shape[:-1]
    x = _as_array(xp, x, name, d.dtype)
    if check:
        require_finite(xp, x, name, grid + (m, m), axis)
    try:
        full = xp.broadcast_to(x, grid + (m, m))
    except ValueError:
        raise ValueError("%s of shape %s does not broadcast to the block shape %s of d"
                         % (name, x.shape, grid + (m, m))) from None
    if any(full.strides[k] != 0 and grid[k] > 1 for k in range(len(grid)) if k != axis):
        return full, None
    return full, full[tuple(slice(None) if k == axis else 0 for k in range(len(grid)))]
