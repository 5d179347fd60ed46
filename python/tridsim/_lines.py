"""Batched tridiagonal line solves: every line along one axis of a 1-, 2- or 3-D array."""
import contextlib

import numpy as np

from . import _core
from ._arrays import (address, compact_like, index_of, line_set, normalize_axis, require_finite, require_real,
                      right_hand_side)

_SCALAR, _PER_ROW, _FULL = _core.CoefficientMode.scalar, _core.CoefficientMode.per_row, _core.CoefficientMode.full


class UniformMatrix:
    """One tridiagonal matrix shared by every line, factored once: solve() then streams only the
    right-hand sides (the fastest solve; keep the object to reuse the factorization).

    Row r reads ``a[r] x[r-1] + b[r] x[r] + c[r] x[r+1] = d[r]``; a[0] and c[n-1] are never read.
    a, b, c are scalars or sequences of length n (n is taken from them, or given when all three
    are scalars); check=True raises ValueError for a non-finite value in them. The factorization
    does no pivoting: it raises SingularMatrixError on a zero pivot (fine for diagonally dominant
    or symmetric positive definite matrices)."""

    def __init__(self, a, b, c, n=None, check=True):
        host = [np.asarray(_host(x)) for x in (a, b, c)]
        for name, x in zip("abc", host):
            require_real(x, name)
            if x.ndim > 1:
                raise ValueError("%s must be a scalar or one value per row, not of shape %s" % (name, x.shape))
        if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer))):
            raise TypeError("n must be an int, not %s" % type(n).__name__)
        sizes = {x.size for x in host if x.ndim == 1}
        if len(sizes) > 1 or (n is not None and sizes and n not in sizes):
            raise ValueError("a, b and c have different lengths %s%s" % (sorted(sizes), "" if n is None else " (n = %d)" % n))
        n = n if n is not None else (sizes.pop() if sizes else None)
        if n is None or n < 1:
            raise ValueError("the matrix size n must be given (and at least 1) when a, b and c are all scalars")
        if check:
            for name, x in zip("abc", host):
                require_finite(np, x, name, (n,), 0)
        # one value or n each, handed over as float64 buffers (never as Python floats, scalars not expanded)
        self._lines = _core.UniformLines(n, *(np.ascontiguousarray(x, dtype=np.float64) for x in host))

    @property
    def size(self):
        """The number of rows (the length of the lines it solves)."""
        return self._lines.size

    def solve(self, d, axis=-1, algorithm="auto", check=True, overwrite_d=False):
        """Solve every line of d along `axis` and return the solution, a new array unless
        overwrite_d=True solves d in place (see solve_lines)."""
        xp, d = right_hand_side(d, overwrite_d, (1, 2, 3), "K")
        axis = normalize_axis(axis, d.ndim)
        if d.shape[axis] != self.size:
            raise ValueError("the matrix has %d rows but the lines of d along axis %d have length %d"
                             % (self.size, axis, d.shape[axis]))
        return _solve(xp, d, axis, [], algorithm, check,
                      lambda lines, alg: self._lines.solve_cpu(lines, alg, check) if xp is np else
                      self._lines.solve_cuda(lines, alg, _stream(xp), check))


def solve_lines(a, b, c, d, axis=-1, algorithm="auto", check=True, overwrite_d=False):
    """Solve the tridiagonal systems along `axis` of d and return the solutions: a new array, or
    d itself with overwrite_d=True.

    Every line of d along `axis` (length n) is one system; row r reads
    ``a[r] x[r-1] + b[r] x[r] + c[r] x[r+1] = d[r]``, and a[0] and c[n-1] are never read.

    d: a 1-, 2- or 3-D array: NumPy or any array-like NumPy converts (solved on the CPU, threads:
       OpenMP), or CUDA (CuPy, or anything with __cuda_array_interface__ or DLPack: solved on its
       GPU, on CuPy's current stream). float32 stays float32; integers and other real types are
       solved in float64; complex d raises TypeError. Any strides and order.
    axis: the axis the lines run along; -1 (the default), the last, is contiguous in C order.
    a, b, c: scalars or array-likes that broadcast to d's shape (NumPy rules), cast to d's dtype
       (on the CPU, scalars and values shared by every line are not expanded to d's shape). When
       none varies across lines the matrix is factored once for all lines (as UniformMatrix).
    algorithm: "auto" (the fastest measured), or <ALGORITHMS>
    check: raise ValueError for a non-finite value in a, b or c (entries that are read), and
       SingularMatrixError when a solution value is not finite (a zero pivot: no pivoting is done,
       so the lines must be, e.g., diagonally dominant; or a non-finite value in d). The solution
       check is fused into the solve; on the GPU it waits for the solve to finish.
    overwrite_d: solve in place: d (then a writable float32 or float64 array) holds the solution
       and is returned. Layouts with one contiguous axis and the others nested (C or Fortran
       order, slices of them) are solved where they are, others through a dense copy.

    The GIL is released while the CPU solves. Raises TypeError for bad types and dtypes,
    ValueError for values, shapes and names that do not fit."""
    xp, d = right_hand_side(d, overwrite_d, (1, 2, 3), "K")
    axis = normalize_axis(axis, d.ndim)
    if d.size == 0:
        return d
    coefficients = [_coefficient(xp, x, name, d, axis, check) for name, x in zip("abc", (a, b, c))]
    if all(mode != _FULL for mode, _ in coefficients):
        rows = [_host(value) for _, value in coefficients]
        return UniformMatrix(*rows, n=d.shape[axis], check=False).solve(d, axis, algorithm, check, overwrite_d=True)
    if xp is np:
        def run(lines, alg):
            args = [_core.CoefficientArg(mode, address(np, v) if mode != _SCALAR else 0, v if mode == _SCALAR else 0)
                    for mode, v in coefficients]
            return _core.solve_lines_cpu(lines, *args, alg, check)
    else:  # the GPU reads full arrays only: the others are spread out as full arrays
        coefficients = [(_FULL, v if mode == _FULL else xp.broadcast_to(xp.asarray(v, dtype=d.dtype), d.shape))
                        for mode, v in coefficients]

        def run(lines, alg):
            fulls = [address(xp, v) for _, v in coefficients]
            return _core.solve_lines_cuda(lines, *fulls, alg, _stream(xp), check)
    return _solve(xp, d, axis, coefficients, algorithm, check, run)


