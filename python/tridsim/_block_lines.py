"""Batched block-tridiagonal line solves: M-vectors at every node of a 1-, 2- or 3-D grid."""
import numpy as np

from . import _core
from ._arrays import address, as_solver_array, check_right_hand_side, normalize_axis
from ._lines import _as_array, _host, _on_device, _stream


def solve_block_lines(a, b, c, d, axis=0, pivoting="partial", algorithm="auto", check=True):
    """Solve the block-tridiagonal systems along grid axis `axis` of d in place, and return d.

    d has shape grid + (m,): an m-vector at every node of a 1-, 2- or 3-D grid (float32 or
    float64, NumPy or CUDA arrays as for solve_lines). Every line of nodes along `axis` is one
    system; block row r reads ``A[r] @ x[r-1] + B[r] @ x[r] + C[r] @ x[r+1] = d[r]`` with m x m
    blocks, and A[0] and C[n-1] are never read.

    a, b, c: arrays that broadcast to grid + (m, m) (entry (i, j) of a node's block at [..., i, j]).
       When none varies across lines (shapes (m, m), or (n, m, m) along the axis), the block
       matrix is factored once for all lines.
    pivoting: "partial" (row exchanges inside each pivot block) or "none" (block-diagonally
       dominant matrices).
    algorithm: GPU only: "auto", "thread-per-system", "work-sharing" or "block-pcr".
    check: raise SingularMatrixError when a pivot block is singular or the solution is not
       finite (an extra pass over d).

    C-contiguous d and blocks are solved where they are, other layouts through dense copies."""
    xp, d = as_solver_array(d)
    check_right_hand_side(xp, d, ndim=(2, 3, 4))
    grid_dims, m = d.ndim - 1, d.shape[-1]
    axis = normalize_axis(axis, grid_dims)
    if d.size == 0:
        return d
    with _on_device(xp, d):
        work = d if d.flags.c_contiguous else xp.ascontiguousarray(d)
        lines = _core.LinesArg(address(xp, work), work.dtype == np.float64, *_grid_lines(d.shape[:-1], axis))
        blocks = [_blocks(xp, x, name, d, axis) for name, x in zip("abc", (a, b, c))]
        if all(shared is not None for _, shared in blocks):
            rows = [np.ascontiguousarray(_host(shared), dtype=np.float64).ravel().tolist() for _, shared in blocks]
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
                "the block solution is not finite: a singular pivot block%s, or non-finite values in a, b, c or d"
                % (" (pivoting='partial' may solve it)" if pivoting == "none" else ""))
    return d


def _grid_lines(grid, axis):
    """(n, node strides, LineSet axis) of a C-contiguous grid: its last axis is x."""
    n = list(reversed(grid)) + [1] * (3 - len(grid))
    return n, [1, n[0], n[0] * n[1]], len(grid) - 1 - axis


def _blocks(xp, x, name, d, axis):
    """(x broadcast to grid + (m, m), or None; the n blocks shared by every line, or None)."""
    m, grid = d.shape[-1], d.shape[:-1]
    x = _as_array(xp, x, name, d.dtype)
    try:
        full = xp.broadcast_to(x, grid + (m, m))
    except ValueError:
        raise ValueError("%s of shape %s does not broadcast to the block shape %s of d"
                         % (name, x.shape, grid + (m, m))) from None
    if any(full.strides[k] != 0 and grid[k] > 1 for k in range(len(grid)) if k != axis):
        return full, None
    return full, full[tuple(slice(None) if k == axis else 0 for k in range(len(grid)))]
