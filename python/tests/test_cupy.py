"""The GPU path (CuPy arrays, __cuda_array_interface__, DLPack) against the NumPy path. Skipped
without CuPy, a CUDA build of the module, or a device."""
import numpy as np
import pytest

import tridsim
from conftest import banded_reference, tolerance
from test_block_lines import dense_reference, dominant_blocks

cupy = pytest.importorskip("cupy")
if not tridsim._have_cuda:
    pytest.skip("the tridsim module was built without CUDA", allow_module_level=True)
try:
    cupy.cuda.runtime.getDeviceCount()
except cupy.cuda.runtime.CUDARuntimeError:
    pytest.skip("no CUDA device", allow_module_level=True)

GPU_ALGORITHMS = ["auto", "thomas", "thomas-naive", "thomas-pcr", "pcr"]


def gpu_layouts(base):
    yield "C", cupy.array(base, order="C")
    yield "F", cupy.array(base, order="F")
    padded = cupy.zeros(base.shape[:-1] + (base.shape[-1] + 3,), base.dtype)[..., 1:1 + base.shape[-1]]
    padded[...] = cupy.asarray(base)
    yield "padded", padded
    strided = cupy.zeros(base.shape[:-1] + (2 * base.shape[-1],), base.dtype)[..., ::2]
    strided[...] = cupy.asarray(base)
    yield "strided", strided


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(300,), (40, 70), (9, 33, 65)])
@pytest.mark.parametrize("check", [True, False])
def test_cupy_matches_numpy(rng, dtype, shape, check):
    a = rng.uniform(-1, 1, shape).astype(dtype)
    c = rng.uniform(-1, 1, shape).astype(dtype)
    b = (2.5 + rng.uniform(0, 1, shape)).astype(dtype)
    d0 = rng.uniform(-1, 1, shape).astype(dtype)
    for axis in range(len(shape)):
        for coefficients in [(a, b, c), (-1.0, b, -1.0), (-1.0, 2.5, -1.0)]:
            host = d0.copy()
            tridsim.solve_lines(*coefficients, host, axis=axis, overwrite_d=True)
            gpu_coefficients = [cupy.asarray(x) if isinstance(x, np.ndarray) else x for x in coefficients]
            for name, d in gpu_layouts(d0):
                for algorithm in GPU_ALGORITHMS:
                    d[...] = cupy.asarray(d0)
                    try:
                        tridsim.solve_lines(*gpu_coefficients, d, axis=axis, algorithm=algorithm, check=check,
                                            overwrite_d=True)
                    except ValueError as e:  # a length limit of that algorithm: said, not crashed
                        assert algorithm in str(e), e
                        continue
                    err = np.abs(cupy.asnumpy(d) - host).max() / max(1.0, np.abs(host).max())
                    assert err < 10 * tolerance(dtype), (axis, name, algorithm, err)


def test_cupy_in_place_only_algorithms(rng):
    d0 = rng.uniform(-1, 1, (64, 128))
    host = d0.copy()
    tridsim.solve_lines(-1.0, 3.0, -1.0, host, axis=1, overwrite_d=True)
    for algorithm in ["thomas-shuffle", "cusparse"]:
        d = cupy.asarray(d0)
        tridsim.solve_lines(-1.0, 3.0, -1.0, d, axis=1, algorithm=algorithm, check=False, overwrite_d=True)
        assert np.abs(cupy.asnumpy(d) - host).max() < 1e-12
        with pytest.raises(ValueError, match="check=True"):
            tridsim.solve_lines(-1.0, 3.0, -1.0, d, axis=1, algorithm=algorithm)


def test_cupy_uniform_matrix_and_errors(rng):
    M = tridsim.UniformMatrix(-1.0, 2.0 + rng.uniform(0, 1, 50), -1.0)
    d0 = rng.uniform(-1, 1, (50, 20))
    host, dev = d0.copy(), cupy.asarray(d0)
    M.solve(host, axis=0, overwrite_d=True)
    assert M.solve(dev, axis=0) is not dev  # a new array on the GPU, as on the CPU
    M.solve(dev, axis=0, overwrite_d=True)
    assert np.abs(cupy.asnumpy(dev) - host).max() < 1e-12
    b = cupy.full((4, 6), 3.0)
    b[2, 3] = 0.0
    with pytest.raises(tridsim.SingularMatrixError, match=r"index \(2, \d\)"):
        tridsim.solve_lines(0.0, b, 0.0, cupy.ones((4, 6)), axis=1)
    with pytest.raises(TypeError, match="NumPy array but d is on the GPU"):
        tridsim.solve_lines(np.ones((4, 6)), 3.0, 0.0, cupy.ones((4, 6)))
    with pytest.raises(ValueError, match="not known"):
        tridsim.solve_lines(0.0, 3.0, 0.0, cupy.ones((4, 6)), algorithm="gauss")


def test_cuda_array_interface_and_dlpack(rng):
    torch = pytest.importorskip("torch")
    d0 = rng.uniform(-1, 1, (30, 40))
    host = d0.copy()
    tridsim.solve_lines(-1.0, 3.0, -1.0, host, axis=0, overwrite_d=True)
    t = torch.tensor(d0, device="cuda")
    tridsim.solve_lines(-1.0, 3.0, -1.0, t, axis=0, overwrite_d=True)  # __cuda_array_interface__: in place
    torch.cuda.synchronize()
    assert np.abs(t.cpu().numpy() - host).max() < 1e-12

    class OnlyDLPack:  # an object that offers DLPack and nothing else
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, **kwargs):
            return self.x.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.x.__dlpack_device__()
    u = torch.tensor(d0, device="cuda")
    tridsim.solve_lines(-1.0, 3.0, -1.0, OnlyDLPack(u), axis=0, overwrite_d=True)
    torch.cuda.synchronize()
    assert np.abs(u.cpu().numpy() - host).max() < 1e-12


@pytest.mark.parametrize("m", [2, 4, 8])
def test_cupy_block_lines(rng, m):
    grid = (5, 64, 7)
    a, b, c = dominant_blocks(rng, grid, m, np.float64)
    d0 = rng.uniform(-1, 1, grid + (m,))
    for axis in range(3):
        host = d0.copy()
        tridsim.solve_block_lines(a, b, c, host, axis=axis, overwrite_d=True)
        for algorithm in ["auto", "work-sharing", "block-pcr"] + (["thread-per-system"] if m <= 4 else []):
            d = cupy.asarray(d0)
            tridsim.solve_block_lines(*(cupy.asarray(x) for x in (a, b, c)), d, axis=axis, algorithm=algorithm,
                                      overwrite_d=True)
            assert np.abs(cupy.asnumpy(d) - host).max() < 1e-11, (axis, algorithm)
        shared = [cupy.asarray(x[0, :, 0]) for x in (a, b, c)]  # (64, m, m): one matrix along axis 1
        host = d0.copy()
        tridsim.solve_block_lines(*(cupy.asnumpy(x)[None, :, None] for x in shared), host, axis=1, overwrite_d=True)
        d = cupy.asarray(d0)
        tridsim.solve_block_lines(*(x[None, :, None] for x in shared), d, axis=1, overwrite_d=True)
        assert np.abs(cupy.asnumpy(d) - host).max() < 1e-11