def _algorithm_names():
    """The names solve_lines takes, from the line-solver table (solvers/tridiagonal/line_solvers.hpp)."""
    rows = [r for r in _core.line_solvers() if r["name"] != "auto" and r["alias_of"] is None]
    quoted = lambda keep: ", ".join('"%s"' % r["name"] for r in rows if keep(r))
    return 'on the CPU %s, on the GPU\n       %s.' % (quoted(lambda r: r["cpu"]), quoted(lambda r: r["gpu"]))


if solve_lines.__doc__:  # (python -OO drops docstrings)
    solve_lines.__doc__ = solve_lines.__doc__.replace("<ALGORITHMS>", _algorithm_names())


def _solve(xp, d, axis, coefficients, algorithm, check, run):
    """Lay d (and the full coefficients) out as LineSets, run, copy back, report."""
    with _on_device(xp, d):
        return _solve_here(xp, d, axis, coefficients, algorithm, check, run)


def _solve_here(xp, d, axis, coefficients, algorithm, check, run):
    work, fulls, mapped = _layout(xp, d, axis, [v for mode, v in coefficients if mode == _FULL])
    it = iter(fulls)
    coefficients[:] = [(mode, next(it) if mode == _FULL else v) for mode, v in coefficients]
    lines, order = mapped
    arg = _core.LinesArg(address(xp, work), work.dtype == np.float64, *lines)
    bad = run(arg, algorithm)
    if work is not d:
        d[...] = work
    if check and bad != _core.all_finite:
        raise _core.singular_matrix_error()(
            "the solution has a non-finite value at index %s of the lines along axis %d: a zero pivot (the lines "
            "are singular, or need pivoting, which this solver does not do) or a non-finite value in d"
            % (index_of(bad, lines, order), axis))
    return d


def _layout(xp, d, axis, fulls):
    """(work, fulls, line_set(work)): d and the full coefficients in one layout the solvers take,
    d itself and the arrays as given where possible, else dense copies."""
    mapped = line_set(d.shape, d.strides, d.itemsize, axis)
    if mapped is not None and all(f.strides == d.strides for f in fulls):
        return d, fulls, mapped
    work = d
    if mapped is None or compact_like(xp, d).strides != d.strides:  # d is not dense: solve a copy
        work = compact_like(xp, d)
        work[...] = d
    copies = []
    for f in fulls:
        if f.strides != work.strides:
            g = compact_like(xp, work)
            g[...] = f
            f = g
        copies.append(f)
    return work, copies, line_set(work.shape, work.strides, work.itemsize, axis)


def _coefficient(xp, x, name, d, axis, check):
    """(mode, value): a float (scalar), a dense vector of n values (per row), or x broadcast to
    d's shape (full), cast to d's dtype; with check, its entries that are read finite."""
    scalar = np.isscalar(x) or (isinstance(x, np.ndarray) and x.ndim == 0)
    x = _as_array(np if scalar else xp, x, name, d.dtype)
    if check:
        require_finite(np if scalar else xp, x, name, d.shape, axis)
    if scalar:
        return _SCALAR, float(x)
    try:
        full = xp.broadcast_to(x, d.shape)
    except ValueError:
        raise ValueError("%s of shape %s does not broadcast to the shape %s of d" % (name, x.shape, d.shape)) from None
    if any(full.strides[k] != 0 and full.shape[k] > 1 for k in range(d.ndim) if k != axis):
        return _FULL, full
    line = full[tuple(slice(None) if k == axis else 0 for k in range(d.ndim))]
    if line.strides[0] == 0 or line.shape[0] == 1:
        return _SCALAR, float(line[0])
    return _PER_ROW, xp.ascontiguousarray(line)


def _as_array(xp, x, name, dtype):
    """x as an xp array of `dtype` (no copy where it is one), or TypeError."""
    if xp is not np and isinstance(x, np.ndarray):
        raise TypeError("%s is a NumPy array but d is on the GPU: pass a CuPy array or a scalar" % name)
    if xp is np and hasattr(x, "__cuda_array_interface__"):
        raise TypeError("%s is a CUDA array but d is a NumPy array: pass both on the same side" % name)
    x = xp.asarray(x)
    require_real(x, name)
    return x.astype(dtype, copy=False)


def _host(x):
    """x as a NumPy value (scalars as they are; CuPy vectors copied, they are n values)."""
    return x.get() if hasattr(x, "get") and hasattr(x, "__cuda_array_interface__") else x


def _on_device(xp, d):
    """The context that makes d's GPU current (CuPy work and our kernels run there)."""
    return contextlib.nullcontext() if xp is np else d.device


def _stream(xp):
    return xp.cuda.get_current_stream().ptr
