"""tridsim.solve_lines and tridsim.UniformMatrix on NumPy arrays, against SciPy's banded solver."""
import os
import subprocess
import threading
import tracemalloc

import numpy as np
import pytest

import tridsim
from conftest import banded_reference, tolerance

DTYPES = [np.float64, np.float32]
SHAPES = [(37,), (6, 13), (5, 7, 11), (1, 9), (4, 1, 6), (3, 2, 1)]


def layouts(base):
    """The same values in several memory layouts (name, array)."""
    yield "C", np.array(base, order="C", copy=True)
    yield "F", np.array(base, order="F", copy=True)
    padded = np.zeros(base.shape[:-1] + (base.shape[-1] + 5,), base.dtype)[..., 2:2 + base.shape[-1]]
    padded[...] = base
    yield "padded", padded
    yield "reversed", np.array(base[..., ::-1], copy=True)[..., ::-1]
    strided = np.zeros(base.shape[:-1] + (2 * base.shape[-1],), base.dtype)[..., ::2]
    strided[...] = base
    yield "strided", strided
    if base.ndim == 3:
        yield "transposed", np.array(base.transpose(1, 0, 2), order="C", copy=True).transpose(1, 0, 2)


def dominant_rows(rng, shape, dtype):
    a = rng.uniform(-1, 1, shape)
    c = rng.uniform(-1, 1, shape)
    b = 2.5 + rng.uniform(0, 1, shape)
    return [x.astype(dtype) for x in (a, b, c)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_full_coefficients_every_axis_and_layout(rng, dtype, shape):
    a, b, c = dominant_rows(rng, shape, dtype)
    d0 = rng.uniform(-1, 1, shape).astype(dtype)
    for axis in range(len(shape)):
        expected = banded_reference(a, b, c, d0, axis)
        for name, d in layouts(d0):
            for cname, coeffs in [("C", (a, b, c)), ("F", tuple(np.asfortranarray(x) for x in (a, b, c)))]:
                for overwrite_d in (False, True):
                    out = tridsim.solve_lines(*coeffs, d, axis=axis, overwrite_d=overwrite_d)
                    assert (out is d) == overwrite_d and out.dtype == dtype
                    err = np.abs(out - expected).max() / max(1, np.abs(expected).max())
                    assert err < tolerance(dtype), (name, cname, axis, overwrite_d, err)
                    assert np.array_equal(d, out if overwrite_d else d0)
                    d[...] = d0


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_coefficients(rng, dtype):
    shape = (6, 9, 8)
    d0 = rng.uniform(-1, 1, shape).astype(dtype)
    per_line = 3 + rng.uniform(0, 1, (6, 1, 8))   # varies across lines, constant along axis 1
    per_row = rng.uniform(-1, 1, (9, 1))            # one value per row of axis 1, all lines
    cases = [(-1.0, 4.0, -1.0), (-1, per_line, -1), (per_row, 4.0, np.float32(-0.5)),
             (per_row, per_line + 0 * d0, per_row), (0.5, 3 + rng.uniform(0, 1, shape), per_row)]
    for a, b, c in cases:
        x = tridsim.solve_lines(a, b, c, d0, axis=1)
        expected = banded_reference(a, b, c, d0, 1)
        assert np.abs(x - expected).max() < 10 * tolerance(dtype)


@pytest.mark.parametrize("algorithm", ["auto", "thomas", "pcr", "cr"])
def test_algorithms(rng, algorithm):
    shape = (7, 33, 5)
    a, b, c = dominant_rows(rng, shape, np.float64)
    d0 = rng.uniform(-1, 1, shape)
    for axis in range(3):
        x = tridsim.solve_lines(a, b, c, d0, axis=axis, algorithm=algorithm)
        assert np.abs(x - banded_reference(a, b, c, d0, axis)).max() < 1e-12
        x = tridsim.solve_lines(-1, 2.5, -1, d0, axis=axis, algorithm=algorithm)
        assert np.abs(x - banded_reference(-1, 2.5, -1, d0, axis)).max() < 1e-12


def test_end_entries_are_not_read(rng):
    a, b, c = dominant_rows(rng, (4, 10), np.float64)
    d0 = rng.uniform(-1, 1, (4, 10))
    x1 = tridsim.solve_lines(a, b, c, d0, axis=1)
    a[:, 0], c[:, -1] = np.nan, np.inf
    assert np.array_equal(x1, tridsim.solve_lines(a, b, c, d0, axis=1))
    assert tridsim.solve_lines([np.nan, 2.0], 2.0, [3.0, np.inf], [4.0, 10.0]).tolist() == [11.0, -6.0]
    assert tridsim.solve_lines(np.nan, 2.0, np.inf, [4.0]).tolist() == [2.0]  # one row reads b only


def test_uniform_matrix_reused(rng):
    n = 64
    diagonal = 2.0 + rng.uniform(0, 1, n)
    M = tridsim.UniformMatrix(-1.0, diagonal, -1.0)
    assert M.size == n
    for shape, axis in [((n,), 0), ((n, 30), 0), ((5, n, 7), 1), ((3, 4, n), 2)]:
        b = np.reshape(diagonal, [n if k == axis else 1 for k in range(len(shape))])
        for dtype in DTYPES:
            d0 = rng.uniform(-1, 1, shape).astype(dtype)
            d = d0.copy()
            assert M.solve(d, axis=axis, overwrite_d=True) is d
            assert np.abs(d - banded_reference(-1.0, b, -1.0, d0, axis)).max() < 10 * tolerance(dtype)
            assert np.array_equal(M.solve(d0, axis=axis), d) and np.array_equal(d0, d0.copy())
    with pytest.raises(ValueError, match="64 rows"):
        M.solve(np.zeros((3, 65)))


def test_singular_lines_raise():
    with pytest.raises(tridsim.SingularMatrixError, match="zero pivot"):
        tridsim.solve_lines(1.0, 0.0, 1.0, np.ones((3, 4)))
    b = np.full((3, 4), 3.0)
    b[1, 2] = 0.0
    d = np.ones((3, 4))
    with pytest.raises(tridsim.SingularMatrixError, match=r"index \(1, \d\)"):
        tridsim.solve_lines(0.0, b, 0.0, d, axis=1)
    assert issubclass(tridsim.SingularMatrixError, np.linalg.LinAlgError)
    with pytest.raises(tridsim.SingularMatrixError):
        tridsim.solve_lines(-1.0, 4.0, -1.0, np.array([1.0, np.nan, 2.0]))
    x = tridsim.solve_lines(-1.0, 4.0, -1.0, [1.0, np.nan, 2.0], check=False)  # no check: no error, NaNs stay
    assert np.isnan(x).any()


def test_bad_arguments():
    d = np.zeros((4, 5))
    with pytest.raises(TypeError, match="overwrite_d=True solves it in place, so it must be float32 or float64"):
        tridsim.solve_lines(1, 4, 1, np.zeros((4, 5), dtype=np.int64), overwrite_d=True)
    with pytest.raises(TypeError, match="NumPy array.*overwrite_d=True.*not list"):
        tridsim.solve_lines(1, 4, 1, [[1.0, 2.0]], overwrite_d=True)
    with pytest.raises(ValueError, match="dimensions"):
        tridsim.solve_lines(1, 4, 1, np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        tridsim.solve_lines(1, 4, 1, d, axis=2)
    with pytest.raises(ValueError, match="does not broadcast"):
        tridsim.solve_lines(np.ones(3), 4, 1, d, axis=1)
    with pytest.raises(TypeError, match="real"):
        tridsim.solve_lines(1j, 4, 1, d)
    with pytest.raises(TypeError, match="real numbers"):
        tridsim.solve_lines(np.ones(5, dtype=complex), 4, 1, d)
    r = np.zeros(5)
    r.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        tridsim.solve_lines(1, 4, 1, r, overwrite_d=True)
    assert tridsim.solve_lines(1, 4, 1, r).flags.writeable  # a new array
    with pytest.raises(ValueError, match="CUDA arrays only"):
        tridsim.solve_lines(1, 4, 1, d, algorithm="thomas-pcr")
    with pytest.raises(ValueError, match="not known"):
        tridsim.solve_lines(1, 4, 1, d, algorithm="gauss")
    with pytest.raises(ValueError, match="n must be given"):
        tridsim.UniformMatrix(1.0, 4.0, 1.0)
    with pytest.raises(TypeError, match="n must be an int"):
        tridsim.UniformMatrix(1.0, 4.0, 1.0, n=4.0)
    with pytest.raises(TypeError, match="a must hold real numbers"):
        tridsim.solve_lines("1", 4, 1, d)


def test_empty_and_single_row():
    assert tridsim.solve_lines(1, 4, 1, np.zeros((0, 5))).shape == (0, 5)
    x = tridsim.solve_lines(9.0, np.array([[2.0], [3.0]]), 9.0, [[2.0], [6.0]], axis=1)
    assert np.array_equal(x, [[1.0], [2.0]])


def test_threads_share_the_solver(rng):
    """Calls from several Python threads at once (the GIL is released while solving)."""
    a, b, c = dominant_rows(rng, (64, 200), np.float64)
    inputs = [rng.uniform(-1, 1, (64, 200)) for _ in range(4)]
    outputs = [x.copy() for x in inputs]
    threads = [threading.Thread(target=tridsim.solve_lines, args=(a, b, c, x), kwargs={"axis": 1, "overwrite_d": True})
               for x in outputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x0, x in zip(inputs, outputs):
        assert np.abs(x - banded_reference(a, b, c, x0, 1)).max() < 1e-12


def test_a_new_array_unless_overwrite_d(rng):
    """SciPy's manners: d is left alone and the solution returned, unless overwrite_d=True."""
    d0 = rng.uniform(-1, 1, (5, 12))
    d = d0.copy()
    x = tridsim.solve_lines(-1.0, 4.0, -1.0, d)
    assert x is not d and np.array_equal(d, d0) and not np.shares_memory(x, d)
    assert np.abs(x - banded_reference(-1.0, 4.0, -1.0, d0, 1)).max() < 1e-12
    assert tridsim.solve_lines(-1.0, 4.0, -1.0, d, overwrite_d=True) is d and np.array_equal(d, x)
    assert tridsim.UniformMatrix(-1.0, 4.0, -1.0, n=12).solve(d0) is not d0


def test_array_likes_are_converted():
    """Whatever NumPy makes a real array of: lists, integers (solved in float64), float32 kept."""
    expected = banded_reference(-1.0, 4.0, -1.0, np.array([[1.0, 2, 3, 4], [5, 6, 7, 8]]), 1)
    for d in ([[1, 2, 3, 4], [5, 6, 7, 8]], np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=np.int32),
              np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=np.uint8), ((1.0, 2, 3, 4), (5, 6, 7, 8))):
        x = tridsim.solve_lines(-1, [4, 4, 4, 4], np.int64(-1), d)
        assert x.dtype == np.float64 and np.abs(x - expected).max() < 1e-12
    x = tridsim.solve_lines(-1, 4, -1, np.arange(8, dtype=np.float32).reshape(2, 4) + 1)
    assert x.dtype == np.float32 and np.abs(x - expected).max() < 1e-6
    assert tridsim.solve_lines(0, True, 0, [True, False]).tolist() == [1.0, 0.0]


def test_complex_input_raises_type_error():
    for args in [(-1, 4, -1, np.ones(4, complex)), (-1, 4, -1, [1j, 2, 3]), (-1j, 4, -1, np.ones(3)),
                 (-1, np.full(3, 4 + 0j), -1, np.ones(3))]:
        with pytest.raises(TypeError, match=r"is complex \(complex128\): the solvers take real numbers"):
            tridsim.solve_lines(*args)
    with pytest.raises(TypeError, match="c is complex"):
        tridsim.UniformMatrix(-1, 4, [1j, 1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_non_finite_coefficients_raise_value_error(rng, dtype):
    """Every coefficient entry a solve reads is checked, in every form (the CLI refuses them too):
    an inf in b left the solution finite and wrong."""
    d = rng.uniform(-1, 1, (3, 6)).astype(dtype)
    b = np.full(6, 4.0)
    b[4] = np.inf
    with pytest.raises(ValueError, match=r"b\[4\] is inf: the coefficients must be finite"):
        tridsim.solve_lines(-1., b, -1., d)           # one value per row
    full = np.full((3, 6), 4.0)
    full[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"b\[2, 1\] is nan"):
        tridsim.solve_lines(-1., full, -1., d)        # stored
    with pytest.raises(ValueError, match="a is -inf"):
        tridsim.solve_lines(-np.inf, 4.0, -1., d)     # a scalar
    with pytest.raises(ValueError, match=r"c\[1, 0\] is nan"):
        tridsim.solve_lines(-1., 4.0, [[-1.], [np.nan], [-1.]], d)  # broadcast along the lines
    a = np.full((3, 6), -1.0)
    a[1, 5] = np.inf
    with pytest.raises(ValueError, match=r"a\[1, 5\] is inf"):
        tridsim.solve_lines(a, 4.0, -1., d)
    with pytest.raises(ValueError, match=r"c\[0, 0\]"):
        tridsim.solve_lines(-1., 4.0, np.inf + np.zeros((3, 6)), d, axis=0)
    if dtype == np.float32:  # finite in float64, not in the precision the solve runs in
        with pytest.raises(ValueError, match="b is inf"), np.errstate(over="ignore"):
            tridsim.solve_lines(-1., 1e300, -1., d)
    with pytest.raises(ValueError, match=r"b\[4\] is inf"):
        tridsim.UniformMatrix(-1., b, -1.)
    assert np.isfinite(tridsim.solve_lines(-1., b, -1., d, check=False)).all()  # check=False: as given


def test_scalar_coefficients_are_never_expanded():
    """Scalar coefficients reach the solver as one value each: no Python list or array of a
    line's length (10^7 float32 values, 40 MB; expanded scalars would take gigabytes and seconds).
    What Python allocates (objects and NumPy arrays) stays the solution's size."""
    for shape in [(10_000_000,), (4, 2_500_000)]:
        d = np.ones(shape, np.float32)
        tracemalloc.start()
        try:
            x = tridsim.solve_lines(-1.0, 4.0, -1.0, d)
            del x
            x = tridsim.UniformMatrix(-1.0, 4.0, np.float32(-1.0), n=shape[-1]).solve(d)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert abs(float(x[..., shape[-1] // 2].max()) - 0.5) < 1e-6
        assert peak < 1.25 * d.nbytes, (shape, peak / d.nbytes)


def test_version():
    assert isinstance(tridsim.__version__, str) and tridsim.__version__.count(".") == 2
    exe = os.environ.get("TRIDSIM_EXECUTABLE")
    if exe:
        assert tridsim.__version__ in subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
